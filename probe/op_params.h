// A ggml node's parameters (its op_params bytes), decoded for the ops llama.cpp's models use
// (norm eps, rope mode and dims, softmax and flash-attention scales, view offsets, permute
// axes, ...) as compact JSON; other ops' non-zero words are listed as they are. For msit's
// OpParam column and op_param.json (-tiling, which also keeps the raw bytes).
#pragma once
#include <string>

#include <ggml.h>

namespace llmscope::probe {

// type: the op as ggml_op_desc names it (unary and GLU ops by their own name).
std::string opParamsJson(const std::string &type, const ggml_tensor *t);
// The raw op_params bytes (GGML_MAX_OP_PARAMS of them).
std::string opParamsBytes(const ggml_tensor *t);

} // namespace llmscope::probe
