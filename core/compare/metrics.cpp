#include "core/compare/metrics.h"

#include <algorithm>
#include <cmath>

#include "core/compare/metric_kernel.h"
#include "core/tensor/dtype.h"

namespace llmscope {

Tolerance defaultTolerance(int32_t dtype)
{
    switch (dtype) {
    case 1: return {1e-3, 0.999}; // float16
    case 27: return {1e-2, 0.999}; // bfloat16
    case 2: return {1.0, 0.999}; // int8
    default: return {1e-7, 0.9999};
    }
}

bool Metrics::passed(const Tolerance &t) const
{
    return nonFiniteMismatch == 0 && withinTol >= t.passRate;
}

void MetricAccumulator::add(const float *g, const float *m, uint64_t n)
{
    constexpr uint64_t kBlock = 4096;
    for (uint64_t at = 0; at < n; at += kBlock) {
        const uint64_t len = std::min(kBlock, n - at);
        BlockSums b = sumBlock(g + at, m + at, len, float(m_relTol));
        if (b.nonFinite)
            addSlow(g + at, m + at, len);
        else
            addSums(g + at, m + at, len, b);
    }
}

void MetricAccumulator::addSame(const float *g, uint64_t n, bool withExp)
{
    constexpr uint64_t kBlock = 4096;
    for (uint64_t at = 0; at < n; at += kBlock) {
        const uint64_t len = std::min(kBlock, n - at);
        BlockSums b = sameBlock(g + at, len);
        // NaN and Inf, or exp offsets that differ (earlier chunks differed): the general way.
        if (b.nonFinite || float(std::max(m_maxG, double(b.maxG))) != float(std::max(m_maxM, double(b.maxM)))) {
            add(g + at, g + at, len);
            continue;
        }
        raiseOffsets(b.maxG, b.maxM);
        if (withExp)
            expSameBlock(g + at, len, float(m_maxG), b);
        else
            m_expPending += len;
        addBlock(len, b);
    }
}

// The exponentials addSame(values, n, false) left out, block for block as it went.
void MetricAccumulator::addSameExp(const float *g, uint64_t n)
{
    constexpr uint64_t kBlock = 4096;
    for (uint64_t at = 0; at < n; at += kBlock) {
        const uint64_t len = std::min(kBlock, n - at);
        if (sameBlock(g + at, len).nonFinite)
            continue; // went the general way, exponentials included
        BlockSums b{};
        expSameBlock(g + at, len, float(m_maxG), b);
        const double fix = std::exp(double(float(m_maxG)) - m_maxG);
        m_sumExpG += b.expG * fix;
        m_sumExpM += b.expM * fix;
        m_expPending -= std::min(m_expPending, len);
    }
}

// Moves the running exp offsets up to cover new maxima, rescaling what was summed so far.
void MetricAccumulator::raiseOffsets(double maxG, double maxM)
{
    if (maxG > m_maxG) {
        const double s = std::exp(m_maxG - maxG);
        m_sumExpG *= s;
        m_sumExpGDiff *= s;
        m_maxG = maxG;
    }
    if (maxM > m_maxM) {
        m_sumExpM *= std::exp(m_maxM - maxM);
        m_maxM = maxM;
    }
}

void MetricAccumulator::addSums(const float *g, const float *m, uint64_t n, BlockSums &b)
{
    raiseOffsets(b.maxG, b.maxM);
    expBlock(g, m, n, float(m_maxG), float(m_maxM), b);
    addBlock(n, b);
}

void MetricAccumulator::addBlock(uint64_t n, const BlockSums &b)
{
    // exp offsets in float: scale the block's sums to the exact double offsets.
    const double fixG = std::exp(double(float(m_maxG)) - m_maxG), fixM = std::exp(double(float(m_maxM)) - m_maxM);
    m_sumG += b.sumG;
    m_sumM += b.sumM;
    m_minG = std::min(m_minG, double(b.minG));
    m_maxGv = std::max(m_maxGv, double(b.maxG));
    m_minM = std::min(m_minM, double(b.minM));
    m_maxMv = std::max(m_maxMv, double(b.maxM));
    m_dot += b.dot;
    m_gg += b.gg;
    m_mm += b.mm;
    m_d2 += b.d2;
    m_sumAbs += b.sumAbs;
    m_sumRel += b.sumRel;
    m_maxAbs = std::max(m_maxAbs, double(b.maxAbs));
    m_maxRel = std::max(m_maxRel, double(b.maxRel));
    m_count += n;
    m_within01 += b.within01;
    m_within05 += b.within05;
    m_withinTol += b.withinTol;
    m_sumExpG += b.expG * fixG;
    m_sumExpM += b.expM * fixM;
    m_sumExpGDiff += b.expGDiff * fixG;
}

// Blocks holding NaN or Inf: element by element, counting what is left out.
void MetricAccumulator::addSlow(const float *g, const float *m, uint64_t n)
{
    for (uint64_t i = 0; i < n; ++i) {
        const float gf = g[i], mf = m[i];
        if (!std::isfinite(gf) || !std::isfinite(mf)) {
            m_nanG += std::isnan(gf);
            m_infG += std::isinf(gf);
            m_nanM += std::isnan(mf);
            m_infM += std::isinf(mf);
            m_mismatch += !(std::isinf(gf) && gf == mf);
            continue;
        }
        BlockSums b = sumBlock(&g[i], &m[i], 1, float(m_relTol));
        addSums(&g[i], &m[i], 1, b);
    }
}

Metrics MetricAccumulator::finish() const
{
    constexpr double eps = std::numeric_limits<float>::epsilon();
    Metrics r;
    r.count = m_count;
    r.nanGolden = m_nanG;
    r.infGolden = m_infG;
    r.nanMy = m_nanM;
    r.infMy = m_infM;
    r.nonFiniteMismatch = m_mismatch;
    if (m_count == 0)
        return r;
    const double n = double(m_count);
    r.goldenMax = m_maxGv;
    r.goldenMin = m_minG;
    r.goldenMean = m_sumG / n;
    r.myMax = m_maxMv;
    r.myMin = m_minM;
    r.myMean = m_sumM / n;
    if (m_gg == 0 && m_mm == 0)
        r.cosine = 1;
    else if (m_gg == 0 || m_mm == 0)
        r.cosine = 0;
    else
        r.cosine = m_dot / (std::sqrt(m_gg) * std::sqrt(m_mm));
    r.maxRelErr = m_maxRel;
    r.meanRelErr = m_sumRel / n;
    r.maxAbsErr = m_maxAbs;
    r.meanAbsErr = m_sumAbs / n;
    r.relEuclidean = std::sqrt(m_gg) <= eps ? 0 : std::sqrt(m_d2 / m_gg);
    r.goldenNorm = std::sqrt(m_gg);
    // KL = sum p_g (g - my) ... rewritten: sum p_g (log p_g - log p_my)
    //    = -sum p_g (my - g) - lse(g) + lse(my), with sum p_g d = seGD / seG.
    const double lseG = m_maxG + std::log(m_sumExpG), lseM = m_maxM + std::log(m_sumExpM);
    r.klDivergence = std::max(0.0, -m_sumExpGDiff / m_sumExpG - lseG + lseM);
    if (m_expPending)
        r.klDivergence = 0; // left pending only when every chunk was the same on both sides
    r.within01 = double(m_within01) / n;
    r.within05 = double(m_within05) / n;
    r.withinTol = double(m_withinTol) / n;
    return r;
}

Metrics computeMetrics(const float *golden, const float *my, uint64_t n, double relTol)
{
    MetricAccumulator a(relTol);
    for (uint64_t i = 0; i < n; i += 65536)
        a.add(golden + i, my + i, std::min<uint64_t>(65536, n - i));
    return a.finish();
}

} // namespace llmscope
