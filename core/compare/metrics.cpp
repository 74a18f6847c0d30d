#include "compare/metrics.h"

#include <algorithm>
#include <cmath>

#include "tensor/dtype.h"

namespace llmscope {

Tolerance defaultTolerance(int32_t dtype)
{
    switch (dtype) {
    case 1: return {1e-3, 0.999};  // float16
    case 27: return {1e-2, 0.999}; // bfloat16
    case 2: return {1.0, 0.999};   // int8
    default: return {1e-7, 0.9999};
    }
}

bool Metrics::passed(const Tolerance &t) const
{
    return nonFiniteMismatch == 0 && withinTol >= t.passRate;
}

void MetricAccumulator::add(const float *g, const float *m, uint64_t n)
{
    constexpr double eps = std::numeric_limits<float>::epsilon();
    // Chunk maxima first, so each element needs one exp per side at a fixed offset.
    double cmaxG = -INFINITY, cmaxM = -INFINITY;
    for (uint64_t i = 0; i < n; ++i) {
        if (std::isfinite(g[i]) && std::isfinite(m[i])) {
            cmaxG = std::max(cmaxG, double(g[i]));
            cmaxM = std::max(cmaxM, double(m[i]));
        }
    }
    if (cmaxG > m_maxG) {
        const double s = std::exp(m_maxG - cmaxG);
        m_sumExpG *= s;
        m_sumExpGDiff *= s;
        m_maxG = cmaxG;
    }
    if (cmaxM > m_maxM) {
        m_sumExpM *= std::exp(m_maxM - cmaxM);
        m_maxM = cmaxM;
    }
    const float offG = float(m_maxG), offM = float(m_maxM);
    double dot = 0, gg = 0, mm = 0, d2 = 0, sumAbs = 0, sumRel = 0, seG = 0, seM = 0, seGD = 0, sg = 0, sm = 0;
    float minG = INFINITY, maxG = -INFINITY, minM = INFINITY, maxM = -INFINITY;
    double maxAbs = m_maxAbs, maxRel = m_maxRel;
    uint64_t count = 0, w01 = 0, w05 = 0, wTol = 0;
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
        const double gv = gf, mv = mf, d = mv - gv, ad = std::fabs(d), ag = std::fabs(gv);
        ++count;
        sg += gv;
        sm += mv;
        minG = std::min(minG, gf);
        maxG = std::max(maxG, gf);
        minM = std::min(minM, mf);
        maxM = std::max(maxM, mf);
        dot += gv * mv;
        gg += gv * gv;
        mm += mv * mv;
        d2 += d * d;
        sumAbs += ad;
        maxAbs = std::max(maxAbs, ad);
        const bool scaled = ag > eps;
        const double rel = scaled ? std::fabs(mv / gv - 1.0) : 0.0;
        sumRel += rel;
        maxRel = std::max(maxRel, rel);
        const double share = scaled ? ad / ag : ad;
        w01 += share <= 1e-3;
        w05 += share <= 5e-3;
        wTol += share <= m_relTol;
        const double eg = std::exp(double(gf - offG));
        seG += eg;
        seGD += eg * d;
        seM += std::exp(double(mf - offM));
    }
    m_sumG += sg;
    m_sumM += sm;
    m_minG = std::min(m_minG, double(minG));
    m_maxGv = std::max(m_maxGv, double(maxG));
    m_minM = std::min(m_minM, double(minM));
    m_maxMv = std::max(m_maxMv, double(maxM));
    m_dot += dot;
    m_gg += gg;
    m_mm += mm;
    m_d2 += d2;
    m_sumAbs += sumAbs;
    m_sumRel += sumRel;
    m_maxAbs = maxAbs;
    m_maxRel = maxRel;
    m_count += count;
    m_within01 += w01;
    m_within05 += w05;
    m_withinTol += wTol;
    m_sumExpG += seG;
    m_sumExpM += seM;
    m_sumExpGDiff += seGD;
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
    // KL = sum p_g (g - my) ... rewritten: sum p_g (log p_g - log p_my)
    //    = -sum p_g (my - g) - lse(g) + lse(my), with sum p_g d = seGD / seG.
    const double lseG = m_maxG + std::log(m_sumExpG), lseM = m_maxM + std::log(m_sumExpM);
    r.klDivergence = std::max(0.0, -m_sumExpGDiff / m_sumExpG - lseG + lseM);
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
