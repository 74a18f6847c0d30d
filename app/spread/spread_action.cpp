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

QCoro::Task<std::optional<std::vector<SpreadRun>>> SpreadAction::dumpEvery(const std::vector<spread::Run> &commands,
                                                                            QStringList options, QString pass,
                                                                            std::shared_ptr<std::atomic<bool>> cancelled,
                                                                            uint64_t generation)
{
    QPointer<SpreadAction> self(this);
    std::vector<SpreadRun> runs;
    std::map<std::string, int> configs;
    for (size_t k = 0; k < commands.size(); ++k) {
        const QString out = m_folder + QStringLiteral("/%1-%2").arg(pass).arg(k);
        QDir(out).removeRecursively();
        const std::string label = commands[k].label();
        m_job->setProgress(qint64(k), qint64(commands.size()) + 1,
                           tr("Run %1 of %2 (%3): %4").arg(k + 1).arg(commands.size()).arg(pass, QString::fromStdString(label)));
        auto *p = new QProcess(this);
        m_child = p;
        p->start(m_program, QStringList{"dump", "--exec", QString::fromStdString(commands[k].command)} + options +
                                commands[k].options() + QStringList{"-o", out});
        co_await qCoro(p).waitForFinished(std::chrono::hours(24));
        if (!self)
            co_return std::nullopt;
        p->deleteLater();
        QString failed;
        if (cancelled->load())
            failed = tr("Cancelled at run %1 of %2").arg(k + 1).arg(commands.size());
        else if (p->error() == QProcess::FailedToStart)
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
        if (!failed.isEmpty()) {
            m_job->end(generation, false, failed);
            emit finished(false, failed);
            co_return std::nullopt;
        }
        runs.push_back({label, dumps.front(), configs.emplace(label, int(configs.size())).first->second});
    }
    co_return runs;
}

QCoro::Task<bool> SpreadAction::run(spread::Request request)
{
    if (m_job->isRunning())
        co_return false;
    QPointer<SpreadAction> self(this);
    const std::vector<spread::Run> commands = request.runs();
    m_folder = QDir(QString::fromStdString(request.folder)).absolutePath();
    m_result.reset();
    removeSpreadReports(m_folder.toStdString());
    const Job::Run job = m_job->begin(tr("Spread: %n run(s)...", nullptr, int(commands.size())));
    auto fail = [&](const QString &why) {
        m_job->end(job.generation, false, why);
        emit finished(false, why);
        return false;
    };
    if (commands.size() < 2)
        co_return fail(tr("A spread needs at least two runs: give two command lines, a repeat or values to vary."));
    const std::string folder = m_folder.toStdString();
    auto cancelled = job.cancelled;
    // Every two runs compared off the GUI thread (Cancel stops a comparison under way).
    auto compareAll = [folder, cancelled](std::vector<SpreadRun> runs) {
        return QtConcurrent::run(jobPool(), [runs, folder, cancelled]() -> std::pair<std::optional<SpreadResult>, QString> {
            try {
                return {computeSpread(runs, [cancelled](const std::string &g, const std::string &t) {
                    CompareOptions o;
                    o.goldenPath = g;
                    o.myPath = t;
                    o.standard = Standard::Engine;
                    o.cancel = cancelled.get();
                    return runCompare(o);
                }, folder), QString()};
            } catch (const std::exception &e) { // llmscope's Error, and a file system's or memory's
                return {std::nullopt, errorWords(e)};
            }
        });
    };
    auto first = dumpEvery(commands, spread::firstPass(request), QStringLiteral("run"), cancelled, job.generation);
    std::optional<std::vector<SpreadRun>> runs = co_await first;
    if (!self || !runs)
        co_return false;
    // The observer check: each command once more, the probe loaded but reading nothing.
    auto plainPass = dumpEvery(commands, spread::observerPass(), QStringLiteral("unobserved"), cancelled, job.generation);
    const std::optional<std::vector<SpreadRun>> plain = co_await plainPass;
    if (!self || !plain)
        co_return false;
    try {
        for (size_t k = 0; k < runs->size(); ++k)
            (*runs)[k].observer = checkObserver((*plain)[k].dump, (*runs)[k].dump);
    } catch (const std::exception &e) {
        co_return fail(errorWords(e));
    }
    if (!request.tensors && spread::mustLineUp(*runs)) { // statistics of whole rounds do not line up by row
        auto again = dumpEvery(commands, spread::tensorPass(request), QStringLiteral("tensors"), cancelled, job.generation);
        std::optional<std::vector<SpreadRun>> lined = co_await again;
        if (!self || !lined)
            co_return false;
        for (size_t k = 0; k < lined->size(); ++k)
            (*lined)[k].observer = (*runs)[k].observer;
        runs = std::move(lined);
    }
    // The first pass compared; then, where runs part by statistics, the suspects' tensors
    // dumped and measured, their measures put in place.
    std::optional<SpreadResult> result;
    QString doing = tr("Comparing every two runs...");
    for (int pass = 1; pass <= spread::kMostPasses; ++pass) {
        if (result) {
            const SpreadSuspects s = suspectsOf(*result);
            if (s.empty())
                break;
            auto dumping = dumpEvery(commands, spread::suspectPass(request, s), QStringLiteral("pass%1").arg(pass), cancelled,
                                     job.generation);
            runs = co_await dumping;
            if (!self || !runs)
                co_return false;
            doing = tr("Measuring rounds %1 to %2...").arg(s.firstRound).arg(s.lastRound);
        }
        m_job->setProgress(qint64(commands.size()), qint64(commands.size()) + 1, doing);
        auto comparing = compareAll(*runs);
        auto [measured, why] = co_await comparing;
        if (!self)
            co_return false;
        if (!measured)
            co_return fail(why);
        if (result)
            mergeExact(*result, *measured);
        else
            result = std::move(measured);
    }
    try {
        writeSpreadReports(*result, folder);
    } catch (const std::exception &e) {
        co_return fail(errorWords(e));
    }
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
