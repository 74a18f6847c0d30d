// Which nodes a backend computes fused with the nodes after them, as this llama.cpp's backends
// decide (read from their code, not guessed): a chain's inner results never reach memory, so
// with --keep-fusion the probe reads a chain only at its last node and leaves it whole.
//
// ggml's own rule (ggml_can_fuse, ggml-impl.h): consecutive nodes of the given ops, each
// computed, each but the last used once in the whole graph, not a view and not a graph
// output, each a source of the next, all of one shape. ggml's CPU backend then fuses
// RMS_NORM+MUL when the norm's input, the product and the other factor are F32 and that factor
// is a contiguous row as long as the norm's (ggml_cpu_try_fuse_ops, ggml-cpu.c), unless
// GGML_CPU_DISABLE_FUSION=1. The Vulkan backend's rules are in vulkan_fusion.cpp (unless
// GGML_VK_DISABLE_FUSION is set, to anything); the CUDA backend's (and its HIP and MUSA builds')
// in cuda_fusion.cpp (unless GGML_CUDA_DISABLE_FUSION is a nonzero number).
#pragma once
#include <string>
#include <vector>

#include <ggml.h>

#include "probe/graph_topology.h"

namespace llmscope::probe {

enum class FusingBackend { None, Cpu, Vulkan, Cuda };

// The rules a scheduler's backend name stands for ("CPU", "Vulkan0", "CUDA0"); None for one whose fusion
// is not modelled, or whose fusion its environment turned off. ggml's RPC client ("RPC0[host:port]")
// sends the graph, the probe's flags with it, to a server whose backend it does not know: that
// backend's rules are those LLMSCOPE_RPC_BACKEND names ("CPU", "Vulkan0", "CUDA0"), switched off
// as a local one is (--no-fusion: then every op the probe reads is flagged, and the server
// computes it unfused); None when it names none.
FusingBackend fusingBackend(const std::string &backendName);
// An RPC backend whose server's backend LLMSCOPE_RPC_BACKEND does not name.
bool remoteBackendUnnamed(const std::string &backendName);

struct FusedChain {
    int first = 0, last = 0; // topology node indices, consecutive
    std::string types; // "RMS_NORM+MUL"
    int backend = 0; // the backend index computing it (fusedChains' backendOf)
    // Inner nodes whose results the fused kernel writes too (a MoE routing's chosen experts,
    // beside their weights at the end): in memory once the chain has run, read at its end.
    std::vector<int> outputs{};
};

// The chains backend b computes fused in the graph (nodes as the host made them: the flags
// the probe sets for its own reading are not looked at).
std::vector<FusedChain> fusedChains(const GraphTopology &topo, FusingBackend b);
// The same where several backends share the graph: per node the index of the backend computing
// it, and per backend index its rules (a chain never crosses backends).
std::vector<FusedChain> fusedChains(const GraphTopology &topo, const std::vector<int> &backendOf,
                                    const std::vector<FusingBackend> &rules);

// A result a backend hands from one node to a later one outside memory, within one computation
// of its graph: Vulkan's ADD writes its row's partial sums of squares for the one-row RMS_NORM
// right after it, which then sums those instead of its input. Ending the graph between them
// (where the probe reads node by node) would change the norm's rounding, so the probe reads
// `from` (the ADD, or the end of its chain) at `to` (the RMS_NORM, or the end of its chain)
// instead. Where the backend had no room left for the sums in that computation (`carried`
// false) the probe ends the graph after `from`, so that the norm sums its input as unobserved.
struct CarriedResult {
    int from = 0, to = 0;
    bool carried = true;
};

// The results carried in the graph, given its fused chains, per backend index the alignment of
// its buffers (0: unknown, the room then taken as endless), and which nodes it computes in one
// computation: a run of nodes on one backend, as the scheduler splits the graph.
std::vector<CarriedResult> carriedResults(const GraphTopology &topo, const std::vector<int> &backendOf,
                                          const std::vector<FusingBackend> &rules,
                                          const std::vector<FusedChain> &chains, const std::vector<size_t> &alignment);

// Per node: the index of the last node of the chain it is fused into, -1 when it is computed
// on its own (or is that last node).
std::vector<int> fusedInto(const std::vector<FusedChain> &chains, size_t nodes);
// Per node: 1 for a chain's inner output (FusedChain::outputs); empty without chains.
std::vector<char> innerOutputs(const std::vector<FusedChain> &chains, size_t nodes);

// A chain's inputs as one op: the tensors its nodes read that no node of the chain computes, in
// order (by node, then source slot; each once), dumped as the chain's end's inputs; and for each
// node's source slots (up to its last) which feeds it: one of those inputs (its index) or an
// earlier node of the chain (-1 - its place in the chain), or kNoSource for an empty slot.
constexpr int kNoSource = -1000000;
struct ChainInputs {
    std::vector<const ggml_tensor *> external;
    std::vector<std::vector<int>> sources;
};
ChainInputs chainInputs(const GraphTopology &topo, int first, int last);

} // namespace llmscope::probe
