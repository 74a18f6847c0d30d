#include "app/hunt/hunt_action.h"

#include <QDir>
#include <QFileInfo>

#include "app/hunt/hunt_plan.h"
#include "app/hunt/window_steps.h"
#include "app/workspace/step_host.h"
#include "core/compare/merge_exact.h"
#include "core/util/error.h"

using namespace llmscope;

HuntAction::HuntAction(StepHost *host, QObject *parent) : QObject(parent), m_host(host) {}

void HuntAction::say(const QString &text, int step)
{
    m_log << text;
    m_host->say(tr("[hunt] %1").arg(text), step == hunt::Steps::kFailedEnd ? ConsoleTone::Failure : ConsoleTone::Step);
    if (step > 0)
        emit stepStarted(step, text);
}

void HuntAction::cancel()
{
    if (m_running)
        windowsteps::cancel(m_host, m_cancelled);
}

QCoro::Task<bool> HuntAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds,
                                  std::optional<Standard> standard)
{
    if (m_running)
        co_return false;
    m_running = true;
    m_cancelled = std::make_shared<std::atomic_bool>(false);
    m_log.clear();
    QPointer<HuntAction> self(this); // the host's child: gone with it
    StepHost *w = m_host;
    const hunt::Steps steps = windowsteps::make(m_host, std::move(golden), std::move(test), standard, m_cancelled,
                                                [this](const QString &text, int step) { say(text, step); });
    auto hunting = hunt::run(steps, folder, rounds);
    const hunt::Outcome outcome = co_await hunting;
    if (!self)
        co_return false;
    if (outcome.fusedChain && outcome.walk) {
        // The Diff page on what the program computes, the fused chain departing: the last compare
        // the hunt ran measured its ops unfused, which agree.
        auto showing = w->compareShown(QString::fromStdString(outcome.walk->goldenRoot),
                                       QString::fromStdString(outcome.walk->myRoot), standard);
        co_await showing;
        if (!self)
            co_return false;
    }
    if (outcome.stats && outcome.tensors) { // the whole model's picture from the statistics, the op measured
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
