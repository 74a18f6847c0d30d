#include "workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>
#include <QtConcurrent>


#include <QCoroFuture>
#include <QCoroSignal>
#include <QCoroTimer>

#include "compare/report.h"
#include "dump_scan.h"
#include "dump/op_files.h"
#include "graph/layer_graph.h"
#include "hunt/hunt_action.h"
#include "job.h"
#include "onnx/onnx_export.h"
#include "quant_report/quant_report_action.h"
#include "quant_report/quant_runner.h"
#include "tensor/bin_file.h"
#include "util/atomic_file.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "opcheck/ggml_cpu_replay.h"
#endif
#include "util/error.h"

using namespace llmscope;

Workspace::Workspace(QObject *parent)
    : QObject(parent), m_session(new LiveSession(this)), m_pool(QThreadPool::globalInstance()),
      m_scanJob(new Job(Job::Kind::Scan, tr("scan"), this)),
      m_compareJob(new Job(Job::Kind::Compare, tr("comparison"), this)),
      m_huntJob(new Job(Job::Kind::Hunt, tr("hunt"), this)),
      m_reportJob(new Job(Job::Kind::Report, tr("quantization report"), this)),
      m_opcheckJob(new Job(Job::Kind::Opcheck, tr("replay"), this)), m_hunt(new HuntAction(this)),
      m_quant(new QuantReportAction(this)), m_doc(new SessionDocument(this)), m_cursor(new Cursor(this))
{
    connect(m_cursor, &Cursor::opChanged, this, &Workspace::currentOpChanged);
    connect(m_cursor, &Cursor::roundChanged, this, &Workspace::currentRoundChanged);
    connect(m_session, &LiveSession::stateChanged, this, &Workspace::sessionState);
    connect(m_session, &LiveSession::acknowledged, this, &Workspace::acknowledged);
    connect(m_session, &LiveSession::helloReceived, this, [this](const live::Hello &h) {
        say(tr("[llmscope] probe connected: process %1 (%2 on %3)")
                .arg(h.pid)
                .arg(QString::fromStdString(h.engine), QString::fromStdString(h.device)));
    });
    connect(m_session, &LiveSession::topologyReceived, this, &Workspace::setLiveTopology);
    // Statistics stream in a round at a time, faster than anyone reads them: the heatmap
    // keeps every round; the op tree gets the newest of each op at most ten times a second.
    m_statsFlush.setSingleShot(true);
    m_statsFlush.setInterval(100);
    connect(&m_statsFlush, &QTimer::timeout, this, &Workspace::flushOpStats);
    connect(m_session, &LiveSession::statsReceived, this, [this](const live::RoundStats &s) {
        m_doc->addStats(s);
        for (const auto &o : s.stats)
            m_pendingStats[o.id] = o;
        m_pendingRound = std::max(m_pendingRound, s.round);
        if (!m_statsFlush.isActive())
            m_statsFlush.start();
    });
    connect(m_session, &LiveSession::warningReceived, this, [this](const QString &w) {
        say(tr("[llmscope] warning: %1").arg(w), Tone::Warning);
    });
    connect(m_session, &LiveSession::noProbe, this, [this](const QString &why) {
        say(QStringLiteral("[llmscope] ") + why, Tone::Warning);
        emit selectionStatus(why);
    });
    connect(m_session, &LiveSession::output, this,
            [this](const QString &text, bool err) { emit said(text, err ? Tone::ErrorOutput : Tone::Output); });

    // The hunt and the report are jobs like the others: their steps are their progress, and
    // their Cancel stops what they run.
    auto follow = [this](Job *job, auto *action, int steps, auto stepSignal, auto finishedSignal) {
        auto gen = std::make_shared<uint64_t>(0);
        connect(action, stepSignal, this, [job, gen, steps](int step, const QString &text) {
            if (!job->isRunning())
                *gen = job->begin(text).generation;
            job->setProgress(step - 1, steps, text);
        });
        connect(action, finishedSignal, this, [job, gen](bool ok, const QString &message) {
            job->end(*gen, ok, message.section(QLatin1Char('\n'), 0, 0));
        });
        connect(job, &Job::cancelRequested, action, [action] { action->cancel(); });
    };
    follow(m_huntJob, m_hunt, hunt::kSteps, &HuntAction::stepStarted, &HuntAction::finished);
    follow(m_reportJob, m_quant, quant::kSteps, &QuantReportAction::stepStarted,
           &QuantReportAction::finished);
    connect(m_quant, &QuantReportAction::stepStarted, this, [this](int, const QString &text) { say(text, Tone::Step); });
    connect(m_quant, &QuantReportAction::finished, this, [this](bool, const QString &text) { say(text, Tone::Step); });
}

