// The session's document: five parts with one signal each, a new source that leaves nothing
// of the old one, the dump's rounds looked up in memory (files by op and round, every round's
// statistics, each op's newest), and the op tree showing the newest statistics of a burst of
// rounds once.
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>

#include "document/cursor.h"
#include "document/dump_rounds.h"
#include "document/op_inspection.h"
#include "document/session_document.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"
#include "views/tensor_diff_view.h"
#include "views/tensor_inspector.h"

using namespace llmscope;

namespace {
TensorRecord file(const std::string &op, int64_t round, const std::string &name)
{
    TensorRecord t;
    t.path = "/dump/" + std::to_string(round) + "/" + op + "/" + name;
    t.exec = round;
    t.opId = op;
    return t;
}
live::OpStats st(const std::string &op, double max)
{
    return {op, max, 0, 0, 1, 0, 0};
}
live::Topology topology()
{
    live::Topology t;
    t.groups = {{"0", "Layer0", "DecoderLayer", {}, ""}};
    t.ops = {{"0_0", "norm-0", "RMS_NORM", {}, ""}, {"0_1", "ffn_out-0", "MUL_MAT", {}, ""}};
    return t;
}
} // namespace

class TstDocument : public QObject {
    Q_OBJECT
private slots:
    // Files by op and round, the newest at most a round; statistics of every round kept,
    // each op's newest whatever order the rounds came in.
    void roundsInMemory()
    {
        DumpRounds r;
        DumpIndex first;
        first.root = "/dump";
        first.tensors = {file("0_1", 0, "after/outtensor0.bin"), file("0_1", 0, "after/intensor0.bin"),
                         file("0_1", 0, "statistic.csv")}; // not a tensor the inspector reads
        r.add({first, {{0, {st("0_0", 1), st("0_1", 2)}}}});
        DumpIndex later;
        later.tensors = {file("0_1", 4, "after/outtensor0.npy")};
        r.add({later, {{4, {st("0_1", 5)}}, {2, {st("0_0", 3), st("0_1", 4)}}}}); // 4 before 2
        QCOMPARE(r.records().size(), size_t(4));
        QCOMPARE(r.records().back().path, std::string("/dump/4/0_1/after/outtensor0.npy")); // in order
        qint64 round = 7;
        QCOMPARE(r.filesOf("0_1", -1, &round), QStringList{"/dump/4/0_1/after/outtensor0.npy"});
        QCOMPARE(round, qint64(4));
        QCOMPARE(r.filesOf("0_1", 3, &round),
                 (QStringList{"/dump/0/0_1/after/intensor0.bin", "/dump/0/0_1/after/outtensor0.bin"})); // sorted
        QCOMPARE(round, qint64(0));
        QVERIFY(r.filesOf("0_0", -1, &round).isEmpty());
        QCOMPARE(round, qint64(-1));
        QCOMPARE(r.statsRounds(), (std::vector<int64_t>{0, 2, 4}));
        QCOMPARE(r.statsRoundBefore(4), int64_t(2));
        QCOMPARE(r.statsRoundBefore(0), int64_t(-1));
        QVERIFY(r.hasStatsIn(2) && !r.hasStatsIn(3));
        QCOMPARE(r.statsOf("0_0", 2)->max, 3.0);
        QVERIFY(!r.statsOf("0_0", 4));
        const live::RoundStats newest = r.newestStats();
        QCOMPARE(newest.round, int64_t(4));
        std::map<std::string, double> byOp;
        for (const auto &s : newest.stats)
            byOp[s.id] = s.max;
        QCOMPARE(byOp, (std::map<std::string, double>{{"0_0", 3}, {"0_1", 5}})); // round 2 came last: not newer
        // A long run: the oldest rounds' statistics go, each op's newest stays.
        for (int64_t i = 5; i < int64_t(DumpRounds::kRoundsKept) + 5; ++i)
            r.add({{}, {{i, {st("0_1", double(i))}}}});
        QCOMPARE(r.statsRounds().size(), DumpRounds::kRoundsKept);
        QVERIFY(!r.hasStatsIn(4) && r.hasStatsIn(5));
        QCOMPARE(r.newestStats().stats.size(), size_t(2));
    }

