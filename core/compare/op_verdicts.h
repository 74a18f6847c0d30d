// From a comparison's tensor pairs to its operations: each op's rows grouped in execution
// order, the error it inherits from its computed inputs and the error it adds itself, and its
// verdict under the result's standard (see precision_standard.h), the first divergent op and
// the op adding the most error for its budget.
#pragma once
#include "core/compare/compare_run.h"
#include "core/dump/fusion_record.h"
#include "core/dump/op_names.h"

#include <map>
#include <string>
#include <utility>

namespace llmscope {

// The chains each side computed fused: (round, that side's op id of the chain's end) -> the
// chain, from its dump's fusion records (dump/fusion_record.h).
using FusedEnds = std::map<std::pair<int64_t, std::string>, FusedChainRecord>;
FusedEnds fusedEnds(const std::string &dumpRoot);

// Fills res.ops, res.firstDivergent and res.mostAdded from res.rows; under the engine
// standard it also sets each row's passed and failReason from its op's verdict. An op that
// ends a chain either side computed fused is judged by the chain's budget.
void judgeOps(CompareResult &res, const OpNames &names, const FusedEnds &goldenChains = {},
              const FusedEnds &myChains = {});
// The first op that failed, in execution order, and the one adding the most for its budget.
void markFirstDivergent(CompareResult &res);

// A tensor no node computes, as a user knows it: "the weight blk.1.ffn_down.weight", or "the
// graph input inp_tokens" (what the program feeds the graph).
Finding leafLabel(const CompareRow &r);
// A pair's relative error as the engine standard reads it (measured; from statistics, the
// sketches' estimate, never below the statistics' bound), and how it is known: "" measured,
// "about " estimated, "at least " bounded below.
double leafError(const CompareRow &r);
// Whether a weight's pair says the two sides' weights differ (beyond what two programs'
// statistics of one weight differ by).
bool weightDiffers(const CompareRow &r);
// The cosine of a pair compared on statistics, from the two L2 norms and the sketches' estimate
// of their distance; NaN where there is no estimate (statistics alone do not tell a cosine).
double estimatedCosine(const CompareRow &r);
// A pair's error as a percentage, said as it is known: measured from tensors, "at least" the
// statistics' lower bound, "about" their sketches' estimate.
Finding errorWords(const CompareRow &r, double err);

} // namespace llmscope
