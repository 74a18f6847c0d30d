// The spread's passes, written once: the command line and the window each give their steps
// (how a run is dumped, how every two runs are compared, how progress is said) as the hunt's
// runner takes them (hunt/hunt_runner.h), and this runs the passes in order: every run dumped,
// the observer check, the runs lined up by position where their rounds differ, the pairs
// compared, the suspects' tensors measured, the reports written.
#pragma once
#include <QString>
#include <QStringList>

#include <QCoroTask>

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/spread/spread_plan.h"
#include "core/run_spread/spread.h"

namespace spread {

// What the spread does now, for the steps to say in their words.
struct Progress {
    enum class Stage {
        Dump, // run `run` of `runs` dumped for `pass` ("run", "unobserved", "tensors", "passN")
        Observed, // run `run`'s observer check done: `text` says its result
        LineUp, // the runs computed other positions a round: every tensor dumped to line them up
        Compare, // every two runs compared
        Measure, // rounds firstRound to lastRound part by their statistics: their tensors measured
    };
    Stage stage = Stage::Dump;
    size_t run = 0, runs = 0;
    QString pass;
    std::string label; // the run's command
    std::string text;
    int64_t firstRound = -1, lastRound = -1;
};

struct Steps {
    // Dumps a command with these `llmscope dump` options (the command's own included) into out;
    // the dump folder it made. Throws llmscope::Error when it cannot (its words), or stops the
    // spread by throwing anything else (Cancelled).
    std::function<QCoro::Task<std::string>(const Run &command, QStringList options, QString out)> dump;
    // Every two runs compared (computeSpread); throws as dump does.
    std::function<QCoro::Task<llmscope::SpreadResult>(std::vector<llmscope::SpreadRun> runs)> compare;
    std::function<void(const Progress &)> say;
};

// Thrown by a step to stop the spread (cancelled, or its caller gone).
struct Cancelled {};

struct Outcome {
    std::optional<llmscope::SpreadResult> result;
    std::exception_ptr error; // without a result: what a step or the spread threw (Cancelled too)
};

// Runs the spread of request into folder (absolute; its earlier reports removed first) and
// writes its reports there. Never throws: what stopped it is in the outcome, for the caller to
// word (an exception leaving a coroutine awaited synchronously would not reach the caller).
QCoro::Task<Outcome> run(Steps steps, Request request, QString folder);

} // namespace spread
