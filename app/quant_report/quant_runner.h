// The quantization report's steps, run by one runner for `llmscope quant-report` and for the
// window's Session > Quantization report, through the hunt's Steps (a child `llmscope dump`
// or a launch shown live; a comparison; where the words go): golden dumped, the test dumped
// consuming golden's tokens, the two compared under the engine's standard, the test's matrix
// products replayed on their own inputs where every op is within its budget (a kernel's fault
// is not put down to quantization), the weights ranked, and the report written into folder.
#pragma once
#include <QCoroTask>

#include <optional>

#include "app/hunt/hunt_runner.h"
#include "core/quant/quant_report.h"

namespace quant {

constexpr int kSteps = 5;

struct Outcome {
    bool ok = false;
    QString message; // the last line said: the report's figures, or why it could not be made
    std::optional<llmscope::QuantReport> report;
    std::shared_ptr<const llmscope::CompareResult> comparison;
    // Every op within its budget, a product whose kernel is wrong on its own inputs (step 4),
    // in words: its added error is the kernel's, not its weight's quantization. Empty: none.
    QString kernelWrong;
};

// Runs it into folder: golden/, test/, compare/, test-products/ and quant_report.json,
// quant_report.csv, tensor-types.txt. steps.compare must judge by the engine's standard.
QCoro::Task<Outcome> run(hunt::Steps steps, QString folder, QString rounds, llmscope::QuantReportOptions options);

// --budget's value, 10% or 0.1; throws Error naming it when it is no such share.
double parseBudget(const QString &value);

// The words of each step (1..kSteps) and of the end, the same for both.
QString stepText(int step, const QString &rounds = {});
QString summary(const llmscope::QuantReport &report, const QString &folder);

} // namespace quant
