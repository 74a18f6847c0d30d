#include "app/hunt/window_steps.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <QCoroSignal>

#include "app/session/live_session.h"
#include "app/workspace/step_host.h"
#include "core/util/error.h"

using namespace llmscope;

namespace windowsteps {
namespace {

class StepsText {
    Q_DECLARE_TR_FUNCTIONS(StepsText)
};

// The host, and whether it is still there: a step's awaits may outlive it.
struct Host {
    StepHost *host;
    QPointer<QObject> alive;
    explicit operator bool() const { return alive; }
    StepHost *operator->() const { return host; }
};

// One `llmscope dump` run of side with these options, live in the window; its dump folder.
QCoro::Task<QString> dump(Host w, HuntSide side, QStringList args, QString out,
                          std::shared_ptr<std::atomic_bool> cancelled)
{
    QDir(out).removeRecursively(); // this step's dump, made afresh
    std::vector<std::string> words{"--exec", joinCommand(side.command)};
    for (const QString &a : args + QStringList{"-o", out})
        words.push_back(a.toStdString());
    const DumpOptions o = parseDumpOptions(words);
    if (!w || *cancelled)
        throw hunt::Cancelled{};
    LiveSession *session = w->session();
    QString why;
    if (!w->launch(o, side.settings, &why))
        throw Error(StepsText::tr("could not launch %1: %2")
                        .arg(QString::fromStdString(joinCommand(side.command)), why)
                        .toStdString());
    // One signal when the run ends, awaited only once the run is launched (the launch never
    // ends a run before returning; an awaiter made for a launch that failed would wait for a
    // signal that never comes, and leak). Awaiting stateChanged in a loop would leave queued
    // calls to awaiters already gone.
    auto ended = qCoro(session, &LiveSession::ended);
    const auto end = co_await ended;
    const QString message = std::get<1>(end);
    if (*cancelled || !w)
        throw hunt::Cancelled{};
    if (session->state() != LiveSession::State::Finished || session->exitCode() != 0)
        throw Error(StepsText::tr("%1 did not finish well: %2")
                        .arg(QString::fromStdString(o.command[0]), message)
                        .toStdString());
    const QString root = session->dumpRoot(); // the msit_dump_* folder the session made for this run
    if (!QFileInfo(root).isDir())
        throw Error(StepsText::tr("the run wrote no dump under %1").arg(out).toStdString());
    co_return root;
}

// Two dumps compared in the workspace (shown in the window); the result.
QCoro::Task<std::shared_ptr<const CompareResult>> compare(Host w, QString golden, QString test,
                                                          std::optional<Standard> standard,
                                                          std::shared_ptr<std::atomic_bool> cancelled)
{
    if (!w)
        throw hunt::Cancelled{};
    auto comparing = w->compareShown(golden, test, standard);
    const bool compared = co_await comparing;
    if (*cancelled || !w)
        throw hunt::Cancelled{};
    if (!compared)
        throw Error(StepsText::tr("%1 and %2 could not be compared").arg(golden, test).toStdString());
    co_return w->comparison();
}

} // namespace

hunt::Steps make(StepHost *host, HuntSide golden, HuntSide test, std::optional<Standard> standard,
                 std::shared_ptr<std::atomic_bool> cancelled, std::function<void(const QString &text, int step)> say)
{
    const Host ws{host, host->lifetime()};
    hunt::Steps steps;
    steps.dump = [ws, golden, test, cancelled](hunt::Side side, QStringList options, QString out) {
        return dump(ws, side == hunt::Side::Golden ? golden : test, options, out, cancelled);
    };
    steps.compare = [ws, standard, cancelled](QString g, QString t) { return compare(ws, g, t, standard, cancelled); };
    steps.say = std::move(say);
    steps.cancelled = [cancelled] { return cancelled->load(); };
    return steps;
}

void cancel(StepHost *host, const std::shared_ptr<std::atomic_bool> &cancelled)
{
    if (!cancelled || *cancelled)
        return;
    *cancelled = true;
    if (host)
        host->stopSteps();
}

} // namespace windowsteps
