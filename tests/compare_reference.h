// msit's metric definitions written out plainly in long double: the reference the compare
// engine is checked against.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace testing {

struct Reference {
    long double cosine, maxRel, meanRel, maxAbs, meanAbs, kl, red;
};

// The definitions written out plainly, in long double.
inline Reference reference(const std::vector<float> &g, const std::vector<float> &m)
{
    const long double eps = std::numeric_limits<float>::epsilon();
    long double dot = 0, gg = 0, mm = 0, d2 = 0, sumRel = 0, maxRel = 0, sumAbs = 0, maxAbs = 0;
    long double mg = -INFINITY, mmx = -INFINITY;
    for (size_t i = 0; i < g.size(); ++i) {
        const long double a = g[i], b = m[i];
        dot += a * b;
        gg += a * a;
        mm += b * b;
        d2 += (b - a) * (b - a);
        const long double rel = std::fabs(a) > eps ? std::fabs(b / a - 1) : 0;
        sumRel += rel;
        maxRel = std::max(maxRel, rel);
        sumAbs += std::fabs(b - a);
        maxAbs = std::max(maxAbs, std::fabs(b - a));
        mg = std::max(mg, a);
        mmx = std::max(mmx, b);
    }
    long double zg = 0, zm = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        zg += std::exp((long double)g[i] - mg);
        zm += std::exp((long double)m[i] - mmx);
    }
    long double kl = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        const long double lpg = g[i] - mg - std::log(zg), lpm = m[i] - mmx - std::log(zm);
        kl += std::exp(lpg) * (lpg - lpm);
    }
    const long double n = g.size();
    return {dot / std::sqrt(gg * mm), maxRel, sumRel / n, maxAbs, sumAbs / n, std::max(kl, 0.0L), std::sqrt(d2 / gg)};
}

} // namespace testing
