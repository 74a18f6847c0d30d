#include "core/opcheck/msprobe_standard.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/compare/report_text.h"
#include "core/tensor/dtype.h"

namespace llmscope::opcheck {
namespace {

bool isHalf(int32_t dtype)
{
    return DType(dtype) == DType::Float16 || DType(dtype) == DType::BFloat16;
}

bool checked(const Reference &ref, size_t i)
{
    return ref.unchecked.empty() || !ref.unchecked[i];
}

// msProbe's per-type constants (its StandardConfig and ULP_PARAMETERS).
struct TypeRule {
    int minExponent, mantissa;
    double ulpThreshold, ulpProportion; // an element's |ULP error| beyond this; the share allowed
    double smallValue, smallAtol, rtol; // absolute threshold
};

TypeRule ruleFor(int32_t dtype)
{
    switch (DType(dtype)) {
    case DType::Float16: return {-14, 10, 1, 0.001, std::ldexp(1.0, -10), std::ldexp(1.0, -16), std::ldexp(1.0, -10)};
    case DType::BFloat16: return {-126, 7, 1, 0.001, std::ldexp(1.0, -10), 1e-16, std::ldexp(1.0, -8)};
    default: return {-126, 23, 32, 0.05, std::ldexp(1.0, -20), std::ldexp(1.0, -30), std::ldexp(1.0, -20)};
    }
}

bool isMatrixProduct(const std::string &op)
{
    return op == "MUL_MAT" || op == "MUL_MAT_ID";
}
bool isElementwise(const std::string &op)
{
    return op == "ADD" || op == "SUB" || op == "MUL" || op == "DIV" || op == "SCALE";
}
bool movesOnly(const Reference &ref)
{
    return ref.standard.rfind("exact", 0) == 0;
}

// msProbe's benchmark metrics of values against the reference.
struct Benchmark {
    double smallErrRate = 0, rmse = 0, maxRel = 0, meanRel = 0, eb = 0;
};

Benchmark benchmark(const Reference &ref, const std::vector<double> &values, const TypeRule &t)
{
    Benchmark b;
    size_t small = 0, smallBad = 0, normal = 0, n = 0;
    double sq = 0, rel = 0, signedRel = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (!checked(ref, i))
            continue;
        const double g = ref.out.v[i], e = values[i] - g;
        if (!std::isfinite(g) || !std::isfinite(values[i]))
            continue;
        ++n;
        sq += e * e;
        if (std::fabs(g) < t.smallValue) {
            ++small;
            smallBad += std::fabs(e) > t.smallAtol;
        } else {
            ++normal;
            const double r = std::fabs(e) / std::fabs(g);
            b.maxRel = std::max(b.maxRel, r);
            rel += r;
            signedRel += e / std::fabs(g);
        }
    }
    b.smallErrRate = small ? double(smallBad) / double(small) : 0;
    b.rmse = n ? std::sqrt(sq / double(n)) : 0;
    b.meanRel = normal ? rel / double(normal) : 0;
    b.eb = normal ? std::fabs(signedRel) / double(normal) : 0;
    // A balance within three standard errors of rounding's own scatter shows no bias: taken as
    // none (msProbe's ratio of two such noises fails correct kernels at random).
    if (normal && b.eb <= 3 * b.meanRel / std::sqrt(double(normal)))
        b.eb = 0;
    return b;
}

// A device's metric over the second device's: both exact is 1 (msProbe's default 10000 for a
// zero benchmark would fail two exact devices).
double ratio(double device, double bench)
{
    if (bench > 0)
        return device / bench;
    return device > 0 ? 10000 : 1;
}

void judgeUlp(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> *cpu,
              const TypeRule &t)
{
    addUlpMetrics(row, ref, out, cpu);
    const double share = row.ulpErrorProportion / 100;
    const double cpuShare = std::isnan(row.cpuUlpErrorProportion) ? NAN : row.cpuUlpErrorProportion / 100;
    const double r = std::isnan(cpuShare) ? NAN : ratio(share, cpuShare);
    const bool f32 = !isHalf(out.dtype);
    row.standard = f32 ? "ULP: mean |ULP error| < 64, or under 5 % beyond 32 ULP, or fewer than ggml's CPU kernel"
                       : "ULP: under 0.1 % beyond 1 ULP, or fewer than ggml's CPU kernel";
    std::vector<Finding> values{report::num(row.meanUlpError), report::num(row.ulpErrorProportion),
                                report::num(t.ulpThreshold)};
    if (!std::isnan(r))
        values.push_back(report::num(row.cpuUlpErrorProportion));
    if ((f32 && row.meanUlpError < 64) || share < t.ulpProportion || (!std::isnan(r) && r < 1)) {
        row.verdict = Verdict::Pass;
        row.reason.clear();
    } else if (!std::isnan(r) && r <= 2) {
        row.verdict = Verdict::Warn;
        row.reason = Reason(Said::UlpTwiceCpu, values);
    } else {
        row.verdict = Verdict::Fail;
        row.reason = Reason(std::isnan(r) ? Said::UlpNoCpu : Said::UlpWithCpu, values);
    }
}

void judgeBinary(OpcheckRow &row, const Reference &ref, const RefTensor &out)
{
    size_t differ = 0, n = 0;
    for (size_t i = 0; i < out.v.size(); ++i) {
        if (!checked(ref, i))
            continue;
        ++n;
        const double g = ref.out.v[i], v = out.v[i];
        differ += !(g == v || (std::isnan(g) && std::isnan(v)));
    }
    row.standard = "binary consistency: every element equal";
    row.verdict = differ ? Verdict::Fail : Verdict::Pass;
    row.reason = differ ? Reason(Said::ElementsDiffer, {std::to_string(differ), std::to_string(n)}) : Reason();
}

void judgeAbsolute(OpcheckRow &row, const Reference &ref, const RefTensor &out, const TypeRule &t)
{
    size_t badRel = 0, badAbs = 0, normal = 0, small = 0, nonFinite = 0;
    for (size_t i = 0; i < out.v.size(); ++i) {
        if (!checked(ref, i))
            continue;
        const double g = ref.out.v[i], v = out.v[i];
        if (!std::isfinite(g) || !std::isfinite(v)) {
            nonFinite += !(g == v || (std::isnan(g) && std::isnan(v)));
            continue;
        }
        const double e = std::fabs(v - g);
        if (std::fabs(g) < t.smallValue) {
            ++small;
            badAbs += e > t.smallAtol;
        } else {
            ++normal;
            badRel += e > t.rtol * std::fabs(g);
        }
    }
    row.standard = "absolute threshold: relative error <= " + report::num(t.rtol) +
        " where |reference| >= " + report::num(t.smallValue) + ", absolute <= " + report::num(t.smallAtol) + " below";
    if (badRel + badAbs + nonFinite == 0) {
        row.verdict = Verdict::Pass;
        row.reason.clear();
        return;
    }
    row.verdict = Verdict::Fail;
    std::vector<Finding> values{std::to_string(badRel), std::to_string(normal), std::to_string(badAbs),
                                std::to_string(small)};
    if (nonFinite)
        values.push_back(std::to_string(nonFinite));
    row.reason = Reason(nonFinite ? Said::BeyondAbsoluteNonFinite : Said::BeyondAbsolute, values);
}

void judgeBenchmark(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> &cpu,
                    const TypeRule &t)
{
    const Benchmark d = benchmark(ref, out.v, t), c = benchmark(ref, cpu, t);
    struct Metric {
        Said said; // "RMSE %1 times ggml's CPU kernel's"
        double ratio, error; // msProbe's error threshold; over 1 warns
    };
    const Metric ms[] = {{Said::BenchSmallErrors, ratio(d.smallErrRate, c.smallErrRate), 2},
                         {Said::BenchRmse, ratio(d.rmse, c.rmse), 2},
                         {Said::BenchLargestRel, ratio(d.maxRel, c.maxRel), 10},
                         {Said::BenchMeanRel, ratio(d.meanRel, c.meanRel), 2},
                         {Said::BenchBalance, ratio(d.eb, c.eb), 2}};
    row.standard = "benchmark: each error at most twice ggml's CPU kernel's (the largest relative error ten times)";
    row.verdict = Verdict::Pass;
    row.reason.clear();
    for (const Metric &m : ms) {
        if (m.ratio <= 1)
            continue;
        const Finding part(m.said, {report::num(m.ratio)});
        if (m.ratio > m.error)
            row.verdict = Verdict::Fail;
        else if (row.verdict == Verdict::Pass)
            row.verdict = Verdict::Warn;
        row.reason.add(part);
    }
}

} // namespace

