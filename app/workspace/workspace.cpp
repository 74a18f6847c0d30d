#include "app/workspace/workspace.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QTemporaryDir>

#include <QCoroSignal>

#include "app/hunt/hunt_action.h"
#include "app/quant_report/quant_report_action.h"
#include "app/quant_report/quant_runner.h"
#include "app/spread/spread_action.h"
#include "app/workspace/compare_controller.h"
#include "app/workspace/job.h"
#include "app/workspace/live_controller.h"
#include "app/workspace/replay_controller.h"
#include "app/workspace/scan_controller.h"
#include "core/select/op_ids.h"
#include "core/util/error.h"
#include "document/reason_words.h"
#include "document/rounds_words.h"

using namespace llmscope;

Workspace::Workspace(QObject *parent)
    : QObject(parent), m_huntJob(new Job(Job::Kind::Hunt, tr("hunt"), this)),
      m_reportJob(new Job(Job::Kind::Report, tr("quantization report"), this)), m_hunt(new HuntAction(this, this)),
      m_quant(new QuantReportAction(this, this)), m_doc(new SessionDocument(this)), m_cursor(new Cursor(this)),
      m_live(new LiveController(m_doc, this)), m_replay(new ReplayController(m_doc, m_cursor, this)),
      m_compare(new CompareController(m_doc, this)), m_scan(new ScanController(m_doc, this)),
      m_spread(new SpreadAction(this))
{
    connect(m_replay, &ReplayController::said, this, &Workspace::say);
    // A spread says each run and comparison in the console as it goes, as a hunt does.
    connect(m_spread->job(), &Job::progressed, this,
            [this](qint64, qint64, const QString &what) { say(tr("[spread] %1").arg(what), Tone::Step); });
    connect(m_spread, &SpreadAction::childOutput, this, [this](const QString &text) { say(text, Tone::ErrorOutput); });
    connect(m_spread, &SpreadAction::finished, this, [this](bool ok, const QString &message) {
        if (ok) {
            say(tr("[spread] %1").arg(message), Tone::Step);
            return;
        }
        // What it would have replaced goes: an earlier result (a spread's, a hunt's, a dump's)
        // must not read as this one's on any page. A running program's views stay its own.
        m_doc->setSpread(nullptr);
        if (!m_live->isRunning())
            beginSource(Source::None, {});
        say(tr("Spread failed: %1").arg(message), Tone::Failure);
        emit spreadFailed(message); // (after the source went: its page shows why, not nothing)
    });
    connect(m_scan, &ScanController::said, this, &Workspace::say);
    connect(m_scan, &ScanController::status, this, &Workspace::status);
    connect(m_scan, &ScanController::topologyShown, this, &Workspace::topologyShown);
    connect(m_scan, &ScanController::dumpLoaded, this, &Workspace::dumpLoaded);
    connect(m_scan, &ScanController::dumpFailed, this, &Workspace::dumpFailed);
    connect(m_scan, &ScanController::topologyRead, this, [this](int ops) {
        m_selectionWords = [ops] { return tr("Topology of the opened dump: %n operation(s).", nullptr, ops); };
        emit selectionStatus(m_selectionWords());
    });
    connect(m_replay, &ReplayController::status, this, &Workspace::status);
    connect(m_replay, &ReplayController::referenceShown, this, &Workspace::replayShown);
    m_live->setRunAgainOffered([this] { return canRunAgainWithIds(); });
    connect(m_live, &LiveController::said, this, &Workspace::said);
    connect(m_live, &LiveController::status, this, &Workspace::status);
    connect(m_live, &LiveController::selectionStatus, this, [this](const QString &text) {
        m_selectionWords = [this] { return m_live->selectionStatusText(); };
        emit selectionStatus(text);
    });
    connect(m_live, &LiveController::selectionApplied, this, &Workspace::selectionApplied);
    connect(m_live, &LiveController::stateChanged, this, &Workspace::actionsChanged);
    // What a run wrote, file by file (its statistics came live). Started from the event loop,
    // once every follower has heard of the run's end: a scan that ends at once (the writer's
    // index) still reports after it.
    connect(m_live, &LiveController::ended, this, [this](const QString &root) {
        if (m_doc->source().kind != Source::Program || root != m_doc->source().dumpRoot)
            return;
        QMetaObject::invokeMethod(
            this,
            [this, root] {
                if (m_doc->source().kind == Source::Program && root == m_doc->source().dumpRoot && !m_live->isRunning())
                    m_scan->run(root, false);
            },
            Qt::QueuedConnection);
    });

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
    // What a failed hunt would have replaced goes: an earlier comparison must not read as its
    // verdict (its own lines are in the console).
    connect(m_hunt, &HuntAction::failed, this, [this](const QString &why) {
        m_doc->setComparison(nullptr);
        m_doc->setMetrics(nullptr);
        emit huntFailed(why);
    });
    follow(m_reportJob, m_quant, quant::kSteps, &QuantReportAction::stepStarted, &QuantReportAction::finished);
    connect(m_quant, &QuantReportAction::stepStarted, this,
            [this](int, const QString &text) { say(text, Tone::Step); });
    // after its last run began: the report outlives those sources
    connect(m_quant, &QuantReportAction::reported, m_doc, &SessionDocument::setQuantReport);
    connect(m_quant, &QuantReportAction::finished, this, [this](bool, const QString &text) { say(text, Tone::Step); });
}

