// The window on a live program, driven as a user would: the launch dialog filled from a
// pasted command line, the tree filling from the probe (checked against the dump's model
// file), two operations checked with the keyboard, Apply clicked, and from the acknowledged
// round on the dump holds exactly those operations. And each way a session fails.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QImage>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QJsonArray>
#include <QScopeGuard>
#include <QTest>
#include <QTextBlock>
#include <QPlainTextEdit>
#include <QHeaderView>
#include <QTabWidget>
#include <QScrollBar>
#include <QTableView>
#include <QScrollArea>
#include <QTreeView>

#include <functional>

#include <QCoroTask>

#include <cmath>
#include <unistd.h>
#include <map>
#include <set>

#include "app/hunt/hunt_action.h"
#include "app/hunt/hunt_plan.h"
#include "app/quant_report/quant_report_action.h"
#include "app/session/launch_history.h"
#include "app/window/i18n.h"
#include "app/window/launch_dialog.h"
#include "app/window/main_window.h"
#include "app/workspace/workspace.h"
#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "core/dump/topology.h"
#include "tests/app/private_settings.h"
#include "tests/app/window_checks.h"
#include "tests/test_helpers.h"
#include "views/console_view.h"
#include "views/counters_view.h"
#include "views/diff_table_model.h"
#include "views/diff_view.h"
#include "views/error_curve_view.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"
#include "views/quant_heatmap_model.h"
#include "views/quant_report_view.h"
#include "views/tensor_diff_view.h"
#include "views/tensor_inspector.h"
#include "views/tensor_slice_model.h"
#include "views/unpaired_view.h"
#include <QTranslator>
#include "views/layer_graph_view.h"
#include "views/slice_picker.h"
#include <QGraphicsRectItem>
#include <QGraphicsView>
#include "app/spread/spread_action.h"
#include "app/workspace/job.h"
#include "core/compare/matching.h"
#include "core/tensor/bin_file.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"
#include "views/spread_table_model.h"
#include "views/spread_view.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kShots = QStringLiteral(LLMSCOPE_BUILD_DIR "/screenshots");

std::vector<int> tokensIn(const QString &console)
{
    std::vector<int> v;
    for (double d : engine::numbersAfter(console, "tokens"))
        v.push_back(int(d));
    return v;
}

// The status bar's Cancel while a long job runs, or null.
// A job's own Cancel in the status bar ("Hunt", "Report", "Compare", "Scan"), when shown.
QPushButton *visibleCancel(const QWidget &window, const QString &job)
{
    auto *b = window.findChild<QPushButton *>("Cancel" + job);
    return b && b->isVisible() && b->text() == "Cancel" ? b : nullptr;
}

void shoot(QWidget *w, const QString &name)
{
    QDir().mkpath(kShots);
    QCoreApplication::processEvents(); // pending layouts first, as a user would see them
    w->grab().save(kShots + QLatin1Char('/') + name);
}
} // namespace

// The colour the console wrote its newest line holding text in (invalid where none holds it).
QColor lineColour(QPlainTextEdit *console, const QString &text)
{
    for (QTextBlock b = console->document()->lastBlock(); b.isValid(); b = b.previous())
        if (b.text().contains(text))
            return b.begin().fragment().charFormat().foreground().color();
    return {};
}

class TstLiveSession : public QObject {
    Q_OBJECT
    testing::PrivateSettings m_settings; // first: before any QSettings is made
    QTemporaryDir m_dir;
    QString m_model;

    QString generate(int tokens, int paceMs) const
    {
        return QStringLiteral("%1/llmscope-sample-generate -m %2 -n %3 --pace-ms %4")
            .arg(kBin, m_model)
            .arg(tokens)
            .arg(paceMs);
    }

    // The 2-layer family (F32, Q8_0, Q4_0, layer 1 corrupted), made once for the tests that use it.
    QString family() const { return m_dir.path() + "/fam"; }
    bool makeFamily() const
    {
        return QFile::exists(family() + "/model-corrupt.gguf") ||
            engine::makeModel(kBin, {"--family", family(), "--layers", "2", "--corrupt-layer", "1"});
    }
    // Golden's and the corrupted layer's dumps (rounds 0 and 1, every tensor), made once for
    // the tests that compare them, whichever runs first or alone.
    bool makeComparedDumps() const
    {
        if (!makeFamily())
            return false;
        for (const QString &side : {QStringLiteral("f32"), QStringLiteral("corrupt")}) {
            const QString out = m_dir.path() + "/cmp/" + side;
            if (!QDir(out).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty())
                continue;
            QProcess p;
            p.start(kBin + "/llmscope",
                    {"dump", "--exec",
                     kBin + "/llmscope-sample-generate -m " + family() + "/model-" + side + ".gguf -n 2", "--type",
                     "model", "tensor", "-er", "0,1", "-o", out});
            if (!p.waitForFinished(120000) || p.exitCode() != 0)
                return false;
        }
        return true;
    }

    HuntSide familySide(const QString &model, int tokens) const
    {
        HuntSide s;
        s.command = {(kBin + "/llmscope-sample-generate").toStdString(), "-m", (family() + "/" + model).toStdString(),
                     "-n", std::to_string(tokens)};
        return s;
    }

