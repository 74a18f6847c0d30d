// Which weights a quantized model loses the most accuracy through, from one comparison of an
// F32 (or F16) golden run with a quantized test run that consumed golden's tokens: per weight
// its quantization error, the error its op adds to the activations, and an estimate of its
// share of the logits' divergence; ranked by that share per byte it would cost to keep the
// weight in a higher type, and a choice of weights to keep within a size budget, written in
// llama-quantize's --tensor-type syntax.
//
// The share is a first-order estimate from the same two runs: each op adds its weight's error
// to its activations (NMSE relative to its output); the half block's output matrix
// (attn_output, ffn_down) writes that error into the residual stream as power; each half
// block passes the error already in the residual on with a gain measured from the residual's
// error power before and after it. A weight's part of the logits' NMSE is the power it adds,
// times the gains of every later half block, over the residual's power at the end;
// output.weight's is the NMSE it adds to the logits itself. The parts add up to about the
// measured logits NMSE (the report says both).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/compare/compare_run.h"

namespace llmscope {

struct WeightCost {
    std::string name, kind; // "blk.3.ffn_down.weight", "ffn_down"
    // Its llama-quantize --tensor-type pattern (a regex searched in every tensor name): the
    // name itself, anchored and escaped where it is part of another weight's name
    // ("output.weight" is in "blk.0.attn_output.weight").
    std::string pattern;
    int layer = -1; // -1: not a layer's (token_embd, output)
    std::string goldenType, myType, keepType;
    uint64_t elements = 0, myBytes = 0, f16Bytes = 0, f32Bytes = 0, keepBytes = 0;
    double quantError = 0; // relative error of the weight itself
    double keepError = NAN; // the same, were it stored as keepType
    std::string op; // the op it feeds ("1_29 ffn_out-0 (MUL_MAT)")
    double addedNmse = 0; // NMSE its op adds to the activations (mean over rounds)
    double logitsNmse = 0; // its estimated part of the logits' NMSE
    double share = 0; // of the estimated total
    double gainPerMiB = 0; // logits NMSE removed per MiB spent keeping it as keepType
    bool chosen = false; // in the budget's choice
};

struct RoundDivergence {
    int64_t round = 0;
    uint64_t positions = 0; // token positions with logits
    double kl = 0; // mean KL(golden || test) of the next-token distributions
    double top1 = 0; // share of positions whose most likely token agrees
    double nmse = 0; // of the logits
};

struct QuantReportOptions {
    double budget = 0.10; // extra bytes allowed, a share of the test's weight bytes
    std::string keepType; // empty: q8_0, or f16 for weights already q8_0 or above
};

struct QuantReport {
    std::vector<WeightCost> weights; // ranked: the best to keep first
    std::vector<RoundDivergence> rounds;
    double meanKl = 0, top1 = 0; // over every position of every round
    double logitsNmse = 0; // measured, mean over rounds
    double estimatedNmse = 0; // the sum of the weights' estimates
    uint64_t testBytes = 0, budgetBytes = 0, chosenBytes = 0; // weight bytes; extra bytes allowed, spent
    std::vector<std::string> notes;
};

// Throws Error when the comparison holds no quantized weight (nothing to report) or the
// logits cannot be read.
QuantReport buildQuantReport(const CompareResult &result, const QuantReportOptions &options);

// The weights to keep higher within budgetBytes, down the ranking: each that gains anything
// and whose extra bytes still fit. One that does not fit is passed over, not the end: a
// smaller one further down may still fit. Sets each one's chosen; returns the bytes spent.
uint64_t chooseWithinBudget(std::vector<WeightCost> &ranked, uint64_t budgetBytes);

std::string quantReportJson(const QuantReport &r);
// Reads quantReportJson's text back (the window opens a report folder). Throws Error for text
// that is not such a report.
QuantReport parseQuantReport(const std::string &jsonText);
std::string quantReportCsv(const QuantReport &r);
// llama-quantize's --tensor-type lines for the chosen weights: "blk.3.ffn_down.weight=q8_0".
std::string tensorTypesText(const QuantReport &r);
// Writes quant_report.json, quant_report.csv and tensor-types.txt into dir.
void writeQuantReport(const QuantReport &r, const std::string &dir);
// One paragraph for a terminal: the logits' divergence and the top of the ranking.
std::string quantReportSummary(const QuantReport &r, size_t top = 5);

} // namespace llmscope
