// Tensor statistics with msit's definitions plus NaN/Inf/zero counts.
#pragma once
#include <cstdint>
#include <optional>

#include "tensor/tensor.h"

namespace llmscope {

struct TensorStats {
    uint64_t count = 0;
    // Max and min follow torch: NaN when any element is NaN. Mean and l2norm (sqrt of the
    // sum of squares) are accumulated in double from the float32-converted values.
    double max = 0, min = 0, mean = 0, l2norm = 0;
    uint64_t nanCount = 0, infCount = 0, zeroCount = 0;
};

// Statistics of a numeric tensor with data; nullopt for non-numeric dtypes (msit's "N/A").
std::optional<TensorStats> computeStats(const Tensor &t);
std::optional<TensorStats> computeStats(int32_t dtype, const uint8_t *data, uint64_t elements);

// Writes max/min/mean/l2norm attributes as msit's statistics mode does ("N/A" when absent).
void setStatsAttrs(Tensor &t, const std::optional<TensorStats> &s);
// Reads those attributes back; nullopt when any is missing or N/A.
std::optional<TensorStats> statsFromAttrs(const Tensor &t);

} // namespace llmscope
