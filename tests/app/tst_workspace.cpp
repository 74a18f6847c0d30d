// The workspace on its own, without a window: its state machine printed as the transitions a
// view sees (open, launch, connect, compare, pick, close), and the races and leftovers a
// window used to get wrong.
#include <QDir>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSemaphore>
#include <QThreadPool>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QFileInfo>
#include <QTest>

#include <cmath>

#include <atomic>
#include <numeric>
#include <thread>

#include <QCoroTask>

#include "app/workspace/dump_scan.h"
#include "app/workspace/job.h"
#include "app/workspace/workspace.h"
#include "document/op_inspection.h"
#include "core/dump/dump_layout.h"
#include "core/dump/tensor_index.h"
#include "core/launch/dump_options.h"
#include "core/tensor/tensor.h"
#include "tests/app/private_settings.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"
#include "views/tensor_slice_model.h"

using namespace llmscope;

// The tests that run a program under the probe, where the probe is not built (the sanitizer
// builds leave it out): skipped, saying so (scripts/test lists and checks every skip).
#ifdef LLMSCOPE_WORKSPACE_LIVE
#define SKIP_WITHOUT_PROBE() (void)0
#else
#define SKIP_WITHOUT_PROBE() QSKIP("the probe is not built in this configuration (the sanitizer builds leave it out)")
#endif

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

// A dump folder by its parent and its name ("a/msit_dump_..."); a program by its name.
QString shortName(const QString &path)
{
    const QFileInfo f(path);
    return path.contains('/') ? f.dir().dirName() + "/" + f.fileName() : path;
}

// Every signal a view follows, one line each; a run of the same line (statistics by round)
// is printed once, so the transitions read as states, not as counts of messages.
class Transitions : public QObject {
public:
    explicit Transitions(Workspace *ws)
    {
        auto add = [this](const QString &line) {
            if (m_lines.isEmpty() || m_lines.last() != line)
                m_lines << line;
        };
        SessionDocument *doc = ws->document();
        connect(doc, &SessionDocument::sourceChanged, this, [add](SessionDocument::Source s, const QString &name) {
            static const char *names[] = {"None", "Dump", "Program"};
            add(QStringLiteral("source %1 %2").arg(QLatin1String(names[int(s)]), shortName(name)).trimmed());
        });
        connect(doc, &SessionDocument::graphChanged, this, [add, doc] {
            add(QStringLiteral("topology %1 ops").arg(doc->graph()->size() - doc->graph()->groups().size()));
        });
        connect(doc, &SessionDocument::roundsAdded, this, [add](const DumpRounds::Chunk &chunk) {
            const auto &tensors = chunk.files.tensors;
            if (!tensors.empty() || !chunk.files.problems.empty())
                add(QStringLiteral("files round %1: %2 tensors")
                        .arg(tensors.empty() ? -1 : tensors.front().exec)
                        .arg(tensors.size()));
            if (!chunk.stats.empty())
                add("stats");
        });
        connect(ws, &Workspace::dumpLoaded, this, [add](const QString &folder, int tensors, int rounds) {
            add(QStringLiteral("loaded %1: %2 tensors in %3 rounds").arg(shortName(folder)).arg(tensors).arg(rounds));
        });
        connect(ws, &Workspace::dumpFailed, this,
                [add](const QString &, const QString &why) { add("failed: " + why); });
        connect(doc, &SessionDocument::resultChanged, this, [add, doc](SessionDocument::Result which) {
            const auto &r = doc->results();
            if (which == SessionDocument::Result::Comparison)
                add(r.comparison ? QStringLiteral("comparison of %1 ops").arg(r.comparison->ops.size())
                                 : QStringLiteral("no comparison"));
            else if (which == SessionDocument::Result::Metrics)
                add(r.metrics ? "metrics" : "no metrics");
        });
        connect(ws, &Workspace::compareFinished, this, [add](bool ok, const QString &message) {
            add(QStringLiteral("compared %1: %2").arg(ok).arg(message));
        });
        connect(ws->cursor(), &Cursor::opChanged, this, [add](const QString &id) { add("picked " + id); });
        connect(ws->cursor(), &Cursor::roundChanged, this,
                [add](qint64 round) { add(QStringLiteral("round %1").arg(round)); });
        connect(ws, &Workspace::launched, this, [add] { add("launched"); });
        connect(ws, &Workspace::launchFailed, this, [add](const QString &why) { add("launch failed: " + why); });
        connect(ws->session(), &LiveSession::stateChanged, this,
                [add](LiveSession::State s) { add("program " + LiveSession::stateName(s)); });
        for (Job *job : {ws->scanJob(), ws->compareJob(), ws->opcheckJob()}) {
            connect(job, &Job::started, this, [add, job] { add(job->title() + " started"); });
            connect(job, &Job::finished, this, [add, job](bool ok) { add(job->title() + (ok ? " done" : " ended")); });
        }
    }
    QString take()
    {
        const QString out = m_lines.join('\n');
        m_lines.clear();
        return out;
    }

private:
    QStringList m_lines;
};

