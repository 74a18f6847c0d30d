#include "tensor/sketch.h"

#include <cmath>
#include <cstring>

#include "util/simd_clones.h"

namespace llmscope {

namespace {

// The hashes of a run of indices (vectorized: the adds that follow cannot be).
LLMSCOPE_CLONES
void hashes(uint64_t first, uint32_t n, uint32_t *out)
{
#pragma omp simd
    for (uint32_t j = 0; j < n; ++j)
        out[j] = sketchHash(first + j);
}

// base64url without padding: no '=' (a .bin header's separator), no ',' (a CSV's)
const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

} // namespace

void SketchSums::add(const float *v, uint32_t n, uint64_t first)
{
    constexpr uint32_t kRun = 1024;
    uint32_t h[kRun];
    for (uint32_t at = 0; at < n; at += kRun) {
        const uint32_t c = std::min(kRun, n - at);
        hashes(first + at, c, h);
        for (uint32_t j = 0; j < c; ++j) {
            const double x = v[at + j];
            m_sums[h[j] % kSketchBuckets] += (h[j] >> 31) ? -x : x;
        }
    }
}

std::vector<float> SketchSums::finish() const
{
    return std::vector<float>(m_sums.begin(), m_sums.end());
}

std::string encodeSketch(const std::vector<float> &sketch)
{
    std::string bytes(sketch.size() * 4, '\0');
    for (size_t i = 0; i < sketch.size(); ++i) {
        uint32_t u;
        std::memcpy(&u, &sketch[i], 4);
        for (int b = 0; b < 4; ++b)
            bytes[i * 4 + size_t(b)] = char((u >> (8 * b)) & 0xFF);
    }
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (const char c : bytes) {
        acc = acc << 8 | uint8_t(c);
        for (bits += 8; bits >= 6; bits -= 6)
            out += kBase64[(acc >> (bits - 6)) & 63];
    }
    if (bits > 0)
        out += kBase64[(acc << (6 - bits)) & 63];
    return out;
}

std::optional<std::vector<float>> decodeSketch(const std::string &text)
{
    constexpr size_t kBytes = size_t(kSketchBuckets) * 4;
    if (text.size() != (kBytes * 8 + 5) / 6)
        return std::nullopt;
    std::string bytes;
    uint32_t acc = 0;
    int bits = 0;
    for (const char c : text) {
        const char *at = c ? std::strchr(kBase64, c) : nullptr;
        if (!at)
            return std::nullopt;
        acc = acc << 6 | uint32_t(at - kBase64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes += char((acc >> bits) & 0xFF);
        }
    }
    if (bytes.size() != kBytes)
        return std::nullopt;
    std::vector<float> out(static_cast<size_t>(kSketchBuckets));
    for (size_t i = 0; i < out.size(); ++i) {
        uint32_t u = 0;
        for (int b = 0; b < 4; ++b)
            u |= uint32_t(uint8_t(bytes[i * 4 + size_t(b)])) << (8 * b);
        std::memcpy(&out[i], &u, 4);
    }
    return out;
}

double sketchDifferenceNorm(const std::vector<float> &golden, const std::vector<float> &test)
{
    if (golden.size() != size_t(kSketchBuckets) || test.size() != golden.size())
        return NAN;
    double sq = 0;
    for (size_t i = 0; i < golden.size(); ++i) {
        const double d = double(test[i]) - double(golden[i]);
        sq += d * d;
    }
    return std::isfinite(sq) ? std::sqrt(sq) : NAN;
}

} // namespace llmscope
