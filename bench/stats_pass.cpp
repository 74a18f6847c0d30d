// What the statistics pass costs a tensor's bytes, the part of a dump that weights (read once,
// beside the program: probe/weight_reads.h) and every node (inline, on the program's thread)
// pay: statistics alone, with the error sketch, and with the digest, on a 256 MB float32 tensor
// of normal values, best of five, each measured in this run. Beside them the digest's earlier
// definition (FNV-1a's serial step on each 8-byte word, kept here only to compare) and a plain
// sum of the words (what reading the memory costs). Then the same pass over float16 and uint8
// tensors of as many elements (widened to float a chunk at a time, core/tensor/stats.cpp), beside
// the per-element path they took before (each element decoded to double, kept here only to
// compare). Prints times and ratios; asserts nothing.
//   build/bin/llmscope-bench-stats-pass
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/tensor/convert.h"
#include "core/tensor/sketch.h"
#include "core/tensor/stats.h"
#include "core/util/content_digest.h"

namespace {

uint64_t serialFnvWords(const uint8_t *data, uint64_t bytes)
{
    uint64_t h = 1469598103934665603ull ^ bytes;
    for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, data + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    return h;
}

uint64_t wordSum(const uint8_t *data, uint64_t bytes)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, data + i, 8);
        s += w;
    }
    return s;
}

// The earlier path for dtypes other than float32: each element decoded to double, added to the
// statistics and the sketch one at a time; the digest over the stored bytes after.
double elementWise(int32_t dtype, const uint8_t *data, uint64_t n, uint64_t bytes)
{
    constexpr uint64_t kChunk = 4096;
    std::vector<double> buf(kChunk);
    llmscope::SketchSums sketch;
    double sum = 0, sq = 0, hi = -1e300, lo = 1e300;
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t c = std::min(kChunk, n - i);
        llmscope::decodeElements(dtype, data, i, c, buf.data());
        for (uint64_t j = 0; j < c; ++j) {
            const double v = static_cast<float>(buf[j]);
            sketch.add(v, i + j);
            hi = std::max(hi, v);
            lo = std::min(lo, v);
            sum += v;
            sq += v * v;
        }
    }
    return sum + sq + hi + lo + double(llmscope::contentDigest(data, bytes)) + sketch.finish()[0];
}

template <class F>
double bestMs(F f)
{
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

} // namespace

int main()
{
    const uint64_t n = uint64_t(64) << 20; // float32 elements: 256 MB
    std::vector<float> v(n);
    std::mt19937 gen(1);
    std::normal_distribution<float> d;
    for (float &x : v)
        x = d(gen);
    const auto *bytes = reinterpret_cast<const uint8_t *>(v.data());
    volatile uint64_t sink = 0;
    const double memory = bestMs([&] { sink = wordSum(bytes, n * 4); });
    const double stats = bestMs([&] { sink = uint64_t(llmscope::computeStats(0, bytes, n, false)->count); });
    const double all = bestMs([&] { sink = llmscope::computeStats(0, bytes, n, true)->digest; });
    const double digest = bestMs([&] { sink = llmscope::contentDigest(bytes, n * 4); });
    const double fnv = bestMs([&] { sink = serialFnvWords(bytes, n * 4); });
    std::printf("256 MB of float32, best of 5 (ms; ns an element):\n");
    std::printf("  reading the words (a sum)          %7.1f  %.3f\n", memory, memory * 1e6 / double(n));
    std::printf("  statistics                         %7.1f  %.3f\n", stats, stats * 1e6 / double(n));
    std::printf("  statistics, sketch and digest      %7.1f  %.3f\n", all, all * 1e6 / double(n));
    std::printf("  the digest alone                   %7.1f  %.3f\n", digest, digest * 1e6 / double(n));
    std::printf("  the earlier digest (serial FNV-1a) %7.1f  %.3f\n", fnv, fnv * 1e6 / double(n));
    std::printf("the digest takes %.2fx the earlier definition's time\n", digest / fnv);

    std::vector<uint16_t> halves(n);
    std::vector<uint8_t> small(n);
    for (uint64_t i = 0; i < n; ++i) {
        halves[i] = llmscope::floatToHalf(v[i]);
        small[i] = uint8_t(int(v[i] * 40) & 0xFF);
    }
    const auto *h = reinterpret_cast<const uint8_t *>(halves.data());
    volatile double sinkD = 0;
    const double half = bestMs([&] { sink = llmscope::computeStats(1, h, n, true)->digest; });
    const double halfBefore = bestMs([&] { sinkD = elementWise(1, h, n, n * 2); });
    const double byte = bestMs([&] { sink = llmscope::computeStats(4, small.data(), n, true)->digest; });
    const double byteBefore = bestMs([&] { sinkD = elementWise(4, small.data(), n, n); });
    std::printf("as many float16 and uint8 elements, statistics, sketch and digest (ms; ns an element):\n");
    std::printf("  float16, widened a chunk at a time %7.1f  %.3f\n", half, half * 1e6 / double(n));
    std::printf("  float16, element by element        %7.1f  %.3f\n", halfBefore, halfBefore * 1e6 / double(n));
    std::printf("  uint8, widened a chunk at a time   %7.1f  %.3f\n", byte, byte * 1e6 / double(n));
    std::printf("  uint8, element by element          %7.1f  %.3f\n", byteBefore, byteBefore * 1e6 / double(n));
    std::printf("widened: %.1fx (float16) and %.1fx (uint8) faster\n", halfBefore / half, byteBefore / byte);
    return 0;
}
