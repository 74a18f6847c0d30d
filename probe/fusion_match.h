// ggml's own tests of whether nodes may be fused (ggml-impl.h's ggml_can_fuse and
// ggml_can_fuse_subgraph, ggml_check_edges) and the tensor predicates backends add to them, on
// the probe's topology: what each backend's rules (fusion_rules.cpp, vulkan_fusion.cpp) are made of.
#pragma once
#include <array>
#include <initializer_list>
#include <span>
#include <unordered_map>

#include <ggml.h>

#include "probe/graph_topology.h"

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
bool canFuseSubgraph(const Graph &g, size_t first, std::span<const ggml_op> ops, std::span<const int> outputs);
inline bool canFuseSubgraph(const Graph &g, size_t first, std::initializer_list<ggml_op> ops,
                            std::initializer_list<int> outputs)
{
    return canFuseSubgraph(g, first, std::span(ops.begin(), ops.size()), std::span(outputs.begin(), outputs.size()));
}
// ggml_check_edges: {node, source slot, node} offsets from first.
bool edgesAre(const Graph &g, size_t first, std::initializer_list<std::array<int, 3>> edges);

// An op's parameter i (ggml_get_op_params_i32, _f32).
int32_t paramI32(const ggml_tensor *t, int i);
float paramF32(const ggml_tensor *t, int i);
inline bool f32(const ggml_tensor *t)
{
    return t && t->type == GGML_TYPE_F32;
}
// A binary op's source that is not `one`.
inline const ggml_tensor *otherSource(const ggml_tensor *op, const ggml_tensor *one)
{
    return op->src[0] == one ? op->src[1] : op->src[0];
}

inline bool unaryIs(const ggml_tensor *t, ggml_unary_op op)
{
    return t->op == GGML_OP_UNARY && paramI32(t, 0) == op;
}

// Kernels two backends share the checks of (ggml-cuda's and ggml-vulkan's, the same code):
// - the snake activation from frontends' five ops MUL+SIN+SQR+MUL+ADD at node i, y = x +
//   sin(a x)^2 / b, over a 2-D x, one a and b a channel, types and packing its kernel takes (the
//   run's fusability is the caller's: the backends test it differently);
bool snakeOperandsOk(const Graph &g, size_t i);
// - Mamba's convolution with its channel bias and SiLU (3 nodes) or its SiLU alone (2), in
//   float32: the chain's length at node i, or 0.
size_t ssmConvSilu(const Graph &g, size_t i);

// Bytes a tensor spans (ggml_nbytes) for types of one element a block; 0 when not known.
size_t spanBytes(const ggml_tensor *t);
// Whether two tensors' bytes meet in one buffer (ggml_vk_tensors_overlap; ggml-cuda's
// nodes_overlap with elementwise false); an elementwise source may be the destination exactly.
// A span the probe cannot size is taken as meeting.
bool overlaps(const ggml_tensor *a, const ggml_tensor *b, bool elementwise);

// ggml's tensor predicates, from ne and nb (types of a known element size only: others are
// taken as not contiguous, so a rule that needs it does not fuse them).
bool sameShape(const ggml_tensor *a, const ggml_tensor *b);
bool sameStride(const ggml_tensor *a, const ggml_tensor *b);
bool contiguous(const ggml_tensor *t); // ggml_is_contiguous
bool contiguousRows(const ggml_tensor *t); // ggml_is_contiguous_rows
bool contiguous1(const ggml_tensor *t); // ggml_is_contiguous_1
bool canRepeat(const ggml_tensor *a, const ggml_tensor *b); // ggml_can_repeat(a, b)
bool quantized(ggml_type t); // ggml_is_quantized
int64_t rows(const ggml_tensor *t); // ggml_nrows
int64_t elements(const ggml_tensor *t); // ggml_nelements

} // namespace llmscope::probe::fusion
