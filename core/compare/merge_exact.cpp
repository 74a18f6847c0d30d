#include "core/compare/merge_exact.h"

#include <map>

#include "core/compare/op_verdicts.h"

namespace llmscope {

void mergeExact(CompareResult &estimate, const CompareResult &exact)
{
    std::map<std::pair<int64_t, std::string>, size_t> at;
    for (size_t k = 0; k < estimate.ops.size(); ++k)
        at.emplace(std::pair{estimate.ops[k].round, estimate.ops[k].opId}, k);
    for (const OpResult &op : exact.ops) {
        const auto it = at.find({op.round, op.opId});
        if (it == at.end())
            continue;
        OpResult merged = op;
        merged.rows.clear();
        merged.worstInput = -1;
        for (size_t r : op.rows) {
            if (int(r) == op.worstInput)
                merged.worstInput = int(estimate.rows.size());
            merged.rows.push_back(estimate.rows.size());
            estimate.rows.push_back(exact.rows[r]);
        }
        estimate.ops[it->second] = std::move(merged);
    }
    markFirstDivergent(estimate);
}

} // namespace llmscope