QString lines(std::initializer_list<const char *> l)
{
    QStringList out;
    for (const char *s : l)
        out << QString::fromUtf8(s);
    return out.join('\n');
}
} // namespace

class TstWorkspace : public QObject {
    Q_OBJECT
    testing::PrivateSettings m_settings; // first: before any QSettings is made
    QTemporaryDir m_dir;

    QString synthetic(const QString &name, int64_t pid = 4242) const
    {
        const QString out = m_dir.path() + "/" + name;
        if (!QDir(out).exists())
            testing::writeSyntheticDump(out.toStdString(), pid);
        return QDir(out).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty()
            ? out
            : out + "/" + QDir(out).entryList({"msit_dump_*"}, QDir::Dirs).front();
    }

private slots:
    void initTestCase() { QVERIFY(m_settings.isValid()); } // remembered state: this process's own

    // The inspector reads the scan's index in memory: an op's files of the round looked at (or
    // the newest before it), found without walking the dump's folders again, even once the
    // folders are gone.
    void inspectReadsTheIndexInMemory()
    {
        Workspace ws;
        const QString dump = synthetic("inmem");
        QVERIFY(QCoro::waitFor(ws.openDump(dump)));
        ws.cursor()->setRound(0);
        const OpInspection before = inspectOp(*ws.document(), "1_1", ws.cursor()->round());
        QCOMPARE(before.round, qint64(0));
        QVERIFY(!before.files.isEmpty());
        for (const QString &f : before.files)
            QVERIFY2(f.contains("/0/") && (f.endsWith(".bin") || f.endsWith(".npy")), qPrintable(f));
        QVERIFY(QDir().rename(dump, dump + "-moved"));
        const OpInspection moved = inspectOp(*ws.document(), "1_1", ws.cursor()->round());
        QCOMPARE(moved.files, before.files);
        ws.cursor()->setRound(-1); // the newest
        QCOMPARE(inspectOp(*ws.document(), "1_1", ws.cursor()->round()).round, qint64(1));
        ws.cursor()->setRound(5); // no round 5: the newest before it
        QCOMPARE(inspectOp(*ws.document(), "1_1", ws.cursor()->round()).round, qint64(1));
        QVERIFY(inspectOp(*ws.document(), "9_9", ws.cursor()->round()).files.isEmpty());
        QCOMPARE(inspectOp(*ws.document(), "9_9", ws.cursor()->round()).round, qint64(-1));
        QVERIFY(QDir().rename(dump + "-moved", dump));
    }