    // One signal a part; reset empties every part and says so once.
    void fivePartsOneSignalEach()
    {
        SessionDocument doc;
        QSignalSpy source(&doc, &SessionDocument::sourceChanged), graph(&doc, &SessionDocument::graphChanged),
            rounds(&doc, &SessionDocument::roundsAdded), program(&doc, &SessionDocument::programChanged),
            result(&doc, &SessionDocument::resultChanged);
        doc.reset(SessionDocument::Source::Program, "gen");
        doc.setDumpRoot("/dump");
        QCOMPARE(doc.source().dumpRoot, QString("/dump"));
        doc.setGraph(OpGraph(topology()));
        DumpIndex files;
        files.tensors = {file("0_1", 0, "after/outtensor0.bin")};
        doc.addRounds({files, {{0, {st("0_1", 2)}}}});
        doc.editProgram([](SessionDocument::Program &p) {
            p.state = [] { return QString("Running"); };
            p.process = live::Hello{};
        });
        doc.setReplay(std::make_shared<const OpcheckResult>());
        doc.setQuantReport(std::make_shared<const QuantReport>(), "/quant");
        QCOMPARE(source.count(), 1);
        QCOMPARE(graph.count(), 1);
        QCOMPARE(rounds.count(), 1);
        QCOMPARE(program.count(), 1);
        QCOMPARE(result.count(), 2);
        QCOMPARE(result.at(0).at(0).value<SessionDocument::Result>(), SessionDocument::Result::Replay);
        QCOMPARE(result.at(1).at(0).value<SessionDocument::Result>(), SessionDocument::Result::QuantReport);
        QCOMPARE(doc.graph()->size(), size_t(3));
        QCOMPARE(doc.results().quantFolder, QString("/quant"));

        doc.reset(SessionDocument::Source::Dump, "/other");
        QCOMPARE(source.count(), 2);
        QCOMPARE(source.last().at(0).value<SessionDocument::Source>(), SessionDocument::Source::Dump);
        QCOMPARE(doc.source().name, QString("/other"));
        QVERIFY(doc.source().dumpRoot.isEmpty());
        QVERIFY(doc.graph()->empty());
        QVERIFY(doc.rounds().records().empty());
        QVERIFY(doc.rounds().newestStats().stats.empty());
        QVERIFY(doc.program().stateWords().isEmpty() && !doc.program().process);
        QVERIFY(!doc.results().replay && !doc.results().quantReport && doc.results().quantFolder.isEmpty());
        QCOMPARE(graph.count() + rounds.count() + program.count() + result.count(),
                 1 + 1 + 1 + 2); // said by sourceChanged alone
    }

    // The -ids picked and not applied are the document's: a box checked in one panel is there,
    // and a panel built later (a language switch) shows it checked; text typed, an -ids list
    // or not yet, is kept as typed; a launch's -ids written there check the boxes. Setting
    // what is there says nothing.
    void pickedIdsLiveInTheDocument()
    {
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Program, "gen");
        doc.setGraph(OpGraph(topology()));
        QSignalSpy picked(&doc, &SessionDocument::pickedIdsChanged);
        OpTreePanel panel;
        panel.follow(&doc);
        const QModelIndex box = panel.model()->indexForId("0_1");
        QVERIFY(panel.model()->setData(box, Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(doc.pickedIds(), QString("0_1"));
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.last().at(1).value<const QObject *>(), &panel); // who picked them
        OpTreePanel later;
        later.follow(&doc);
        QCOMPARE(later.idsEdit()->text(), QString("0_1"));
        QCOMPARE(later.model()->checkedIds(), QStringList{"0_1"});
        QTest::keyClicks(panel.idsEdit(), ",0_"); // typed, not yet an -ids list
        QCOMPARE(doc.pickedIds(), QString("0_1,0_"));
        QCOMPARE(later.idsEdit()->text(), QString("0_1,0_")); // the other panel follows
        doc.setPickedIds("0_1, 0_0,0_1"); // a launch's -ids: shown as the tree says them, kept as given
        QCOMPARE(panel.model()->checkedIds(), (QStringList{"0_0", "0_1"}));
        QCOMPARE(panel.idsEdit()->text(), QString("0_0,0_1"));
        QCOMPARE(doc.pickedIds(), QString("0_1, 0_0,0_1"));
        doc.setPickedIds("0_0");
        QCOMPARE(panel.model()->checkedIds(), QStringList{"0_0"});
        const int said = picked.count();
        doc.setPickedIds("0_0");
        QCOMPARE(picked.count(), said);
        doc.reset(SessionDocument::Source::Dump, "/other"); // another program's ops: none picked
        QVERIFY(doc.pickedIds().isEmpty());
        QVERIFY(panel.idsEdit()->text().isEmpty());
    }

