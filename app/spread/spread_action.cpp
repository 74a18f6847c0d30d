#include "spread/spread_action.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QtConcurrent>

#include <QCoroFuture>
#include <QCoroProcess>

#include <map>

#include "dump/dump_layout.h"
#include "hunt/hunt_plan.h"
#include "job.h"
#include "util/error.h"

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

QCoro::Task<bool> SpreadAction::run(spread::Request request)
{
    if (m_job->isRunning())
        co_return false;
    QPointer<SpreadAction> self(this);
    const std::vector<std::string> commands = request.runs();
    m_folder = QDir(QString::fromStdString(request.folder)).absolutePath();
    m_result.reset();
    const Job::Run job = m_job->begin(tr("Spread: %n run(s)...", nullptr, int(commands.size())));
    auto fail = [&](const QString &why) {
        m_job->end(job.generation, false, why);
        emit finished(false, why);
        return false;
    };
    if (commands.size() < 2)
        co_return fail(tr("A spread needs at least two runs: give two command lines, a repeat or values to vary."));
    std::vector<SpreadRun> runs;
    std::map<std::string, int> configs;
    for (size_t k = 0; k < commands.size(); ++k) {
        const QString out = m_folder + QStringLiteral("/run-%1").arg(k);
        QDir(out).removeRecursively();
        m_job->setProgress(qint64(k), qint64(commands.size()) + 1,
                           tr("Run %1 of %2: %3").arg(k + 1).arg(commands.size()).arg(QString::fromStdString(commands[k])));
        auto *p = new QProcess(this);
        m_child = p;
        p->start(m_program, {"dump", "--exec", QString::fromStdString(commands[k]), "--type", "model", "tensor", "-er",
                             hunt::dumpRounds(QString::fromStdString(request.rounds)), "-o", out});
        co_await qCoro(p).waitForFinished(std::chrono::hours(24));
        if (!self)
            co_return false;
        p->deleteLater();
        if (job.cancelled->load())
            co_return fail(tr("Cancelled at run %1 of %2").arg(k + 1).arg(commands.size()));
        if (p->error() == QProcess::FailedToStart)
            co_return fail(tr("Could not start %1: %2").arg(m_program, p->errorString()));
        if (p->exitStatus() != QProcess::NormalExit || p->exitCode() != 0) {
            const QString why = p->exitStatus() != QProcess::NormalExit
                                    ? tr("llmscope dump crashed")
                                    : QString::fromLocal8Bit(p->readAllStandardError()).trimmed();
            co_return fail(tr("The dump of '%1' failed: %2").arg(QString::fromStdString(commands[k]), why));
        }
        const auto dumps = dumpsInside(out.toStdString());
        if (dumps.empty())
            co_return fail(tr("The dump of '%1' wrote no dump folder").arg(QString::fromStdString(commands[k])));
        runs.push_back({commands[k], dumps.front(), configs.emplace(commands[k], int(configs.size())).first->second});
    }
    m_job->setProgress(qint64(commands.size()), qint64(commands.size()) + 1, tr("Comparing every two runs..."));
    const std::string folder = m_folder.toStdString();
    auto cancelled = job.cancelled;
    auto future = QtConcurrent::run([runs, folder, cancelled]() -> std::pair<std::shared_ptr<const SpreadResult>, QString> {
        try {
            auto r = std::make_shared<const SpreadResult>(computeSpread(runs, [cancelled](const std::string &g,
                                                                                         const std::string &t) {
                CompareOptions o;
                o.goldenPath = g;
                o.myPath = t;
                o.standard = Standard::Engine;
                o.cancel = cancelled.get();
                return runCompare(o);
            }, folder));
            writeSpreadReports(*r, folder);
            return {r, QString()};
        } catch (const std::exception &e) { // llmscope's Error, and a file system's or memory's
            return {nullptr, QString::fromUtf8(e.what())};
        }
    });
    auto [result, error] = co_await future;
    if (!self)
        co_return false;
    if (!result)
        co_return fail(error);
    m_result = result;
    const QString message = result->departs()
                                ? tr("First departure: round %1, %2: run %3 departs")
                                      .arg(result->ops[size_t(result->firstDeparture)].round)
                                      .arg(QString::fromStdString(result->ops[size_t(result->firstDeparture)].label()))
                                      .arg(result->departingRun)
                                : tr("No run departs beyond its standard");
    m_job->end(job.generation, true, message);
    emit finished(true, message);
    co_return true;
}