Workspace::~Workspace() = default;

LiveSession *Workspace::session() const
{
    return m_live->session();
}

QObject *Workspace::lifetime()
{
    return this;
}

QCoro::Task<bool> Workspace::compareShown(QString golden, QString test, std::optional<Standard> standard)
{
    return compare(std::move(golden), std::move(test), {}, standard);
}

void Workspace::stopSteps()
{
    stop();
    m_compare->job()->cancel();
}

Job *Workspace::opcheckJob() const
{
    return m_replay->job();
}

Job *Workspace::compareJob() const
{
    return m_compare->job();
}

Job *Workspace::spreadJob() const
{
    return m_spread->job();
}

QCoro::Task<bool> Workspace::runSpread(spread::Request request)
{
    QPointer<Workspace> self(this);
    auto running = m_spread->run(std::move(request));
    const std::shared_ptr<const SpreadResult> r = co_await running;
    if (!r || !self) // a failure said when the spread finished
        co_return false;
    const QString folder = m_spread->folder(); // before another spread can begin
    const QString first = QString::fromStdString(r->runs[0].dump);
    bool shown = false;
    if (r->departs() && !m_live->isRunning()) { // the departure element by element, in the Diff tab
        auto comparing =
            compare(QString::fromStdString(r->departureReference()), QString::fromStdString(r->departureDump()));
        shown = co_await comparing;
    } else if (!m_live->isRunning()) {
        auto opening = openDump(first);
        shown = co_await opening;
    }
    if (!self)
        co_return false;
    // Shown: run 0 is the source now, and the heatmap shows the spread on its ops. Not (a running
    // program's views stay its own, or run 0's dump did not open): on the spread's page only.
    m_doc->setSpread(r, folder, shown);
    if (shown && r->departs()) { // the first departure picked, in its round
        const SpreadOp &o = r->ops[size_t(r->firstDeparture)];
        m_cursor->setRound(o.round);
        m_cursor->setOp(QString::fromStdString(o.opId));
    }
    emit spreadShown();
    co_return true;
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
    m_showingLastLaunch = false;
    // What the scan and the comparison still bring belongs to what was shown before.
    m_cursor->reset();
    m_live->forget();
    m_doc->reset(source, name);
    // what the panel said of the old source's operations goes with them
    m_selectionWords = [] { return QString(); };
    emit selectionStatus(QString());
    emit actionsChanged();
}