Workspace::~Workspace() = default;

void Workspace::say(const QString &text, Tone tone)
{
    emit said(text, tone);
    emit status(text.section(QLatin1Char('\n'), 0, 0), 30000);
}

// --- the source

void Workspace::beginSource(Source source, const QString &name)
{
    ++m_sourceGen;
    // What the scan and the comparison still bring belongs to what was shown before.
    m_scanJob->abandon(tr("scan of the previous source stopped"));
    m_compareJob->abandon(tr("comparison of the previous source stopped"));
    m_opcheckJob->abandon(tr("replay of the previous source stopped"));
    ++m_replayShownGen; // a reference still being computed belongs to the previous source
    m_cursor->reset();
    m_pending.clear();
    m_pendingStats.clear();
    m_pendingRound = -1;
    m_statsFlush.stop();
    m_doc->reset(source, name);
    emit actionsChanged();
}

void Workspace::setLiveTopology(const live::Topology &t)
{
    const bool first = m_doc->topology().ops.empty() && m_doc->topology().groups.empty();
    m_doc->setLiveTopology(t);
    if (!first)
        return;
    const DumpOptions &o = m_session->options();
    emit selectionStatus(tr("%n operation(s) in the program's graph. It dumps %1 in rounds %2 (the launch's -er); "
                            "check operations and Apply to dump them from its next round on.",
                            nullptr, int(t.ops.size()))
                             .arg(o.ids.empty() ? tr("every operation") : tr("-ids %1").arg(QString::fromStdString(o.ids)),
                                  QString::fromStdString(o.rounds)));
}

void Workspace::setModelTree(const TopoNode &model, std::map<std::string, std::string> backends)
{
    m_doc->setModelTree(model, std::move(backends));
    emit selectionStatus(tr("Topology of the opened dump: %n operation(s).", nullptr, int(m_doc->catalog().size())));
}

