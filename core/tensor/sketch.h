// A tensor's error sketch: kSketchBuckets sums of its elements, each element added, with a
// sign, to one of them, bucket and sign chosen by a hash of its index alone (CountSketch).
// Any two sides hash alike, so for two tensors of one shape the difference of their sketches
// is the sketch of their difference, and its squared norm estimates ||test - golden||^2
// without bias: where statistics (max, min, mean, norm) only bound an error from below, and
// a fault in a few rows keeps them close, the sketch estimates it.
//
// Spread: the estimate of the NMSE has a relative standard deviation of at most
// sqrt(2 / kSketchBuckets) = 17.7 % (CountSketch's F2 bound), about half that for the
// relative error; an error carried by a single element is estimated exactly.
//
// Cost: one hash and one add an element, in the statistics' pass over the tensor (stats.cpp);
// each run of 1024 elements is summed in float, the runs in double.
// Stored as unpadded base64url of the little-endian float32 sums: a header attribute
// (kSketchAttr) and a statistic.csv column (Sketch), beside msit's four statistics, which stay
// as they are.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmscope {

constexpr int kSketchBuckets = 64;
// The relative standard deviation of the NMSE estimated from two sketches (at most).
inline constexpr double kSketchNmseSpread = 0.1767766952966369; // sqrt(2 / 64)
// Where a verdict weighs estimates against each other: an estimated error taken at its low
// end (1 - 3 spreads of the NMSE, as a relative error) or its high end (1 + 3 spreads).
inline constexpr double kSketchLow = 0.6853246778790979;  // sqrt(1 - 3 * kSketchNmseSpread)
inline constexpr double kSketchHigh = 1.2370651098021925; // sqrt(1 + 3 * kSketchNmseSpread)
constexpr const char *kSketchAttr = "llmscope_sketch";

// The bucket (low bits) and sign (top bit) of element index i.
inline uint32_t sketchHash(uint64_t i)
{
    uint32_t h = uint32_t(i) ^ (uint32_t(i >> 32) * 0x9E3779B1u);
    h ^= h >> 16; // murmur3's finalizer: every input bit reaches every output bit
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

// Sums being built over a tensor's elements, in order; first is the index of v[0].
class SketchSums {
public:
    void add(const float *v, uint32_t n, uint64_t first);
    void add(double v, uint64_t index)
    {
        const uint32_t h = sketchHash(index);
        m_sums[h % kSketchBuckets] += (h >> 31) ? -v : v;
    }
    std::vector<float> finish() const;

private:
    std::array<double, kSketchBuckets> m_sums{};
};

std::string encodeSketch(const std::vector<float> &sketch);
// nullopt for text that is not a sketch of kSketchBuckets sums.
std::optional<std::vector<float>> decodeSketch(const std::string &text);

// ||test - golden|| estimated from their sketches (of one element count); NaN when either is
// missing or not finite.
double sketchDifferenceNorm(const std::vector<float> &golden, const std::vector<float> &test);

} // namespace llmscope