UlpErrors ulpErrors(const Reference &ref, const std::vector<double> &values, int32_t dtype)
{
    const TypeRule t = ruleFor(dtype);
    UlpErrors u;
    size_t n = 0, beyond = 0;
    double sum = 0;
    for (size_t i = 0; i < values.size() && i < ref.out.v.size(); ++i) {
        if (!checked(ref, i))
            continue;
        const double g = ref.out.v[i], v = values[i];
        double err;
        if (std::isfinite(g) && std::isfinite(v)) {
            const int e = g != 0 ? std::max(std::ilogb(g), t.minExponent) : t.minExponent;
            err = std::fabs(v - g) / std::ldexp(1.0, e - t.mantissa);
        } else {
            err = g == v || (std::isnan(g) && std::isnan(v)) ? 0 : INFINITY;
        }
        ++n;
        sum += err;
        beyond += err > t.ulpThreshold;
    }
    u.mean = n ? sum / double(n) : 0;
    u.proportion = n ? double(beyond) / double(n) : 0;
    return u;
}

void addUlpMetrics(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> *cpu)
{
    const UlpErrors u = ulpErrors(ref, out.v, out.dtype);
    row.meanUlpError = u.mean;
    row.ulpErrorProportion = 100 * u.proportion;
    if (cpu)
        row.cpuUlpErrorProportion = 100 * ulpErrors(ref, *cpu, out.dtype).proportion;
}

void judgeMsprobe(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> *cpu)
{
    const TypeRule t = ruleFor(out.dtype);
    if (movesOnly(ref))
        judgeBinary(row, ref, out);
    else if (isMatrixProduct(row.opType))
        judgeUlp(row, ref, out, cpu, t);
    else if (isElementwise(row.opType) || !cpu)
        judgeAbsolute(row, ref, out, t);
    else
        judgeBenchmark(row, ref, out, *cpu, t);
    if (!cpu && !movesOnly(ref) && !isElementwise(row.opType) && !isMatrixProduct(row.opType))
        row.standard += " (msProbe compares this op with a second device; ggml's CPU kernel did not run)";
}

} // namespace llmscope::opcheck
