// msit's comparison metrics for one golden/test tensor pair, accumulated in one pass over
// float32 chunks, plus msProbe's shares within 0.1 % and 0.5 % and per-side NaN/Inf counts.
//
// Definitions (eps = float32 machine epsilon), as msit's compare unless noted:
// - cosine similarity in double; 1 when both sides are all zero (0 when only one is).
// - relative error |my/g - 1| where |g| > eps, else 0: max and mean over all elements.
// - absolute error |my - g|: max and mean over ALL elements. msit masks it to 0 where
//   |g| <= eps; llmscope does not, since that hides errors on zeros (the report says so).
// - kl_divergence = sum softmax(g) * (log_softmax(g) - log_softmax(my)), clamped at >= 0.
// - relative euclidean distance sqrt(sum (my-g)^2 / sum g^2); 0 when ||g|| <= eps.
// - within 0.1 % / 0.5 % (msProbe): share of elements whose relative error (absolute error
//   where |g| <= eps) is at most 0.001 / 0.005.
// - pass share: the same with the dtype's tolerance, against the dtype's pass rate.
// Elements where either side is NaN or Inf are counted and left out of every metric; an Inf
// of the same sign at the same place on both sides (an attention mask) does not fail a pair.
#pragma once
#include <cstdint>
#include <cmath>
#include <limits>
#include <string>

namespace llmscope {

struct BlockSums; // compare/metric_kernel.h

struct Tolerance {
    double relTol = 1e-7; // per-element relative error allowed
    double passRate = 0.9999; // share of elements that must be within relTol
};
// msit's op-check table: fp16 1e-3/99.9 %, bf16 1e-2/99.9 %, fp32 1e-7/99.99 %, int8 1/99.9 %.
Tolerance defaultTolerance(int32_t dtype);

struct Metrics {
    uint64_t count = 0; // elements compared (finite on both sides)
    double cosine = 1, maxRelErr = 0, meanRelErr = 0, maxAbsErr = 0, meanAbsErr = 0;
    double klDivergence = 0, relEuclidean = 0;
    double goldenNorm = 0; // ||golden|| over the finite pairs
    double within01 = 1, within05 = 1; // shares, msProbe
    double withinTol = 1; // share within the tolerance used
    uint64_t nanGolden = 0, infGolden = 0, nanMy = 0, infMy = 0;
    uint64_t nonFiniteMismatch = 0; // places where the sides are not the same Inf
    double goldenMax = 0, goldenMin = 0, goldenMean = 0, myMax = 0, myMin = 0, myMean = 0; // finite pairs
    bool passed(const Tolerance &t) const;
};

// Streams pairs of float32 chunks; finish() once at the end.
class MetricAccumulator {
public:
    explicit MetricAccumulator(double relTol) : m_relTol(relTol) {}
    void add(const float *golden, const float *my, uint64_t n);
    // The same as add(values, values, n), for chunks whose two sides are the same bytes:
    // nothing to subtract, and one exponential per element instead of two. Without
    // exponentials (withExp false) none at all: a tensor the same throughout has no KL
    // divergence. Once a later chunk differs, addSameExp must bring those chunks' in.
    void addSame(const float *values, uint64_t n, bool withExp = true);
    void addSameExp(const float *values, uint64_t n);
    bool expPending() const { return m_expPending != 0; }
    Metrics finish() const;

private:
    void addSums(const float *golden, const float *my, uint64_t n, BlockSums &sums);
    void addSlow(const float *golden, const float *my, uint64_t n);
    void addBlock(uint64_t n, const BlockSums &sums); // after the block's exponentials
    void raiseOffsets(double maxG, double maxM);

    double m_relTol;
    uint64_t m_count = 0, m_within01 = 0, m_within05 = 0, m_withinTol = 0;
    uint64_t m_nanG = 0, m_infG = 0, m_nanM = 0, m_infM = 0, m_mismatch = 0;
    double m_sumG = 0, m_sumM = 0, m_minG = INFINITY, m_maxGv = -INFINITY, m_minM = INFINITY, m_maxMv = -INFINITY;
    double m_dot = 0, m_gg = 0, m_mm = 0, m_d2 = 0, m_sumAbs = 0, m_maxAbs = 0, m_sumRel = 0, m_maxRel = 0;
    // Online log-sum-exp for the KL divergence: running maxima and rescaled sums.
    double m_maxG = -std::numeric_limits<double>::infinity(), m_maxM = -std::numeric_limits<double>::infinity();
    double m_sumExpG = 0, m_sumExpM = 0, m_sumExpGDiff = 0;
    uint64_t m_expPending = 0; // elements added by addSame without their exponentials
};

Metrics computeMetrics(const float *golden, const float *my, uint64_t n, double relTol);

} // namespace llmscope
