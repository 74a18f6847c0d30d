// ggml's own tests of whether nodes may be fused (ggml-impl.h's ggml_can_fuse and
// ggml_can_fuse_subgraph, ggml_check_edges) and the tensor predicates backends add to them, on
// the probe's topology: what each backend's rules (fusion_rules.cpp, vulkan_fusion.cpp) are made of.
#pragma once
#include <array>
#include <initializer_list>
#include <unordered_map>

#include <ggml.h>

#include "graph_topology.h"

namespace llmscope::probe::fusion {

// The graph as ggml's fusion tests see it: its nodes, each tensor's uses (one per source slot
// naming it, as ggml counts them), and which backend computes each node (chains never cross
// backends: the scheduler splits the graph there).
struct Graph {
    const GraphTopology &topo;
    std::unordered_map<const ggml_tensor *, int> uses;
    const std::vector<int> &backendOf; // per node; equal values: one backend

    Graph(const GraphTopology &t, const std::vector<int> &backends);
    size_t size() const { return topo.nodes.size(); }
    const ggml_tensor *node(size_t i) const { return topo.nodes[i].tensor; }
    int usesOf(const ggml_tensor *t) const;
    // Nodes first..first+n-1 exist and are computed on one backend.
    bool oneBackend(size_t first, size_t n) const;
};

// ggml_can_fuse: consecutive nodes of these ops, each computed, each but the last used once and
// neither a view nor a graph output, each a source of the next and of its shape.
bool canFuse(const Graph &g, size_t first, const ggml_op *ops, size_t n);
inline bool canFuse(const Graph &g, size_t first, std::initializer_list<ggml_op> ops)
{
    return canFuse(g, first, ops.begin(), ops.size());
}
// ggml_can_fuse_subgraph: consecutive nodes of these ops whose results, but for the outputs
// (offsets from first), are used only inside the run and are not graph outputs.
bool canFuseSubgraph(const Graph &g, size_t first, std::initializer_list<ggml_op> ops, std::initializer_list<int> outputs);
// ggml_check_edges: {node, source slot, node} offsets from first.
bool edgesAre(const Graph &g, size_t first, std::initializer_list<std::array<int, 3>> edges);

// ggml's tensor predicates, from ne and nb (types of a known element size only: others are
// taken as not contiguous, so a rule that needs it does not fuse them).
bool sameShape(const ggml_tensor *a, const ggml_tensor *b);
bool sameStride(const ggml_tensor *a, const ggml_tensor *b);
bool contiguous(const ggml_tensor *t);      // ggml_is_contiguous
bool contiguousRows(const ggml_tensor *t);  // ggml_is_contiguous_rows
bool contiguous1(const ggml_tensor *t);     // ggml_is_contiguous_1
bool canRepeat(const ggml_tensor *a, const ggml_tensor *b); // ggml_can_repeat(a, b)
int64_t rows(const ggml_tensor *t);         // ggml_nrows
int64_t elements(const ggml_tensor *t);     // ggml_nelements

} // namespace llmscope::probe::fusion
