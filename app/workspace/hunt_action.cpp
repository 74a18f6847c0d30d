#include "hunt_action.h"

#include <QDir>
#include <QFileInfo>

#include <QCoroSignal>

#include "job.h"
#include "workspace.h"
#include "session/hunt_plan.h"
#include "session/live_session.h"
#include "util/error.h"

using namespace llmscope;

HuntAction::HuntAction(Workspace *workspace) : QObject(workspace), m_workspace(workspace) {}

void HuntAction::say(const QString &text, int step)
{
    m_log << text;
    if (m_workspace)
        m_workspace->say(tr("[hunt] %1").arg(text), Workspace::Tone::Step);
    if (step > 0)
        emit stepStarted(step, text);
}

void HuntAction::cancel()
{
    if (!m_running || !m_cancelled)
        return;
    *m_cancelled = true;
    if (m_workspace) {
        m_workspace->stop();
        m_workspace->compareJob()->cancel();
    }
}

QCoro::Task<QString> HuntAction::dump(const HuntSide &side, QStringList args, QString out)
{
    QDir(out).removeRecursively(); // this step's dump, made afresh
    std::vector<std::string> words{"--exec", joinCommand(side.command)};
    for (const QString &a : args + QStringList{"-o", out})
        words.push_back(a.toStdString());
    const DumpOptions o = parseDumpOptions(words);
    const auto cancelled = m_cancelled;
    QPointer<Workspace> w = m_workspace;
    if (!w)
        throw hunt::Cancelled{};
    LiveSession *session = w->session();
    // One signal when the run ends (QCoro connects when it is awaited, below: the launch
    // never ends a run before returning). Awaiting stateChanged in a loop would leave queued
    // calls to awaiters already gone.
    auto ended = qCoro(session, &LiveSession::ended);
    QString why;
    if (!w->launch(o, side.settings, &why))
        throw Error(tr("could not launch %1: %2").arg(QString::fromStdString(joinCommand(side.command)), why).toStdString());
    const auto end = co_await ended;
    const QString message = std::get<1>(end);
    if (*cancelled || !w)
        throw hunt::Cancelled{};
    if (session->state() != LiveSession::State::Finished || session->exitCode() != 0)
        throw Error(tr("%1 did not finish well: %2").arg(QString::fromStdString(o.command[0]), message).toStdString());
    const QString root = session->dumpRoot(); // the msit_dump_* folder the session made for this run
    if (!QFileInfo(root).isDir())
        throw Error(tr("the run wrote no dump under %1").arg(out).toStdString());
    co_return root;
}

QCoro::Task<std::shared_ptr<const CompareResult>> HuntAction::compare(QString golden, QString test,
                                                                      std::optional<Standard> standard)
{
    const auto cancelled = m_cancelled;
    QPointer<Workspace> w = m_workspace;
    if (!w)
        throw hunt::Cancelled{};
    auto comparing = w->compare(golden, test, {}, standard);
    const bool compared = co_await comparing;
    if (*cancelled || !w)
        throw hunt::Cancelled{};
    if (!compared)
        throw Error(tr("%1 and %2 could not be compared").arg(golden, test).toStdString());
    co_return w->comparison();
}

QCoro::Task<bool> HuntAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds,
                                  std::optional<Standard> standard)
{
    if (m_running)
        co_return false;
    m_running = true;
    m_cancelled = std::make_shared<bool>(false);
    m_log.clear();
    QPointer<Workspace> w = m_workspace;
    hunt::Steps steps;
    steps.dump = [this, golden, test](hunt::Side side, QStringList options, QString out) {
        return dump(side == hunt::Side::Golden ? golden : test, options, out);
    };
    steps.compare = [this, standard](QString g, QString t) { return compare(g, t, standard); };
    steps.say = [this](const QString &text, int step) { say(text, std::max(step, 0)); };
    auto hunting = hunt::run(steps, folder, rounds);
    const hunt::Outcome outcome = co_await hunting;
    if (w && outcome.stats && outcome.tensors)
        w->showMetrics(outcome.stats); // the whole model's picture from the statistics; the element view on the op
    m_running = false;
    const bool found = outcome.end == hunt::Outcome::End::Found;
    emit finished(found, outcome.message);
    co_return found;
}
