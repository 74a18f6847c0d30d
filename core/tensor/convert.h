// Decoding stored elements of every numeric dtype to double/float for computation.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor/tensor.h"

namespace llmscope {

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f); // round to nearest even
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f); // round to nearest even

// True when decodeElements handles this dtype (the DTypeInfo 'numeric' flag).
bool isNumeric(int32_t dtype);

// Decodes elements [first, first+count) of a payload of `dtype` into out (double so that
// int64 and float64 keep their precision). Throws Error for non-numeric dtypes.
void decodeElements(int32_t dtype, const uint8_t *data, uint64_t first, uint64_t count, double *out);

// The same into float32, with vectorized paths for float32, float16, bfloat16 and 8- and 16-bit
// integers (the compare's inner loop, and statistics of every other dtype).
void decodeToFloat(int32_t dtype, const uint8_t *data, uint64_t first, uint64_t count, float *out);

// Whole tensor as float32 (what msit compares in). Throws Error if the tensor has no data,
// a non-numeric dtype, or a payload shorter than its dims need.
std::vector<float> toFloat(const Tensor &t);

} // namespace llmscope
