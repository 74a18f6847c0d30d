// A comparison's error layer by layer, as the window's error curves draw it: for each round
// shown (the first divergent op's round and the earliest others), the worst output error of
// any op in each top-level layer, the worst error those ops add themselves, and the op behind
// each worst output. The data of the curves; drawing them is the view's.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/compare/compare_run.h"

namespace llmscope {

struct ErrorByLayer {
    int layers = 0; // top-level ops 0 .. layers-1
    int64_t firstRound = -1; // the first divergent op's round, -1 when none diverges
    size_t roundsCompared = 0; // rounds in the comparison (more than shown when many)
    std::map<int64_t, std::vector<double>> output, added; // round -> layer -> error (NaN: none)
    std::map<int64_t, std::vector<std::string>> worst; // round -> layer -> op id of the worst output
};

// minLayers: at least this many layers (the topology's, when some have no compared op).
ErrorByLayer errorByLayer(const CompareResult &r, int minLayers, int maxRounds);

} // namespace llmscope
