#include "app/hunt/hunt_action.h"

#include <QDir>
#include <QFileInfo>

#include "app/hunt/hunt_plan.h"
#include "app/hunt/window_steps.h"
#include "app/workspace/workspace.h"
#include "core/compare/merge_exact.h"
#include "core/util/error.h"

using namespace llmscope;

HuntAction::HuntAction(Workspace *workspace) : QObject(workspace), m_workspace(workspace) {}

void HuntAction::say(const QString &text, int step)
{
    m_log << text;
    if (m_workspace)
        m_workspace->say(tr("[hunt] %1").arg(text),
                         step == hunt::Steps::kFailedEnd ? Workspace::Tone::Failure : Workspace::Tone::Step);
    if (step > 0)
        emit stepStarted(step, text);
}

void HuntAction::cancel()
{
    if (m_running)
        windowsteps::cancel(m_workspace, m_cancelled);
}

QCoro::Task<bool> HuntAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds,
                                  std::optional<Standard> standard)
{
    if (m_running)
        co_return false;
    m_running = true;
    m_cancelled = std::make_shared<std::atomic_bool>(false);
    m_log.clear();
    QPointer<Workspace> w = m_workspace;
    const hunt::Steps steps = windowsteps::make(m_workspace, std::move(golden), std::move(test), standard, m_cancelled,
                                                [this](const QString &text, int step) { say(text, step); });
    auto hunting = hunt::run(steps, folder, rounds);
    const hunt::Outcome outcome = co_await hunting;
    if (w && outcome.fusedChain && outcome.walk) {
        // The Diff page on what the program computes, the fused chain departing: the last compare
        // the hunt ran measured its ops unfused, which agree.
        auto showing = w->compare(QString::fromStdString(outcome.walk->goldenRoot),
                                  QString::fromStdString(outcome.walk->myRoot), {}, standard);
        co_await showing;
    }
    if (w && outcome.stats && outcome.tensors) { // the whole model's picture from the statistics, the op measured
        auto picture = std::make_shared<CompareResult>(*outcome.stats);
        if (outcome.walk) // the round walked back, measured
            mergeExact(*picture, *outcome.walk);
        // a fused chain's unfused measure is the evidence, not what the program computes; a
        // product found by its replay is already in the picture
        if (!outcome.fusedChain && outcome.tensors != outcome.stats)
            mergeExact(*picture, *outcome.tensors);
        w->showMetrics(std::move(picture));
    }
    m_running = false;
    if (outcome.end == hunt::Outcome::End::Failed || outcome.end == hunt::Outcome::End::Cancelled)
        emit failed(outcome.message);
    const bool found = outcome.end == hunt::Outcome::End::Found;
    emit finished(found, outcome.message);
    co_return found;
}