    // The zoo's sample program on one of its CPU backends (stock, or a fault's), two tokens.
    HuntSide zooSide(const QString &lib) const
    {
        const QString zoo = engine::zooDir();
        HuntSide s;
        s.command = {(zoo + "/build/bin/llmscope-sample-generate").toStdString(), "-m", m_model.toStdString(), "-n",
                     "2"};
        s.settings.environment.insert("LD_LIBRARY_PATH", zoo + "/lib/" + lib);
        return s;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settings.isValid()); // remembered state: this process's own
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    void launchFillsTheTreeAndApplyChangesTheDump()
    {
        const QString out = m_dir.path() + "/live";
        LaunchDialog d;
        d.show();
        // A command line pasted into the dialog fills it.
        d.commandLineEdit()->setFocus();
        QTest::keyClicks(
            d.commandLineEdit(),
            QStringLiteral("llmscope dump --exec '%1' --type model stats -ids 1 -o %2").arg(generate(40, 60), out));
        QCOMPARE(d.commandEdit()->text(), generate(40, 60));
        QCOMPARE(d.idsEdit()->text(), QString("1"));
        const DumpOptions o = d.options();
        QCOMPARE(o.types, (std::vector<std::string>{"model", "stats"}));
        d.close();

        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy applied(w.workspace(), &Workspace::selectionApplied);
        QVERIFY(w.launch(o, d.settings()));
        OpTreePanel *panel = w.opPanel();
        OpTreeModel *model = panel->model();
        QTRY_VERIFY_WITH_TIMEOUT(model->opCount() > 60, 30000);
        QCOMPARE(panel->idsEdit()->text(), QString("1")); // the launch's -ids, checked
        QTRY_VERIFY_WITH_TIMEOUT(w.counters()->text().contains("running"), 10000);
        // the counters say what they count: the graph's operations, and those the selection dumps
        QTRY_VERIFY_WITH_TIMEOUT(
            w.counters()->text().contains(QRegularExpression(R"(\n\d+ in the graph, at most \d+ dumped in a round\n)")),
            10000);

        // The tree holds what the probe wrote in the dump's model file.
        const QString root = w.workspace()->session()->dumpRoot();
        QTRY_VERIFY_WITH_TIMEOUT(!scanDump(root.toStdString()).modelFiles.empty(), 10000);
        const TopoNode topo = readTopologyFile(scanDump(root.toStdString()).modelFiles.front());
        int compared = 0;
        for (size_t g = 0; g < topo.children.size(); ++g)
            for (size_t c = 0; c < topo.children[g].children.size(); ++c) {
                const QModelIndex i = model->indexForId(QStringLiteral("%1_%2").arg(g).arg(c));
                QVERIFY(i.isValid());
                QCOMPARE(i.siblingAtColumn(OpTreeModel::NameColumn).data().toString(),
                         QString::fromStdString(topo.children[g].children[c].name));
                ++compared;
            }
        QCOMPARE(compared + int(topo.children.size()), model->opCount());

        // Clear -ids by keyboard, then check two ops with Space, as a user would.
        panel->idsEdit()->setFocus();
        panel->idsEdit()->selectAll();
        QTest::keyClick(panel->idsEdit(), Qt::Key_Backspace);
        QVERIFY(model->checkedIds().isEmpty());
        QTreeView *view = panel->view();
        view->expandAll();
        for (const QString &id : {QStringLiteral("2_29"), QStringLiteral("3_1")}) {
            panel->selectOp(id);
            view->setFocus();
            QTest::keyClick(view, Qt::Key_Space);
        }
        QCOMPARE(panel->idsEdit()->text(), QString("2_29,3_1"));
        QTRY_VERIFY(panel->applyButton()->isEnabled());
        QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 20000);
        const qint64 from = applied.at(0).at(2).toLongLong();
        QVERIFY(from > 0);
        QCOMPARE(model->indexForId("2_29").siblingAtColumn(OpTreeModel::DumpedColumn).data().toString(),
                 QStringLiteral("from round %1").arg(from));
        QVERIFY(!model->indexForId("2_28").siblingAtColumn(OpTreeModel::DumpedColumn).data().isValid());
        QTRY_VERIFY_WITH_TIMEOUT(model->statsRound() > from, 20000); // statistics of the new ops stream in
        QVERIFY(!model->indexForId("2_29").siblingAtColumn(OpTreeModel::MaxColumn).data().toString().isEmpty());
        shoot(&w, QStringLiteral("live_session.png"));

        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 60000);
        // its end said where the selection was: a pick now takes a new run
        QVERIFY2(panel->status().startsWith("The program has ended. Check operations and press Run again with these"),
                 qPrintable(panel->status()));
        std::map<int64_t, std::set<std::string>> ops;
        for (const auto &t : scanDump(root.toStdString()).tensors)
            ops[t.exec].insert(t.opId);
        QVERIFY(ops[0].size() > 20 && ops[0].begin()->rfind("1_", 0) == 0); // -ids 1 in round 0
        int after = 0;
        for (const auto &[round, ids] : ops)
            if (round >= from) {
                QCOMPARE(ids, (std::set<std::string>{"2_29", "3_1"}));
                ++after;
            }
        QCOMPARE(after, 39 - int(from) + 1); // every round from the acknowledged one to the last
        // The program's tokens are those of a run without the probe.
        const auto plain = engine::run(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "40"});
        QCOMPARE(tokensIn(w.console()->toPlainText()), plain.tokens);
        // The heatmap filled from the streamed statistics: the applied op's cell has a value.
        HeatmapModel *heat = w.heatmap()->model();
        QVERIFY(heat->rowCount() == 4 && heat->columnCount() > 30); // embedding, 2 layers, head
        QVERIFY(std::isfinite(heat->indexForOp("2_29").data(HeatmapModel::ValueRole).toDouble()));
        QCOMPARE(heat->colours()->round(), int64_t(39));
        shoot(&w, QStringLiteral("live_heatmap.png"));
        // Picking the op in the tree shows its dumped tensors in the inspector.
        QSignalSpy inspected(w.inspector(), &TensorInspector::tensorLoaded);
        panel->selectOp("2_29");
        QVERIFY(w.inspector()->fileList()->count() >= 2); // inputs before, output after
        QVERIFY(w.inspector()->currentFile().endsWith("/after/outtensor0.bin"));
        QTRY_COMPARE_WITH_TIMEOUT(inspected.count(), 1, 10000);
        QVERIFY2(w.inspector()->statsText().contains("from the file's statistics"),
                 qPrintable(w.inspector()->statsText()));
        shoot(&w, QStringLiteral("live_session_finished.png"));
    }

    // A live dump into a disk that fills (a tmpfs mounted here, 32 MiB above the 2 GiB msit
    // keeps free): the window's counters say how many tensors were skipped, in red, and the
    // console has msit's message.
    // A run that dumps one op far to the right (-ids 2_29) on a laptop's screen: the heatmap shows
    // its cell, not a view of empty cells that reads as "nothing dumped".
    void theHeatmapShowsWhereTheDumpedOpsAre()
    {
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const DumpOptions o = parseDumpOptions({"--exec", generate(6, 0).toStdString(), "--type", "model", "stats",
                                                "-ids", "2_29", "-o", (m_dir.path() + "/one-op").toStdString()});
        QVERIFY(w.launch(o));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 60000);
        QTableView *cells = w.heatmap()->table();
        const QModelIndex op = w.heatmap()->model()->indexForOp("2_29");
        QVERIFY(op.isValid());
        QTRY_VERIFY(op.data(Qt::BackgroundRole).isValid()); // its statistics in
        QVERIFY2(cells->viewport()->width() < cells->horizontalHeader()->length(),
                 "every column in view: nothing to prove");
        QTRY_VERIFY2(cells->viewport()->rect().intersects(cells->visualRect(op)),
                     qPrintable(QString("2_29 at x %1, the view %2 px wide")
                                    .arg(cells->visualRect(op).x())
                                    .arg(cells->viewport()->width())));
    }

    void aFullDiskIsShownInTheWindow()
    {
        if (::geteuid() != 0)
            QSKIP("mounting a tmpfs needs root (CI runs as root)");
        const QString mount = m_dir.path() + "/small";
        QVERIFY(QDir().mkpath(mount));
        QCOMPARE(QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=2080m", "tmpfs", mount}), 0);
        struct Unmount {
            QString at;
            ~Unmount() { QProcess::execute("umount", {at}); }
        } unmount{mount};
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // ten rounds of every tensor: about 50 MiB, more than the 32 the disk has to give
        QVERIFY(w.launch(parseDumpOptions({"--exec", generate(10, 0).toStdString(), "--type", "tensor", "-er", "0,9",
                                           "-o", mount.toStdString()}),
                         {}));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 120000);
        const auto statuses = readProbeStatuses(w.workspace()->session()->dumpRoot().toStdString());
        QCOMPARE(statuses.size(), size_t(1));
        QVERIFY(statuses[0].skipped > 0);
        QTRY_VERIFY2(w.counters()->text().contains(
                         QStringLiteral("%1 skipped: the disk is nearly full").arg(statuses[0].skipped)),
                     qPrintable(w.counters()->text()));
        const QString console = w.console()->toPlainText();
        QVERIFY(console.contains("Disk space is not enough, it's must more than 2G"));
        // the first warnings, then a line that says the rest are counted, not a flood
        QVERIFY(statuses[0].skipped > 60);
        QCOMPARE(console.count("Disk space is not enough"), 50 + 10); // the channel's, the program's stderr's
        QVERIFY(console.contains("further warnings are left out"));
        shoot(&w, QStringLiteral("live_disk_full.png"));
    }

    // Run again (Ctrl+R) starts the same launch anew, into a dump folder of its own.
    void runAgainStartsTheSameLaunch()
    {
        MainWindow w;
        const DumpOptions o = parseDumpOptions({"--exec", generate(3, 0).toStdString(), "--type", "model", "stats",
                                                "-o", (m_dir.path() + "/again").toStdString()});
        QVERIFY(w.launch(o));
        const QString first = w.workspace()->session()->dumpRoot();
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 30000);
        QSignalSpy hello(w.workspace()->session(), &LiveSession::helloReceived);
        QAction *again = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_R))
                again = a;
        QVERIFY(again && again->isEnabled());
        again->trigger(); // Session > Run again
        QVERIFY(w.workspace()->session()->isRunning() ||
                w.workspace()->session()->state() == LiveSession::State::Finished);
        QTRY_COMPARE_WITH_TIMEOUT(hello.count(), 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 30000);
        QVERIFY(w.workspace()->session()->dumpRoot() != first);
        const DumpIndex all = scanDump(w.workspace()->session()->dumpRoot().toStdString());
        QVERIFY(!all.tensors.empty());
        QVERIFY(w.opPanel()->model()->opCount() > 60);
        // Ended, the program is run again with the ids picked in its tree: the panel's button
        // says so, and the new run dumps those ops alone.
        QPushButton *apply = w.opPanel()->applyButton();
        QVERIFY(apply->isEnabled());
        QCOMPARE(apply->text(), QString("&Run again with these"));
        QVERIFY2(apply->toolTip().contains("--pace-ms"), qPrintable(apply->toolTip()));
        const std::string picked = all.tensors.back().opId; // an op of the last layers
        w.opPanel()->setIdsText(QString::fromStdString(picked));
        const QString second = w.workspace()->session()->dumpRoot();
        QTest::mouseClick(apply, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(hello.count(), 2, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 30000);
        QVERIFY(w.workspace()->session()->dumpRoot() != second);
        QCOMPARE(w.workspace()->lastLaunch()->first.ids, picked); // Run again keeps them
        const DumpIndex some = scanDump(w.workspace()->session()->dumpRoot().toStdString());
        QVERIFY(!some.tensors.empty());
        for (const auto &t : some.tensors)
            QVERIFY2(t.opId == picked, t.opId.c_str());
        QVERIFY2(w.console()->toPlainText().contains(QString::fromStdString("Run again, dumping -ids " + picked)),
                 qPrintable(w.console()->toPlainText().right(400)));
    }

    // The ops the tree shows computed fused, by op id, type column and tooltip.
    static QMap<QString, QPair<QString, QString>> fusedInTree(OpTreeModel *model)
    {
        QMap<QString, QPair<QString, QString>> fused;
        for (int g = 0; g < 8; ++g)
            for (int c = 0; c < 200; ++c) {
                const QModelIndex i = model->indexForId(QStringLiteral("%1_%2").arg(g).arg(c));
                if (!i.isValid())
                    continue;
                const QModelIndex type = i.siblingAtColumn(OpTreeModel::TypeColumn);
                if (type.data().toString().endsWith(", fused"))
                    fused.insert(i.data().toString(), {type.data().toString(), type.data(Qt::ToolTipRole).toString()});
            }
        return fused;
    }

    // A live run with fusion kept (--keep-fusion, pasted into the Launch dialog): the tree shows,
    // while the program runs, each op the CPU computes inside a fused chain (its RMS_NORM and MUL),
    // naming the chain and the op whose output alone reaches memory; the dump opened afterwards
    // shows the same from its fusion record. Without the option no op reads fused.
    void aLiveRunShowsItsFusedChains()
    {
        LaunchDialog d;
        QTest::keyClicks(d.commandLineEdit(),
                         QStringLiteral("llmscope dump --exec '%1' --type model stats --keep-fusion -o %2")
                             .arg(generate(3, 0), m_dir.path() + "/fused"));
        QVERIFY(d.options().keepFusion);
        MainWindow w;
        w.show();
        QVERIFY(w.launch(d.options(), d.settings()));
        OpTreeModel *model = w.opPanel()->model();
        QTRY_VERIFY_WITH_TIMEOUT(model->opCount() > 60, 30000);
        const auto live = fusedInTree(model);
        // each layer's two norms, each an RMS_NORM and its MUL (2 layers and the output's norm)
        QVERIFY2(live.size() >= 4 && live.size() % 2 == 0, qPrintable(QStringList(live.keys()).join(',')));
        int norms = 0;
        for (auto it = live.begin(); it != live.end(); ++it) {
            const QString &type = it.value().first, &tip = it.value().second;
            QVERIFY2(type == "RMS_NORM, fused" || type == "MUL, fused", qPrintable(it.key() + ": " + type));
            norms += type == "RMS_NORM, fused";
            QVERIFY2(
                QRegularExpression(R"(^computed fused as RMS_NORM\+MUL by CPU; only \d+_\d+'s output reaches memory$)")
                    .match(tip)
                    .hasMatch(),
                qPrintable(it.key() + ": " + tip));
        }
        QCOMPARE(norms * 2, int(live.size()));
        qInfo("fused in the live tree: %s", qPrintable(QStringList(live.keys()).join(QLatin1Char(','))));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 30000);
        const QString root = w.workspace()->session()->dumpRoot();
        // The dump opened afterwards: its fusion record marks the same ops.
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(root)));
        QCOMPARE(fusedInTree(model), live);

        // Without --keep-fusion (ggml's fusion off so that every node is read): nothing fused.
        MainWindow plain;
        const DumpOptions o = parseDumpOptions({"--exec", generate(3, 0).toStdString(), "--type", "model", "stats",
                                                "-o", (m_dir.path() + "/unfused").toStdString()});
        QVERIFY(plain.launch(o));
        QTRY_VERIFY_WITH_TIMEOUT(plain.opPanel()->model()->opCount() > 60, 30000);
        QVERIFY(fusedInTree(plain.opPanel()->model()).isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(plain.workspace()->session()->state(), LiveSession::State::Finished, 30000);
        QVERIFY(fusedInTree(plain.opPanel()->model()).isEmpty());
    }

    // A newcomer's first launch: the dialog's default options (--type model tensor), the model
    // on Vulkan (Mesa's software device). The tree names each op's backend and the heatmap
    // fills from the dumped tensors' statistics, streamed as they are written.
    void defaultLaunchOnVulkanFillsTreeAndHeatmap()
    {
        qputenv("GGML_VK_VISIBLE_DEVICES", "0"); // the software device is a CPU-type one
        MainWindow w;
        QSignalSpy loaded(w.workspace(), &Workspace::dumpLoaded);
        const DumpOptions o = parseDumpOptions({"--exec", (generate(3, 0) + " --device vulkan").toStdString(), "-o",
                                                (m_dir.path() + "/vulkan").toStdString()});
        QCOMPARE(o.types, DumpOptions().types); // msit's default: tensor, model
        QVERIFY(w.launch(o));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 60000);
        QCOMPARE(w.workspace()->session()->exitCode(), 0);
        OpTreeModel *tree = w.opPanel()->model();
        QCOMPARE(tree->indexForId("2_2").siblingAtColumn(OpTreeModel::BackendColumn).data().toString(),
                 QString("Vulkan0")); // layer 1's Qcur product
        QCOMPARE(tree->indexForId("0_0").siblingAtColumn(OpTreeModel::BackendColumn).data().toString(),
                 QString("CPU")); // the embedding's row lookup
        QVERIFY(!w.opPanel()->view()->isColumnHidden(OpTreeModel::BackendColumn));
        HeatmapModel *heat = w.heatmap()->model();
        int filled = 0;
        for (int r = 0; r < heat->rowCount(); ++r)
            for (int c = 0; c < heat->columnCount(); ++c)
                filled += std::isfinite(heat->index(r, c).data(HeatmapModel::ValueRole).toDouble());
        QVERIFY2(filled > 40, qPrintable(QString::number(filled)));
        QTabWidget *tabs = w.findChild<QTabWidget *>();
        tabs->setCurrentWidget(w.heatmap());
        w.opPanel()->selectOp("2_2"); // layer 1 open in the tree, its backends in view
        shoot(&w, QStringLiteral("vulkan_session.png"));
    }

    // Session > Replay on a Vulkan dump with one MUL_MAT output scaled by 1.001: the op picked in
    // the tree with FAIL in its Replay column, its heatmap cell the only one flagged, in its
    // round, and the console naming it with the reason.
    void replayActionNamesTheScaledOp()
    {
        qputenv("GGML_VK_VISIBLE_DEVICES", "0");
        const QString out = m_dir.path() + "/replay";
        const auto run = engine::llmscope(kBin,
                                          {"dump", "--exec", generate(2, 0) + " --device vulkan", "--type", "model",
                                           "tensor", "-tiling", "--kv-cache", "-er", "0,1", "-o", out});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const QString root = out + "/" + QDir(out).entryList({"msit_dump_*"}, QDir::Dirs).value(0);
        QString target;
        for (QDirIterator it(root + "/tensors", {"outtensor0.bin"}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString f = it.next();
            if (f.contains("/0/2_DecoderLayer/") && f.contains("_MUL_MAT/after/") && (target.isEmpty() || f < target))
                target = f;
        }
        QVERIFY(!target.isEmpty());
        testing::scaleTensorFile(target.toStdString(), 1.001f);
        const QString id = "2_" + target.section("/2_DecoderLayer/", 1).section('_', 0, 0);

        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(root)));
        auto *act = w.findChild<QAction *>("opcheckAction");
        QVERIFY(act && act->isEnabled());
        QSignalSpy done(w.workspace()->opcheckJob(), &Job::finished);
        act->trigger();
        QVERIFY(done.wait(60000));
        QVERIFY(done.at(0).at(0).toBool());
        // The summary adds up: its verdicts count the outputs it names, every row of the replay.
        const QString summary = done.at(0).at(1).toString();
        const auto m =
            QRegularExpression(R"(^Replayed (\d+) of (\d+) operations that run a kernel; (\d+) outputs: (\d+) pass, )"
                               R"((\d+) warn, (\d+) fail, (\d+) skipped, (\d+) not replayable$)")
                .match(summary);
        QVERIFY2(m.hasMatch(), qPrintable(summary));
        int verdicts = 0;
        for (int k = 4; k <= 8; ++k)
            verdicts += m.captured(k).toInt();
        QCOMPARE(verdicts, m.captured(3).toInt());
        QCOMPARE(size_t(verdicts), w.workspace()->document()->results().replay->rows.size());
        QVERIFY(m.captured(1).toInt() <= m.captured(2).toInt());
        QCOMPARE(w.workspace()->cursor()->op(), id);
        const QModelIndex row = w.opPanel()->model()->indexForId(id);
        QCOMPARE(row.siblingAtColumn(OpTreeModel::ReplayColumn).data().toString(), QString("FAIL"));
        QVERIFY(row.siblingAtColumn(OpTreeModel::ReplayColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("systematic error"));
        QCOMPARE(HeatmapModel::Metric(w.heatmap()->metricBox()->currentData().toInt()),
                 HeatmapModel::Metric::ReplayError);
        HeatmapModel *heat = w.heatmap()->model();
        QCOMPARE(heat->colours()->round(), int64_t(0));
        int flagged = 0;
        for (int r = 0; r < heat->rowCount(); ++r)
            for (int c = 0; c < heat->columnCount(); ++c)
                flagged += heat->index(r, c).data(HeatmapModel::FlaggedRole).toBool();
        QCOMPARE(flagged, 1);
        QVERIFY(heat->indexForOp(id).data(HeatmapModel::FlaggedRole).toBool());
        const QString console = w.findChild<QPlainTextEdit *>()->toPlainText();
        QVERIFY2(console.contains("FAIL round 0 " + id), qPrintable(console));
        shoot(&w, QStringLiteral("opcheck_session.png"));
        // The Diff tab's element view: the float64 replay beside the op's output.
        QSignalSpy shown(w.workspace(), &Workspace::replayShown);
        w.workspace()->cursor()->setOp("2_0");
        w.workspace()->cursor()->setOp(id);
        QVERIFY(shown.wait(30000) || shown.count());
        QTRY_VERIFY(!shown.isEmpty());
        const auto files = shown.last().at(0).value<Workspace::OpTensors>();
        QVERIFY2(files.title.startsWith(id + " in round 0: the float64 replay"), qPrintable(files.title));
        QCOMPARE(files.test, QStringList{target});
        auto *diffView = w.findChild<TensorDiffView *>();
        QTRY_VERIFY(diffView->findChild<QLabel *>()->text().contains("float64 replay"));
        w.findChild<QTabWidget *>()->setCurrentIndex(3); // Diff
        shoot(&w, QStringLiteral("opcheck_element_view.png"));
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(root))); // a new source: the replay goes
        QVERIFY(w.opPanel()
                    ->model()
                    ->indexForId(id)
                    .siblingAtColumn(OpTreeModel::ReplayColumn)
                    .data()
                    .toString()
                    .isEmpty());
        QVERIFY(w.heatmap()->metricBox()->findData(int(HeatmapModel::Metric::ReplayError)) < 0);
    }

    // Golden against the model with a corrupted layer in the Diff tab: computed off the GUI
    // thread, the first divergent operation marked and selected, its weight named.
    void diffOfGoldenAndCorruptedLayer()
    {
        QVERIFY(makeComparedDumps());
        MainWindow w;
        w.show();
        QSignalSpy done(w.workspace(), &Workspace::compareFinished);
        QVERIFY(QCoro::waitFor(w.workspace()->compare(m_dir.path() + "/cmp/f32", m_dir.path() + "/cmp/corrupt")));
        QCOMPARE(done.count(), 1);
        DiffView *d = w.diff();
        const int first = d->model()->firstDivergentRow();
        QVERIFY(first > 0);
        const QString label = d->model()->index(first, DiffTableModel::OpColumn).data().toString();
        QVERIFY2(label.contains("ffn_out-1 (MUL_MAT)"), qPrintable(label));
        QCOMPARE(d->model()->index(first, DiffTableModel::ResultColumn).data().toString(), QString("FIRST DIVERGENT"));
        QCOMPARE(d->table()->currentIndex().data(DiffTableModel::OpIdRole).toString(),
                 d->model()->index(first, 0).data(DiffTableModel::OpIdRole).toString()); // selected
        QVERIFY2(engine::blamesWeight(d->summary().section("<b>Cause:</b> ", 1).section("<br>", 0, 0).chopped(1),
                                      "blk.1.ffn_down.weight"),
                 qPrintable(d->summary())); // the command line's and the hunt's words
        // what differs between the two runs before any tensor: the model file, by its bytes
        QVERIFY2(d->summary().contains("<b>Configuration</b> ") &&
                     d->summary().contains("model files 2 (model 1, model 1 digest)"),
                 qPrintable(d->summary()));
        const QString tip = d->summaryPanel()->findChild<QLabel *>()->toolTip(); // each difference, both sides
        QVERIFY2(tip.contains("  model 1 digest\n    golden: "), qPrintable(tip));
        // The first divergent op's output, golden and test side by side with the error.
        TensorDiffView *e = w.tensorDiff();
        QVERIFY(e->fileList()->count() >= 2);
        QVERIFY(e->fileList()->currentText().startsWith("after/outtensor0"));
        QVERIFY(e->goldenModel()->columnCount() > 100);
        QCOMPARE(e->errorModel()->columnCount(), e->goldenModel()->columnCount());
        double worst = 0;
        for (int c = 0; c < e->errorModel()->columnCount(); ++c) {
            const double expect = std::fabs(e->testModel()->value(0, c) - e->goldenModel()->value(0, c)) /
                std::fabs(e->goldenModel()->value(0, c));
            QCOMPARE(e->errorModel()->error(0, c), expect);
            worst = std::max(worst, expect);
        }
        QVERIFY(worst > 1e-3); // the corrupted weight shows in the op's output
        // A 2-D input transposed with the dimension pickers: golden, test and error follow the same slice.
        SlicePicker *p = e->picker();
        for (int i = 0; i < e->fileList()->count() && (p->rowDim() < 0 || p->colDim() < 0); ++i)
            e->fileList()->setCurrentIndex(i);
        const double g01 = e->goldenModel()->value(0, 1), t01 = e->testModel()->value(0, 1);
        const int rows = p->rowDim(), cols = p->colDim();
        QVERIFY(rows >= 0 && cols >= 0);
        p->rowDimBox()->setCurrentIndex(p->rowDimBox()->findData(cols));
        p->colDimBox()->setCurrentIndex(p->colDimBox()->findData(rows));
        QCOMPARE(e->goldenModel()->value(1, 0), g01);
        QCOMPARE(e->testModel()->value(1, 0), t01);
        QCOMPARE(e->errorModel()->rowCount(), e->goldenModel()->rowCount());
        QCOMPARE(e->errorModel()->error(1, 0), std::fabs(t01 - g01) / std::fabs(g01));
        const int all = d->table()->model()->rowCount();
        QTest::mouseClick(d->failuresOnly(), Qt::LeftButton);
        QVERIFY(d->table()->model()->rowCount() < all);
        QVERIFY(d->table()->model()->rowCount() >= 1); // the corrupted layer's failures, at least
        for (int r = 0; r < d->table()->model()->rowCount(); ++r)
            QVERIFY(!d->table()->model()->index(r, 0).data(DiffTableModel::PassedRole).toBool());
        shoot(&w, QStringLiteral("diff.png"));

        // The heatmap shows the compare's metrics on golden's ops: the flagged cell is layer 1's ffn_out.
        const QString firstId = d->model()->index(first, 0).data(DiffTableModel::OpIdRole).toString();
        HeatmapModel *h = w.heatmap()->model();
        QCOMPARE(h->colours()->firstDivergentOp(), firstId);
        // Two runs of the probe: judged by the engine standard, each op against its budget.
        QCOMPARE(HeatmapModel::Metric(w.heatmap()->metricBox()->currentData().toInt()),
                 HeatmapModel::Metric::BudgetShare);
        QModelIndex flagged;
        for (int r = 0; r < h->rowCount(); ++r)
            for (int c = 0; c < h->columnCount(); ++c)
                if (h->index(r, c).data(HeatmapModel::FirstDivergentRole).toBool()) {
                    QVERIFY(!flagged.isValid());
                    flagged = h->index(r, c);
                }
        QVERIFY(flagged.isValid());
        QCOMPARE(h->headerData(flagged.row(), Qt::Vertical).toString(), QString("Layer1 (blk.1)"));
        QCOMPARE(h->headerData(flagged.column(), Qt::Horizontal).toString(), QString("ffn_out"));
        QVERIFY(flagged.data(HeatmapModel::ValueRole).toDouble() > 1); // beyond its budget
        const QModelIndex sameKindLayer0 = h->index(flagged.row() - 1, flagged.column());
        QVERIFY(sameKindLayer0.data(HeatmapModel::ValueRole).toDouble() < 1e-5); // golden's layer 0 agrees
        QCOMPARE(w.opPanel()->currentOpId(), firstId); // and the tree has it

        // The error by layer: flat before layer 1, up from it on; a click on its point picks its worst op.
        ErrorCurveView *curves = w.errorCurves();
        const int64_t round = d->model()->index(first, DiffTableModel::RoundColumn).data().toLongLong();
        const auto &out = curves->outputCurves().at(round);
        const int layer1 = flagged.row();
        QVERIFY2(out[size_t(layer1 - 1)] < 1e-5 && out[size_t(layer1)] > 1e-3,
                 qPrintable(QString("%1 %2").arg(out[size_t(layer1 - 1)]).arg(out[size_t(layer1)])));
        QVERIFY(curves->addedCurves().at(round)[size_t(layer1)] > 1e-3);
        QVERIFY(curves->worstOp(round, layer1).startsWith(QString::number(layer1) + "_"));
        { // on a 1024-wide screen the curves' names whole, or no legend and the note says which is which
            const QSize was = w.size();
            w.resize(1024, 700);
            QCoreApplication::processEvents();
            QVERIFY2(curves->outputCurves().size() >= 2, "rounds enough to crowd the legend");
            QVERIFY2(testing::cutLegendNames(curves->chartView()->chart()).isEmpty(),
                     qPrintable(curves->legendPlace() + ": " +
                                testing::cutLegendNames(curves->chartView()->chart()).join(", ")));
            w.resize(was);
            QCoreApplication::processEvents();
        }
        // The graph shows layer 1 with the first divergent op framed red, coloured as its heatmap cell.
        LayerGraphView *graph = w.layerGraph();
        QCOMPARE(graph->layer(), firstId.section('_', 0, 0));
        QGraphicsRectItem *box = graph->opItem(firstId);
        QVERIFY(box);
        QCOMPARE(box->pen().color(), QColor(220, 0, 0));
        QCOMPARE(box->brush().color(), flagged.data(Qt::BackgroundRole).value<QBrush>().color());
        QVERIFY(box->brush().color().red() > box->brush().color().blue() + 60); // failed: red
        QVERIFY(graph->graph().opCount() > 25);
        auto *tabs = w.findChild<QTabWidget *>();
        tabs->setCurrentWidget(graph); // laid out while hidden: fitted to its size once shown
        QCoreApplication::processEvents();
        const int boxWidth = graph->view()->mapFromScene(box->rect()).boundingRect().width();
        QVERIFY2(
            boxWidth > 25,
            qPrintable(QString("%1 px: the graph is fitted to the tab's size, not the hidden one's").arg(boxWidth)));
        shoot(&w, QStringLiteral("diff_graph.png"));
        // A click on another box picks that op in the tree.
        const QString other = QString::fromStdString(graph->graph().nodes[2].id);
        QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, {},
                          graph->view()->mapFromScene(graph->opItem(other)->rect().center()));
        QCOMPARE(w.opPanel()->currentOpId(), other);
        tabs->setCurrentWidget(w.heatmap());
        w.opPanel()->selectOp(firstId); // the culprit picked again: its cell in view for the picture
        // Dumps without kernel CSVs say nothing of backends: no empty column for them.
        QVERIFY(w.opPanel()->view()->isColumnHidden(OpTreeModel::BackendColumn));
        QCoreApplication::processEvents();
        shoot(&w, QStringLiteral("diff_heatmap.png"));

        // Exported: msit's CSV, the JSON, and pictures of the views.
        QTemporaryDir exported;
        QString error;
        const QStringList files = w.exportDiff(exported.path(), &error);
        QVERIFY2(files.size() == 6, qPrintable(error));
        const auto cmp = w.workspace()->comparison();
        QVERIFY(cmp && !cmp->rows.empty());
        QFile csv(files[0]);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> csvLines = csv.readAll().split('\n');
        QVERIFY(csvLines.value(0).startsWith("token_id,data_id,golden_data_path"));
        QCOMPARE(size_t(csvLines.size() - (csvLines.last().isEmpty() ? 2 : 1)), cmp->rows.size()); // a line a pair
        QFile json(files[1]);
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(size_t(doc["rows"].toArray().size()), cmp->rows.size());
        QCOMPARE(size_t(doc["ops"].toArray().size()), cmp->ops.size());
        QCOMPARE(doc["first_divergent"].toInt(), cmp->firstDivergent);
        for (int i = 2; i < 6; ++i) {
            const QImage img(files[i]);
            QVERIFY2(!img.isNull() && img.width() > 200,
                     qPrintable(files[i] + QString(" %1x%2").arg(img.width()).arg(img.height())));
        }
        QString noDisk;
        QVERIFY(w.exportDiff(QStringLiteral("/proc/llmscope-cannot-write"), &noDisk).isEmpty());
        QVERIFY(!noDisk.isEmpty());
    }

    // The same diff in Chinese: tabs, metrics and the hunt's words, with pictures of each view.
    void diffInChinese()
    {
        QVERIFY(makeComparedDumps());
        // English again for the tests after it, however this one ends
        const auto english = qScopeGuard([] {
            for (QTranslator *t : qApp->findChildren<QTranslator *>())
                QCoreApplication::removeTranslator(t);
        });
        QCOMPARE(installTranslations(*qApp, "zh_CN"), QString("zh_CN"));
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QCoro::waitFor(w.workspace()->compare(m_dir.path() + "/cmp/f32", m_dir.path() + "/cmp/corrupt")));
        auto *tabs = w.findChild<QTabWidget *>();
        QStringList names;
        for (int i = 0; i < tabs->count(); ++i)
            names << tabs->tabText(i);
        QVERIFY2(names.contains(QString::fromUtf8("计算图")) && names.contains(QString::fromUtf8("热力图")),
                 qPrintable(names.join(',')));
        QCOMPARE(w.heatmap()->metricBox()->currentText(), QString::fromUtf8("比对：自身引入误差 / 其预算"));
        QVERIFY(hunt::stepCompareStats().startsWith(QString::fromUtf8("第 2/4 步")));
        QVERIFY(w.diff()->summary().contains(QString::fromUtf8("首个偏离")));
        QVERIFY2(w.diff()->summary().contains(
                     QString::fromUtf8("原因：</b>权重 blk.1.ffn_down.weight 在标杆与待测之间不同（相对误差 ")),
                 qPrintable(w.diff()->summary()));
        QVERIFY2(w.diff()->summary().contains(QString::fromUtf8("配置</b> ")) &&
                     w.diff()->summary().contains(QString::fromUtf8("模型文件 2（模型 1、模型 1 摘要）")),
                 qPrintable(w.diff()->summary()));
        // the standard named and explained in Chinese, core's own words among what differs too
        QVERIFY2(w.diff()->summary().contains(
                     QString::fromUtf8("rounding（舍入标准）：两侧都在 CPU 上以相同的类型运行（命令 不同）")),
                 qPrintable(w.diff()->summary()));
        // how the pairs were made, worded by the window from what core found
        QVERIFY2(w.diff()->summary().contains(QString::fromUtf8("相同拓扑")) ||
                     w.diff()->summary().contains(QString::fromUtf8("按层、节点名与算子")),
                 qPrintable(w.diff()->summary()));
        shoot(&w, QStringLiteral("diff_zh_CN.png"));
        { // the summary's first line in view at the top of its area, not centred below an empty band
            auto *area = w.findChild<QScrollArea *>("DiffSummary");
            QVERIFY(area);
            const int ink = testing::inkAtTop(area->viewport());
            QVERIFY2(ink > 20, qPrintable(QString("%1 dark pixels in the summary's first line").arg(ink)));
        }
        tabs->setCurrentWidget(w.heatmap());
        shoot(&w, QStringLiteral("diff_heatmap_zh_CN.png"));
        tabs->setCurrentWidget(w.layerGraph());
        w.layerGraph()->fit();
        shoot(&w, QStringLiteral("diff_graph_zh_CN.png"));
    }

    // Session > Hunt on golden and the corrupted layer: both run live with statistics, the test
    // once more reading nothing (the observer check), then both again with the suspect's
    // tensors; it ends on layer 1's ffn_out with the element diff open and the whole model's
    // statistics diff in the heatmap.
    void huntActionEndsOnTheCorruptedOp()
    {
        QVERIFY(makeFamily());
        auto side = [&](const QString &model) { return familySide(model, 2); };
        MainWindow w;
        w.show();
        QSignalSpy steps(w.workspace()->hunt(), &HuntAction::stepStarted);
        QSignalSpy probes(w.workspace()->session(), &LiveSession::helloReceived);
        QSignalSpy ended(w.workspace()->hunt(), &HuntAction::finished);
        const QString out = m_dir.path() + "/hunt";
        const bool found =
            QCoro::waitFor(w.workspace()->runHunt(side("model-f32.gguf"), side("model-corrupt.gguf"), out, "0,0"));
        QVERIFY2(found, qPrintable(w.workspace()->hunt()->log().join('\n')));
        QCOMPARE(steps.count(), 4);
        QCOMPARE(probes.count(), 5); // each of the five runs was live in the window
        QVERIFY2(w.workspace()->hunt()->log().join('\n').contains("observing changed nothing: "),
                 qPrintable(w.workspace()->hunt()->log().join('\n')));
        for (const QString &recent : LaunchHistory::recent()) // the user's launches only
            QVERIFY2(!recent.contains(out), qPrintable(recent));
        const QString log = w.workspace()->hunt()->log().join('\n');
        QCOMPARE(ended.count(), 1);
        const QString conclusion = ended.at(0).at(1).toString();
        QVERIFY2(
            QRegularExpression(
                R"(^found: round 0, op 2_\d+ ffn_out-1 \(MUL_MAT\) in 2_DecoderLayer/\d+_MUL_MAT, llama.cpp's layer 1 \(blk\.1\)\n)")
                .match(conclusion)
                .hasMatch(),
            qPrintable(log));
        QVERIFY2(engine::blamesWeight(conclusion, "blk.1.ffn_down.weight"), qPrintable(log));
        QVERIFY(w.console()->toPlainText().contains("[hunt] step 3 of 4"));
        for (const char *d : {"golden-stats", "test-stats", "golden-tensors", "test-tensors"})
            QVERIFY2(!QDir(out + "/" + d).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty(), d);
        // The element diff is open on the op; the heatmap holds every op's statistics diff.
        TensorDiffView *e = w.tensorDiff();
        QVERIFY(e->fileList()->count() >= 2);
        QVERIFY(e->fileList()->currentText().startsWith("after/outtensor0"));
        QVERIFY(e->goldenModel()->columnCount() > 100);
        HeatmapModel *h = w.heatmap()->model();
        const QModelIndex flagged = h->indexForOp(h->colours()->firstDivergentOp());
        QCOMPARE(h->headerData(flagged.row(), Qt::Vertical).toString(), QString("Layer1 (blk.1)"));
        QCOMPARE(h->headerData(flagged.column(), Qt::Horizontal).toString(), QString("ffn_out"));
        int valued = 0;
        for (int r = 0; r < h->rowCount(); ++r)
            for (int c = 0; c < h->columnCount(); ++c)
                valued += !std::isnan(h->index(r, c).data(HeatmapModel::ValueRole).toDouble());
        QVERIFY2(valued > 50, qPrintable(QString::number(valued))); // the statistics pass, not the one op
        // The metric the heatmap opens on tells the culprit from every op that passed: red
        // against blue, whatever share of its budget each used.
        const QColor culprit = flagged.data(Qt::BackgroundRole).value<QBrush>().color();
        QVERIFY2(culprit.red() > culprit.blue() + 60, qPrintable(culprit.name()));
        // The culprit's cell says what the Diff tab says: measured element by element, the others estimated.
        const QString culpritTip = flagged.data(Qt::ToolTipRole).toString();
        QVERIFY2(culpritTip.contains("element by element") && culpritTip.contains("cosine 0.99"),
                 qPrintable(culpritTip));
        QVERIFY2(culpritTip.contains("blk.1.ffn_down.weight"), qPrintable(culpritTip)); // the blamed weight, named
        int passedRed = 0, failed = 0, addingNothing = 0, notPale = 0;
        for (int r = 0; r < h->rowCount(); ++r)
            for (int c = 0; c < h->columnCount(); ++c) {
                const QString id = h->index(r, c).data(HeatmapModel::OpIdRole).toString();
                const auto cell = h->colours()->diffOf(id, h->colours()->firstDivergentRound());
                if (!cell)
                    continue;
                const QColor k = h->index(r, c).data(Qt::BackgroundRole).value<QBrush>().color();
                failed += !cell->passed;
                passedRed += cell->passed && k.red() > k.blue();
                if (cell->passed && h->colours()->valueOf(id) == 0) { // adds nothing: the palest blue
                    ++addingNothing;
                    notPale += k != QColor(222, 235, 247);
                }
            }
        QVERIFY(failed >= 1);
        QCOMPARE(passedRed, 0);
        QVERIFY(addingNothing > 0);
        QCOMPARE(notPale, 0);
        // The hunt's own runs are not the user's launches: nothing to run again, the Launch
        // dialog not filled with a run that dumps into the hunt's folder.
        QVERIFY(!w.workspace()->lastLaunch());
        QVERIFY(!w.workspace()->canRunAgain());
        // The weight the verdict names, searched by its short name: the culprit is among the
        // operations found (they read blk.N.ffn_down.weight).
        const QString culpritId = h->colours()->firstDivergentOp();
        QTest::keyClicks(w.opPanel()->searchEdit(), "ffn_down");
        QVERIFY(!w.opPanel()->searchNote()->isVisible());
        QTreeView *opView = w.opPanel()->view();
        const QStringList reading = testing::shownLeaves(*opView->model(), OpTreeModel::OpIdRole);
        QVERIFY2(reading.contains(culpritId), qPrintable(reading.join(' ') + " / " + culpritId));
        QVERIFY2(reading.size() <= 4, qPrintable(reading.join(' '))); // the down projections, not every op
        w.opPanel()->searchEdit()->clear();
        QCOMPARE(w.layerGraph()->layer(), QString("2"));
        // The layer graph marks the blamed weight: red, its tooltip saying why
        QGraphicsRectItem *blamed = w.layerGraph()->blamedItem();
        QVERIFY(blamed);
        QVERIFY2(blamed->toolTip().startsWith(
                     "weight blk.1.ffn_down.weight\nthe first divergent operation's error comes in"),
                 qPrintable(blamed->toolTip()));
        QCOMPARE(blamed->pen().color(), QColor(220, 0, 0));
        shoot(&w, QStringLiteral("hunt.png"));
        auto *pages = w.findChild<QTabWidget *>();
        pages->setCurrentWidget(w.layerGraph());
        shoot(&w, QStringLiteral("hunt_graph.png"));
    }

    // A fused kernel's fault hunted in the window (the kernel zoo's fused RMS_NORM+MUL leaving
    // each row's last 8 columns unnormalized): the hunt names the chain, and the Diff page shows
    // the chain as one row naming its ops, the first divergent, its tooltip saying it was
    // computed fused; the unfused measure that cleared its ops does not replace it there.
    void aFusedChainInTheWindow()
    {
        const QString zoo = engine::zooDir();
        if (!QFile::exists(zoo + "/build/bin/llmscope-sample-generate") || !QDir(zoo + "/lib/fused-norm-tail").exists())
            QSKIP(qPrintable("the kernel zoo is not built in " + zoo + ": run scripts/kernel_zoo"));
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QSignalSpy ended(w.workspace()->hunt(), &HuntAction::finished);
        const bool found = QCoro::waitFor(
            w.workspace()->runHunt(zooSide("stock"), zooSide("fused-norm-tail"), m_dir.path() + "/hunt-fused", "0,0"));
        const QString log = w.workspace()->hunt()->log().join('\n');
        QVERIFY2(found, qPrintable(log));
        QCOMPARE(ended.count(), 1);
        QVERIFY2(ended.at(0).at(1).toString().startsWith("found: round 0, the fused chain RMS_NORM+MUL"),
                 qPrintable(log));
        DiffTableModel *m = w.diff()->model();
        const int row = m->firstDivergentRow();
        QVERIFY(row >= 0);
        const QModelIndex cell = m->index(row, DiffTableModel::OpColumn);
        QVERIFY2(QRegularExpression(R"(^1_\d+\+1_\d+ attn_norm-0 \(RMS_NORM\+MUL, fused\)$)")
                     .match(cell.data().toString())
                     .hasMatch(),
                 qPrintable(cell.data().toString()));
        QVERIFY2(
            cell.data(Qt::ToolTipRole).toString().startsWith("golden and test computed these ops as one fused kernel"),
            qPrintable(cell.data(Qt::ToolTipRole).toString()));
        QCOMPARE(m->index(row, DiffTableModel::ResultColumn).data().toString(), QString("FIRST DIVERGENT"));
        QVERIFY2(w.diff()->summary().contains("First divergent: <b>" + cell.data().toString().toHtmlEscaped() + "</b>"),
                 qPrintable(w.diff()->summary()));
        // The element view opens where the fault is: the rows' last 8 columns
        TensorDiffView *e = w.tensorDiff();
        QVERIFY(e->worstShown().isValid());
        QVERIFY2(e->worstShown().column() >= 256 - 8, qPrintable(QString::number(e->worstShown().column())));
        auto *tabs = w.findChild<QTabWidget *>();
        tabs->setCurrentWidget(w.diff());
        w.diff()->table()->scrollTo(cell);
        shoot(&w, QStringLiteral("hunt_fused.png"));

        // The heatmap shows the chain as one cell: the norm (never in memory) spans into its
        // product, coloured and marked as the chain's end, its tooltip naming both ops.
        HeatmapView *heat = w.heatmap();
        HeatmapModel *hm = heat->model();
        const QModelIndex end = hm->indexForOp(heat->colours()->firstDivergentOp());
        QVERIFY(end.isValid() && end.column() > 0);
        const QModelIndex norm = hm->index(end.row(), end.column() - 1);
        QVERIFY2(hm->data(norm, HeatmapModel::OpIdRole).toString() != hm->data(end, HeatmapModel::OpIdRole).toString(),
                 "the norm has a cell of its own");
        QCOMPARE(heat->table()->columnSpan(norm.row(), norm.column()), 2);
        QCOMPARE(hm->data(norm, Qt::BackgroundRole), hm->data(end, Qt::BackgroundRole));
        QCOMPARE(hm->data(norm, Qt::DisplayRole).toString(), QString("\u25C6")); // the first divergent: the chain
        const QString tip = hm->data(norm, Qt::ToolTipRole).toString();
        QVERIFY2(QRegularExpression(
                     R"(computed fused as RMS_NORM\+MUL by golden and test: 1_\d+ norm-0, 1_\d+ attn_norm-0; )"
                     R"(only 1_\d+'s output reached memory)")
                     .match(tip)
                     .hasMatch(),
                 qPrintable(tip));
        // The operation tree says it too: the norm's type reads "RMS_NORM, fused", its tooltip the chain.
        const QString normId = hm->data(norm, HeatmapModel::OpIdRole).toString();
        const QModelIndex inTree = w.opPanel()->model()->indexForId(normId).siblingAtColumn(OpTreeModel::TypeColumn);
        QCOMPARE(inTree.data().toString(), QString("RMS_NORM, fused"));
        QVERIFY2(inTree.data(Qt::ToolTipRole)
                     .toString()
                     .startsWith("computed fused as RMS_NORM+MUL by golden and test (round 0)"),
                 qPrintable(inTree.data(Qt::ToolTipRole).toString()));
        tabs->setCurrentWidget(heat);
        shoot(&w, QStringLiteral("hunt_fused_heatmap.png"));
    }

    // State across rounds in the window: the hunt asked about round 1 alone, the zoo's
    // cache-last-row fault (the prompt's round leaves its last row out of the KV cache). Round
    // 1's attention departs on the cache it reads; the hunt follows the cache back to round 0's
    // write and ends there, and the Diff page opens on that write as the first divergent op.
    void aCacheFaultFollowedBackInTheWindow()
    {
        const QString zoo = engine::zooDir();
        if (!QFile::exists(zoo + "/build/bin/llmscope-sample-generate") || !QDir(zoo + "/lib/cache-last-row").exists())
            QSKIP(qPrintable("the kernel zoo is not built in " + zoo + ": run scripts/kernel_zoo"));
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QSignalSpy ended(w.workspace()->hunt(), &HuntAction::finished);
        const bool found = QCoro::waitFor(
            w.workspace()->runHunt(zooSide("stock"), zooSide("cache-last-row"), m_dir.path() + "/hunt-cache", "1,1"));
        const QString log = w.workspace()->hunt()->log().join('\n');
        QVERIFY2(found, qPrintable(log));
        QVERIFY2(log.contains("following the state back"), qPrintable(log));
        QVERIFY2(QRegularExpression(R"(^found: round 0, op \S+ cache_[kv]_l0 \(view\) \(SET_ROWS\))")
                     .match(ended.at(0).at(1).toString())
                     .hasMatch(),
                 qPrintable(log));
        DiffTableModel *m = w.diff()->model();
        const int row = m->firstDivergentRow();
        QVERIFY(row >= 0);
        const QModelIndex cell = m->index(row, DiffTableModel::OpColumn);
        QVERIFY2(cell.data().toString().contains("(SET_ROWS)"), qPrintable(cell.data().toString()));
        auto *tabs = w.findChild<QTabWidget *>();
        tabs->setCurrentWidget(w.diff());
        w.diff()->table()->scrollTo(cell);
        shoot(&w, QStringLiteral("hunt_cache.png"));
    }

    // Cancel during the first run stops the program and ends the hunt, saying so.
    void huntIsCancelled()
    {
        MainWindow w;
        w.show();
        HuntSide slow;
        slow.command = {(kBin + "/llmscope-sample-generate").toStdString(),
                        "-m",
                        m_model.toStdString(),
                        "-n",
                        "200",
                        "--pace-ms",
                        "200"};
        QSignalSpy finished(w.workspace()->hunt(), &HuntAction::finished);
        QSignalSpy topology(w.workspace()->session(), &LiveSession::topologyReceived);
        w.workspace()->runHunt(slow, slow, m_dir.path() + "/hunt-cancel", "0,0");
        QVERIFY(topology.wait(30000));
        QPushButton *cancel = visibleCancel(w, "Hunt");
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.wait(15000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QVERIFY2(finished.at(0).at(1).toString().startsWith("cancelled"), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(w.workspace()->session()->state(), LiveSession::State::Stopped);
        QVERIFY(!w.workspace()->hunt()->isRunning());
        // its end said as a failure's, not as a step's (the hunt did not find anything)
        QCOMPARE(lineColour(w.console(), "[hunt] cancelled"), QColor("#b00000"));
        // the hunt's run is not the user's launch: no "press Run again" for a button not offered
        QVERIFY2(w.opPanel()->status().startsWith("The program has ended."), qPrintable(w.opPanel()->status()));
        QVERIFY2(!w.opPanel()->status().contains("Run again"), qPrintable(w.opPanel()->status()));
    }

    // Session > Quantization report on F32 against Q4_0: its five steps as progress, then the
    // Quantization tab with the weights x layers heatmap and the ranked bars; a click on a cell
    // picks that weight.
    void quantReportActionShowsTheRanking()
    {
        QVERIFY(makeFamily());
        auto side = [&](const QString &model) { return familySide(model, 4); };
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QSignalSpy steps(w.workspace()->quantReport(), &QuantReportAction::stepStarted);
        const QString out = m_dir.path() + "/quant";
        const bool ok = QCoro::waitFor(
            w.workspace()->runQuantReport(side("model-f32.gguf"), side("model-q4_0.gguf"), out, "0,3", "10%"));
        QVERIFY2(ok, qPrintable(w.console()->toPlainText()));
        QCOMPARE(steps.count(), 5); // the fifth: the test's products replayed on their own inputs
        QVERIFY(QDir(out + "/test-products").exists());
        QVERIFY(QFile::exists(out + "/tensor-types.txt"));
        QuantReportView *v = w.quantReportView();
        QVERIFY(v->isVisible());
        QuantHeatmapModel *m = v->model();
        QCOMPARE(m->columnCount(), 3); // layers 0 and 1, and the model's own weights
        QCOMPARE(m->rowCount(), 9); // 7 matrices a layer, token_embd, output
        QCOMPARE(m->headerData(0, Qt::Vertical, Qt::DisplayRole).toString(), QString("attn_q"));
        QVERIFY(v->summary()->text().contains("KL divergence"));
        QCOMPARE(v->barWeights().size(), QuantReportView::kBars); // of 16 weights
        QCOMPARE(v->barWeights().first(), QString::fromStdString(m->report().weights.front().name));
        const QModelIndex cell = m->indexOf("blk.1.ffn_down.weight");
        QVERIFY(cell.isValid());
        QVERIFY(cell.data(Qt::ToolTipRole).toString().contains("share of the logits' error"));
        QSignalSpy picked(v, &QuantReportView::weightSelected);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCoreApplication::processEvents(); // the new tab laid out before its cell is clicked
        QTest::mouseClick(v->table()->viewport(), Qt::LeftButton, {}, v->table()->visualRect(cell).center());
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.at(0).at(0).toString(), QString("blk.1.ffn_down.weight"));
        shoot(&w, QStringLiteral("quant_report.png"));
        // The document holds the report; the view reads it there, no copy, and it outlives the
        // scan of the last run that follows.
        SessionDocument *doc = w.workspace()->document();
        QVERIFY(doc->results().quantReport);
        QCOMPARE(&m->report(), doc->results().quantReport.get());
        QCOMPARE(doc->results().quantFolder, out);
        QTRY_VERIFY(!w.workspace()->scanJob()->isRunning());
        QVERIFY(doc->results().quantReport);
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs->indexOf(v) >= 0);
        // Another source: the report was of the runs before it, and its tab goes.
        QVERIFY(makeComparedDumps());
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(m_dir.path() + "/cmp/f32")));
        QVERIFY(!doc->results().quantReport);
        QCOMPARE(tabs->indexOf(v), -1);
    }

    // Cancel during the report's first run stops it and every program it started.
    void quantReportIsCancelled()
    {
        MainWindow w;
        w.show();
        HuntSide slow;
        slow.command = {(kBin + "/llmscope-sample-generate").toStdString(),
                        "-m",
                        m_model.toStdString(),
                        "-n",
                        "201",
                        "--pace-ms",
                        "200"};
        auto running = [] { // a process of the slow launch alive: the report, its dump or the program
            for (const QString &pid : QDir("/proc").entryList(QDir::Dirs))
                if (pid.toInt() > 0) {
                    QFile f("/proc/" + pid + "/cmdline");
                    if (f.open(QIODevice::ReadOnly) && f.readAll().replace('\0', ' ').contains("-n 201 --pace-ms 200"))
                        return true;
                }
            return false;
        };
        QVERIFY(!running());
        QSignalSpy finished(w.workspace()->quantReport(), &QuantReportAction::finished);
        QSignalSpy steps(w.workspace()->quantReport(), &QuantReportAction::stepStarted);
        w.workspace()->runQuantReport(slow, slow, m_dir.path() + "/quant-cancel", "0,199", "10%");
        QCOMPARE(steps.count(), 1); // step 1 said as golden's launch starts, in the window
        QTRY_VERIFY_WITH_TIMEOUT(running(), 30000); // golden's program running, live in the window
        QCOMPARE(w.workspace()->session()->state() == LiveSession::State::Starting ||
                     w.workspace()->session()->isRunning(),
                 true);
        QPushButton *cancel = visibleCancel(w, "Report");
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(finished.at(0).at(1).toString(), QString("quantization report cancelled"));
        QVERIFY(!w.workspace()->quantReport()->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!running(), 10000);
    }

    // Ops the matching cannot pair (golden dumped 2_29, test 2_30): listed on each side, paired
    // by hand, saved as a --mapping file, and compared again with it they pair.
    void unpairedOpsArePairedByHand()
    {
        for (const auto &[side, id] : {std::pair{QStringLiteral("g"), QStringLiteral("2_29")},
                                       std::pair{QStringLiteral("t"), QStringLiteral("2_30")}}) {
            QProcess p;
            p.start(kBin + "/llmscope",
                    {"dump", "--exec", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", "--type", "model",
                     "tensor", "-ids", id, "-er", "0,0", "-o", m_dir.path() + "/unpaired/" + side});
            QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
        }
        MainWindow w;
        w.show();
        QVERIFY(QCoro::waitFor(w.workspace()->compare(m_dir.path() + "/unpaired/g", m_dir.path() + "/unpaired/t")));
        UnpairedView *u = w.unpaired();
        QCOMPARE(u->goldenList()->count(), 1);
        QCOMPARE(u->testList()->count(), 1);
        QVERIFY(u->goldenList()->item(0)->text().startsWith("2_29"));
        QVERIFY(!u->compareButton()->isEnabled());
        u->goldenList()->setCurrentRow(0);
        u->testList()->setCurrentRow(0);
        QTest::mouseClick(u->pairButton(), Qt::LeftButton);
        QCOMPARE(u->pairList()->count(), 1);
        QCOMPARE(u->mapping().at("2_29"), std::string("2_30"));
        const QString mapping = m_dir.path() + "/unpaired/mapping.json";
        QString error;
        QVERIFY2(u->saveMapping(mapping, &error), qPrintable(error));
        QCOMPARE(loadOpMapping(mapping.toStdString()).at("2_29"), std::string("2_30"));
        QSignalSpy done(w.workspace(), &Workspace::compareFinished);
        QTest::mouseClick(u->compareButton(), Qt::LeftButton);
        QVERIFY(done.wait(60000));
        QVERIFY(w.workspace()->comparison()->onlyGolden.empty() && w.workspace()->comparison()->onlyMy.empty());
        QVERIFY(!w.workspace()->comparison()->rows.empty());
        QCOMPARE(w.workspace()->comparison()->rows.front().my.opId, std::string("2_30"));
        QCOMPARE(u->pairList()->count(), 1); // the pairs stay for the same two dumps
    }

    // Compare again's mapping file lies in the view's own temporary folder, removed with the view.
    void compareAgainsMappingGoesWithTheView()
    {
        CompareResult r;
        r.goldenRoot = "/golden";
        r.myRoot = "/test";
        TensorRecord g, t;
        g.opId = "2_29";
        g.opName = "MUL";
        t.opId = "2_30";
        t.opName = "MUL";
        r.onlyGolden.push_back(g);
        r.onlyMy.push_back(t);
        QString path;
        {
            UnpairedView v;
            v.setResult(&r);
            v.goldenList()->setCurrentRow(0);
            v.testList()->setCurrentRow(0);
            QTest::mouseClick(v.pairButton(), Qt::LeftButton);
            QSignalSpy again(&v, &UnpairedView::compareAgain);
            QTest::mouseClick(v.compareButton(), Qt::LeftButton);
            QCOMPARE(again.count(), 1);
            path = again.first().first().toString();
            QCOMPARE(loadOpMapping(path.toStdString()).at("2_29"), std::string("2_30"));
            QVERIFY(QFileInfo(path).absolutePath() != QDir::tempPath());
        }
        QVERIFY(!QFile::exists(path));
    }

    // --type onnx from the window: the ONNX files are written when the program ends, as
    // llmscope dump writes them.
    void onnxWrittenWhenTheProgramEnds()
    {
        MainWindow w;
        QSignalSpy loaded(w.workspace(), &Workspace::dumpLoaded);
        const DumpOptions o = parseDumpOptions({"--exec", generate(2, 0).toStdString(), "--type", "model", "onnx",
                                                "-er", "0,0", "-o", (m_dir.path() + "/win-onnx").toStdString()});
        QVERIFY(w.launch(o));
        QVERIFY(loaded.wait(60000));
        const QString root = w.workspace()->session()->dumpRoot();
        QVERIFY(!QDir(root + "/onnx").entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
        const QString pid = QDir(root + "/onnx").entryList(QDir::Dirs | QDir::NoDotAndDotDot).first();
        QVERIFY(QFile::exists(root + "/onnx/" + pid + "/GgmlGraph.onnx"));
        QVERIFY(w.console()->toPlainText().contains("onnx: "));
    }

    // A program that says hello on the live socket and exits at once (a Python stand-in for
    // a fast program's probe): the connection is still pending when the exit is seen. The
    // session ends Finished, exit 0, having heard it, and the late hello never brings the
    // ended session back to Connected.
    void fastProgramEndsFinishedHavingHeardItsProbe()
    {
        const std::string hello = live::encode(live::Hello{live::kProtocolVersion, 4242, "test", "CPU", "x"});
        for (int i = 0; i < 3; ++i) {
            LiveSession s;
            QSignalSpy said(&s, &LiveSession::helloReceived);
            QSignalSpy ended(&s, &LiveSession::ended);
            QString error;
            const std::string script = "import os, socket, sys\n"
                                       "s = socket.socket(socket.AF_UNIX)\n"
                                       "s.connect(os.environ['LLMSCOPE_LIVE'])\n"
                                       "s.sendall(sys.argv[1].encode())\n";
            QVERIFY2(s.start(parseDumpOptions({"--exec", joinCommand({"/usr/bin/python3", "-c", script, hello}), "-o",
                                               (m_dir.path() + "/fast").toStdString()}),
                             {}, &error),
                     qPrintable(error));
            QVERIFY(ended.wait(30000));
            QTest::qWait(100); // anything still queued
            QCOMPARE(ended.count(), 1);
            QCOMPARE(s.state(), LiveSession::State::Finished);
            QCOMPARE(s.exitCode(), 0);
            QCOMPARE(said.count(), 1);
            QVERIFY2(!ended.at(0).at(1).toString().contains("No probe talked"),
                     qPrintable(ended.at(0).at(1).toString()));
        }
    }

    // Another local user (made here) tries the live socket while a program is dumped: the
    // socket's folder refuses it, and the program's own probe is heard and its dump written
    // as if nothing happened. The other user runs first, from inside the launched command.
    void anotherUserIsRefused()
    {
        if (::geteuid() != 0)
            QSKIP("making a second user needs root (CI runs as root)");
        QProcess::execute("useradd", {"-M", "-r", "-s", "/usr/sbin/nologin", "llmscope-other"}); // or it exists
        QCOMPARE(QProcess::execute("id", {"llmscope-other"}), 0);
        const QString result = m_dir.path() + "/other-user.txt";
        const std::string connect = "import os, socket\n"
                                    "try:\n"
                                    "    socket.socket(socket.AF_UNIX).connect(os.environ['LLMSCOPE_LIVE'])\n"
                                    "    print('connected')\n"
                                    "except OSError as e:\n"
                                    "    print('refused', e.errno)\n";
        const std::string other = joinCommand({"setpriv", "--reuid=llmscope-other", "--regid=llmscope-other",
                                               "--clear-groups", "/usr/bin/python3", "-c", connect});
        const std::string program =
            joinCommand({(kBin + "/llmscope-sample-generate").toStdString(), "-m", m_model.toStdString(), "-n", "2"});
        LiveSession s;
        QSignalSpy said(&s, &LiveSession::helloReceived);
        QSignalSpy ended(&s, &LiveSession::ended);
        QString error;
        const QString out = m_dir.path() + "/other-user-dump";
        QVERIFY2(
            s.start(parseDumpOptions(
                        {"--exec",
                         joinCommand({"sh", "-c", other + " > '" + result.toStdString() + "' 2>&1; exec " + program}),
                         "--type", "tensor", "-o", out.toStdString()}),
                    {}, &error),
            qPrintable(error));
        QVERIFY(ended.wait(60000));
        QFile f(result);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString tried = QString::fromUtf8(f.readAll());
        QVERIFY2(tried.contains("refused 13"), qPrintable(tried)); // EACCES: the folder is the user's alone
        QCOMPARE(s.state(), LiveSession::State::Finished);
        QCOMPARE(s.exitCode(), 0);
        QCOMPARE(said.count(), 1); // the program's own probe
        const QStringList dumps = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
        QCOMPARE(dumps.size(), 1);
        QVERIFY(!scanDump((out + "/" + dumps.front()).toStdString()).tensors.empty());
    }

    // A program that cannot start is said, and the window keeps what it showed (a hunt's result
    // is not lost to a typo); the Launch dialog says it before it closes, with what was typed.
    void noSuchProgram()
    {
        MainWindow w;
        w.show();
        QTemporaryDir shown;
        testing::writeSyntheticDump(shown.path().toStdString());
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(shown.path())));
        DumpOptions o =
            parseDumpOptions({"--exec", "no-such-program-xyz -v", "-o", (m_dir.path() + "/x").toStdString()});
        QVERIFY(!w.launch(o));
        QVERIFY2(w.console()->toPlainText().contains("cannot run 'no-such-program-xyz': not found in PATH"),
                 qPrintable(w.console()->toPlainText()));
        QCOMPARE(w.workspace()->document()->source().kind, SessionDocument::Source::Dump);
        QCOMPARE(w.workspace()->document()->source().dumpRoot, shown.path());
        QVERIFY(!w.workspace()->session()->isRunning());
        QVERIFY(!QDir(m_dir.path() + "/x").exists()); // nothing written for it

        LaunchDialog d;
        d.show();
        d.commandLineEdit()->setFocus();
        QTest::keyClicks(d.commandLineEdit(), "llmscope dump --exec 'no-such-program-xyz -v'");
        auto *buttons = d.findChild<QDialogButtonBox *>();
        QVERIFY(buttons);
        QPushButton *run = nullptr;
        for (QAbstractButton *b : buttons->buttons())
            if (buttons->buttonRole(b) == QDialogButtonBox::AcceptRole)
                run = qobject_cast<QPushButton *>(b);
        QVERIFY(run);
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(d.isVisible());
        QCOMPARE(d.result(), int(QDialog::Rejected));
        QCOMPARE(d.commandEdit()->text(), QString("no-such-program-xyz -v"));
        const QString said =
            d.findChild<QLabel *>("LaunchError") ? d.findChild<QLabel *>("LaunchError")->text() : QString();
        QVERIFY2(said.contains("not found in PATH"), qPrintable(said));
    }

    void programThatCrashes()
    {
        MainWindow w;
        DumpOptions o =
            parseDumpOptions({"--exec", "sh -c 'kill -SEGV $$'", "-o", (m_dir.path() + "/crash").toStdString()});
        QVERIFY(w.launch(o));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Crashed, 20000);
        QVERIFY2(w.counters()->text().contains("signal 11"), qPrintable(w.counters()->text()));
        QVERIFY(w.counters()->text().contains("No probe talked to llmscope"));
    }

    // One that fails before its first graph (a model file missing): its own last words first,
    // not guesses at why no probe talked.
    void aProgramThatFailsSaysItsLastErrorLine()
    {
        MainWindow w;
        DumpOptions o = parseDumpOptions(
            {"--exec", "sh -c 'echo loading >&2; echo \"error: cannot load model x.gguf\" >&2; exit 1'", "-o",
             (m_dir.path() + "/fails").toStdString()});
        QVERIFY(w.launch(o));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Finished, 20000);
        const QString said = w.counters()->text();
        QVERIFY2(
            said.contains("exited with status 1") &&
                said.contains("\"error: cannot load model x.gguf\" (its last error line). No probe talked to llmscope "
                              "before it ended."),
            qPrintable(said));
        QVERIFY2(!said.contains("statically"), qPrintable(said));
        QCOMPARE(lineColour(w.console(), "exited with status 1"), QColor("#b00000")); // a failure's red
    }

    // One that never connects (no ggml) and ignores SIGTERM: said why, then Stop kills it.
    void programThatHangsIsStopped()
    {
        MainWindow w;
        w.workspace()->session()->setConnectTimeout(std::chrono::milliseconds(500));
        QSignalSpy noProbe(w.workspace()->session(), &LiveSession::noProbe);
        DumpOptions o = parseDumpOptions(
            {"--exec", "sh -c 'trap \"\" TERM; sleep 60'", "-o", (m_dir.path() + "/hang").toStdString()});
        QVERIFY(w.launch(o));
        QTRY_COMPARE_WITH_TIMEOUT(noProbe.count(), 1, 10000);
        QVERIFY(noProbe.at(0).at(0).toString().contains("statically"));
        QVERIFY(w.console()->toPlainText().contains("statically"));
        QVERIFY(w.workspace()->session()->isRunning());
        QCoro::waitFor(w.workspace()->session()->stop(std::chrono::milliseconds(300)));
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Stopped, 10000);
        QVERIFY(w.console()->toPlainText().contains("did not end"));
        // stopped on purpose: said as news, not in a failure's red
        QCOMPARE(lineColour(w.console(), "stopped after"), QColor("#206020"));
    }

    void sleepNeverConnects()
    {
        MainWindow w;
        w.workspace()->session()->setConnectTimeout(std::chrono::milliseconds(500));
        QSignalSpy noProbe(w.workspace()->session(), &LiveSession::noProbe);
        QVERIFY(w.launch(parseDumpOptions({"--exec", "sleep 30", "-o", (m_dir.path() + "/sleep").toStdString()})));
        QTRY_COMPARE_WITH_TIMEOUT(noProbe.count(), 1, 10000);
        w.workspace()->stop();
        QTRY_COMPARE_WITH_TIMEOUT(w.workspace()->session()->state(), LiveSession::State::Stopped, 10000);
    }

    // Session > Spread in the window: the runs dumped and compared as a job, then the Spread
    // tab with the runs as columns. Two runs of one command: nothing departs, run 1's dump is
    // open. The kernel zoo's thread fault, one thread against four: the first departure is
    // picked in the table and the cursor, the departing run's column says so, and run 1 against
    // it is in the Diff tab, element by element.
    // A spread that cannot run after one that did: the page no longer shows the result before
    // it, and says why there and in the console; the document drops the old spread.
    void aFailedSpreadShowsNoEarlierResult()
    {
        MainWindow w;
        w.show();
        w.workspace()->spread()->setProgram(kBin + "/llmscope");
        spread::Request same;
        same.commands = {(kBin + "/llmscope-sample-generate -m " + m_model + " -n 2").toStdString()};
        same.repeat = 2;
        same.folder = (m_dir.path() + "/spread-before-broken").toStdString();
        QVERIFY(QCoro::waitFor(w.workspace()->runSpread(same)));
        SpreadView *v = w.spreadView();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(v->model()->rowCount() > 0);
        QVERIFY(w.heatmap()->model()->rowCount() > 0); // the spread's runs colour the ops
        QVERIFY(w.workspace()->document()->source().kind != SessionDocument::Source::None);
        QSignalSpy failed(w.workspace(), &Workspace::spreadFailed);
        spread::Request broken;
        broken.commands = {"/nonexistent/program -n 2"};
        broken.repeat = 2;
        broken.folder = same.folder; // where the earlier spread's reports are
        QVERIFY(QFile::exists(QString::fromStdString(same.folder) + "/spread.json"));
        QVERIFY(!QCoro::waitFor(w.workspace()->runSpread(broken)));
        // nor on disk: the earlier reports went when this spread began, none to read as its own
        QVERIFY(!QFile::exists(QString::fromStdString(same.folder) + "/spread.json"));
        QVERIFY(!QFile::exists(QString::fromStdString(same.folder) + "/spread.csv"));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(tabs->currentWidget(), v);
        QCOMPARE(v->model()->rowCount(), 0);
        QVERIFY2(v->summary()->text().contains("The spread failed:") &&
                     v->summary()->text().contains("/nonexistent/program"),
                 qPrintable(v->summary()->text()));
        QVERIFY2(w.console()->toPlainText().contains("Spread failed: "),
                 qPrintable(w.console()->toPlainText().right(300)));
        QVERIFY(!w.workspace()->document()->results().spread);
        // nothing of the earlier source on any page: no heatmap, no verdict, no dump named
        QCOMPARE(w.workspace()->document()->source().kind, SessionDocument::Source::None);
        QVERIFY(!w.workspace()->document()->results().comparison && !w.workspace()->document()->results().metrics);
        QCOMPARE(w.heatmap()->model()->rowCount(), 0);
        QVERIFY2(!w.counters()->text().contains("spread-before-broken"), qPrintable(w.counters()->text()));
        QVERIFY2(w.opPanel()->status().isEmpty(), qPrintable(w.opPanel()->status())); // not the old topology's count
        QVERIFY(v->summary()->text().contains("The spread failed:")); // its page still says why
        // A program that fails itself (a model file missing): its last words on the page, in the
        // window's sentence; the dump command's own lines in the console.
        spread::Request failing;
        failing.commands = {"sh -c 'echo loading >&2; echo \"error: cannot load model x.gguf\" >&2; exit 1'"};
        failing.repeat = 2;
        failing.folder = (m_dir.path() + "/spread-failing").toStdString();
        QVERIFY(!QCoro::waitFor(w.workspace()->runSpread(failing)));
        QVERIFY2(
            v->summary()->text().contains(
                "the program exited with status 1; its last error line: &quot;error: cannot load model x.gguf&quot;") ||
                v->summary()->text().contains(
                    "the program exited with status 1; its last error line: \"error: cannot load model x.gguf\""),
            qPrintable(v->summary()->text()));
        QVERIFY2(w.console()->toPlainText().contains("llmscope dump: the target exited with status 1"),
                 qPrintable(w.console()->toPlainText().right(400)));
    }

    // Cancel while the first run is dumped (a program that would run for ten minutes): its dump is
    // stopped, the spread ends there saying at which run, with no result and no reports, and the
    // second run never begins. The cancel is queued from the run's progress, so it comes once the
    // dump's process runs; were it not stopped, the suite would time out.
    void aSpreadCancelledSaysWhere()
    {
        MainWindow w;
        w.show();
        SpreadAction *action = w.workspace()->spread();
        action->setProgram(kBin + "/llmscope");
        bool cancelAsked = false;
        connect(action->job(), &Job::progressed, action, [&](qint64, qint64, const QString &what) {
            if (!cancelAsked && what.startsWith("Run 1 of 2 (run)")) {
                cancelAsked = true;
                QMetaObject::invokeMethod(action->job(), &Job::cancel, Qt::QueuedConnection);
            }
        });
        QSignalSpy finished(action, &SpreadAction::finished);
        spread::Request slow;
        slow.commands = {"sleep 600.25"}; // a mark its process is found by, below
        slow.repeat = 2;
        slow.folder = (m_dir.path() + "/spread-cancelled").toStdString();
        const bool ran = QCoro::waitFor(w.workspace()->runSpread(slow));
        QProcess::execute("pkill", {"-f", "^sleep 600.25$"}); // the program the killed dump left
        QVERIFY(!ran);
        QVERIFY(cancelAsked);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(finished.at(0).at(1).toString(), QString("Cancelled at run 1 of 2"));
        QVERIFY(!w.workspace()->document()->results().spread);
        QVERIFY(!QFile::exists(QString::fromStdString(slow.folder) + "/spread.json"));
        QVERIFY(!QDir(QString::fromStdString(slow.folder) + "/run-1").exists()); // the second run never began

        // Cancelled while the runs are compared: said so, in the window's words, and no result.
        bool atComparing = false;
        connect(action->job(), &Job::progressed, action, [&](qint64, qint64, const QString &what) {
            if (!atComparing && what == "Comparing every two runs...") {
                atComparing = true;
                QMetaObject::invokeMethod(action->job(), &Job::cancel, Qt::QueuedConnection);
            }
        });
        spread::Request same;
        same.commands = {(kBin + "/llmscope-sample-generate -m " + m_model + " -n 2").toStdString()};
        same.repeat = 2;
        same.folder = (m_dir.path() + "/spread-cancelled-comparing").toStdString();
        QVERIFY(!QCoro::waitFor(w.workspace()->runSpread(same)));
        QVERIFY(atComparing);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(1).at(1).toString(), QString("Cancelled while the runs were compared"));
        QVERIFY(!w.workspace()->document()->results().spread);
        QVERIFY(!QFile::exists(QString::fromStdString(same.folder) + "/spread.json"));
    }

    void spreadInTheWindow()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        SpreadAction *action = w.workspace()->spread();
        action->setProgram(kBin + "/llmscope");
        QSignalSpy shown(w.workspace(), &Workspace::spreadShown);
        spread::Request same;
        same.commands = {(kBin + "/llmscope-sample-generate -m " + m_model + " -n 2").toStdString()};
        same.repeat = 2;
        same.folder = (m_dir.path() + "/spread-same").toStdString();
        QVERIFY(QCoro::waitFor(w.workspace()->runSpread(same)));
        QCOMPARE(shown.count(), 1);
        // the result kept once, in the document, with its folder
        const std::shared_ptr<const SpreadResult> sameResult = w.workspace()->document()->results().spread;
        QVERIFY(sameResult);
        QCOMPARE(w.workspace()->document()->results().spreadFolder,
                 QDir(QString::fromStdString(same.folder)).absolutePath());
        SpreadView *v = w.spreadView();
        auto *tabs = w.findChild<QTabWidget *>();
        QCOMPARE(tabs->currentWidget(), v);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Spread"));
        QVERIFY2(v->summary()->text().contains("No run departs"), qPrintable(v->summary()->text()));
        // what differs between the runs' configurations, before any tensor: one command, nothing
        QVERIFY2(v->summary()->text().contains("Configuration, run 2 against run 1: the same in both runs ("),
                 qPrintable(v->summary()->text()));
        QVERIFY2(v->summary()->toolTip().contains("no setting differs"), qPrintable(v->summary()->toolTip()));
        QCOMPARE(v->model()->columnCount(), SpreadTableModel::FirstRunColumn + 2);
        QCOMPARE(v->table()->model()->rowCount(), 0); // only where the runs differ: nowhere
        QVERIFY(v->emptyNote()->isVisible()); // and it says so, not a blank table
        v->differingOnly()->setChecked(false);
        QVERIFY(v->table()->model()->rowCount() > 50);
        QVERIFY(!v->emptyNote()->isVisible());
        QHeaderView *columns = v->table()->horizontalHeader(); // each op's label whole
        const QString longest = v->table()->model()->index(0, SpreadTableModel::OpColumn).data().toString();
        QVERIFY2(columns->sectionSize(SpreadTableModel::OpColumn) >=
                     v->table()->fontMetrics().horizontalAdvance(longest),
                 qPrintable(longest));
        // the Spread column says what its numbers are
        QVERIFY(v->table()
                    ->model()
                    ->headerData(SpreadTableModel::SpreadColumn, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .startsWith("The largest relative error between two runs' outputs"));
        QCOMPARE(w.workspace()->document()->source().name, QString::fromStdString(sameResult->runs[0].dump));
        // The heatmap shows the spread on run 0's ops: bit-identical everywhere, on the pale end.
        HeatmapView *h = w.heatmap();
        QCOMPARE(h->metricBox()->currentData().toInt(), int(HeatmapModel::Metric::Spread));
        {
            const SpreadOp &any = sameResult->ops.back();
            const QModelIndex cell = h->model()->indexForOp(QString::fromStdString(any.opId));
            QVERIFY(cell.isValid());
            QVERIFY2(cell.data(Qt::ToolTipRole).toString().contains("bit-identical in every run"),
                     qPrintable(cell.data(Qt::ToolTipRole).toString()));
        }

        // Each run and the comparison said in the console as they go, and the verdict
        const QString said = w.console()->toPlainText();
        QVERIFY2(said.contains("[spread] Run 1 of 2 (run): ") && said.contains("[spread] Run 2 of 2 (run): ") &&
                     said.contains("[spread] No run departs beyond its standard"),
                 qPrintable(said.right(600)));
        // and what each run's dump wrote as it ran, its summary among it
        QVERIFY2(said.count("llmscope dump: the target exited with status 0") >= 2, qPrintable(said.right(1200)));
        { // another source opened: the spread was of the runs before, its tab goes
            QVERIFY(QCoro::waitFor(w.workspace()->openDump(QString::fromStdString(sameResult->runs[1].dump))));
            QCOMPARE(tabs->indexOf(v), -1);
            QCOMPARE(v->model()->rowCount(), 0);
        }
        const QString zoo = engine::zooDir();
        if (!QFile::exists(zoo + "/build/bin/llmscope-sample-generate"))
            QSKIP(qPrintable("the kernel zoo is not built in " + zoo + ": run scripts/kernel_zoo"));
        spread::Request fault;
        // A setting before the program, as a shell takes it: the fault's library is the one loaded.
        fault.commands = {("LD_LIBRARY_PATH=" + zoo + "/lib/chunk " + zoo + "/build/bin/llmscope-sample-generate -m " +
                           m_model + " -n 2")
                              .toStdString()};
        spread::setVary(fault, "-t 1,4");
        fault.folder = (m_dir.path() + "/spread-chunk").toStdString();
        QVERIFY(QCoro::waitFor(w.workspace()->runSpread(fault)));
        QCOMPARE(shown.count(), 2);
        const auto r = w.workspace()->document()->results().spread;
        QVERIFY(r);
        QVERIFY(r->departs());
        QCOMPARE(r->departingRun, 1);
        const SpreadOp &first = r->ops[size_t(r->firstDeparture)];
        QCOMPARE(first.type, std::string("MUL_MAT"));
        QCOMPARE(tabs->currentWidget(), v);
        // runs counted as the console counted them, each column naming what sets its run apart
        QVERIFY2(v->summary()->text().contains("run 2 departs"), qPrintable(v->summary()->text()));
        QCOMPARE(v->model()->headerData(SpreadTableModel::FirstRunColumn + 1, Qt::Horizontal).toString(),
                 QString("run 2 (departs)\n-t 4"));
        QCOMPARE(v->model()->headerData(SpreadTableModel::FirstRunColumn, Qt::Horizontal).toString(),
                 QString("run 1\n-t 1"));
        QVERIFY2(w.console()->toPlainText().contains("[spread] Run 2 of 2 (run): ") &&
                     w.console()->toPlainText().contains("-t 4"),
                 qPrintable(w.console()->toPlainText().right(800)));
        const QModelIndex current = v->table()->currentIndex();
        QCOMPARE(current.data(SpreadTableModel::OpIdRole).toString(), QString::fromStdString(first.opId));
        QVERIFY(current.data().toString().contains("first departure"));
        QCOMPARE(w.workspace()->cursor()->op(), QString::fromStdString(first.opId)); // the cursor is there
        { // the heatmap's legend in percent, as the Spread page's cells ("runs part: 0.0259 %", not 0.000259)
            HeatmapView *h = w.heatmap();
            const int at = h->metricBox()->findData(int(HeatmapModel::Metric::Spread));
            QVERIFY(at >= 0);
            h->metricBox()->setCurrentIndex(at);
            QVERIFY2(QRegularExpression("runs part: [0-9.e+-]+ %").match(h->legend()->text()).hasMatch(),
                     qPrintable(h->legend()->text()));
        }
        QVERIFY(w.workspace()->comparison()); // run 1 against run 2, in the Diff tab
        QVERIFY(!w.workspace()->comparison()->ops[size_t(w.workspace()->comparison()->firstDivergent)].passed);
        v->differingOnly()->setChecked(true); // what differs, the first departure still picked
        QCOMPARE(v->table()->currentIndex().data(SpreadTableModel::OpIdRole).toString(),
                 QString::fromStdString(first.opId));
        shoot(&w, QStringLiteral("spread.png"));
        // The heatmap: the spread, the first departure in its round on the red ramp and saying why.
        QCOMPARE(h->metricBox()->currentData().toInt(), int(HeatmapModel::Metric::Spread));
        QCOMPARE(h->colours()->round(), first.round);
        const QModelIndex parting = h->model()->indexForOp(QString::fromStdString(first.opId));
        QVERIFY(parting.isValid());
        const QColor red = h->colours()->colourOf(QString::fromStdString(first.opId), first.round);
        QVERIFY2(red.red() > red.blue() + 40, qPrintable(red.name()));
        QVERIFY2(parting.data(Qt::ToolTipRole).toString().contains("the runs part here: runs 1 and 2"),
                 qPrintable(parting.data(Qt::ToolTipRole).toString()));
        for (const SpreadOp &o : r->ops) // every op where runs stay within their standard: on the blue ramp
            if (!o.departs && o.round == first.round && o.spread > 0) {
                const QColor blue = h->colours()->colourOf(QString::fromStdString(o.opId), o.round);
                QVERIFY2(blue.blue() >= blue.red(), qPrintable(QString::fromStdString(o.label()) + " " + blue.name()));
            }
        tabs->setCurrentWidget(h);
        shoot(&w, QStringLiteral("spread_heatmap.png"));
        tabs->setCurrentWidget(v);
        // A row picked in the table moves the cursor; the heatmap and the tree follow it.
        const QModelIndex other =
            v->table()->model()->index(v->table()->model()->rowCount() - 1, SpreadTableModel::OpColumn);
        v->table()->setCurrentIndex(other);
        QCOMPARE(w.workspace()->cursor()->op(), other.data(SpreadTableModel::OpIdRole).toString());
        QCOMPARE(w.opPanel()->currentOpId(), w.workspace()->cursor()->op());
    }
};

QTEST_MAIN(TstLiveSession)
#include "tst_livesession.moc"
