#include "app/spread/spread_action.h"
#include "app/session/child_dump.h"

#include <QCoreApplication>
#include <QDir>
#include <QtConcurrent>

#include <QCoroFuture>

#include <map>

#include "app/hunt/hunt_plan.h"
#include "app/spread/spread_runner.h"
#include "app/workspace/job.h"
#include "core/util/error.h"
#include "document/job_pool.h"
#include "document/reason_words.h"

using namespace llmscope;

SpreadAction::SpreadAction(QObject *parent)
    : QObject(parent), m_job(new Job(Job::Kind::Spread, tr("spread"), this)),
      m_program(QCoreApplication::applicationFilePath())
{
}

bool SpreadAction::isRunning() const
{
    return m_job->isRunning();
}

void SpreadAction::cancel()
{
    m_job->cancel(); // its flag stops the dump under way (session/child_dump.h) and a comparison
}

QCoro::Task<std::string> SpreadAction::dumpRun(spread::Run command, QStringList options, QString out,
                                               std::shared_ptr<std::atomic<bool>> cancelled)
{
    QPointer<SpreadAction> self(this);
    const QString label = QString::fromStdString(command.label());
    const QString program = m_program;
    QString failed;
    try {
        // a named request: GCC 12 destroys a temporary in a co_await's operand twice
        ChildDump d{program,
                    QString::fromStdString(command.command),
                    options,
                    out,
                    [self, cancelled] { return !self || cancelled->load(); },
                    [self](const QString &line) {
                        if (self)
                            emit self->childOutput(line);
                    }};
        co_return (co_await runChildDump(std::move(d))).toStdString();
    } catch (const ChildDumpCancelled &) {
        throw spread::Cancelled{};
    } catch (const ChildDumpFailed &f) {
        using Kind = ChildDumpFailed::Kind;
        if (!self)
            throw spread::Cancelled{};
        // In the window's language: what the program said last, where it failed itself.
        failed = f.kind == Kind::NotStarted ? tr("Could not start %1: %2").arg(program, f.said)
            : f.kind == Kind::Crashed       ? tr("The dump of '%1' failed: llmscope dump crashed").arg(label)
            : f.kind == Kind::NoDump        ? tr("The dump of '%1' wrote no dump folder").arg(label)
            : f.status >= 0 && !f.lastWords.isEmpty()
            ? tr("The dump of '%1' failed: the program exited with status %2; its last error line: \"%3\" "
                 "(the console has the rest)")
                  .arg(label)
                  .arg(f.status)
                  .arg(f.lastWords)
            : tr("The dump of '%1' failed: %2").arg(label, f.said);
    }
    throw Error(failed.toStdString());
}

QCoro::Task<std::shared_ptr<const SpreadResult>> SpreadAction::run(spread::Request request)
{
    if (m_job->isRunning())
        co_return std::shared_ptr<const SpreadResult>();
    QPointer<SpreadAction> self(this);
    const size_t n = request.runs().size();
    m_folder = QDir(QString::fromStdString(request.folder)).absolutePath();
    removeSpreadReports(m_folder.toStdString()); // whatever follows, an earlier spread's reports are not this one's
    const Job::Run job = m_job->begin(tr("Spread: %n run(s)...", nullptr, int(n)));
    auto fail = [&](const QString &why) {
        m_job->end(job.generation, false, why);
        emit finished(false, why);
        return std::shared_ptr<const SpreadResult>();
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
    steps.compare = [self, n, folder, cancelled,
                     chosen = request.request](std::vector<SpreadRun> runs) -> QCoro::Task<SpreadResult> {
        if (!self)
            throw spread::Cancelled{};
        self->m_at = n; // past the last run: a cancel now is the comparison's
        self->m_job->setProgress(qint64(n), qint64(n) + 1, self->m_doing);
        auto comparing = QtConcurrent::run(
            jobPool(),
            [runs, folder, cancelled, chosen]() -> std::pair<std::optional<SpreadResult>, std::exception_ptr> {
                try {
                    return {computeSpread(
                                runs,
                                [cancelled](const std::string &g, const std::string &t) {
                                    CompareOptions o;
                                    o.goldenPath = g;
                                    o.myPath = t;
                                    o.standard = Standard::Engine;
                                    o.cancel = cancelled.get();
                                    return runCompare(o);
                                },
                                folder, chosen),
                            nullptr};
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
            self->m_job->setProgress(
                qint64(p.run), qint64(p.runs) + 1,
                tr("Run %1 of %2 (%3): %4").arg(p.run + 1).arg(p.runs).arg(p.pass, QString::fromStdString(p.label)));
        } else if (p.stage == Stage::Measure) {
            self->m_doing = tr("Measuring rounds %1 to %2...").arg(p.firstRound).arg(p.lastRound);
        }
    };
    m_doing = tr("Comparing every two runs...");
    m_at = 0;
    spread::Outcome outcome = co_await spread::run(steps, request, m_folder);
    if (!self) // gone: none of its members is read
        co_return std::shared_ptr<const SpreadResult>();
    std::optional<SpreadResult> &result = outcome.result;
    QString failed;
    try {
        if (!result)
            std::rethrow_exception(outcome.error);
    } catch (const spread::Cancelled &) {
        failed = m_at < n ? tr("Cancelled at run %1 of %2").arg(m_at + 1).arg(n)
                          : tr("Cancelled while the runs were compared");
    } catch (const std::exception &e) { // a dump's or comparison's words, a report not written
        failed = job.cancelled->load() ? tr("Cancelled while the runs were compared") : errorWords(e);
    }
    if (!result)
        co_return fail(failed);
    auto shared = std::make_shared<const SpreadResult>(std::move(*result));
    const SpreadResult *r = shared.get();
    const int changed = r->observerChanged();
    const QString observed = changed < 0
        ? QString()
        : tr("Observing changed run %1's results beyond rounding (see the console): the runs are compared as the probe "
             "saw them, not as they run unobserved. ")
              .arg(changed + 1);
    const QString message = observed +
        (r->departs() ? tr("First departure: round %1, %2: run %3 departs")
                            .arg(r->ops[size_t(r->firstDeparture)].round)
                            .arg(QString::fromStdString(r->ops[size_t(r->firstDeparture)].label()))
                            .arg(r->departingRun + 1) // as the runs were counted while they ran
                      : tr("No run departs beyond its standard"));
    m_job->end(job.generation, true, message);
    emit finished(true, message);
    co_return shared;
}
