#include "compare/precision_standard.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "tensor/stats.h"

namespace llmscope {

std::optional<Standard> parseStandard(const std::string &name)
{
    if (name == "engine")
        return Standard::Engine;
    if (name == "msit")
        return Standard::Msit;
    return std::nullopt;
}

const char *standardName(Standard s)
{
    return s == Standard::Engine ? "engine" : "msit";
}

OpBudget engineBudget(const std::string &opType, int32_t inputDtype, int32_t outputDtype)
{
    // test-backend-ops.cpp's max_nmse_err(): the default, and the ops that override it.
    static const std::set<std::string> matrix{"MUL_MAT", "MUL_MAT_ID", "OUT_PROD", "FLASH_ATTN_EXT"};
    // Ops that move or select elements without arithmetic: the same bytes on any backend.
    static const std::set<std::string> exact{"GET_ROWS", "VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE", "NONE"};
    static const std::set<std::string> copies{"CPY", "DUP", "CONT", "SET_ROWS"};
    static const std::set<std::string> sums{"ADD", "ADD1", "SUB", "ACC", "ADD_ID"};
    OpBudget b;
    if (matrix.count(opType))
        b.nmse = 5e-4;
    else if (opType == "SOFT_MAX")
        b.nmse = 1e-6;
    else if (exact.count(opType) || (copies.count(opType) && inputDtype == outputDtype))
        b.nmse = 0;
    b.sum = sums.count(opType) > 0;
    if (b.sum)
        b.carry = 1;
    return b;
}

double statsErrorBound(const TensorStats &g, const TensorStats &t, uint64_t n)
{
    const double d = std::max({std::fabs(t.l2norm - g.l2norm), std::fabs(t.max - g.max), std::fabs(t.min - g.min),
                               std::sqrt(double(n)) * std::fabs(t.mean - g.mean)});
    if (std::isnan(d))
        return NAN;
    if (g.l2norm > 0)
        return d / g.l2norm;
    return d > 0 ? INFINITY : 0;
}

} // namespace llmscope
