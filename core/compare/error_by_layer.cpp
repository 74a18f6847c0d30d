#include "core/compare/error_by_layer.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/select/op_id.h"

namespace llmscope {

ErrorByLayer errorByLayer(const CompareResult &r, int minLayers, int maxRounds)
{
    ErrorByLayer e;
    e.layers = minLayers;
    for (const OpResult &op : r.ops)
        e.layers = std::max(e.layers, op.opId.empty() ? 0 : int(OpId::lenient(op.opId).layer()) + 1);
    e.firstRound = r.firstDivergent >= 0 ? r.ops[size_t(r.firstDivergent)].round : -1;
    std::set<int64_t> rounds;
    for (const OpResult &op : r.ops)
        rounds.insert(op.round);
    e.roundsCompared = rounds.size();
    // The first divergent op's round, then the earliest others, up to maxRounds.
    std::vector<int64_t> shown;
    if (e.firstRound >= 0)
        shown.push_back(e.firstRound);
    for (const int64_t round : rounds)
        if (round != e.firstRound && int(shown.size()) < maxRounds)
            shown.push_back(round);
    for (const int64_t round : shown) {
        e.output[round].assign(size_t(e.layers), NAN);
        e.added[round].assign(size_t(e.layers), NAN);
        e.worst[round].assign(size_t(e.layers), std::string());
    }
    for (const OpResult &op : r.ops) {
        auto out = e.output.find(op.round);
        if (out == e.output.end() || !op.unreadable.empty() || op.opId.empty())
            continue;
        const int layer = int(OpId::lenient(op.opId).layer());
        if (layer < 0 || layer >= e.layers)
            continue;
        double &o = out->second[size_t(layer)];
        if (std::isnan(o) || op.outputError > o) {
            o = op.outputError;
            e.worst[op.round][size_t(layer)] = op.opId;
        }
        double &a = e.added[op.round][size_t(layer)];
        a = std::isnan(a) ? op.addedError : std::max(a, op.addedError);
    }
    return e;
}

} // namespace llmscope
