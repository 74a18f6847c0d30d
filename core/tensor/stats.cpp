#include "core/tensor/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/util/content_digest.h"
#include "core/util/error.h"
#include "core/util/simd_clones.h"
#include "core/util/text.h"

namespace llmscope {

namespace {

struct Sums {
    double sum = 0, sq = 0;
    double max = -std::numeric_limits<double>::infinity(), min = std::numeric_limits<double>::infinity();
};

struct Float32Sums {
    uint64_t nan = 0, inf = 0, zero = 0;
    float hi = -std::numeric_limits<float>::infinity(), lo = std::numeric_limits<float>::infinity();
    double sum = 0, sq = 0;
};

// One aligned run of float32 values, vectorized (OpenMP SIMD reductions; the sums stay in
// double) and built for the wider vector units too: with statistics of every node the probe
// runs this on the program's own thread. A NaN fails both compares, so max and min skip it as
// the general loop does. The counts are 32-bit (n is at most a chunk), as wide as the float
// lanes: 64-bit counts would cost widening steps in every chunk.
LLMSCOPE_CLONES
Float32Sums sumFloat32(const float *v, uint32_t n)
{
    uint32_t nan = 0, inf = 0, zero = 0;
    float hi = -std::numeric_limits<float>::infinity(), lo = std::numeric_limits<float>::infinity();
    double sum = 0, sq = 0;
#pragma omp simd reduction(+ : nan, inf, zero, sum, sq) reduction(max : hi) reduction(min : lo)
    for (uint32_t j = 0; j < n; ++j) {
        const float x = v[j];
        nan += x != x ? 1 : 0;
        inf += std::fabs(x) == std::numeric_limits<float>::infinity() ? 1 : 0;
        zero += x == 0.0f ? 1 : 0;
        hi = x > hi ? x : hi;
        lo = x < lo ? x : lo;
        const double d = x;
        sum += d;
        sq += d * d;
    }
    return {nan, inf, zero, hi, lo, sum, sq};
}

// A chunk's worth of elements: the statistics' loops, the sketch's and the digest's take it while
// it is in the cache. The digest's blocks are whole in every chunk but the last: 4096 elements
// of b bits are 512 * b bytes.
constexpr uint64_t kChunk = 4096;

void addChunk(const float *v, uint64_t first, uint64_t c, TensorStats &s, Sums &a, SketchSums *sketch)
{
    const Float32Sums r = sumFloat32(v, uint32_t(c));
    if (sketch)
        sketch->add(v, uint32_t(c), first);
    s.nanCount += r.nan;
    s.infCount += r.inf;
    s.zeroCount += r.zero;
    a.max = std::max(a.max, double(r.hi));
    a.min = std::min(a.min, double(r.lo));
    a.sum += r.sum;
    a.sq += r.sq;
}

void addFloat32(const uint8_t *data, uint64_t n, TensorStats &s, Sums &a, SketchSums *sketch, ContentDigest *digest)
{
    const bool aligned = reinterpret_cast<uintptr_t>(data) % alignof(float) == 0;
    float buf[kChunk]; // a payload at an odd offset is copied first
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t c = std::min(kChunk, n - i);
        const float *v = buf;
        if (aligned)
            v = reinterpret_cast<const float *>(data) + i;
        else
            std::memcpy(buf, data + i * 4, c * 4);
        addChunk(v, i, c, s, a, sketch);
        if (digest && i + c < n)
            digest->addBlocks(reinterpret_cast<const uint8_t *>(v), c * 4); // 16 KiB: whole blocks
        else if (digest)
            s.digest = digest->finish(reinterpret_cast<const uint8_t *>(v), c * 4);
    }
}

// Every other dtype's elements are converted to float first, as msit does (exactly for float16,
// bfloat16 and integers of up to 16 bits), a chunk at a time, and take float32's loops; the
// digest is the stored bytes'.
void addWidened(int32_t dtype, const uint8_t *data, uint64_t n, TensorStats &s, Sums &a, SketchSums *sketch,
                ContentDigest *digest)
{
    float buf[kChunk];
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t c = std::min(kChunk, n - i);
        decodeToFloat(dtype, data, i, c, buf);
        addChunk(buf, i, c, s, a, sketch);
        if (!digest)
            continue;
        const uint64_t at = *dtypeBytes(dtype, i), bytes = *dtypeBytes(dtype, i + c) - at;
        if (i + c < n)
            digest->addBlocks(data + at, bytes);
        else
            s.digest = digest->finish(data + at, bytes);
    }
}

} // namespace

