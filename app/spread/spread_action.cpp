#include "spread/spread_action.h"
#include "session/last_error_line.h"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>
#include <QProcess>
#include <QtConcurrent>

#include <QCoroFuture>
#include <QCoroProcess>

#include <map>

#include "dump/dump_layout.h"
#include "hunt/hunt_plan.h"
#include "job_pool.h"
#include "job.h"
#include "util/error.h"
#include "reason_words.h"
#include "spread/spread_runner.h"

using namespace llmscope;

SpreadAction::SpreadAction(QObject *parent)
    : QObject(parent), m_job(new Job(Job::Kind::Spread, tr("spread"), this)),
      m_program(QCoreApplication::applicationFilePath())
{
    connect(m_job, &Job::cancelRequested, this, &SpreadAction::cancel);
}

bool SpreadAction::isRunning() const
{
    return m_job->isRunning();
}

void SpreadAction::cancel()
{
    if (m_child)
        m_child->kill();
}

namespace {
// From a failed `llmscope dump`'s stderr: the status its target exited with ("the target exited
// with status N") and the target's own last line before it (-1 and empty where it did not say).
std::pair<int, QString> failedProgram(const QString &said)
{
    static const QRegularExpression exited(QStringLiteral("^llmscope dump: the target exited with status (\\d+)"));
    const QStringList lines = said.split(QLatin1Char('\n'));
    for (qsizetype i = lines.size() - 1; i >= 0; --i)
        if (const auto m = exited.match(lines[i]); m.hasMatch())
            return {m.captured(1).toInt(), lastErrorLine(lines.mid(0, i))};
    return {-1, QString()};
}
} // namespace

QCoro::Task<std::string> SpreadAction::dumpRun(spread::Run command, QStringList options, QString out,
                                               std::shared_ptr<std::atomic<bool>> cancelled)
{
    QPointer<SpreadAction> self(this);
    if (cancelled->load()) // cancelled before this run began: none begins
        throw spread::Cancelled{};
    QDir(out).removeRecursively();
    const std::string label = command.label();
    auto *p = new QProcess(this);
    m_child = p;
    p->start(m_program, QStringList{"dump", "--exec", QString::fromStdString(command.command)} + options +
                            QStringList{"-o", out});
    co_await qCoro(p).waitForFinished(std::chrono::hours(24));
    if (!self)
        throw spread::Cancelled{};
    p->deleteLater();
    if (cancelled->load())
        throw spread::Cancelled{};
    QString failed;
    if (p->error() == QProcess::FailedToStart)
        failed = tr("Could not start %1: %2").arg(m_program, p->errorString());
    else if (p->exitStatus() != QProcess::NormalExit)
        failed = tr("The dump of '%1' failed: llmscope dump crashed").arg(QString::fromStdString(label));
    else if (p->exitCode() != 0) {
        // In the window's language: what the program said last, where it failed itself; the
        // dump command's own words (English, as the command line's) go to the console.
        const QString said = QString::fromLocal8Bit(p->readAllStandardError()).trimmed();
        emit childOutput(said);
        const auto [status, lastWords] = failedProgram(said);
        failed = status >= 0 && !lastWords.isEmpty()
                     ? tr("The dump of '%1' failed: the program exited with status %2; its last error line: \"%3\" "
                          "(the console has the rest)")
                           .arg(QString::fromStdString(label))
                           .arg(status)
                           .arg(lastWords)
                     : tr("The dump of '%1' failed: %2").arg(QString::fromStdString(label), said);
    }
    const auto dumps = failed.isEmpty() ? dumpsInside(out.toStdString()) : std::vector<std::string>{};
    if (failed.isEmpty() && dumps.empty())
        failed = tr("The dump of '%1' wrote no dump folder").arg(QString::fromStdString(label));
    if (!failed.isEmpty())
        throw Error(failed.toStdString());
    co_return dumps.front();
}

