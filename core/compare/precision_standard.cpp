#include "compare/precision_standard.h"

#include <algorithm>
#include <cmath>
#include <map>
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

OpBudget engineBudget(const std::string &opType, int32_t inputDtype, int32_t outputDtype, bool quantizedInput)
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
    else if (!quantizedInput && (exact.count(opType) || (copies.count(opType) && inputDtype == outputDtype)))
        b.nmse = 0;
    b.absolute = sums.count(opType) || exact.count(opType) || copies.count(opType);
    return b;
}

double cacheTypeNmse(const std::string &ggmlType)
{
    static const std::map<std::string, double> levels{{"q8_0", 127}, {"q5_0", 15}, {"q5_1", 15}, {"q4_0", 7},
                                                      {"q4_1", 7},   {"iq4_nl", 7}};
    if (ggmlType == "f16" || ggmlType == "bf16") { // each value rounded to nearest: u^2/3 a side
        const double u = std::ldexp(1.0, ggmlType == "f16" ? -11 : -8);
        return 2 * u * u / 3;
    }
    const auto l = levels.find(ggmlType);
    if (l == levels.end())
        return 0;
    const double step = 2.5 / l->second; // d relative to the block's RMS
    return 2 * step * step / 12;
}

double statsErrorBound(const TensorStats &g, const TensorStats &t, uint64_t n)
{
    constexpr double q = 1e-6; // each side rounded to six decimals, as msit writes them
    if (g.nanCount != t.nanCount || g.infCount != t.infCount)
        return NAN;
    double d = 0;
    auto diff = [&](double a, double b, double scale) {
        if (a == b || (std::isnan(a) && std::isnan(b))) // the same Inf (a mask's minimum), NaN counted alike
            return;
        d = std::max(d, std::isfinite(a) && std::isfinite(b) ? scale * std::max(0.0, std::fabs(a - b) - q) : NAN);
        if (!std::isfinite(a) || !std::isfinite(b))
            d = NAN;
    };
    diff(g.l2norm, t.l2norm, 1);
    diff(g.max, t.max, 1);
    diff(g.min, t.min, 1);
    diff(g.mean, t.mean, std::sqrt(double(n)));
    if (std::isnan(d))
        return NAN;
    if (g.l2norm > 0)
        return d / g.l2norm;
    return d > 0 ? INFINITY : 0;
}

} // namespace llmscope
