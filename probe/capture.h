// Copies a ggml tensor out of the engine's (possibly device) memory into core's Tensor: dims
// outermost first, payload dense; float types as ACL dtypes, ggml's block types raw under
// their own name.
#pragma once
#include <ggml.h>

#include "tensor/tensor.h"

namespace llmscope::probe {

enum class Capture { Header, Payload };

int32_t aclDtype(ggml_type t); // -1 when ACL has no code for it
Tensor capture(const ggml_tensor *t, Capture what);
// Whether t lives in a weight buffer: its contents do not change while the target runs.
bool isWeight(const ggml_tensor *t);

} // namespace llmscope::probe