QCoro::Task<bool> SpreadAction::run(spread::Request request)
{
    if (m_job->isRunning())
        co_return false;
    QPointer<SpreadAction> self(this);
    const size_t n = request.runs().size();
    m_folder = QDir(QString::fromStdString(request.folder)).absolutePath();
    m_result.reset();
    removeSpreadReports(m_folder.toStdString()); // whatever follows, an earlier spread's reports are not this one's
    const Job::Run job = m_job->begin(tr("Spread: %n run(s)...", nullptr, int(n)));
    auto fail = [&](const QString &why) {
        m_job->end(job.generation, false, why);
        emit finished(false, why);
        return false;
    };
    if (n < 2)
        co_return fail(tr("A spread needs at least two runs: give two command lines, a repeat or values to vary."));
    const std::string folder = m_folder.toStdString();
    auto cancelled = job.cancelled;
    spread::Steps steps;
    steps.dump = [self, cancelled](const spread::Run &c, QStringList options, QString out) -> QCoro::Task<std::string> {
        if (!self)
            throw spread::Cancelled{};
        co_return co_await self->dumpRun(c, options, out, cancelled);
    };
    // Every two runs compared off the GUI thread (Cancel stops a comparison under way).
    steps.compare = [self, n, folder, cancelled](std::vector<SpreadRun> runs) -> QCoro::Task<SpreadResult> {
        if (!self)
            throw spread::Cancelled{};
        self->m_at = n; // past the last run: a cancel now is the comparison's
        self->m_job->setProgress(qint64(n), qint64(n) + 1, self->m_doing);
        auto comparing = QtConcurrent::run(jobPool(), [runs, folder, cancelled]() -> std::pair<std::optional<SpreadResult>, std::exception_ptr> {
            try {
                return {computeSpread(runs, [cancelled](const std::string &g, const std::string &t) {
                    CompareOptions o;
                    o.goldenPath = g;
                    o.myPath = t;
                    o.standard = Standard::Engine;
                    o.cancel = cancelled.get();
                    return runCompare(o);
                }, folder), nullptr};
            } catch (...) { // llmscope's Error, a file system's or memory's: worded once, by run()
                return {std::nullopt, std::current_exception()};
            }
        });
        auto [measured, error] = co_await comparing;
        if (!self || cancelled->load()) // gone, or cancelled while the runs were compared: nothing more
            throw spread::Cancelled{};
        if (!measured)
            std::rethrow_exception(error);
        co_return std::move(*measured);
    };
    steps.say = [self](const spread::Progress &p) {
        if (!self)
            return;
        using Stage = spread::Progress::Stage;
        if (p.stage == Stage::Dump) {
            self->m_at = p.run;
            self->m_job->setProgress(qint64(p.run), qint64(p.runs) + 1,
                                     tr("Run %1 of %2 (%3): %4")
                                         .arg(p.run + 1)
                                         .arg(p.runs)
                                         .arg(p.pass, QString::fromStdString(p.label)));
        } else if (p.stage == Stage::Measure) {
            self->m_doing = tr("Measuring rounds %1 to %2...").arg(p.firstRound).arg(p.lastRound);
        }
    };
    m_doing = tr("Comparing every two runs...");
    m_at = 0;
    spread::Outcome outcome = co_await spread::run(steps, request, m_folder);
    if (!self) // gone: none of its members is read
        co_return false;
    std::optional<SpreadResult> &result = outcome.result;
    QString failed;
    try {
        if (!result)
            std::rethrow_exception(outcome.error);
    } catch (const spread::Cancelled &) {
        failed = m_at < n ? tr("Cancelled at run %1 of %2").arg(m_at + 1).arg(n) : tr("Cancelled while the runs were compared");
    } catch (const std::exception &e) { // a dump's or comparison's words, a report not written
        failed = job.cancelled->load() ? tr("Cancelled while the runs were compared") : errorWords(e);
    }
    if (!result)
        co_return fail(failed);
    m_result = std::make_shared<const SpreadResult>(std::move(*result));
    const SpreadResult *r = m_result.get();
    const int changed = r->observerChanged();
    const QString observed = changed < 0 ? QString()
                                         : tr("Observing changed run %1's results beyond rounding (see the console): the runs are compared as the probe "
                                                  "saw them, not as they run unobserved. ")
                                               .arg(changed + 1);
    const QString message = observed + (r->departs()
                                ? tr("First departure: round %1, %2: run %3 departs")
                                      .arg(r->ops[size_t(r->firstDeparture)].round)
                                      .arg(QString::fromStdString(r->ops[size_t(r->firstDeparture)].label()))
                                      .arg(r->departingRun + 1) // as the runs were counted while they ran
                                : tr("No run departs beyond its standard"));
    m_job->end(job.generation, true, message);
    emit finished(true, message);
    co_return true;
}
