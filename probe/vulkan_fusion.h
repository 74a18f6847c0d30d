// ggml's Vulkan backend's fusion rules (vulkan_fusion.cpp says which of its patterns).
#pragma once
#include <optional>

#include "probe/fusion_match.h"
#include "probe/fusion_rules.h"

namespace llmscope::probe {

// The chain the Vulkan backend computes fused starting at node i, if any, as it decides at that
// node (the first of its patterns that fits).
std::optional<FusedChain> vulkanChainAt(const fusion::Graph &g, size_t i);

// ggml_vk_build_graph's ADD+RMS_NORM partial sums: the bytes of room (of
// kVulkanRmsPartialsRoom a graph computation) the sums of squares take that the ADD computed at
// `first` (a run of ADDs first..end) writes for the one-row RMS_NORM right after it, whose
// buffer bindings are aligned to `alignment` (the device's storage offset alignment, its
// buffer type's); 0 where it writes none.
constexpr uint32_t kVulkanRmsPartialsRoom = 1024; // prealloc_size_add_rms_partials
uint32_t vulkanRmsPartialsBytes(const fusion::Graph &g, size_t first, size_t end, size_t alignment);

} // namespace llmscope::probe