QCoro::Task<bool> Workspace::openDump(QString folder)
{
    if (m_live->isRunning()) { // its views are the program's until it ends
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
    if (m_live->isRunning()) {
        *error = tr("A program is running: stop it first (Session > Stop, Ctrl+.)");
        emit status(*error, 10000);
        return false;
    }
    try { // what can stop it before it runs: said, and what the window shows stays
        checkLaunch(options, settings);
    } catch (const Error &e) {
        *error = errorWords(e);
        say(tr("[llmscope] cannot launch: %1").arg(*error), Tone::Failure);
        emit status(tr("Cannot launch: %1").arg(*error), 15000);
        return false;
    }
    beginSource(
        Source::Program,
        QFileInfo(QString::fromStdString(options.command.empty() ? std::string() : options.command[0])).fileName());
    if (!m_live->start(options, settings, error)) {
        emit launchFailed(*error);
        return false;
    }
    // A hunt's or report's own runs are not the user's: Run again and the Launch dialog keep
    // the user's last launch, never a run that dumps into the hunt's folder.
    const bool byHunt = runningSteps();
    if (!byHunt)
        m_lastLaunch = std::make_pair(options, settings);
    m_showingLastLaunch = !byHunt;
    emit launched(options, settings, byHunt);
    return true;
}

QCoro::Task<> Workspace::runAgain()
{
    if (!m_lastLaunch)
        co_return;
    QPointer<Workspace> self(this);
    if (m_live->isRunning()) { // stopped, and said so (its end comes after its last message)
        LiveSession *session = m_live->session();
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
    if (m_live->isRunning()) {
        emit status(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        return false;
    }
    beginSource(Source::None, {});
    return true;
}

void Workspace::stop()
{
    m_live->stop();
}

// --- selection

bool Workspace::canApply() const
{
    return m_live->canApply();
}

bool Workspace::canRunAgainWithIds() const
{
    return m_showingLastLaunch && m_lastLaunch && !m_live->isRunning() && !runningSteps();
}

void Workspace::applySelection(const QString &ids)
{
    if (!canRunAgainWithIds()) {
        m_live->applySelection(ids);
        return;
    }
    auto again = *m_lastLaunch; // a copy: launch replaces it
    try {
        OpIds::parse(ids.toStdString());
    } catch (const Error &e) {
        emit selectionStatus(tr("Cannot run again with -ids %1: %2").arg(ids, QString::fromUtf8(e.what())));
        return;
    }
    again.first.ids = ids.toStdString();
    QString error;
    if (launch(again.first, again.second, &error))
        say(tr("[llmscope] Run again, dumping -ids %1 in %2 (the launch's -er; Session > Launch changes it)")
                .arg(ids.isEmpty() ? tr("(every operation)") : ids,
                     roundsWords(QString::fromStdString(again.first.rounds))),
            Tone::Step);
}

// --- comparison

QCoro::Task<bool> Workspace::compare(QString golden, QString test, QString mapping, std::optional<Standard> standard,
                                     RequestChoice goldenRequest, RequestChoice testRequest)
{
    QPointer<Workspace> self(this);
    if (m_compare->job()->isRunning()) { // one comparison at a time
        emit status(tr("A comparison is running; cancel it first"), 10000);
        co_return false;
    }
    std::shared_ptr<QTemporaryDir> views; // the requests' views, kept while their comparison is shown
    if (goldenRequest.chosen() || testRequest.chosen()) {
        auto pairing = m_compare->pairRequests(golden, goldenRequest, test, testRequest);
        const auto [cut, error] = co_await pairing;
        if (!self)
            co_return false;
        if (!cut) {
            say(tr("Could not compare: %1").arg(error), Tone::Failure);
            emit compareFinished(false, error);
            co_return false;
        }
        for (const std::string &note : cut->pairing.notes)
            say(QString::fromStdString(note), Tone::Step);
        golden = QString::fromStdString(cut->pairing.golden);
        test = QString::fromStdString(cut->pairing.my);
        views = cut->folder;
    }
    std::optional<QCoro::Task<bool>> opening;
    if (!m_live->isRunning()) { // golden's operations in the tree and heatmap, while comparing
        // A PyTorch golden against an engine: the report's ops are the engine's nodes
        // (compare/framework_pairing.h), so the engine's dump is the one shown.
        const QString shown =
            holdsTorchDump(golden.toStdString()) && !holdsTorchDump(test.toStdString()) ? test : golden;
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
    if (!result) { // said where it stays, as well as in the status bar a later message replaces
        say(tr("Could not compare: %1").arg(error), Tone::Failure);
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
    m_compare->keepViews(views); // the files it shows, until another comparison is shown
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
        m_cursor->setOp(QString::fromStdString(result->ops[size_t(result->firstDivergent)].opId));
    emit status(message, 30000);
    emit compareFinished(true, message);
    co_return true;
}

QCoro::Task<bool> Workspace::opcheck()
{
    if (m_live->isRunning()) {
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

QStringList Workspace::writeReports(const QString &folder, QString *error) const
{
    return m_compare->writeReports(folder, error);
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
    if (m_live->isRunning())
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
