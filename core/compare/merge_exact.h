// A hunt's picture of the whole model comes from statistics, estimates and bounds; the op it
// then compares element by element is measured. The heatmap shows the one picture with the
// measured ops in place, so the culprit's cell says what the Diff tab says.
#pragma once
#include "core/compare/compare_run.h"

namespace llmscope {

// Puts exact's ops in place of estimate's same ops (same round and op id), their rows appended
// to estimate's and the ops' indexes into them moved; the first divergent and the op adding
// the most are found again. Ops estimate lacks are left out: the picture stays estimate's. The
// estimate's own rows of a replaced op stay in its rows, unreferenced: a merged result is for
// showing, not for a report.
void mergeExact(CompareResult &estimate, const CompareResult &exact);

} // namespace llmscope
