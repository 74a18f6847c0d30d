#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "core/dump/dump_index.h"
#include "core/dump/token_record.h"
#include "core/requests/requests.h"
#include <QComboBox>
#include "document/cursor.h"
#include "document/session_document.h"
#include "tests/test_helpers.h"
#include "tests/views/model_print.h"
#include "views/dump_tree_model.h"
#include "views/files_page.h"

namespace {
// The synthetic dump written under dir, as a scan hands it over: a chunk a round.
std::vector<llmscope::DumpIndex> syntheticChunks(const QString &dir)
{
    testing::writeSyntheticDump(dir.toStdString());
    std::vector<llmscope::DumpIndex> chunks;
    llmscope::scanDumpByRound(dir.toStdString(), [&](const llmscope::DumpIndex &c) {
        chunks.push_back(c);
        return true;
    });
    return chunks;
}
} // namespace

class TstDumpTreeModel : public QObject {
    Q_OBJECT
private slots:
    void treeOfRoundsOpsAndTensors()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setIndex(llmscope::scanDump(dir.path().toStdString()));
        QCOMPARE(model.rowCount(), 2); // rounds 0 and 1
        const QModelIndex round1 = model.index(1, 0);
        QCOMPARE(round1.data().toString(), QString("Round 1"));
        QCOMPARE(model.rowCount(round1), 3); // 0_Embed, 1_Layer, 2_Head
        const QModelIndex layer = model.index(1, 0, round1);
        QCOMPARE(layer.data().toString(), QString("1_Layer"));
        QCOMPARE(model.rowCount(layer), 2);
        const QModelIndex linear = model.index(1, 0, layer);
        QCOMPARE(linear.data().toString(), QString("1_Linear"));
        QCOMPARE(model.rowCount(linear), 2);
        const QModelIndex out = model.index(1, 0, linear);
        QCOMPARE(out.data().toString(), QString("after/outtensor0"));
        QCOMPARE(out.siblingAtColumn(DumpTreeModel::DTypeColumn).data().toString(), QString("float32"));
        QCOMPARE(out.siblingAtColumn(DumpTreeModel::ShapeColumn).data().toString(), QString("[2,2]"));
        QVERIFY(out.data(Qt::ToolTipRole).toString().endsWith("/1_Layer/1_Linear/after/outtensor0.bin"));
        QCOMPARE(model.parent(out), linear);
        QCOMPARE(model.parent(linear), layer);
        model.setIndex({}); // reset to empty is valid too
        QCOMPARE(model.rowCount(), 0);
    }

    // The whole tree of a dump, printed: rounds, the op folders nested as msit writes them,
    // each tensor with its type and shape.
    void printedTree()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        DumpTreeModel model;
        model.setIndex(llmscope::scanDump(dir.path().toStdString()));
        const QString printed = testing::printModel(
            model, {DumpTreeModel::NameColumn, DumpTreeModel::DTypeColumn, DumpTreeModel::ShapeColumn});
        const QString round0 = printed.section(QStringLiteral("\nRound 1"), 0, 0);
        QCOMPARE(round0,
                 QString("Round 0\n"
                         "  0_Embed\n"
                         "    before/intensor0 | float32 | [2,2]\n"
                         "    after/outtensor0 | float32 | [2,2]\n"
                         "  1_Layer\n"
                         "    0_Norm\n"
                         "      before/intensor0 | float32 | [2,2]\n"
                         "      after/outtensor0 | float32 | [2,2]\n"
                         "    1_Linear\n"
                         "      before/intensor0 | float32 | [2,2]\n"
                         "      after/outtensor0 | float32 | [2,2]\n"
                         "  2_Head\n"
                         "    before/intensor0 | float32 | [2,2]\n"
                         "    after/outtensor0 | float32 | [2,2]"));
    }

    // The tree grows a round at a time; a chunk adding to a round already shown (the scan's
    // last: files outside the round folders) joins that round, it does not repeat it.
    void growsRoundByRound()
    {
        QTemporaryDir dir;
        const std::vector<llmscope::DumpIndex> chunks = syntheticChunks(dir.path());
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(chunks.size(), size_t(2));
        model.addChunk(chunks[0]);
        QCOMPARE(model.rowCount(), 1);
        const QPersistentModelIndex round0 = model.index(0, 0);
        model.addChunk(chunks[1]);
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(round0.isValid()); // round 0 kept its place
        QCOMPARE(model.index(1, 0).data().toString(), QString("Round 1"));
        llmscope::DumpIndex late = chunks[0]; // more of round 0, after round 1
        late.tensors.resize(2);
        model.addChunk(late);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, 0).data().toString(), QString("Round 0"));
        QCOMPARE(model.index(1, 0).data().toString(), QString("Round 1"));
        QCOMPARE(model.tensorCount(), size_t(18));
    }

    // The Tensor files page: a tensor clicked picks its op in its round (the inspector and the
    // heatmap follow the cursor); a round's or an op's row picks nothing.
    void aTensorClickedPicksItsOp()
    {
        QTemporaryDir dir;
        const std::vector<llmscope::DumpIndex> chunks = syntheticChunks(dir.path());
        SessionDocument doc;
        Cursor cursor;
        FilesPage page;
        page.follow(&doc);
        page.follow(&cursor);
        doc.reset(SessionDocument::Source::Dump, dir.path());
        for (const auto &c : chunks)
            doc.addRounds({c, {}});
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTreeView *tree = page.tree();
        tree->expandAll();
        const QModelIndex round1 = page.model()->index(1, 0);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(round1).center());
        QCOMPARE(cursor.op(), QString()); // a round: nothing picked
        QModelIndex leaf = round1;
        while (page.model()->rowCount(leaf) > 0)
            leaf = page.model()->index(page.model()->rowCount(leaf) - 1, 0, leaf); // its last op's last tensor
        const QString op = leaf.data(DumpTreeModel::OpIdRole).toString();
        QVERIFY(!op.isEmpty());
        tree->scrollTo(leaf);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(leaf).center());
        QCOMPARE(cursor.op(), op);
        QCOMPARE(cursor.round(), qint64(1));
    }

    // As the window has it: the tree reads the document's index as the scan fills it (the
    // same records, no copy of its own), the late chunk joining its round, and a new source
    // empties it.
    void followsTheDocument()
    {
        QTemporaryDir dir;
        const std::vector<llmscope::DumpIndex> chunks = syntheticChunks(dir.path());
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Dump, dir.path());
        doc.addRounds({chunks[0], {}}); // before the model follows: read when it starts
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.follow(&doc);
        QCOMPARE(model.rowCount(), 1);
        doc.addRounds({chunks[1], {}});
        llmscope::DumpIndex late = chunks[0];
        late.tensors.resize(2);
        doc.addRounds({late, {}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.tensorCount(), doc.rounds().records().size());
        QCOMPARE(model.tensorCount(), size_t(18));
        const QString printed = testing::printModel(model, {DumpTreeModel::NameColumn});
        QCOMPARE(printed.count(QStringLiteral("Round 0")), 1);
        QCOMPARE(printed.count(QStringLiteral("after/outtensor0")),
                 4 * 2 + 1); // 4 ops x 2 rounds, and the late embedding's
        // A leaf's tooltip is the document's record's path.
        const QModelIndex embed = model.index(0, 0, model.index(0, 0));
        QCOMPARE(embed.data().toString(), QString("0_Embed"));
        QVERIFY(model.index(0, 0, embed).data(Qt::ToolTipRole).toString().startsWith(dir.path()));
        doc.reset(SessionDocument::Source::None, {});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.tensorCount(), size_t(0));
    }

    // A server's dump: each round's row names the requests it computed tokens of, and the
    // chooser above the tree shows one request's rounds alone, as a user picks it.
    void theFilesPageListsRequests()
    {
        QTemporaryDir dir;
        const std::vector<llmscope::DumpIndex> chunks = syntheticChunks(dir.path());
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Dump, dir.path());
        FilesPage page;
        page.follow(&doc);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        for (const auto &c : chunks)
            doc.addRounds({c, {}});
        QVERIFY(page.requests()->isHidden()); // no requests known yet
        QCOMPARE(page.model()->index(1, 0).data().toString(), QString("Round 1"));
        std::map<int64_t, llmscope::TokenRecord> records;
        records[0] = {{1, 2, 3}, false, {0, 1, 0}, {0, 0, 1}, {}}; // slot 0's two tokens beside slot 1's first
        records[1] = {{4}, false, {1}, {1}, {}};
        doc.addRounds({{}, {}, llmscope::requestsOf(records)});
        QVERIFY(page.requests()->isVisible());
        QCOMPARE(page.requests()->count(), 3);
        QCOMPARE(
            page.requests()->itemText(2),
            QString(
                "Request 2: sequence 1, positions 0-1, 2 token(s) in rounds 0-1 (some shared with other sequences)"));
        QCOMPARE(page.model()->index(0, 0).data().toString(),
                 QString("Round 0 · request 1 (sequence 0), request 2 (sequence 1)"));
        QCOMPARE(page.model()->index(1, 0).data().toString(), QString("Round 1 · request 2 (sequence 1)"));
        QVERIFY(page.model()->index(1, 0).data(Qt::ToolTipRole).toString().contains("Request 2: sequence 1"));
        // Request 1 chosen with the keyboard, as a user would: round 1 leaves the tree.
        page.requests()->setFocus();
        QTest::keyClick(page.requests(), Qt::Key_Down);
        QCOMPARE(page.requests()->currentIndex(), 1);
        QVERIFY(!page.tree()->isRowHidden(0, {}));
        QVERIFY(page.tree()->isRowHidden(1, {}));
        QTest::keyClick(page.requests(), Qt::Key_Up);
        QVERIFY(!page.tree()->isRowHidden(1, {}));
        doc.reset(SessionDocument::Source::None, {});
        QVERIFY(page.requests()->isHidden());
    }
};

QTEST_MAIN(TstDumpTreeModel)
#include "tst_dumptreemodel.moc"
