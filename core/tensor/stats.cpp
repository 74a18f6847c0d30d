#include "tensor/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "tensor/convert.h"
#include "tensor/dtype.h"
#include "util/error.h"
#include "util/text.h"

namespace llmscope {

std::optional<TensorStats> computeStats(int32_t dtype, const uint8_t *data, uint64_t n)
{
    if (!isNumeric(dtype))
        return std::nullopt;
    TensorStats s;
    s.count = n;
    double sum = 0, sq = 0;
    double mx = -std::numeric_limits<double>::infinity();
    double mn = std::numeric_limits<double>::infinity();
    constexpr uint64_t kChunk = 4096;
    double buf[kChunk];
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t c = std::min(kChunk, n - i);
        decodeElements(dtype, data, i, c, buf);
        for (uint64_t j = 0; j < c; ++j) {
            const double v = static_cast<float>(buf[j]); // msit converts to float first
            if (std::isnan(v)) {
                ++s.nanCount;
                continue;
            }
            if (std::isinf(v))
                ++s.infCount;
            else if (v == 0)
                ++s.zeroCount;
            mx = std::max(mx, v);
            mn = std::min(mn, v);
            sum += v;
            sq += v * v;
        }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (n == 0) {
        s.max = s.min = s.mean = nan;
        s.l2norm = 0;
        return s;
    }
    if (s.nanCount) {
        s.max = s.min = s.mean = s.l2norm = nan;
        return s;
    }
    s.max = mx;
    s.min = mn;
    s.mean = sum / static_cast<double>(n);
    s.l2norm = std::sqrt(sq);
    return s;
}

std::optional<TensorStats> computeStats(const Tensor &t)
{
    if (!t.hasData)
        throw Error("tensor has no data to compute statistics from");
    auto need = dtypeBytes(t.dtype, t.elementCount());
    if (!need || !isNumeric(t.dtype))
        return std::nullopt;
    if (*need > t.data.size())
        throw Error("payload shorter than its dims need");
    return computeStats(t.dtype, t.data.data(), t.elementCount());
}

void setStatsAttrs(Tensor &t, const std::optional<TensorStats> &s)
{
    t.setAttr("max", s ? formatStat(s->max) : "N/A");
    t.setAttr("min", s ? formatStat(s->min) : "N/A");
    t.setAttr("mean", s ? formatStat(s->mean) : "N/A");
    t.setAttr("l2norm", s ? formatStat(s->l2norm) : "N/A");
}

std::optional<TensorStats> statsFromAttrs(const Tensor &t)
{
    TensorStats s;
    s.count = t.elementCount();
    double *fields[] = {&s.max, &s.min, &s.mean, &s.l2norm};
    const char *keys[] = {"max", "min", "mean", "l2norm"};
    for (int i = 0; i < 4; ++i) {
        auto v = t.attr(keys[i]);
        if (!v || *v == "N/A")
            return std::nullopt;
        char *end = nullptr;
        *fields[i] = std::strtod(v->c_str(), &end);
        if (end == v->c_str() || *end != '\0')
            throw Error(std::string("statistic ") + keys[i] + "='" + *v + "' is not a number");
    }
    return s;
}

} // namespace llmscope
