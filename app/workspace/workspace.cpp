#include "workspace.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>

#include <QCoroSignal>

#include "compare_controller.h"
#include "dump/op_files.h"
#include "hunt/hunt_action.h"
#include "job.h"
#include "onnx/onnx_export.h"
#include "quant_report/quant_report_action.h"
#include "quant_report/quant_runner.h"
#include "replay_controller.h"
#include "scan_controller.h"
#include "util/error.h"

using namespace llmscope;

Workspace::Workspace(QObject *parent)
    : QObject(parent), m_session(new LiveSession(this)),
      m_huntJob(new Job(Job::Kind::Hunt, tr("hunt"), this)),
      m_reportJob(new Job(Job::Kind::Report, tr("quantization report"), this)),
      m_hunt(new HuntAction(this)), m_quant(new QuantReportAction(this)), m_doc(new SessionDocument(this)),
      m_cursor(new Cursor(this)), m_replay(new ReplayController(m_doc, m_cursor, this)),
      m_compare(new CompareController(m_doc, this)), m_scan(new ScanController(m_doc, this))
{
    connect(m_replay, &ReplayController::said, this, &Workspace::say);
    connect(m_scan, &ScanController::said, this, &Workspace::say);
    connect(m_scan, &ScanController::status, this, &Workspace::status);
    connect(m_scan, &ScanController::topologyShown, this, &Workspace::topologyShown);
    connect(m_scan, &ScanController::dumpLoaded, this, &Workspace::dumpLoaded);
    connect(m_scan, &ScanController::dumpFailed, this, &Workspace::dumpFailed);
    connect(m_scan, &ScanController::topologyRead, this, [this](int ops) {
        emit selectionStatus(tr("Topology of the opened dump: %n operation(s).", nullptr, ops));
    });
    connect(m_replay, &ReplayController::status, this, &Workspace::status);
    connect(m_replay, &ReplayController::referenceShown, this, &Workspace::replayShown);
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

Job *Workspace::opcheckJob() const
{
    return m_replay->job();
}

Job *Workspace::compareJob() const
{
    return m_compare->job();
}

Job *Workspace::scanJob() const
{
    return m_scan->job();
}

void Workspace::setTakeSlice(qint64 ms)
{
    m_scan->setTakeSlice(ms);
}

void Workspace::setThreadPool(QThreadPool *pool)
{
    m_replay->setThreadPool(pool);
    m_compare->setThreadPool(pool);
    m_scan->setThreadPool(pool);
}

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

QCoro::Task<bool> Workspace::openDump(QString folder)
{
    if (m_session->isRunning()) { // its views are the program's until it ends
        emit status(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        co_return false;
    }
    beginSource(Source::Dump, folder);
    m_doc->setDumpRoot(folder);
    auto scanning = m_scan->run(folder, true);
    co_return co_await scanning;
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
                        m_scan->run(root, false);
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
    if (m_compare->job()->isRunning()) { // one comparison at a time
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
        opening.emplace(m_scan->run(shown, true));
    }
    const uint64_t source = m_sourceGen;
    CompareOptions o;
    o.goldenPath = golden.toStdString();
    o.myPath = test.toStdString();
    o.mappingFile = mapping.toStdString();
    o.standard = standard;
    auto comparing = m_compare->run(o);
    const auto [result, error] = co_await comparing;
    if (!self)
        co_return false;
    if (!result) {
        emit status(tr("Could not compare: %1").arg(error), 15000);
        emit compareFinished(false, error);
        co_return false;
    }
    if (m_sourceGen != source) { // another dump or program came meanwhile: this belongs to none of it
        emit compareFinished(false, tr("the comparison ended after another source was opened; it is not shown"));
        co_return false;
    }
    m_cursor->setCompared(-1); // an index into the previous comparison's ops means nothing now
    const QString message = CompareController::conclusion(*result);
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
    if (m_session->isRunning()) {
        emit status(tr("A program is running: replay its dump once it has ended"), 10000);
        co_return false;
    }
    auto replaying = m_replay->run();
    co_return co_await replaying;
}

QCoro::Task<> Workspace::showReplay(QString op)
{
    return m_replay->showReference(std::move(op));
}

void Workspace::showMetrics(std::shared_ptr<const CompareResult> r)
{
    m_doc->setMetrics(std::move(r));
}

Workspace::OpTensors Workspace::comparedTensors(int op) const
{
    return m_compare->comparedFiles(op);
}

QStringList Workspace::writeReports(const QString &folder, QString *error) const
{
    return m_compare->writeReports(folder, error);
}

// --- the picked operation

Workspace::Inspection Workspace::inspect(const QString &id) const
{
    Inspection out;
    const CatalogOp *op = m_doc->catalog().find(id.toStdString());
    out.title = QStringLiteral("%1 %2 (%3)").arg(id, op ? QString::fromStdString(op->name) : QString(),
                                                 op ? QString::fromStdString(op->type) : QString());
    // The scan's index, in memory. A program's files are scanned only once it has ended (and
    // that scan takes a while): until the index has them they are looked up in its folder.
    out.files = m_doc->filesOf(id, currentRound(), &out.round);
    if (out.files.isEmpty() && m_doc->source() == Source::Program && op && !m_doc->dumpRoot().isEmpty()) {
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
