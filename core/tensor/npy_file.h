// NumPy .npy files (format versions 1-3, little-endian, C order).
#pragma once
#include <string>

#include "core/tensor/tensor.h"

namespace llmscope {

// Reads a .npy into a Tensor with the matching ACL dtype. Big-endian, Fortran-order,
// object and structured arrays, and truncated files throw Error saying so.
Tensor readNpy(const std::string &path);

// Writes t as .npy (version 1, or 2 when the header needs it), atomically. Dtypes NumPy
// has no type for are widened exactly: bfloat16, float8/6/4 and e8m0 to float32, int4 to
// int8, uint1 to bool, complex32 to complex64. hifloat8 and unknown codes throw Error.
void writeNpy(const std::string &path, const Tensor &t);

} // namespace llmscope
