#include "tensor/sketch.h"

#include <cmath>
#include <cstring>

#include "util/simd_clones.h"

namespace llmscope {

namespace {

// One run of elements, indices first..first+n-1 within one 2^32 block: each element with its
// sign applied (the hash's top bit flips the float's) and its bucket. All 32-bit lanes, so it
// vectorizes; the adds that follow cannot.
LLMSCOPE_CLONES
void signAndBucket(const float *v, uint32_t n, uint64_t first, float *signedOut, uint8_t *bucketOut)
{
    const uint32_t low = uint32_t(first), high = uint32_t(first >> 32) * 0x9E3779B1u;
#pragma omp simd
    for (uint32_t j = 0; j < n; ++j) {
        uint32_t h = (low + j) ^ high; // sketchHash, written for 32-bit lanes
        h ^= h >> 16;
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
        h *= 0xC2B2AE35u;
        h ^= h >> 16;
        uint32_t bits;
        std::memcpy(&bits, &v[j], 4);
        bits ^= h & 0x80000000u;
        std::memcpy(&signedOut[j], &bits, 4);
        bucketOut[j] = uint8_t(h % kSketchBuckets);
    }
}

// base64url without padding: no '=' (a .bin header's separator), no ',' (a CSV's)
const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

} // namespace

void SketchSums::add(const float *v, uint32_t n, uint64_t first)
{
    // Runs of 1024: each bucket's part of a run summed in float (a few dozen values), then
    // added to its double sum.
    constexpr uint32_t kRun = 1024;
    float signedValues[kRun];
    uint8_t bucket[kRun];
    for (uint32_t at = 0; at < n; at += kRun) {
        uint32_t c = std::min(kRun, n - at);
        const uint64_t start = first + at;
        if (uint32_t(start) + c < uint32_t(start)) // the run would cross a 2^32 block: up to it
            c = uint32_t(0) - uint32_t(start);
        signAndBucket(v + at, c, start, signedValues, bucket);
        float run[kSketchBuckets] = {};
        for (uint32_t j = 0; j < c; ++j)
            run[bucket[j]] += signedValues[j];
        for (int b = 0; b < kSketchBuckets; ++b)
            m_sums[size_t(b)] += run[b];
        if (c < std::min(kRun, n - at)) // the rest of a run that crossed the block
            add(v + at + c, std::min(kRun, n - at) - c, start + c);
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
