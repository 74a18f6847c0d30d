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

namespace {
struct Cancelled {};
} // namespace

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
        throw Cancelled{};
    LiveSession *session = w->session();
    // Listening before the launch: one signal when the run ends. (Awaiting stateChanged in a
    // loop would leave queued calls to awaiters already gone.)
    auto ended = qCoro(session, &LiveSession::ended);
    QString why;
    if (!w->launch(o, side.settings, &why))
        throw Error(tr("could not launch %1: %2").arg(QString::fromStdString(joinCommand(side.command)), why).toStdString());
    const auto end = co_await ended;
    const QString message = std::get<1>(end);
    if (*cancelled || !w)
        throw Cancelled{};
    if (session->state() != LiveSession::State::Finished || session->exitCode() != 0)
        throw Error(tr("%1 did not finish well: %2").arg(QString::fromStdString(o.command[0]), message).toStdString());
    const QString root = session->dumpRoot(); // the msit_dump_* folder the session made for this run
    if (!QFileInfo(root).isDir())
        throw Error(tr("the run wrote no dump under %1").arg(out).toStdString());
    co_return root;
}

QCoro::Task<std::shared_ptr<const CompareResult>> HuntAction::dumpAndCompare(HuntSide golden, HuntSide test,
                                                                             QStringList goldenArgs, QStringList testArgs,
                                                                             QString goldenOut, QString testOut, int step,
                                                                             QString text)
{
    const auto cancelled = m_cancelled;
    // Each task named before it is awaited: g++ 12 mishandles temporaries inside co_await.
    auto goldenRun = dump(golden, goldenArgs, goldenOut);
    const QString goldenDump = co_await goldenRun;
    auto testRun = dump(test, testArgs, testOut);
    const QString testDump = co_await testRun;
    say(text, step);
    QPointer<Workspace> w = m_workspace;
    auto compare = w->compare(goldenDump, testDump);
    const bool compared = co_await compare;
    if (*cancelled || !w)
        throw Cancelled{};
    if (!compared)
        throw Error(tr("%1 and %2 could not be compared").arg(goldenDump, testDump).toStdString());
    co_return w->comparison();
}

QCoro::Task<bool> HuntAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds)
{
    if (m_running)
        co_return false;
    m_running = true;
    m_cancelled = std::make_shared<bool>(false);
    m_log.clear();
    QPointer<Workspace> w = m_workspace;
    const QDir dir(folder);
    bool found = false;
    QString end;
    try {
        say(hunt::stepStats(rounds), 1);
        const QStringList statsArgs = hunt::statsArgs(rounds);
        auto statsPass = dumpAndCompare(golden, test, statsArgs, statsArgs, dir.absoluteFilePath(hunt::goldenStatsDir()),
                                        dir.absoluteFilePath(hunt::testStatsDir()), 2, hunt::stepCompareStats());
        auto statsResult = co_await statsPass;
        if (statsResult->standard == Standard::Engine && hunt::quantizedTest(*statsResult)) {
            const QStringList outputsArgs = hunt::outputsArgs(rounds);
            auto outputsPass = dumpAndCompare(golden, test, outputsArgs, outputsArgs,
                                              dir.absoluteFilePath(hunt::goldenOutputsDir()),
                                              dir.absoluteFilePath(hunt::testOutputsDir()), 2,
                                              hunt::stepOutputs(*statsResult, rounds));
            statsResult = co_await outputsPass;
        }
        if (statsResult->firstDivergent < 0) {
            end = hunt::nothingDiverges(rounds, *statsResult);
            say(end);
        } else {
            const OpResult suspect = statsResult->ops[size_t(statsResult->firstDivergent)];
            say(hunt::suspect(*statsResult, suspect));

            say(hunt::stepTensors(suspect), 3);
            auto tensorPass = dumpAndCompare(golden, test, hunt::tensorArgs(suspect, hunt::Side::Golden),
                                             hunt::tensorArgs(suspect, hunt::Side::Test),
                                             dir.absoluteFilePath(hunt::goldenTensorsDir()),
                                             dir.absoluteFilePath(hunt::testTensorsDir()), 4, hunt::stepCompareTensors());
            const auto result = co_await tensorPass;
            if (!w)
                throw Cancelled{};
            // The whole model's picture from the statistics; the element view on the op.
            w->showMetrics(statsResult);
            const OpResult *op = hunt::findOp(*result, suspect.opId);
            if (!op) {
                end = hunt::notDumped(suspect);
                say(end);
            } else {
                end = hunt::found(*result, *op);
                say(end);
                found = hunt::confirmed(*result, *op);
                if (!found) {
                    end = hunt::cleared(*op);
                    say(end);
                }
                say(tr("dumps kept in %1").arg(dir.absolutePath()));
            }
        }
    } catch (const Cancelled &) {
        end = tr("cancelled; the dumps written so far are kept in %1").arg(dir.absolutePath());
        say(end);
    } catch (const Error &e) {
        end = tr("stopped: %1").arg(QString::fromUtf8(e.what()));
        say(end);
    }
    m_running = false;
    emit finished(found, end);
    co_return found;
}

