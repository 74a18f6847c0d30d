#include "core/tensor/sketch.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "core/util/simd_clones.h"

namespace llmscope {

namespace {

constexpr uint32_t kBlock = kSketchBuckets;

// One whole block, its elements' signs flipped by its sign bits, added to run[r .. r + 63]:
// run holds 2 * 64 floats, bucket b's sums at b and b + 64. Plain 32-bit lanes and one
// contiguous add, so it vectorizes.
LLMSCOPE_CLONES
void addBlock(const float *__restrict v, uint64_t signs, float *__restrict run)
{
    const uint32_t lo = uint32_t(signs), hi = uint32_t(signs >> 32);
#pragma omp simd
    for (uint32_t j = 0; j < kBlock; ++j) {
        const uint32_t word = j < 32 ? lo : hi;
        uint32_t bits;
        std::memcpy(&bits, &v[j], 4);
        bits ^= (word >> (j % 32)) << 31;
        float x;
        std::memcpy(&x, &bits, 4);
        run[j] += x;
    }
}

// base64url without padding: no '=' (a .bin header's separator), no ',' (a CSV's)
const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

} // namespace

void SketchSums::add(const float *v, uint32_t n, uint64_t first)
{
    uint32_t at = 0;
    for (; at < n && (first + at) % kBlock != 0; ++at) // a block begun before v: one at a time
        add(double(v[at]), first + at);
    // Runs of up to 16 whole blocks summed in float (16 values a bucket), then added to the
    // double sums.
    constexpr uint32_t kRunBlocks = 16;
    while (n - at >= kBlock) {
        float run[2 * kBlock] = {};
        for (uint32_t k = 0; k < kRunBlocks && n - at >= kBlock; ++k, at += kBlock) {
            const SketchBlock b = sketchBlock((first + at) / kBlock);
            addBlock(v + at, b.signs, run + b.rotation);
        }
        for (uint32_t b = 0; b < kBlock; ++b)
            m_sums[b] += double(run[b]) + double(run[b + kBlock]);
    }
    for (; at < n; ++at) // a block that goes on after v
        add(double(v[at]), first + at);
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
    std::string out = kSketchPrefix;
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
    const std::string_view prefix = kSketchPrefix;
    if (text.size() != prefix.size() + (kBytes * 8 + 5) / 6 || text.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt; // no sketch, or an earlier definition's (no prefix)
    std::string bytes;
    uint32_t acc = 0;
    int bits = 0;
    // Each character's value looked up (a search of the alphabet for each one was most of the
    // time a dump's statistics took to read).
    static const std::array<int8_t, 256> value = [] {
        std::array<int8_t, 256> v;
        v.fill(-1);
        for (int i = 0; i < 64; ++i)
            v[uint8_t(kBase64[i])] = int8_t(i);
        return v;
    }();
    for (const char c : std::string_view(text).substr(prefix.size())) {
        const int8_t at = value[uint8_t(c)];
        if (at < 0)
            return std::nullopt;
        acc = acc << 6 | uint32_t(at);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes += char((acc >> bits) & 0xFF);
        }
    }
    if (bytes.size() != kBytes || (acc & ((1u << bits) - 1)) != 0) // the padding bits are zero
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
