// Tensor statistics with msit's definitions plus NaN/Inf/zero counts.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor/tensor.h"

namespace llmscope {

struct TensorStats {
    uint64_t count = 0;
    // Max and min follow torch: NaN when any element is NaN. Mean and l2norm (sqrt of the
    // sum of squares) are accumulated in double from the float32-converted values.
    double max = 0, min = 0, mean = 0, l2norm = 0;
    uint64_t nanCount = 0, infCount = 0, zeroCount = 0;
    // The error sketch (tensor/sketch.h): kSketchBuckets sums, empty when not computed or
    // not finite (a NaN or Inf among the elements).
    std::vector<float> sketch;
    // The bytes' digest (util/content_digest.h), computed with the sketch; 0 when none.
    // Equal digests: the same tensor, bit for bit.
    uint64_t digest = 0;
};

// Statistics of a numeric tensor with data, and its sketch unless told not; nullopt for
// non-numeric dtypes (msit's "N/A").
std::optional<TensorStats> computeStats(const Tensor &t, bool sketch = true);
std::optional<TensorStats> computeStats(int32_t dtype, const uint8_t *data, uint64_t elements, bool sketch = true);

// Writes max/min/mean/l2norm attributes as msit's statistics mode does ("N/A" when absent),
// and the sketch and the digest as more (kSketchAttr, kDigestAttr), when there are.
void setStatsAttrs(Tensor &t, const std::optional<TensorStats> &s);
// Reads those attributes back; nullopt when any of msit's four is missing or N/A. A sketch
// attribute that does not decode is left out.
std::optional<TensorStats> statsFromAttrs(const Tensor &t);

inline constexpr const char *kDigestAttr = "llmscope_digest";
inline constexpr const char *kDigestPrefix = "d2."; // the definition: an earlier one had none
std::string encodeDigest(uint64_t d); // "d2." and 16 hex digits; "" for 0
uint64_t decodeDigest(const std::string &text); // 0 for text that is no digest

} // namespace llmscope
