// The inner loop of the compare: one block of finite float32 pairs, vectorized (OpenMP SIMD
// reductions, with an AVX2 clone picked at run time). Sums are kept in double.
#pragma once
#include <cstddef>
#include <cstdint>

namespace llmscope {

struct BlockSums {
    double dot = 0, gg = 0, mm = 0, d2 = 0, sumAbs = 0, sumRel = 0, sumG = 0, sumM = 0;
    double expG = 0, expM = 0, expGDiff = 0; // sum exp(g - offG), exp(m - offM), exp(g - offG) * (m - g)
    float maxAbs = 0, maxRel = 0, minG = 0, maxG = 0, minM = 0, maxM = 0;
    uint64_t within01 = 0, within05 = 0, withinTol = 0;
    uint64_t nonFinite = 0; // elements NaN or Inf on either side: then every other field is void
};

// Everything but the exponentials, in one pass.
BlockSums sumBlock(const float *g, const float *m, size_t n, float relTol);
// sumBlock(g, g, n, relTol) without the differences: the sums of one side copied to the other.
BlockSums sameBlock(const float *g, size_t n);
// Adds sum exp(g - offG), exp(m - offM) and exp(g - offG) * (m - g) to s; every element
// finite, offG/offM at least the block's maxima.
void expBlock(const float *g, const float *m, size_t n, float offG, float offM, BlockSums &s);
// expBlock(g, g, n, off, off, s): sum exp(g - off) into both sides; the difference term is 0.
void expSameBlock(const float *g, size_t n, float off, BlockSums &s);

} // namespace llmscope