std::optional<TensorStats> computeStats(int32_t dtype, const uint8_t *data, uint64_t n, bool withSketch)
{
    if (!isNumeric(dtype))
        return std::nullopt;
    TensorStats s;
    s.count = n;
    Sums a;
    std::optional<SketchSums> sketch;
    if (withSketch)
        sketch.emplace();
    const auto bytes = dtypeBytes(dtype, n);
    if (!bytes)
        return std::nullopt;
    ContentDigest digest(*bytes);
    if (dtype == 0)
        addFloat32(data, n, s, a, sketch ? &*sketch : nullptr, withSketch ? &digest : nullptr);
    else
        addWidened(dtype, data, n, s, a, sketch ? &*sketch : nullptr, withSketch ? &digest : nullptr);
    if (withSketch && n == 0)
        s.digest = digest.finish(data, 0);
    if (sketch && !s.nanCount && !s.infCount && n)
        s.sketch = sketch->finish();
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
    s.max = a.max;
    s.min = a.min;
    s.mean = a.sum / static_cast<double>(n);
    s.l2norm = std::sqrt(a.sq);
    return s;
}

std::optional<TensorStats> computeStats(const Tensor &t, bool sketch)
{
    if (!t.hasData)
        throw Error("tensor has no data to compute statistics from");
    auto need = dtypeBytes(t.dtype, t.elementCount());
    if (!need || !isNumeric(t.dtype))
        return std::nullopt;
    if (*need > t.data.size())
        throw Error("payload shorter than its dims need");
    return computeStats(t.dtype, t.data.data(), t.elementCount(), sketch);
}

void setStatsAttrs(Tensor &t, const std::optional<TensorStats> &s)
{
    t.setAttr("max", s ? formatStat(s->max) : "N/A");
    t.setAttr("min", s ? formatStat(s->min) : "N/A");
    t.setAttr("mean", s ? formatStat(s->mean) : "N/A");
    t.setAttr("l2norm", s ? formatStat(s->l2norm) : "N/A");
    if (s && !s->sketch.empty())
        t.setAttr(kSketchAttr, encodeSketch(s->sketch));
    if (s && s->digest)
        t.setAttr(kDigestAttr, encodeDigest(s->digest));
}

std::string encodeDigest(uint64_t d)
{
    if (!d)
        return {};
    static const char *const hex = "0123456789abcdef";
    std::string out = std::string(kDigestPrefix) + std::string(16, '0');
    for (size_t i = out.size() - 1; i >= std::strlen(kDigestPrefix); --i, d >>= 4)
        out[i] = hex[d & 15];
    return out;
}

uint64_t decodeDigest(const std::string &text)
{
    const size_t prefix = std::strlen(kDigestPrefix);
    if (text.size() != prefix + 16 || text.compare(0, prefix, kDigestPrefix) != 0)
        return 0; // none, or the earlier definition's (no prefix)
    uint64_t d = 0;
    for (char c : text.substr(prefix)) {
        const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return 0;
        d = d << 4 | uint64_t(v);
    }
    return d;
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
    if (auto sk = t.attr(kSketchAttr))
        if (auto d = decodeSketch(*sk))
            s.sketch = std::move(*d);
    if (auto d = t.attr(kDigestAttr))
        s.digest = decodeDigest(*d);
    return s;
}

} // namespace llmscope
