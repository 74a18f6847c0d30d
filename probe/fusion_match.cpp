#include "probe/fusion_match.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace llmscope::probe::fusion {
namespace {

// Bytes of one element of a type whose blocks hold one; 0 for the others (quantized types).
size_t elementSize(ggml_type t)
{
    switch (t) {
    case GGML_TYPE_F32:
    case GGML_TYPE_I32: return 4;
    case GGML_TYPE_F16:
    case GGML_TYPE_BF16:
    case GGML_TYPE_I16: return 2;
    case GGML_TYPE_I64:
    case GGML_TYPE_F64: return 8;
    case GGML_TYPE_I8: return 1;
    default: return 0;
    }
}

// ggml_is_contiguous_m_n: dimensions above n packed after those up to n, which may have any stride.
bool contiguousN(const ggml_tensor *t, int n)
{
    size_t next = elementSize(t->type);
    if (next == 0)
        return false;
    if (t->ne[0] != 1 && t->nb[0] != next)
        return false;
    next *= size_t(t->ne[0]);
    for (int i = 1; i < GGML_MAX_DIMS; ++i) {
        if (i > n) {
            if (t->ne[i] != 1 && t->nb[i] != next)
                return false;
            next *= size_t(t->ne[i]);
        } else { // any stride, even of a dimension of one: the next is measured from it
            next = size_t(t->ne[i]) * t->nb[i];
        }
    }
    return true;
}

} // namespace

Graph::Graph(const GraphTopology &t, const std::vector<int> &backends) : topo(t), backendOf(backends)
{
    // A scheduler with several backends points a node's source on another backend at its copy,
    // named "{backend}#{source}#{copy}" (ggml_backend_sched_split_graph), where ggml still counts
    // a use of the source (its counts come from the graph as built). Such a use is counted for
    // every node of that name: a chain is then refused, never made of a node read elsewhere.
    std::unordered_multimap<std::string_view, const ggml_tensor *> byName;
    auto copied = [&](const ggml_tensor *src) -> std::string_view {
        if (src->op != GGML_OP_NONE || t.indexOf.count(src))
            return {};
        const std::string_view name(src->name);
        const size_t first = name.find('#'), last = name.rfind('#');
        return first == std::string_view::npos || first == last ? std::string_view{}
                                                                : name.substr(first + 1, last - first - 1);
    };
    for (const GraphNode &n : topo.nodes)
        for (int s = 0; s < GGML_MAX_SRC; ++s) {
            const ggml_tensor *src = n.tensor->src[s];
            if (!src)
                continue;
            ++uses[src];
            const std::string_view original = copied(src);
            if (original.empty())
                continue;
            if (byName.empty())
                for (const GraphNode &m : topo.nodes)
                    byName.emplace(std::string_view(m.tensor->name), m.tensor);
            const auto [from, to] = byName.equal_range(original);
            for (auto it = from; it != to; ++it)
                ++uses[it->second];
        }
}

int Graph::usesOf(const ggml_tensor *t) const
{
    const auto u = uses.find(t);
    return u == uses.end() ? 0 : u->second;
}

bool Graph::oneBackend(size_t first, size_t n) const
{
    if (first + n > size() || backendOf.size() != size())
        return false;
    for (size_t k = 1; k < n; ++k)
        if (backendOf[first + k] != backendOf[first])
            return false;
    return true;
}

bool canFuse(const Graph &g, size_t first, const ggml_op *ops, size_t n)
{
    if (!g.oneBackend(first, n))
        return false;
    for (size_t k = 0; k < n; ++k) {
        const ggml_tensor *node = g.node(first + k);
        if (node->op != ops[k] || !(node->flags & GGML_TENSOR_FLAG_COMPUTE))
            return false;
        if (k + 1 < n && (g.usesOf(node) != 1 || node->view_src || (node->flags & GGML_TENSOR_FLAG_OUTPUT)))
            return false;
        if (k > 0) {
            const ggml_tensor *prev = g.node(first + k - 1);
            if ((node->src[0] != prev && node->src[1] != prev) || !sameShape(node, prev))
                return false;
        }
    }
    return true;
}

bool canFuseSubgraph(const Graph &g, size_t first, std::span<const ggml_op> ops, std::span<const int> outputs)
{
    const size_t n = ops.size();
    if (!g.oneBackend(first, n))
        return false;
    auto inside = [&](const ggml_tensor *t) {
        for (size_t k = 0; k < n; ++k)
            if (g.node(first + k) == t)
                return true;
        return false;
    };
    for (size_t k = 0; k < n; ++k) {
        const ggml_tensor *node = g.node(first + k);
        if (node->op != ops[k] || !(node->flags & GGML_TENSOR_FLAG_COMPUTE))
            return false;
        if (std::find(outputs.begin(), outputs.end(), int(k)) != outputs.end())
            continue;
        if (node->flags & GGML_TENSOR_FLAG_OUTPUT)
            return false;
        int inner = 0;
        for (size_t j = k + 1; j < n; ++j)
            for (int s = 0; s < GGML_MAX_SRC; ++s)
                inner += g.node(first + j)->src[s] == node;
        if (inner != g.usesOf(node))
            return false;
        // a view's sources must lie inside the run too, or be constant: ggml asks the buffer
        // whether it holds weights; a leaf that is not a trained parameter is taken as one
        for (const ggml_tensor *v = node->view_src; v; v = v->view_src)
            if (!inside(v) && !(v->op == GGML_OP_NONE && !(v->flags & GGML_TENSOR_FLAG_PARAM)))
                return false;
    }
    return true;
}

bool edgesAre(const Graph &g, size_t first, std::initializer_list<std::array<int, 3>> edges)
{
    for (const auto &e : edges)
        if (g.node(first + size_t(e[0]))->src[e[1]] != g.node(first + size_t(e[2])))
            return false;
    return true;
}

