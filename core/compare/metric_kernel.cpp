#include "core/compare/metric_kernel.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/util/simd_clones.h"

namespace llmscope {
namespace {

// Cephes' expf: x = k ln2 + r, |r| <= ln2/2, exp(r) by a degree-5 polynomial, 2^k by bits.
// Branch-free so that the loops around it vectorize.
inline float fastExp(float x)
{
    x = x < -87.0f ? -87.0f : x;
    // Round to nearest by the 1.5 * 2^23 trick: a library call would stop vectorization.
    const float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - k * 0.693359375f;
    r = r - k * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float e = p * r * r + r + 1.0f;
    const int32_t bits = (int32_t(k) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, 4);
    return e * scale;
}

} // namespace

LLMSCOPE_CLONES BlockSums sumBlock(const float *g, const float *m, size_t n, float relTol)
{
    constexpr float eps = std::numeric_limits<float>::epsilon();
    double dot = 0, gg = 0, mm = 0, d2 = 0, sumAbs = 0, sumRel = 0, sg = 0, sm = 0;
    float maxAbs = 0, maxRel = 0, minG = std::numeric_limits<float>::max(), maxG = -std::numeric_limits<float>::max();
    float minM = minG, maxM = maxG;
    int32_t w01 = 0, w05 = 0, wTol = 0, bad = 0; // blocks are far below 2^31 elements
#pragma omp simd reduction(+ : dot, gg, mm, d2, sumAbs, sumRel, sg, sm, w01, w05, wTol, bad) \
    reduction(max : maxAbs, maxRel, maxG, maxM) reduction(min : minG, minM)
    for (size_t i = 0; i < n; ++i) {
        const float gv = g[i], mv = m[i];
        bad +=
            !(std::fabs(gv) <= std::numeric_limits<float>::max() && std::fabs(mv) <= std::numeric_limits<float>::max())
            ? 1
            : 0;
        const double gd = gv, md = mv;
        const float d = mv - gv, ad = std::fabs(d), ag = std::fabs(gv);
        const bool big = ag > eps;
        // msit's |my/g - 1| and msProbe's |my - g| / |g| are the same quotient: one division.
        const float q = ad / (big ? ag : 1.0f); // computed always: a select, not a branch
        const float rel = big ? q : 0.0f;
        const float share = big ? q : ad;
        dot += gd * md;
        gg += gd * gd;
        mm += md * md;
        d2 += double(d) * double(d);
        sumAbs += ad;
        sumRel += rel;
        sg += gd;
        sm += md;
        maxAbs = ad > maxAbs ? ad : maxAbs;
        maxRel = rel > maxRel ? rel : maxRel;
        minG = gv < minG ? gv : minG;
        maxG = gv > maxG ? gv : maxG;
        minM = mv < minM ? mv : minM;
        maxM = mv > maxM ? mv : maxM;
        w01 += share <= 1e-3f ? 1 : 0;
        w05 += share <= 5e-3f ? 1 : 0;
        wTol += share <= relTol ? 1 : 0;
    }
    BlockSums s;
    s.dot = dot;
    s.gg = gg;
    s.mm = mm;
    s.d2 = d2;
    s.sumAbs = sumAbs;
    s.sumRel = sumRel;
    s.sumG = sg;
    s.sumM = sm;
    s.maxAbs = maxAbs;
    s.maxRel = maxRel;
    s.minG = minG;
    s.maxG = maxG;
    s.minM = minM;
    s.maxM = maxM;
    s.within01 = uint64_t(w01);
    s.within05 = uint64_t(w05);
    s.withinTol = uint64_t(wTol);
    s.nonFinite = uint64_t(bad);
    return s;
}

LLMSCOPE_CLONES BlockSums sameBlock(const float *g, size_t n)
{
    double gg = 0, sg = 0;
    float minG = std::numeric_limits<float>::max(), maxG = -std::numeric_limits<float>::max();
    int32_t bad = 0;
#pragma omp simd reduction(+ : gg, sg, bad) reduction(max : maxG) reduction(min : minG)
    for (size_t i = 0; i < n; ++i) {
        const float gv = g[i];
        bad += !(std::fabs(gv) <= std::numeric_limits<float>::max()) ? 1 : 0;
        const double gd = gv;
        gg += gd * gd;
        sg += gd;
        minG = gv < minG ? gv : minG;
        maxG = gv > maxG ? gv : maxG;
    }
    BlockSums s;
    s.dot = s.gg = s.mm = gg;
    s.sumG = s.sumM = sg;
    s.minG = s.minM = minG;
    s.maxG = s.maxM = maxG;
    s.within01 = s.within05 = s.withinTol = n; // every difference is 0
    s.nonFinite = uint64_t(bad);
    return s;
}

// The exponentials in a loop of their own: together with the rest, GCC does not vectorize.
LLMSCOPE_CLONES void expBlock(const float *g, const float *m, size_t n, float offG, float offM, BlockSums &s)
{
    double eG = 0, eM = 0, eGD = 0;
#pragma omp simd reduction(+ : eG, eM, eGD)
    for (size_t i = 0; i < n; ++i) {
        const float eg = fastExp(g[i] - offG), em = fastExp(m[i] - offM);
        eG += eg;
        eM += em;
        eGD += double(eg) * double(m[i] - g[i]);
    }
    s.expG += eG;
    s.expM += eM;
    s.expGDiff += eGD;
}

LLMSCOPE_CLONES void expSameBlock(const float *g, size_t n, float off, BlockSums &s)
{
    double e = 0;
#pragma omp simd reduction(+ : e)
    for (size_t i = 0; i < n; ++i)
        e += fastExp(g[i] - off);
    s.expG += e;
    s.expM += e;
}

} // namespace llmscope