    void openPickClose()
    {
        Workspace ws;
        Transitions t(&ws);
        const QString dump = synthetic("a");
        QVERIFY(QCoro::waitFor(ws.openDump(dump)));
        const QString name = QString::fromStdString(dumpFolderName(testing::kSyntheticTime));
        QCOMPARE(t.take(),
                 QStringList({"source Dump a/" + name, "scan started", "files round 0: 8 tensors",
                              "files round 1: 8 tensors", "scan done", "loaded a/" + name + ": 16 tensors in 2 rounds"})
                     .join('\n'));
        QCOMPARE(ws.document()->source().kind, Workspace::Source::Dump);
        QCOMPARE(ws.document()->source().dumpRoot, dump);
        ws.cursor()->setOp("1_1");
        ws.cursor()->setOp("1_1"); // the same op again: nothing changes
        ws.cursor()->setRound(1);
        ws.cursor()->setRound(1);
        ws.cursor()->setRound(-1); // the newest again
        QCOMPARE(t.take(), QString("picked 1_1\nround 1\nround -1"));
        ws.cursor()->setRound(0);
        QVERIFY(ws.closeSource());
        QCOMPARE(t.take(), QString("round 0\nsource None"));
        QVERIFY(ws.cursor()->op().isEmpty());
        QCOMPARE(ws.cursor()->round(), qint64(-1)); // a new source starts at its newest round
        QVERIFY(ws.document()->source().dumpRoot.isEmpty());
    }

    // One take is asked of the GUI thread at a time; a full queue holds the scan until a round
    // is taken, or it is cancelled.
    void handoverAsksOnce()
    {
        dumpscan::RoundHandover h;
        std::atomic<bool> cancelled{false};
        auto round = [](int64_t exec) {
            dumpscan::RoundHandover::Round r;
            r.files.tensors.resize(1);
            r.files.tensors[0].exec = exec;
            return r;
        };
        QVERIFY(h.push(round(0), cancelled));
        QVERIFY(!h.push(round(1), cancelled)); // a take is asked for already
        QCOMPARE(h.takeOne()->files.tensors[0].exec, int64_t(0));
        QVERIFY(!h.push(round(2), cancelled)); // and still running
        QCOMPARE(h.takeOne()->files.tensors[0].exec, int64_t(1));
        QCOMPARE(h.takeOne()->files.tensors[0].exec, int64_t(2));
        QVERIFY(!h.takeOne());
        QVERIFY(h.push(round(3), cancelled)); // the take ended on an empty list: ask again
        QVERIFY(!h.push(round(4), cancelled));
        static_assert(dumpscan::RoundHandover::kMaxQueued == 2);
        std::atomic<bool> pushed{false};
        std::thread scan([&] { // the queue is full: held until a round is taken
            h.push(round(5), cancelled);
            pushed = true;
        });
        QCOMPARE(h.takeOne()->files.tensors[0].exec, int64_t(3));
        scan.join();
        QVERIFY(pushed);
        cancelled = true; // full again, but cancelled: not held
        QVERIFY(!h.push(round(6), cancelled));
        for (int64_t want : {4, 5, 6})
            QCOMPARE(h.takeOne()->files.tensors[0].exec, want);
    }

    // A dump read from its writer's index, taken one round per pass of the event loop: every
    // round comes, in order, before the scan says it is done.
    void roundsTakenInSlices()
    {
        QTemporaryDir dir;
        std::string root;
        {
            DumpWriter w(testing::writerOptions(dir.path().toStdString()));
            for (int64_t r = 0; r < 40; ++r)
                w.writeTensor(0, 7, r, {"0_Embed"}, false, false, 0, testing::f32Tensor({2}, {float(r), 1}));
            root = w.root();
        }
        QVERIFY(readTensorIndex(root + "/llmscope/index/0_7.tsv"));
        Workspace ws;
        ws.setTakeSlice(0);
        std::vector<int64_t> rounds;
        connect(ws.document(), &SessionDocument::roundsAdded, this, [&](const DumpRounds::Chunk &chunk) {
            for (const auto &t : chunk.files.tensors)
                rounds.push_back(t.exec);
        });
        QSignalSpy loaded(&ws, &Workspace::dumpLoaded);
        QVERIFY(QCoro::waitFor(ws.openDump(QString::fromStdString(root))));
        QCOMPARE(loaded.count(), 1);
        std::vector<int64_t> want(40);
        std::iota(want.begin(), want.end(), 0);
        QCOMPARE(rounds, want);
    }

