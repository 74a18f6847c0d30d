// A tensor's error sketch: kSketchBuckets sums of its elements, each element added, with a
// sign, to one of them, bucket and sign chosen by its index alone (CountSketch). Any two sides
// choose alike, so for two tensors of one shape the difference of their sketches is the sketch
// of their difference, and its squared norm estimates ||test - golden||^2 without bias: where
// statistics (max, min, mean, norm) only bound an error from below, and a fault in a few rows
// keeps them close, the sketch estimates it.
//
// The choice, by blocks of kSketchBuckets elements: block b = i / 64 draws 64 sign bits and a
// rotation r from a hash of b (splitmix64's finalizer); element i takes sign bit i % 64 and
// bucket (i % 64 + r) % 64. Two elements of one block never share a bucket; two of different
// blocks share one with probability 1/64, as with a bucket hashed per element, and their signs
// are independent: the estimate is unbiased and its spread at most CountSketch's.
//
// Spread: the estimate of the NMSE has a relative standard deviation of at most
// sqrt(2 / kSketchBuckets) = 17.7 % (CountSketch's F2 bound), about half that for the
// relative error; an error carried by a single element is estimated exactly.
//
// Cost: a block's 64 elements are one rotated vector add (each sign a bit flipped), in the
// statistics' pass over the tensor (stats.cpp): a hash and a scattered add an element cost about
// ten times as many instructions. Each run of 1024 elements is summed in float, the runs in double.
// Stored as "s2." and unpadded base64url of the little-endian float32 sums: a header attribute
// (kSketchAttr) and a statistic.csv column (Sketch), beside msit's four statistics, which stay
// as they are. Text without the prefix is an earlier definition's sketch (a hash per element),
// which this one cannot be compared with: it is read as no sketch.
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
inline constexpr double kSketchLow = 0.6853246778790979; // sqrt(1 - 3 * kSketchNmseSpread)
inline constexpr double kSketchHigh = 1.2370651098021925; // sqrt(1 + 3 * kSketchNmseSpread)
constexpr const char *kSketchAttr = "llmscope_sketch";
// what a sketch's text begins with: this definition's (blocks of 64, each rotated)
constexpr const char *kSketchPrefix = "s2.";

// Block b's sign bits (element b * 64 + j is negative where bit j is set) and rotation.
struct SketchBlock {
    uint64_t signs;
    uint32_t rotation;
};
inline uint64_t sketchMix(uint64_t z) // splitmix64's finalizer: every input bit reaches every output bit
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline SketchBlock sketchBlock(uint64_t block)
{
    return {sketchMix(2 * block), uint32_t(sketchMix(2 * block + 1) >> 58)};
}
// Element index i's bucket, and whether it is added negated.
inline uint32_t sketchBucket(uint64_t i)
{
    return (uint32_t(i % kSketchBuckets) + sketchBlock(i / kSketchBuckets).rotation) % kSketchBuckets;
}
inline bool sketchNegates(uint64_t i)
{
    return (sketchBlock(i / kSketchBuckets).signs >> (i % kSketchBuckets)) & 1;
}

// Sums being built over a tensor's elements, in order; first is the index of v[0].
class SketchSums {
public:
    void add(const float *v, uint32_t n, uint64_t first);
    void add(double v, uint64_t index)
    {
        if (index / kSketchBuckets != m_block || !m_haveBlock) {
            m_block = index / kSketchBuckets;
            m_hash = sketchBlock(m_block);
            m_haveBlock = true;
        }
        const uint32_t j = uint32_t(index % kSketchBuckets);
        m_sums[(j + m_hash.rotation) % kSketchBuckets] += ((m_hash.signs >> j) & 1) ? -v : v;
    }
    std::vector<float> finish() const;

private:
    std::array<double, kSketchBuckets> m_sums{};
    // the last block an element came from, one at a time (add(double, index)): its hash
    uint64_t m_block = 0;
    SketchBlock m_hash{};
    bool m_haveBlock = false;
};

std::string encodeSketch(const std::vector<float> &sketch);
// nullopt for text that is not a sketch of kSketchBuckets sums.
std::optional<std::vector<float>> decodeSketch(const std::string &text);

// ||test - golden|| estimated from their sketches (of one element count); NaN when either is
// missing or not finite.
double sketchDifferenceNorm(const std::vector<float> &golden, const std::vector<float> &test);

} // namespace llmscope
