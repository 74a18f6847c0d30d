#include "core/compare/precision_standard.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"

namespace llmscope {

std::optional<Standard> parseStandard(const std::string &name)
{
    for (Standard s : {Standard::Exact, Standard::Rounding, Standard::Engine, Standard::Msit})
        if (name == standardName(s))
            return s;
    return std::nullopt;
}

const char *standardName(Standard s)
{
    switch (s) {
    case Standard::Exact: return "exact";
    case Standard::Rounding: return "rounding";
    case Standard::Engine: return "engine";
    case Standard::Msit: break;
    }
    return "msit";
}

double typeUnit(const std::string &t)
{
    if (t == "f16")
        return std::ldexp(1.0, -11);
    if (t == "bf16")
        return std::ldexp(1.0, -8);
    // A block type: each value becomes a multiple of its block's step d = amax / levels, and a
    // block's largest |value| is about 2.5 times its RMS: half a step, relative to the RMS.
    static const std::map<std::string, double> levels{{"q8_0", 127}, {"q8_1", 127}, {"q8_K", 127}, {"q5_0", 15},
                                                      {"q5_1", 15},  {"q4_0", 7},   {"q4_1", 7},   {"iq4_nl", 7}};
    const auto l = levels.find(t);
    return l == levels.end() ? 0 : 1.25 / l->second;
}

double dtypeUnit(int32_t dtype)
{
    if (dtype == int32_t(DType::Float16))
        return typeUnit("f16");
    if (dtype == int32_t(DType::BFloat16))
        return typeUnit("bf16");
    return 0;
}

std::string activationType(const std::string &w)
{
    if (w == "f16" || w == "bf16")
        return w;
    if (w == "q4_0" || w == "q5_0" || w == "q8_0" || w == "iq4_nl" || w == "mxfp4")
        return "q8_0";
    if (w == "q4_1" || w == "q5_1")
        return "q8_1";
    if (w.size() > 2 &&
        (w.compare(w.size() - 2, 2, "_K") == 0 || w.compare(w.size() - 2, 2, "_k") == 0 || w.rfind("iq", 0) == 0))
        return "q8_K";
    return "";
}

double roundingCarry(const std::string &opType)
{
    // A softmax's weight moves by its logit's absolute change: a relative change of the logits
    // comes out multiplied by their size (attention logits after scaling rarely pass 16).
    static const std::set<std::string> exponentiate{"SOFT_MAX", "FLASH_ATTN_EXT", "EXP"};
    return exponentiate.count(opType) ? 16 : kEngineCarry;
}

double roundingBudget(const std::string &opType, const RoundingFacts &f)
{
    // Summing K float32 terms in two orders: each order's error is a sum of K roundings of its
    // partial sums, u sqrt(K) of the terms' size with high probability (Higham and Mary's
    // probabilistic bound; lambda 8 leaves the tail out by far). Terms that may cancel
    // (products, differences) are up to sqrt(K) times the result each: K more in the NMSE.
    // Positive terms (squares, exponentials) cannot cancel. Element-wise ops: a few units in
    // the last place of their elementary functions.
    static const std::set<std::string> cancelling{
        "MUL_MAT", "MUL_MAT_ID", "OUT_PROD",          "FLASH_ATTN_EXT", "SUM",    "SUM_ROWS", "MEAN",
        "NORM",    "GROUP_NORM", "CONV_TRANSPOSE_1D", "CONV_2D",        "IM2COL", "SSM_CONV", "SSM_SCAN"};
    static const std::set<std::string> positive{"RMS_NORM", "L2_NORM", "SOFT_MAX"};
    constexpr double u = 0x1p-24, lambda = 8;
    const double k = double(std::max<int64_t>(1, f.reduction));
    double terms = 1;
    if (cancelling.count(opType))
        terms = k * k;
    else if (positive.count(opType))
        terms = k;
    // A value rounded to a step s, from inputs that differ by a relative e: it lands on the
    // other side of a rounding boundary with probability about e |x| / s, and then differs by
    // s: e s |x| in the mean square, at most 2 u_t e of the NMSE (Cauchy-Schwarz); passed on
    // up to kEngineCarry times, and as much again for its spread.
    const double flips = 2 * f.narrowUnit * f.inputError * kEngineCarry * kEngineCarry * 2;
    return lambda * lambda * u * u * terms + flips;
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
    static const std::map<std::string, double> levels{{"q8_0", 127}, {"q5_0", 15}, {"q5_1", 15},
                                                      {"q4_0", 7},   {"q4_1", 7},  {"iq4_nl", 7}};
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