    // The inspector asks the document for the cursor's op itself: the op picked, the round
    // moved, the op's files come later; the note when it has none.
    void inspectorFollowsTheCursor()
    {
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Dump, "/dump");
        doc.setGraph(OpGraph(topology()));
        Cursor cursor;
        TensorInspector inspector;
        inspector.follow(&doc);
        inspector.follow(&cursor);
        cursor.setOp("0_1");
        QCOMPARE(inspectOp(doc, "0_1", -1).files, QStringList());
        QVERIFY(inspectOp(doc, "0_1", -1).note.contains("-ids 0_1"));
        QCOMPARE(inspector.fileList()->count(), 0);
        DumpIndex files; // the op's files come with a round
        files.tensors = {file("0_1", 0, "after/outtensor0.bin"), file("0_1", 2, "after/outtensor0.bin")};
        doc.addRounds({files, {}});
        QCOMPARE(inspector.fileList()->count(), 1);
        QCOMPARE(inspector.fileList()->item(0)->toolTip(), QString("/dump/2/0_1/after/outtensor0.bin"));
        cursor.setRound(1); // the newest at most round 1
        QCOMPARE(inspector.fileList()->item(0)->toolTip(), QString("/dump/0/0_1/after/outtensor0.bin"));
        QCOMPARE(inspectOp(doc, "0_1", 1).round, qint64(0));
        cursor.setOp("0_0"); // another op picked: its files (none)
        QCOMPARE(inspector.fileList()->count(), 0);
        cursor.setOp("0_1");
        QCOMPARE(inspector.fileList()->count(), 1);
        QVERIFY(inspectOp(doc, "0_1", 1).title.startsWith("0_1 ffn_out-0 (MUL_MAT)"));
    }

    // The element view asks the document for the cursor's compared op itself (a PyTorch golden's
    // pairs here, which need no folder): picked, another picked, and in a view built later.
    void elementViewFollowsTheCursor()
    {
        auto r = std::make_shared<CompareResult>();
        r->acrossFrameworks = true;
        r->rows.resize(3);
        r->rows[0].golden.path = "/g/q_proj.pth";
        r->rows[0].my.path = "/m/1_2_MUL_MAT/after/outtensor0.bin";
        r->rows[1].golden.path = "/g/k_proj.pth";
        r->rows[1].my.path = "/m/1_7_MUL_MAT/after/outtensor0.bin";
        r->rows[2].golden.path = "/g/k_norm.pth";
        r->rows[2].my.path = "/m/1_7_MUL_MAT/after/outtensor1.bin";
        r->ops.resize(2);
        r->ops[0].opId = "1_2";
        r->ops[0].opType = "MUL_MAT";
        r->ops[0].rows = {0};
        r->ops[1].opId = "1_7";
        r->ops[1].opType = "MUL_MAT";
        r->ops[1].round = 3;
        r->ops[1].rows = {1, 2};
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Dump, "/g");
        doc.setComparison(r);
        Cursor cursor;
        TensorDiffView view;
        view.follow(&doc);
        view.follow(&cursor);
        cursor.setCompared(1);
        QCOMPARE(view.fileList()->count(), 2);
        QCOMPARE(view.fileList()->itemText(0), QString("k_proj.pth = after/outtensor0.bin"));
        QCOMPARE(comparedFilesOf(doc, 1).title, QString("1_7 (MUL_MAT), round 3"));
        cursor.setCompared(0);
        QCOMPARE(view.fileList()->count(), 1);
        TensorDiffView later; // a window built again
        later.follow(&doc);
        later.follow(&cursor);
        QCOMPARE(later.fileList()->count(), 1);
        QVERIFY(comparedFilesOf(doc, 2).title.isEmpty()); // no such op
        QVERIFY(comparedFilesOf(doc, -1).title.isEmpty());
    }

    // A running program's rounds of statistics come faster than anyone reads them: the op tree
    // shows each op's newest once the burst has come, not round by round.
    void opTreeShowsABurstsNewest()
    {
        SessionDocument doc;
        OpTreePanel panel;
        panel.follow(&doc);
        doc.reset(SessionDocument::Source::Program, "gen");
        doc.setGraph(OpGraph(topology()));
        const QModelIndex max = panel.model()->indexForId("0_1").siblingAtColumn(OpTreeModel::MaxColumn);
        QSignalSpy changed(panel.model(), &QAbstractItemModel::dataChanged);
        for (int64_t r = 0; r < 50; ++r)
            doc.addRounds({{}, {{r, {st("0_1", double(r))}}}});
        QCOMPARE(changed.count(), 0); // not yet: the burst is still coming
        QTRY_COMPARE(max.data().toString(), QString("49"));
        QCOMPARE(changed.count(), 1);
        // An opened dump's statistics reach the tree the same way.
        doc.reset(SessionDocument::Source::Dump, "/dump");
        doc.setGraph(OpGraph(topology()));
        doc.addRounds({{}, {{0, {st("0_0", 7)}}}});
        QTRY_COMPARE(panel.model()->indexForId("0_0").siblingAtColumn(OpTreeModel::MaxColumn).data().toString(),
                     QString("7"));
    }
};

QTEST_MAIN(TstDocument)
#include "tst_document.moc"