    // Session > Replay: the open dump's ops replayed off the GUI thread, the failing op picked;
    // refused with no dump; a new source drops the replay.
    void replayTheOpenDump()
    {
        Workspace ws;
        QSignalSpy status(&ws, &Workspace::status);
        QVERIFY(!QCoro::waitFor(ws.opcheck()));
        QVERIFY(status.last().at(0).toString().contains("Open a dump first"));
        QTemporaryDir dir;
        const QString root = QString::fromStdString(testing::writeReplayDump(dir.path().toStdString()));
        QVERIFY(QCoro::waitFor(ws.openDump(root)));
        Transitions t(&ws);
        QSignalSpy changed(ws.document(), &SessionDocument::resultChanged);
        QVERIFY(QCoro::waitFor(ws.opcheck()));
        QCOMPARE(t.take(), lines({"replay started", "replay done", "round 0", "picked 0_1"}));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<SessionDocument::Result>(), SessionDocument::Result::Replay);
        const auto r = ws.document()->results().replay;
        QVERIFY(r);
        QCOMPARE(r->fail, 2);
        QCOMPARE(r->pass, 1);
        QCOMPARE(ws.cursor()->op(), QString("0_1")); // the first that fails
        QVERIFY(ws.closeSource());
        QVERIFY(!ws.document()->results().replay);
    }

    void aMissingFolderFails()
    {
        Workspace ws;
        Transitions t(&ws);
        QVERIFY(!QCoro::waitFor(ws.openDump(m_dir.path() + "/none")));
        const QString printed = t.take();
        QVERIFY2(printed.startsWith("source Dump " + shortName(m_dir.path() + "/none") +
                                    "\nscan started\nscan ended\nfailed: '"),
                 qPrintable(printed));
    }

    // A PyTorch golden (the reference llama's dump) against llama.cpp's: the engine's dump is
    // the one shown, so every compared op is one of its topology's and colours its heatmap.
    void aPyTorchGoldenShowsTheEnginesOps()
    {
        SKIP_WITHOUT_PROBE();
        qputenv("PYTHONPATH", LLMSCOPE_SOURCE_DIR "/python");
        const QString model = m_dir.path() + "/pt.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", model, "--layers", "2"}));
        const QString torch = m_dir.path() + "/pt-torch", ggml = m_dir.path() + "/pt-ggml";
        auto r = engine::llmscope(kBin,
                                  {"dump", "--exec", "/usr/bin/python3 -m llmscope.reference.generate -n 2 -m " + model,
                                   "--type", "tensor", "-er", "0,1", "-o", torch});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = engine::llmscope(kBin,
                             {"dump", "--exec", kBin + "/llmscope-sample-generate -n 2 -m " + model, "--type", "model",
                              "tensor", "-er", "0,1", "-o", ggml});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        Workspace ws;
        QVERIFY(QCoro::waitFor(ws.compare(torch, ggml)));
        QCOMPARE(ws.document()->source().dumpRoot, ggml);
        QVERIFY(ws.comparison() && ws.comparison()->acrossFrameworks && ws.comparison()->allPassed());
        QSet<QString> ids;
        for (const auto &op : ws.document()->graph()->ops())
            ids << QString::fromStdString(op.id);
        QVERIFY(ws.comparison()->ops.size() >= 40); // 2 rounds of 2 layers' projections, norms and outputs
        for (const auto &op : ws.comparison()->ops)
            QVERIFY2(ids.contains(QString::fromStdString(op.opId)), op.opId.c_str());
        // The element view's models read both sides the same way round: the queries' rows
        // un-permuted within heads, and after the last layer's attention only the last token's rows.
        for (const char *node : {"Qcur-0", "ffn_out-1"}) {
            int index = -1;
            for (size_t k = 0; k < ws.comparison()->ops.size(); ++k)
                if (ws.comparison()->ops[k].name == node && ws.comparison()->ops[k].round == 0)
                    index = int(k);
            QVERIFY2(index >= 0, node);
            const ComparedFiles t = comparedFilesOf(*ws.document(), index);
            QVector<ComparedPair> pairs;
            for (const auto &p : t.pairs)
                if (QFileInfo(p.golden).fileName() == "output.pth")
                    pairs.push_back(p);
            QCOMPARE(pairs.size(), 1);
            TensorSliceModel golden, test;
            QVERIFY(TensorSliceModel::openPair(golden, test, pairs[0]));
            TensorSliceModel *g = &golden, *m = &test;
            QVERIFY2(g->error().isEmpty() && m->error().isEmpty(), qPrintable(g->error() + m->error()));
            QCOMPARE(elementCount(g->dims()), elementCount(m->dims()));
            QVERIFY(g->columnCount() >= 128 && g->columnCount() == m->columnCount());
            double diff = 0, norm = 0; // NMSE: the same values in the same places (misplaced rows give about 2)
            for (int r = 0; r < g->rowCount(); ++r)
                for (int c = 0; c < g->columnCount(); ++c) {
                    diff += std::pow(g->value(r, c) - m->value(r, c), 2);
                    norm += std::pow(g->value(r, c), 2);
                }
            QVERIFY2(norm > 0 && diff / norm < 1e-4, qPrintable(QString("%1: NMSE %2").arg(node).arg(diff / norm)));
            const TensorView &v =
                pairs[0].goldenView.headSize || pairs[0].goldenView.lastRows ? pairs[0].goldenView : pairs[0].testView;
            QVERIFY(QString(node) == "Qcur-0" ? v.headSize > 0 : v.lastRows);
        }
    }

    // A comparison, then a new source: nothing of the comparison survives it (the heatmap's
    // metric, the diff, Export all follow the document's resultChanged and sourceChanged).
    void aNewSourceDropsTheComparison()
    {
        Workspace ws;
        Transitions t(&ws);
        const QString golden = synthetic("g", 1), test = synthetic("t", 2);
        QVERIFY(QCoro::waitFor(ws.compare(golden, test)));
        const QString printed = t.take();
        // Golden's scan may even end before the comparison starts (a loaded machine).
        const QString name = QString::fromStdString(dumpFolderName(testing::kSyntheticTime));
        QVERIFY2(printed.startsWith("source Dump g/" + name + "\nscan started\n"), qPrintable(printed));
        QVERIFY2(printed.contains("comparison started"), qPrintable(printed));
        // Golden's scan and the comparison run side by side: their lines interleave as they
        // finish, but the metrics wait for golden's ops, and come last.
        QVERIFY2(printed.endsWith("metrics\ncompared 1: Every operation passed"), qPrintable(printed));
        QVERIFY2(printed.indexOf("comparison of 8 ops") < printed.indexOf("metrics"), qPrintable(printed));
        QVERIFY2(printed.indexOf("loaded g/") < printed.indexOf("metrics"), qPrintable(printed));
        QVERIFY(ws.comparison());
        QVERIFY(ws.document()->results().metrics);
        QVERIFY(QCoro::waitFor(ws.openDump(test)));
        QVERIFY(!ws.comparison());
        QVERIFY(!ws.document()->results().metrics);
        QString error;
        // a program not found: said, and the dump shown stays
        QVERIFY(
            !ws.launch(parseDumpOptions({"--exec", "/nonexistent/program", "-o", (m_dir.path() + "/x").toStdString()}),
                       {}, &error));
        QVERIFY2(error.contains("no such executable file"), qPrintable(error));
        QCOMPARE(ws.document()->source().kind, Workspace::Source::Dump);
        // one that fails once under way (its output folder cannot be made): the program's source
        const testing::StandInProbe probe; // where the build has none
        QVERIFY(!ws.launch(parseDumpOptions({"--exec", "/bin/true", "-o", "/proc/llmscope-cannot-write"}), {}, &error));
        QVERIFY(!ws.comparison());
        QCOMPARE(ws.document()->source().kind, Workspace::Source::Program);
    }

    // Two scans asked for back to back (a run's dump, then a comparison's golden, as the hunt
    // does): the newest wins. The older one's files never reach the views, it never says it
    // loaded, and the picked op's tensors are read from the newest.
    void theNewestScanWins()
    {
        Workspace ws;
        Transitions t(&ws);
        QSignalSpy loaded(&ws, &Workspace::dumpLoaded);
        const QString first = synthetic("first", 7), golden = synthetic("g2", 1), test = synthetic("t2", 2);
        // One pool thread, held: the first dump's scan cannot end before the comparison is
        // asked for, however the machine schedules it; then everything runs in the order asked.
        QThreadPool pool; // the workspace's own: the window's painting keeps Qt's
        pool.setMaxThreadCount(1);
        ws.setThreadPool(&pool);
        QSemaphore hold;
        pool.start([&hold] { hold.acquire(); });
        ws.openDump(first);
        auto comparing = ws.compare(golden, test);
        hold.release();
        const bool compared = QCoro::waitFor(comparing);
        QVERIFY(compared);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.at(0).at(0).toString(), golden);
        QCOMPARE(ws.document()->source().dumpRoot, golden);
        const QString printed = t.take();
        const QString afterGolden = printed.section("source Dump g2/", 1);
        QVERIFY2(!afterGolden.isEmpty(), qPrintable(printed));
        QVERIFY2(!afterGolden.contains("first/"), qPrintable(printed));
        QCOMPARE(afterGolden.count("files round"), 2); // golden's two rounds, once
    }

    // Qt paints in segments on its global thread pool and waits for them on the GUI thread, and
    // a process allowed one core has a single thread there. With that thread taken (as a scan
    // waiting for the GUI thread would take it, deadlocking the window), a dump still opens and a
    // comparison still ends: the workspace's jobs run on a pool of their own, never on Qt's.
    void jobsLeaveQtsPoolToThePainting()
    {
        QThreadPool *qts = QThreadPool::globalInstance();
        const int threads = qts->maxThreadCount();
        qts->setMaxThreadCount(1);
        auto hold = std::make_shared<QSemaphore>();
        qts->start([hold] { hold->acquire(); });
        const auto restore = qScopeGuard([&] { // after the workspace is gone
            hold->release();
            qts->waitForDone();
            qts->setMaxThreadCount(threads);
        });
        Workspace ws;
        QSignalSpy loaded(&ws, &Workspace::dumpLoaded);
        QSignalSpy compared(&ws, &Workspace::compareFinished);
        ws.openDump(synthetic("own-pool"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        ws.compare(synthetic("own-pool-g", 1), synthetic("own-pool-t", 2));
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 30000);
        QVERIFY2(compared.at(0).at(0).toBool(), qPrintable(compared.at(0).at(1).toString()));
    }

    // A launch while a dump is still being scanned: the scan is abandoned at once, and
    // nothing of it reaches the new source (no files, no topology, no "loaded" or "failed").
    void aLaunchAbandonsTheScan()
    {
        Workspace ws;
        QThreadPool pool;
        pool.setMaxThreadCount(1);
        ws.setThreadPool(&pool);
        QSemaphore hold;
        pool.start([&hold] { hold.acquire(); });
        auto released = qScopeGuard([&hold] { hold.release(); }); // a failed check never leaves the pool waiting
        const QString dump = synthetic("scanned");
        auto opening = ws.openDump(dump);
        QVERIFY(ws.scanJob()->isRunning());
        Transitions t(&ws);
        QString error;
        // A program that exists, an output folder that cannot be made: it fails once the source
        // has changed (a program not found fails before, and the scan goes on)
        const testing::StandInProbe probe; // where the build has none
        QVERIFY(!ws.launch(parseDumpOptions({"--exec", "/bin/true", "-o", "/proc/llmscope-cannot-write"}), {},
                           &error)); // a new source all the same: the program's
        QVERIFY(!ws.scanJob()->isRunning());
        released.dismiss();
        hold.release();
        QVERIFY(!QCoro::waitFor(opening)); // the abandoned scan ran to its end, and said nothing
        const QString printed = t.take();
        QVERIFY2(printed.startsWith("scan ended\nsource Program true"), qPrintable(printed));
        QVERIFY2(!printed.contains("files") && !printed.contains("loaded") && !printed.contains("\nfailed:") &&
                     !printed.contains("topology"),
                 qPrintable(printed));
        QCOMPARE(ws.document()->source().kind, Workspace::Source::Program);
    }

    // Run again while the program runs: stopped, its end said, then started again (the
    // launch must not find the old run still "running").
    void runAgainWhileRunning()
    {
        SKIP_WITHOUT_PROBE();
        Workspace ws;
        QSignalSpy launched(&ws, &Workspace::launched);
        QSignalSpy ended(ws.session(), &LiveSession::ended);
        QString error;
        QVERIFY2(ws.launch(parseDumpOptions({"--exec", "sleep 30", "-o", (m_dir.path() + "/again").toStdString()}), {},
                           &error),
                 qPrintable(error));
        QVERIFY(ws.session()->isRunning());
        QCoro::waitFor(ws.runAgain());
        QCOMPARE(ended.count(), 1);
        QCOMPARE(ended.at(0).at(0).value<LiveSession::State>(), LiveSession::State::Stopped);
        QCOMPARE(launched.count(), 2);
        QVERIFY(ws.session()->isRunning());
        ws.stop();
        QVERIFY(ended.wait(10000));
    }

    // A program under the probe: launched, connected, its graph and statistics, its end and
    // the files of its dump.
    void launchConnectEnd()
    {
        SKIP_WITHOUT_PROBE();
        const QString model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", model, "--layers", "2"}));
        Workspace ws;
        Transitions t(&ws);
        QSignalSpy ended(ws.session(), &LiveSession::ended);
        QSignalSpy loaded(&ws, &Workspace::dumpLoaded);
        QString error;
        QVERIFY2(ws.launch(parseDumpOptions({"--exec",
                                             (kBin + "/llmscope-sample-generate -m " + model + " -n 2").toStdString(),
                                             "--type", "model", "stats", "-o", (m_dir.path() + "/live").toStdString()}),
                           {}, &error),
                 qPrintable(error));
        QVERIFY(ended.wait(60000));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        // The statistics come on the probe's writer thread, between graphs: where they fall among
        // the topologies is the probe's business, so they are checked apart.
        QString printed = t.take().replace(
            QRegularExpression("files round \\d+: \\d+ tensors(\nfiles round \\d+: \\d+ tensors)*"), "files by round");
        // So does the first round's note ("running"), which the probe's live channel sends apart
        // from the topologies: it follows the connection, and where it falls among the
        // topologies is not the workspace's to order.
        QVERIFY2(printed.contains("\nstats\n"), qPrintable(printed));
        printed.replace("\nstats\n", "\n");
        QVERIFY2(printed.indexOf("\nprogram running\n") > printed.indexOf("\nprogram connected\n"),
                 qPrintable(printed));
        printed.replace("\nprogram running\n", "\n");
        printed.replace(QRegularExpression("(topology 68 ops\n)+"),
                        "topology 68 ops\n"); // the prompt's and a token's graph
        // The end of the run is heard before the scan of what it wrote starts, however fast.
        QCOMPARE(printed,
                 lines({"source Program llmscope-sample-generate", "program starting", "launched", "program connected",
                        "topology 68 ops", "program finished", "scan started", "files by round", "scan done"}) +
                     "\nloaded live/" + QFileInfo(ws.document()->source().dumpRoot).fileName() +
                     ": 167 tensors in 1 rounds"); // -er's default: the prompt; its 4 cache writes among them
        QCOMPARE(ws.document()->source().kind, Workspace::Source::Program);
        // The live controller wrote the program's state, process and counters into the document.
        const SessionDocument::Program &p = ws.document()->program();
        QCOMPARE(p.stateWords(), LiveSession::stateName(LiveSession::State::Finished));
        QVERIFY(p.process && p.process->pid > 0);
        QVERIFY(p.counters && p.counters->rounds >= 1);
        QVERIFY(ws.closeSource()); // the program has ended
        QVERIFY(!ws.document()->program().process); // and its program with it
    }
};

QTEST_GUILESS_MAIN(TstWorkspace) // no widget: the workspace and the models are Qt Core
#include "tst_workspace.moc"