int32_t paramI32(const ggml_tensor *t, int i)
{
    int32_t v;
    std::memcpy(&v, reinterpret_cast<const char *>(t->op_params) + i * sizeof(int32_t), sizeof v);
    return v;
}

float paramF32(const ggml_tensor *t, int i)
{
    float v;
    std::memcpy(&v, reinterpret_cast<const char *>(t->op_params) + i * sizeof(float), sizeof v);
    return v;
}

size_t spanBytes(const ggml_tensor *t)
{
    size_t n = elementSize(t->type);
    if (n == 0)
        return 0;
    for (int d = 0; d < GGML_MAX_DIMS; ++d) {
        if (t->ne[d] <= 0)
            return 0;
        n += size_t(t->ne[d] - 1) * t->nb[d];
    }
    return n;
}

bool overlaps(const ggml_tensor *a, const ggml_tensor *b, bool elementwise)
{
    if (!a->buffer || a->buffer != b->buffer || !a->data || !b->data)
        return false;
    const auto aBase = reinterpret_cast<uintptr_t>(a->data), bBase = reinterpret_cast<uintptr_t>(b->data);
    const size_t aSize = spanBytes(a), bSize = spanBytes(b);
    if (aSize == 0 || bSize == 0)
        return true;
    if (elementwise && aBase == bBase && aSize == bSize)
        return false;
    return (bBase <= aBase && aBase < bBase + bSize) || (aBase <= bBase && bBase < aBase + aSize);
}

bool snakeOperandsOk(const Graph &g, size_t i)
{
    const ggml_tensor *mul0 = g.node(i), *sin = g.node(i + 1), *sqr = g.node(i + 2), *mul1 = g.node(i + 3),
                      *add = g.node(i + 4);
    const ggml_tensor *x = sameShape(mul0, mul0->src[0]) ? mul0->src[0] : mul0->src[1];
    const ggml_tensor *a = x == mul0->src[0] ? mul0->src[1] : mul0->src[0];
    const ggml_tensor *invB = mul1->src[0] == sqr ? mul1->src[1] : mul1->src[0];
    const ggml_tensor *xInAdd = add->src[0] == mul1 ? add->src[1] : add->src[0];
    if (!x || !a || !invB || xInAdd != x)
        return false;
    const bool dims =
        x->ne[2] == 1 && x->ne[3] == 1 && add->ne[2] == 1 && add->ne[3] == 1 && a->ne[2] == 1 && a->ne[3] == 1;
    const bool shape = sameShape(a, invB) && a->ne[0] == 1 && a->ne[1] == x->ne[1];
    const bool types = (x->type == GGML_TYPE_F32 || x->type == GGML_TYPE_F16 || x->type == GGML_TYPE_BF16) && f32(a) &&
        f32(invB) && mul0->type == x->type && sin->type == x->type && sqr->type == x->type && mul1->type == x->type &&
        add->type == x->type;
    return dims && shape && types && contiguous(x) && contiguous(add) && contiguous(a) && contiguous(invB);
}

size_t ssmConvSilu(const Graph &g, size_t i)
{
    const ggml_tensor *conv = g.node(i);
    if (conv->op != GGML_OP_SSM_CONV || !f32(conv))
        return 0;
    if (canFuse(g, i, {GGML_OP_SSM_CONV, GGML_OP_ADD, GGML_OP_UNARY}) && unaryIs(g.node(i + 2), GGML_UNARY_OP_SILU)) {
        const ggml_tensor *add = g.node(i + 1);
        const ggml_tensor *bias = add->src[0] == conv ? add->src[1] : add->src[0];
        if (f32(add) && f32(g.node(i + 2)) && f32(bias) && contiguous(bias) && elements(bias) == conv->ne[0] &&
            bias->ne[0] == conv->ne[0])
            return 3;
    }
    if (canFuse(g, i, {GGML_OP_SSM_CONV, GGML_OP_UNARY}) && unaryIs(g.node(i + 1), GGML_UNARY_OP_SILU) &&
        f32(g.node(i + 1)))
        return 2;
    return 0;
}

bool sameShape(const ggml_tensor *a, const ggml_tensor *b)
{
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        if (a->ne[d] != b->ne[d])
            return false;
    return true;
}

bool sameStride(const ggml_tensor *a, const ggml_tensor *b)
{
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        if (a->nb[d] != b->nb[d])
            return false;
    return true;
}

bool contiguous(const ggml_tensor *t)
{
    return contiguousN(t, 0);
}
bool contiguous1(const ggml_tensor *t)
{
    return contiguousN(t, 1);
}
bool contiguousRows(const ggml_tensor *t)
{
    return t->ne[0] == 1 || t->nb[0] == elementSize(t->type);
}

bool canRepeat(const ggml_tensor *a, const ggml_tensor *b)
{
    if (elements(a) == 0)
        return elements(b) == 0;
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        if (a->ne[d] == 0 || b->ne[d] % a->ne[d] != 0)
            return false;
    return true;
}

bool quantized(ggml_type t)
{
    switch (t) {
    case GGML_TYPE_F32:
    case GGML_TYPE_F16:
    case GGML_TYPE_BF16:
    case GGML_TYPE_F64:
    case GGML_TYPE_I8:
    case GGML_TYPE_I16:
    case GGML_TYPE_I32:
    case GGML_TYPE_I64: return false;
    default: return t < GGML_TYPE_COUNT;
    }
}

int64_t rows(const ggml_tensor *t)
{
    return t->ne[1] * t->ne[2] * t->ne[3];
}
int64_t elements(const ggml_tensor *t)
{
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

} // namespace llmscope::probe::fusion
