// ggml's CUDA backend's fusion rules (cuda_fusion.cpp says which of its patterns). ggml-cuda is
// also built for HIP (backends "ROCm0") and MUSA ("MUSA0") with the same rules.
#pragma once
#include <optional>

#include "probe/fusion_match.h"
#include "probe/fusion_rules.h"

namespace llmscope::probe {

// The chain the CUDA backend computes fused starting at node i, if any, as ggml_cuda_try_fuse
// decides at that node (the first of its patterns that fits).
std::optional<FusedChain> cudaChainAt(const fusion::Graph &g, size_t i);

} // namespace llmscope::probe
