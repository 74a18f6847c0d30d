// The hunt's steps, run by one runner for `llmscope hunt` and for the window's Session > Hunt.
// What differs between the two comes in as Steps: how a side is dumped (a child `llmscope
// dump`, or a launch shown live in the window), how two dumps are compared, and where the
// words go. The order of the steps, the reports written beside the dumps, the verdict and the
// words themselves (hunt_plan.h) are the runner's.
#pragma once
#include <QCoroTask>

#include <functional>
#include <memory>
#include <optional>

#include "app/hunt/hunt_plan.h"
#include "core/compare/observer_check.h"
#include "core/dump/fusion_record.h"

namespace hunt {

// Thrown by a step when the user cancelled: the hunt ends, saying so, keeping its dumps.
struct Cancelled {};

struct Steps {
    // Dumps side with these `llmscope dump` options into out; the dump folder it made. Throws
    // llmscope::Error when it cannot, Cancelled when cancelled.
    std::function<QCoro::Task<QString>(Side side, QStringList options, QString out)> dump;
    // Compares golden's dump with test's; throws as dump does.
    std::function<QCoro::Task<std::shared_ptr<const llmscope::CompareResult>>(QString golden, QString test)> compare;
    // A line to show: step 1..kSteps starts one; 0 a conclusion; kFailedEnd the conclusion of a
    // hunt that failed or was cancelled; -1 a detail under it.
    std::function<void(const QString &text, int step)> say;
    // Whether the user cancelled, asked between two pieces of work a worker thread does (the
    // products' replay); callable from any thread. Empty: never.
    std::function<bool()> cancelled;
    static constexpr int kFailedEnd = -2;
};

// The same steps, each dump pass's program stopped after seconds (`llmscope dump --timeout`);
// unchanged for 0.
Steps withTimeout(Steps steps, int seconds);

struct Outcome {
    // Unexplained: nothing departs beyond its budget where compared, yet the programs chose
    // other tokens (never reported as nothing diverging).
    enum class End { Found, NothingDiverges, Cleared, NotDumped, Failed, Cancelled, Unexplained };
    End end = End::Failed;
    QString message; // the last line said
    std::shared_ptr<const llmscope::CompareResult> stats; // the statistics (or outputs) pass
    std::shared_ptr<const llmscope::CompareResult> walk; // the walk back: the round's outputs, element-wise
    std::shared_ptr<const llmscope::CompareResult> tensors; // the found op's element-wise pass
    std::optional<llmscope::OpcheckRow> replay; // the suspect replayed on the test's inputs
    std::optional<llmscope::ObserverCheck> observer; // whether observing changed the test's results
    std::optional<llmscope::FusedChainRecord> fusedChain; // found: a chain the test computed fused
};

// Runs the hunt into folder (its dumps, and report-stats, report-outputs, report-tensors).
QCoro::Task<Outcome> run(Steps steps, QString folder, QString rounds);

} // namespace hunt