QCoro::Task<bool> Workspace::openDump(QString folder)
{
    if (m_session->isRunning()) { // its views are the program's until it ends
        emit status(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        co_return false;
    }
    beginSource(Source::Dump, folder);
    m_doc->setDumpRoot(folder);
    auto scanning = scan(folder, true);
    co_return co_await scanning;
}

QCoro::Task<bool> Workspace::scan(QString folder, bool withStats)
{
    QPointer<Workspace> self(this);
    const Job::Run run = m_scanJob->begin(tr("Scanning %1...").arg(folder));
    const uint64_t gen = run.generation;
    auto current = [self, gen] { return self && self->m_scanJob->isCurrent(gen); };
    const std::string path = folder.toStdString();
    // The operations first (their topology file is found without walking the tensors), so a
    // large dump shows its tree at once; the files and statistics follow round by round.
    bool early = false;
    if (withStats) {
        auto topoFuture = QtConcurrent::run(m_pool, [path] { return dumpscan::readEarlyTopology(path); });
        dumpscan::EarlyTopology e = co_await topoFuture;
        if (!current())
            co_return false;
        if (e.topology) {
            early = true;
            setModelTree(*e.topology, std::move(e.backends));
            emit topologyShown(folder, int(m_doc->catalog().size()));
        }
    }
    // Each round is handed over as soon as it is read: the scan queues it and asks this
    // thread to take what is queued. This thread takes rounds for one slice of time at a
    // time and lets the event loop run between slices, so a scan faster than the views (a
    // dump with its writer's index) never stalls the window; the scan's end takes the rest,
    // slice by slice, before it says it is done, so the files and statistics always come
    // before dumpLoaded, in round order.
    auto handover = std::make_shared<dumpscan::RoundHandover>();
    auto takeSlice = [self, gen, handover, sliceMs = m_takeSliceMs] { // true when nothing is left to take
        QElapsedTimer slice;
        slice.start();
        while (auto round = handover->takeOne()) {
            if (!self || !self->m_scanJob->isCurrent(gen))
                return true;
            self->m_doc->addFiles(round->files);
            for (const auto &s : round->stats)
                self->m_doc->addStats(s);
            if (slice.elapsed() >= sliceMs)
                return false;
        }
        return true;
    };
    auto take = std::make_shared<std::function<void()>>();
    *take = [takeSlice, again = std::weak_ptr<std::function<void()>>(take)] {
        if (!takeSlice())
            if (const auto next = again.lock())
                QMetaObject::invokeMethod(qApp, *next, Qt::QueuedConnection);
    };
    auto report = m_scanJob->reporter(gen);
    auto future = QtConcurrent::run(m_pool, [path, handover, take, report, cancelled = run.cancelled, withStats, early] {
        return dumpscan::scanRounds(
            path, *handover, withStats && early, withStats && !early,
            [take] { QMetaObject::invokeMethod(qApp, *take, Qt::QueuedConnection); },
            [report](uint64_t done, uint64_t total) { report(qint64(done), qint64(total), {}); }, *cancelled);
    });
    dumpscan::Outcome scan = co_await future;
    while (!takeSlice()) // the rounds not taken yet
        co_await QCoro::sleepFor(std::chrono::milliseconds(0));
    if (!current())
        co_return false; // a newer scan, or another source, owns what is shown
    if (!scan.error.isEmpty()) {
        m_scanJob->end(gen, false, scan.error);
        emit status(tr("Could not open %1").arg(folder), 0);
        emit dumpFailed(folder, scan.error);
        co_return false;
    }
    if (scan.topology) {
        setModelTree(*scan.topology, {});
        for (const auto &s : scan.stats)
            m_doc->addStats(s);
    }
    const QString summary = tr("%n tensor(s) in %1 round(s)", nullptr, scan.tensors).arg(scan.rounds) +
                            (scan.problems ? tr("; %n file(s) could not be read", nullptr, scan.problems) : QString());
    m_scanJob->end(gen, true, summary);
    emit status(summary, 0);
    // Which files, and why: a damaged copy, a hostile file, another tool's layout.
    for (const QString &line : scan.problemLines)
        say(tr("cannot read %1").arg(line), Tone::Warning);
    if (size_t(scan.problems) > scan.problemLines.size())
        say(tr("...and %1 more files that could not be read ('llmscope info %2' lists them all)")
                .arg(size_t(scan.problems) - scan.problemLines.size())
                .arg(folder),
            Tone::Warning);
    emit dumpLoaded(folder, scan.tensors, scan.rounds, scan.problems);
    co_return true;
}

bool Workspace::launch(const DumpOptions &options, const LaunchSettings &settings, QString *error)
{
    if (m_session->isRunning()) {
        *error = tr("A program is running: stop it first (Session > Stop, Ctrl+.)");
        emit status(*error, 10000);
        return false;
    }
    beginSource(Source::Program, QFileInfo(QString::fromStdString(options.command.empty() ? std::string() : options.command[0]))
                                     .fileName());
    emit selectionStatus(tr("Waiting for the program's first graph..."));
    if (!m_session->start(options, settings, error)) {
        say(tr("[llmscope] cannot launch: %1").arg(*error), Tone::Failure);
        emit launchFailed(*error);
        emit actionsChanged();
        return false;
    }
    // A hunt's or report's own runs are not the user's: Run again and the Launch dialog keep
    // the user's last launch, never a run that dumps into the hunt's folder.
    const bool byHunt = runningSteps();
    if (!byHunt)
        m_lastLaunch = std::make_pair(options, settings);
    m_doc->setDumpRoot(m_session->dumpRoot());
    emit launched(options, settings, byHunt);
    say(tr("[llmscope] %1; dumping into %2").arg(QString::fromStdString(joinCommand(options.command)), m_doc->dumpRoot()));
    emit actionsChanged();
    return true;
}

QCoro::Task<> Workspace::runAgain()
{
    if (!m_lastLaunch)
        co_return;
    QPointer<Workspace> self(this);
    if (m_session->isRunning()) { // stopped, and said so (its end comes after its last message)
        LiveSession *session = m_session;
        auto ended = qCoro(session, &LiveSession::ended);
        session->stop();
        co_await ended;
    }
    if (!self || !self->m_lastLaunch)
        co_return;
    QString error;
    const auto again = *self->m_lastLaunch; // a copy: launch replaces it
    self->launch(again.first, again.second, &error);
}

bool Workspace::closeSource()
{
    if (m_session->isRunning()) {
        emit status(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        return false;
    }
    beginSource(Source::None, {});
    return true;
}

void Workspace::stop()
{
    if (!m_session->isRunning())
        return;
    say(tr("[llmscope] stopping the program"));
    m_session->stop();
}

void Workspace::sessionState(LiveSession::State s, const QString &message)
{
    if (!message.isEmpty())
        emit status(message, 15000);
    if (s == LiveSession::State::Finished || s == LiveSession::State::Crashed || s == LiveSession::State::Stopped ||
        s == LiveSession::State::FailedToStart) {
        say(QStringLiteral("[llmscope] ") + message, s == LiveSession::State::Finished ? Tone::Info : Tone::Failure);
        m_pending.clear();
        const QString root = m_session->dumpRoot();
        std::vector<std::string> problems;
        if (s != LiveSession::State::FailedToStart && !root.isEmpty())
            if (const auto files = exportOnnxAfterRun(m_session->options().types, root.toStdString(), &problems)) {
                say(tr("[llmscope] onnx: %n file(s) of the topology under onnx/", nullptr, int(files->size())));
                for (const auto &p : problems)
                    say(QStringLiteral("[llmscope] ") + QString::fromStdString(p), Tone::Warning);
            }
        // What was written, file by file (the statistics came live). Started from the event loop,
        // once every follower has heard of the run's end: a scan that ends at once (the writer's
        // index) still reports after it.
        if (s != LiveSession::State::FailedToStart && !root.isEmpty() && m_doc->source() == Source::Program &&
            root == m_doc->dumpRoot())
            QMetaObject::invokeMethod(
                this,
                [this, root] {
                    if (m_doc->source() == Source::Program && root == m_doc->dumpRoot() && !m_session->isRunning())
                        scan(root, false);
                },
                Qt::QueuedConnection);
    }
    emit actionsChanged();
}

// --- selection

bool Workspace::canApply() const
{
    return m_session->isRunning() && m_session->state() != LiveSession::State::Starting;
}

void Workspace::applySelection(const QString &ids)
{
    if (!m_session->isRunning())
        return;
    Selection sel;
    try {
        const DumpOptions &o = m_session->options();
        sel.ids = OpIds::parse(ids.toStdString());
        sel.opNames = parseOpNames(o.opNames);
        sel.child = o.child;
        sel.time = DumpTime(o.time);
        sel.part = TensorPart(o.part);
        sel.rounds = Rounds::all(); // from the acknowledged round on
    } catch (const Error &e) {
        emit selectionStatus(tr("Cannot apply: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    const uint64_t seq = m_session->select(sel);
    if (!seq) {
        emit selectionStatus(tr("No probe is connected yet: the selection is sent once the program's probe talks."));
        return;
    }
    m_pending[seq] = {sel, ids};
    emit selectionStatus(
        tr("Sent -ids %1; waiting for the program's next graph...").arg(ids.isEmpty() ? tr("(every operation)") : ids));
}

void Workspace::acknowledged(const live::Ack &ack)
{
    const auto it = m_pending.find(ack.seq);
    if (it == m_pending.end())
        return;
    const auto [sel, ids] = it->second;
    m_pending.erase(m_pending.begin(), std::next(it));
    if (!ack.error.empty()) {
        emit selectionStatus(tr("The program refused the selection: %1").arg(QString::fromStdString(ack.error)));
        return;
    }
    const QString what = ids.isEmpty() ? tr("every operation") : tr("-ids %1").arg(ids);
    emit selectionStatus(tr("Dumping %1 from round %2 on (acknowledged by the program).").arg(what).arg(ack.fromRound));
    say(tr("[llmscope] the program dumps %1 from round %2").arg(what).arg(ack.fromRound));
    emit selectionApplied(sel, ids, ack.fromRound);
}

void Workspace::flushOpStats()
{
    live::RoundStats merged{m_pendingRound, {}};
    merged.stats.reserve(m_pendingStats.size());
    for (auto &[id, o] : m_pendingStats)
        merged.stats.push_back(std::move(o));
    m_pendingStats.clear();
    m_doc->setNewestStats(merged);
}

// --- comparison

QCoro::Task<bool> Workspace::compare(QString golden, QString test, QString mapping, std::optional<Standard> standard)
{
    QPointer<Workspace> self(this);
    if (m_compareJob->isRunning()) { // one comparison at a time
        emit status(tr("A comparison is running; cancel it first"), 10000);
        co_return false;
    }
    std::optional<QCoro::Task<bool>> opening;
    if (!m_session->isRunning()) { // golden's operations in the tree and heatmap, while comparing
        // A PyTorch golden against an engine: the report's ops are the engine's nodes
        // (compare/framework_pairing.h), so the engine's dump is the one shown.
        const QString shown = holdsTorchDump(golden.toStdString()) && !holdsTorchDump(test.toStdString()) ? test : golden;
        beginSource(Source::Dump, shown);
        m_doc->setDumpRoot(shown);
        opening.emplace(scan(shown, true));
    }
    const uint64_t source = m_sourceGen;
    const Job::Run run = m_compareJob->begin(tr("Comparing %1 with %2...").arg(golden, test));
    auto report = m_compareJob->reporter(run.generation);
    CompareOptions o;
    o.goldenPath = golden.toStdString();
    o.myPath = test.toStdString();
    o.mappingFile = mapping.toStdString();
    o.standard = standard;
    o.cancel = run.cancelled.get();
    auto progress = [report](uint64_t done, uint64_t total, const std::string &op) {
        report(qint64(done), qint64(total), tr("Comparing: %1").arg(QString::fromStdString(op)));
    };
    auto future = QtConcurrent::run(m_pool, [o, progress, keep = run.cancelled]() -> std::pair<std::shared_ptr<CompareResult>, QString> {
        try {
            return {std::make_shared<CompareResult>(runCompare(o, progress)), QString()};
        } catch (const Error &e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    });
    auto [result, error] = co_await future;
    if (!self)
        co_return false;
    if (!result) {
        m_compareJob->end(run.generation, false, error);
        emit status(tr("Could not compare: %1").arg(error), 15000);
        emit compareFinished(false, error);
        co_return false;
    }
    if (m_sourceGen != source) { // another dump or program came meanwhile: this belongs to none of it
        emit compareFinished(false, tr("the comparison ended after another source was opened; it is not shown"));
        co_return false;
    }
    m_cursor->setCompared(-1); // an index into the previous comparison's ops means nothing now
    const QString message =
        result->firstDivergent >= 0
            ? tr("First divergent: %1").arg(QString::fromStdString(result->ops[size_t(result->firstDivergent)].label()))
            : tr("Every operation passed");
    m_compareJob->end(run.generation, true, message);
    m_doc->setComparison(result);
    if (opening) // golden's ops in the heatmap first: the metrics are shown on them
        co_await *opening;
    if (!self)
        co_return false;
    if (m_sourceGen != source) {
        emit compareFinished(false, tr("the comparison ended after another source was opened; it is not shown"));
        co_return false;
    }
    showMetrics(result);
    if (result->firstDivergent >= 0)
        pickOp(QString::fromStdString(result->ops[size_t(result->firstDivergent)].opId));
    emit status(message, 30000);
    emit compareFinished(true, message);
    co_return true;
}

QCoro::Task<bool> Workspace::opcheck()
{
    QPointer<Workspace> self(this);
    if (m_session->isRunning() || m_doc->dumpRoot().isEmpty()) {
        emit status(m_session->isRunning() ? tr("A program is running: replay its dump once it has ended")
                                           : tr("Open a dump first (File > Open dump folder)"),
                    10000);
        co_return false;
    }
    if (m_opcheckJob->isRunning()) {
        emit status(tr("A replay is running; cancel it first"), 10000);
        co_return false;
    }
    const uint64_t source = m_sourceGen;
    const Job::Run run = m_opcheckJob->begin(tr("Replaying the operations of %1...").arg(m_doc->dumpRoot()));
    auto report = m_opcheckJob->reporter(run.generation);
    OpcheckOptions o;
    o.input = m_doc->dumpRoot().toStdString();
#ifdef LLMSCOPE_GGML_REPLAY
    o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
    auto future = QtConcurrent::run(m_pool, [o, report, cancelled = run.cancelled]() -> std::pair<std::shared_ptr<OpcheckResult>, QString> {
        try {
            auto r = runOpcheck(o, [&](uint64_t done, uint64_t total) {
                report(qint64(done), qint64(total), tr("Replaying: %1 of %2 operations").arg(done).arg(total));
                return !*cancelled;
            });
            return {std::make_shared<OpcheckResult>(std::move(r)), QString()};
        } catch (const Error &e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    });
    auto [result, error] = co_await future;
    if (!self || m_sourceGen != source || !m_opcheckJob->isCurrent(run.generation))
        co_return false; // another source, or its replay, owns what is shown
    if (!result) {
        m_opcheckJob->end(run.generation, false, error);
        emit status(tr("Could not replay: %1").arg(error), 15000);
        co_return false;
    }
    // Operations and outputs counted apart (an op has several outputs, views are checked too):
    // the verdicts add up to the outputs they judge.
    const int outputs = result->pass + result->warn + result->fail + result->skip + result->error;
    const QString summary = tr("Replayed %1 of %2 operations that run a kernel; %3 outputs: %4 pass, %5 warn, %6 fail, "
                               "%7 skipped, %8 not replayable")
                                .arg(result->replayedOps)
                                .arg(result->ops - result->viewOps)
                                .arg(outputs)
                                .arg(result->pass)
                                .arg(result->warn)
                                .arg(result->fail)
                                .arg(result->skip)
                                .arg(result->error);
    m_opcheckJob->end(run.generation, true, summary);
    say(QStringLiteral("[llmscope] ") + summary, result->fail || result->error ? Tone::Warning : Tone::Info);
    int listed = 0;
    for (const auto &row : result->rows) // what fails, with why: the kernels to look at
        if ((row.verdict == "FAIL" || row.verdict == "ERROR") && listed++ < 10) {
            const CatalogOp *op = m_doc->catalog().find(row.opId); // the engine's name of the node, where known
            say(tr("[llmscope]   %1 round %2 %3 %4 (%5): %6")
                    .arg(QString::fromStdString(row.verdict))
                    .arg(row.round)
                    .arg(QString::fromStdString(row.opId), QString::fromStdString(op ? op->name : row.opName),
                         QString::fromStdString(row.opType), QString::fromStdString(row.reason)),
                Tone::Failure);
        }
    m_doc->setReplay(result);
    if (const OpcheckRow *first = firstFailing(*result)) { // where to look first, picked
        pickRound(first->round);
        pickOp(QString::fromStdString(first->opId));
    }
    co_return true;
}

QCoro::Task<> Workspace::showReplay(QString op)
{
    QPointer<Workspace> self(this);
    const auto replay = m_doc->replay();
    if (!replay)
        co_return;
    const int64_t round = currentRound();
    const OpcheckRow *row = nullptr;
    for (const auto &r : replay->rows) // the round picked, else the op's first round replayed
        if (QString::fromStdString(r.opId) == op && (r.verdict != "SKIP" && r.verdict != "ERROR") &&
            (!row || (r.round == round && row->round != round)))
            row = &r;
    if (!row)
        co_return;
    if (!m_replayDir)
        m_replayDir = std::make_unique<QTemporaryDir>();
    const uint64_t gen = ++m_replayShownGen;
    const OpcheckRow picked = *row;
    // named as the output is (after/outtensor0.bin), which is how the element view pairs files
    const QString out = QString::fromStdString(picked.tensorPath);
    const QString file = m_replayDir->filePath(QStringLiteral("%1_round%2/after/").arg(op).arg(picked.round)) +
                         QFileInfo(out).fileName();
    auto future = QtConcurrent::run(m_pool, [picked, file]() -> QString {
        try {
            makeDirs(QFileInfo(file).path().toStdString());
            writeBin(file.toStdString(), replayReference(picked));
            return {};
        } catch (const Error &e) {
            return QString::fromUtf8(e.what());
        }
    });
    const QString error = co_await future;
    if (!self || gen != m_replayShownGen || !m_doc->replay())
        co_return; // another op was picked meanwhile, or another source opened
    if (!error.isEmpty()) {
        emit status(tr("Could not replay %1: %2").arg(op, error), 10000);
        co_return;
    }
    emit replayShown({tr("%1 in round %2: the float64 replay on its own inputs (left) against its output (right): %3")
                          .arg(op)
                          .arg(picked.round)
                          .arg(QString::fromStdString(picked.verdict)),
                      {file},
                      {QString::fromStdString(picked.tensorPath)},
                      {}});
}

void Workspace::showMetrics(std::shared_ptr<const CompareResult> r)
{
    m_doc->setMetrics(std::move(r));
}

Workspace::OpTensors Workspace::comparedTensors(int i) const
{
    const CompareResult *r = m_doc->comparison().get();
    if (!r || i < 0 || size_t(i) >= r->ops.size())
        return {};
    const OpResult &op = r->ops[size_t(i)];
    const QString title = tr("%1, round %2").arg(QString::fromStdString(op.label())).arg(op.round);
    if (r->acrossFrameworks) { // the files are not in one op folder on the PyTorch side
        OpTensors t{title, {}, {}, {}};
        for (size_t k : op.rows) {
            const CompareRow &row = r->rows[k];
            const QFileInfo g(QString::fromStdString(row.golden.path)), m(QString::fromStdString(row.my.path));
            t.pairs.push_back({g.fileName() + QStringLiteral(" = ") + m.dir().dirName() + QLatin1Char('/') + m.fileName(),
                               g.filePath(), m.filePath(), row.goldenView, row.myView});
        }
        return t;
    }
    auto files = [&](const std::string &root) {
        QStringList out;
        const OpFiles f = findOpFiles(root, op.opPath, op.round);
        if (f.round == op.round)
            for (const auto &p : f.files)
                out << QString::fromStdString(p);
        return out;
    };
    return {title, files(r->goldenRoot), files(r->myRoot), {}};
}

QStringList Workspace::writeReports(const QString &folder, QString *error) const
{
    if (!m_doc->comparison()) {
        *error = tr("Nothing to export: compare two dumps first (Session > Compare dumps, Ctrl+D).");
        return {};
    }
    try {
        const QString csv = QString::fromStdString(writeCompareReports(*m_doc->comparison(), folder.toStdString()));
        return {csv, csv.left(csv.size() - 4) + QStringLiteral(".json")};
    } catch (const Error &e) {
        *error = QString::fromUtf8(e.what());
        return {};
    }
}

// --- the picked operation

Workspace::Inspection Workspace::inspect(const QString &id) const
{
    Inspection out;
    const CatalogOp *op = m_doc->catalog().find(id.toStdString());
    out.title = QStringLiteral("%1 %2 (%3)").arg(id, op ? QString::fromStdString(op->name) : QString(),
                                                 op ? QString::fromStdString(op->type) : QString());
    // The scan's index, in memory; a running program's files are not scanned until it ends,
    // so while it runs they are looked up in its dump folder.
    out.files = m_doc->filesOf(id, currentRound(), &out.round);
    if (out.files.isEmpty() && m_session->isRunning() && op && !m_doc->dumpRoot().isEmpty()) {
        const OpFiles files = findOpFiles(m_doc->dumpRoot().toStdString(), op->path, currentRound());
        out.round = files.round;
        for (const auto &f : files.files)
            out.files << QString::fromStdString(f);
    }
    if (out.files.isEmpty())
        out.note = tr("Nothing of this operation is in the dump yet: check it and Apply (a running program), or dump "
                      "it with -ids %1.")
                       .arg(id);
    return out;
}

// --- the hunt and the quantization report

bool Workspace::runningSteps() const
{
    return m_hunt->isRunning() || m_quant->isRunning();
}

QString Workspace::busyReason() const
{
    if (runningSteps())
        return tr("A hunt or report is running; cancel it first");
    if (m_session->isRunning())
        return tr("A program is running: stop it first (Session > Stop, Ctrl+.)");
    return {};
}

QCoro::Task<bool> Workspace::runHunt(HuntSide golden, HuntSide test, QString folder, QString rounds,
                                     std::optional<Standard> standard)
{
    if (const QString why = busyReason(); !why.isEmpty()) {
        emit status(why, 10000);
        co_return false;
    }
    auto run = m_hunt->run(std::move(golden), std::move(test), folder, rounds, standard);
    co_return co_await run;
}

QCoro::Task<bool> Workspace::runQuantReport(HuntSide golden, HuntSide test, QString folder, QString rounds,
                                            QString budget)
{
    if (const QString why = busyReason(); !why.isEmpty()) {
        emit status(why, 10000);
        co_return false;
    }
    auto run = m_quant->run(std::move(golden), std::move(test), folder, rounds, budget);
    co_return co_await run;
}
