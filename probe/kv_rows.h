// The rows a write into the KV cache puts there. llama.cpp stores each round's keys and
// values with SET_ROWS into "cache_k_lN"/"cache_v_lN" (src[0] the rows, src[1] their cells,
// src[2] the cache); the whole cache is large and dumped only with --kv-cache, but the rows
// one write leaves behind are as small as the round's own tensors. They are read back from
// the cache after the write, at the cells its index says, in the index's order: what the
// kernel really stored (a row left out, one in the wrong cell, a bad conversion into a
// quantized cache all show), not what it was given.
#pragma once
#include <cstdint>
#include <vector>

#include <ggml.h>

#include "core/tensor/tensor.h"

namespace llmscope::probe {

inline constexpr const char *kKvRowsAttr = "llmscope_kv_rows"; // "written": the rows alone
inline constexpr const char *kKvCellsAttr = "llmscope_kv_cells"; // the cache rows, comma-joined
inline constexpr const char *kKvPositionsAttr = "llmscope_kv_positions"; // their tokens' positions
inline constexpr const char *kKvTypeAttr = "llmscope_kv_type"; // the cache's ggml type

// Whether node is a SET_ROWS into the KV cache whose written rows can be read back: a 2-D
// cache of whole rows, a 1-D index of I32/I64 cells, and a type ggml can turn into floats.
bool isCacheWrite(const ggml_tensor *node);
// The header of the written rows: [rows, width], the cache's own float type, or float32 for a
// quantized cache (dequantized with ggml's own to_float).
Tensor describeCacheWrite(const ggml_tensor *node, bool payload);
// Bytes describeCacheWrite's payload holds.
uint64_t cacheWriteBytes(const ggml_tensor *node);
// Reads the written rows into dst (cacheWriteBytes bytes) and their cells; false (dst zeroed)
// when the index cannot be read or names a cell outside the cache.
bool gatherCacheWrite(const ggml_tensor *node, const ggml_tensor *index, uint8_t *dst, std::vector<int64_t> &cells);

} // namespace llmscope::probe
