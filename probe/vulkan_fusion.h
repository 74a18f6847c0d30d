// ggml's Vulkan backend's fusion rules (vulkan_fusion.cpp says which of its patterns).
#pragma once
#include <optional>

#include "fusion_match.h"
#include "fusion_rules.h"

namespace llmscope::probe {

// The chain the Vulkan backend computes fused starting at node i, if any, as it decides at that
// node (the first of its patterns that fits).
std::optional<FusedChain> vulkanChainAt(const fusion::Graph &g, size_t i);

} // namespace llmscope::probe
