// Reads a ggml tensor out of the engine's (possibly device) memory in core's terms: dims
// outermost first, payload dense; float types as ACL dtypes, ggml's block types raw under
// their own name.
#pragma once
#include <ggml.h>

#include "core/tensor/tensor.h"

namespace llmscope::probe {

int32_t aclDtype(ggml_type t); // -1 when ACL has no code for it
size_t elementSize(int32_t acl); // bytes of one element of an ACL dtype; 0 when unknown
// The msit header of t without data. With payload, the header its dumped payload gets:
// ggml's block types become raw bytes, their logical dims kept as an attribute.
Tensor describe(const ggml_tensor *t, bool payload);
// Whether t's payload is one memcpy of denseBytes(t) from t->data: allocated, in host memory
// and contiguous (or a ggml block type, dumped raw).
bool isDirect(const ggml_tensor *t);
// Bytes of t's dense payload as describe(t, true) lays it out.
uint64_t denseBytes(const ggml_tensor *t);
// Copies t's payload, dense, into dst (denseBytes(t) bytes). Device memory is fetched with
// ggml_backend_tensor_get, or taken from `fetched` (its ggml_nbytes(t) bytes fetched already);
// host memory is read directly.
void copyDense(const ggml_tensor *t, uint8_t *dst, const uint8_t *fetched = nullptr);
// Whether t's bytes can be read: host memory, or a buffer that implements get_tensor. ggml-cpu
// keeps quantized weights in buffers repacked for the CPU (AMX, CPU_REPACK) that have no
// get_tensor: ggml_backend_tensor_get would call a null pointer, and the bytes are not GGUF's.
bool isReadable(const ggml_tensor *t);
// Whether t lives in a weight buffer: its contents do not change while the target runs.
bool isWeight(const ggml_tensor *t);
// Whether computing node t writes memory (its output's): not for the ops ggml treats as views.
bool writesData(const ggml_tensor *t);

} // namespace llmscope::probe
