// What ggml's Vulkan backend computes fused, as ggml_backend_vk_graph_compute decides it at each
// node (ggml-vulkan.cpp: the first of its patterns that fits, ggml_vk_can_fuse and its
// pattern-specific checks): MULTI_ADD, MUL_MAT+ADD(+ADD), the experts' products with their
// biases and routing weights (MUL_MAT_ID+ADD_ID(+MUL), MUL_MAT_ID+MUL),
// RMS_NORM+MUL(+ROPE(+VIEW+SET_ROWS), +ADD(+MUL)), RMS_NORM+VIEW+SET_ROWS,
// GELU/SIGMOID/SILU/SOFTPLUS+MUL, SSM_CONV(+ADD)+SILU, ROPE+VIEW+SET_ROWS and the snake
// activation MUL+SIN+SQR+MUL+ADD, and the MoE routings TOPK_MOE, a chain with two outputs (the
// experts chosen, an inner node, and their weights, its end). Not modelled: TOPK_QSA (an
// indexer's top-k); its nodes are read, which computes them unfused (the observer check says
// when that changed the program's results).
//
// Beside the fusions, an ADD followed by a one-row RMS_NORM hands the norm its rows' partial
// sums of squares in a buffer of the computation's own (device->add_rms_fusion), so the norm
// sums in another order than alone: fusion_rules.h's CarriedResult.
//
// What the probe cannot see is taken as fusing: a device's limits (push constant sizes,
// multi_add's float16 rounding mode, buffer offset alignment). Reading a chain only at its end
// never changes what the program computes; at worst an inner node that ran alone is not read.
#include "probe/vulkan_fusion.h"

#include <algorithm>
#include <array>
#include <span>

namespace llmscope::probe {
namespace {

using namespace fusion;

// ggml_vk_can_fuse's RMS_NORM+MUL checks (and +ADD, +ADD+MUL): float32 throughout, a broadcast
// only of the weight, rows contiguous; the residual and sum whole and packed; a post-scale one
// number.
bool rmsNormMulOk(const Graph &g, size_t i, size_t n)
{
    const ggml_tensor *rms = g.node(i), *mul = g.node(i + 1);
    if (!f32(rms) || !f32(rms->src[0]) || !f32(mul->src[0]) || !f32(mul->src[1]) || !f32(mul))
        return false;
    if (rms == mul->src[1] && !sameShape(mul->src[0], rms))
        return false;
    if (!contiguousRows(mul->src[0]) || !contiguousRows(mul->src[1]))
        return false;
    if (n >= 3 && g.node(i + 2)->op == GGML_OP_ADD) {
        const ggml_tensor *add = g.node(i + 2);
        if (add->src[0] != mul && add->src[1] != mul)
            return false;
        const ggml_tensor *residual = otherSource(add, mul);
        if (!f32(residual) || !f32(add) || !sameShape(add, residual) || !contiguous(residual) || !contiguous(add))
            return false;
        if (n == 4) {
            const ggml_tensor *post = g.node(i + 3);
            if (post->op != GGML_OP_MUL || (post->src[0] != add && post->src[1] != add))
                return false;
            const ggml_tensor *scale = otherSource(post, add);
            if (!f32(scale) || !f32(post) || elements(scale) != 1 || !contiguous(post))
                return false;
        }
    }
    return true;
}

// A matrix-vector product and its bias: one row, the bias of the product's type, shape and strides.
bool mulMatAddOk(const ggml_tensor *mul, const ggml_tensor *add)
{
    const ggml_tensor *bias = otherSource(add, mul);
    return bias && rows(mul) == 1 && mul->type == bias->type && sameShape(mul, bias) && sameStride(mul, bias);
}

// ggml_vk_use_mul_mat_vec_id: the experts' matrix-vector kernel, for at most 8 tokens' choices
// of float or quantized experts.
bool mulMatVecId(const ggml_tensor *mmid)
{
    const ggml_tensor *experts = mmid->src[0], *ids = mmid->src[2];
    return experts && ids && ids->ne[1] <= 8 &&
        (experts->type == GGML_TYPE_F32 || experts->type == GGML_TYPE_F16 || quantized(experts->type));
}

// ggml_vk_can_fuse's mmid_mul_ok: a product (or its bias) times each chosen expert's weight,
// one number an expert, of the product's type, packed, on the matrix-vector kernel.
bool mulMatIdMulOk(const ggml_tensor *mmid, const ggml_tensor *product, const ggml_tensor *mul)
{
    const ggml_tensor *scale = mul->src[1];
    return scale && product == mul->src[0] && mulMatVecId(mmid) && product->type == scale->type && contiguous(scale) &&
        scale->ne[0] == 1 && scale->ne[1] == mul->ne[1] && scale->ne[2] == 1 && scale->ne[3] == 1;
}

// MUL_MAT_ID+ADD_ID: the chosen experts' biases added by the same ids, on the matrix-vector
// kernel, the bias packed and of the product's type.
bool mulMatIdAddIdOk(const ggml_tensor *mmid, const ggml_tensor *add)
{
    const ggml_tensor *bias = add->src[1];
    return bias && mmid == add->src[0] && mulMatVecId(mmid) && mmid->type == bias->type && contiguous(bias) &&
        mmid->src[2] == add->src[2];
}

// ggml_vk_can_fuse_rms_norm_mul_rope: packed tensors, normal or NeoX rotation, rows of at most
// 1024 (the shared memory between the product and the rotation).
bool rmsNormMulRopeOk(const Graph &g, size_t i)
{
    const ggml_tensor *rms = g.node(i), *mul = g.node(i + 1), *rope = g.node(i + 2);
    const int mode = paramI32(rope, 2);
    return contiguous(rms) && contiguous(mul) && contiguous(rope) &&
        (mode == GGML_ROPE_TYPE_NEOX || mode == 0 /* normal */) && mul->ne[0] <= 1024;
}

// A SET_ROWS epilogue's checks (ggml_vk_can_fuse_rope_set_rows and _rms_norm_set_rows): the
// producer's rows flattened one per index, 64-bit packed indices, a float destination.
bool setRowsEpilogueOk(const ggml_tensor *producer, const ggml_tensor *view, const ggml_tensor *setRows)
{
    const ggml_tensor *idx = setRows->src[1];
    if (setRows->type != GGML_TYPE_F32 && setRows->type != GGML_TYPE_F16)
        return false;
    if (!idx || idx->type != GGML_TYPE_I64 || !contiguous(idx) ||
        setRows->nb[0] != (setRows->type == GGML_TYPE_F32 ? 4u : 2u))
        return false;
    return contiguous(view) && view->ne[0] == producer->ne[0] * producer->ne[1] && view->ne[1] == producer->ne[2] &&
        view->ne[2] == 1 && view->ne[3] == 1 && elements(idx) == producer->ne[2];
}

bool ropeSetRowsOk(const Graph &g, size_t i)
{
    const ggml_tensor *rope = g.node(i);
    if (!rope->src[0] || rope->src[0]->ne[3] != 1)
        return false;
    const int mode = paramI32(rope, 2);
    if (mode != 0 && mode != GGML_ROPE_TYPE_NEOX && mode != GGML_ROPE_TYPE_MROPE && mode != GGML_ROPE_TYPE_IMROPE)
        return false;
    return setRowsEpilogueOk(rope, g.node(i + 1), g.node(i + 2));
}

bool rmsNormSetRowsOk(const Graph &g, size_t i)
{
    const ggml_tensor *rms = g.node(i);
    return f32(rms) && f32(rms->src[0]) && rms->ne[3] == 1 && contiguous(rms->src[0]) &&
        setRowsEpilogueOk(rms, g.node(i + 1), g.node(i + 2));
}

// ggml_vk_can_fuse_unary_mul: GELU, SIGMOID, SILU or SOFTPLUS times a tensor of its type that
// tiles into the result.
bool unaryMulOk(const Graph &g, size_t i)
{
    if (!canFuseSubgraph(g, i, {GGML_OP_UNARY, GGML_OP_MUL}, {1}))
        return false;
    const ggml_tensor *unary = g.node(i), *mul = g.node(i + 1);
    const int op = paramI32(unary, 0);
    if (op != GGML_UNARY_OP_GELU && op != GGML_UNARY_OP_SIGMOID && op != GGML_UNARY_OP_SILU &&
        op != GGML_UNARY_OP_SOFTPLUS)
        return false;
    if ((unary->type != GGML_TYPE_F32 && unary->type != GGML_TYPE_F16) || unary->type != mul->type)
        return false;
    if (mul->src[0] != unary && mul->src[1] != unary)
        return false;
    const ggml_tensor *other = otherSource(mul, unary);
    if (!other || other->type != unary->type || !contiguous1(other) || !unary->src[0] || !contiguous1(unary->src[0]))
        return false;
    return mul->src[0] == unary ? canRepeat(other, unary) : canRepeat(unary, mul->src[0]);
}

// ggml_vk_fuse_multi_add: a run of ADDs of the first one's shape in float32 (at most
// MAX_FUSED_ADDS, 9), shortened until ggml_can_fuse holds; one ADD alone is not a fusion.
size_t multiAdd(const Graph &g, size_t i)
{
    constexpr size_t kMaxAdds = 9;
    const ggml_tensor *first = g.node(i);
    if (first->op != GGML_OP_ADD)
        return 0;
    size_t n = 1;
    while (i + n < g.size() && g.node(i + n)->op == GGML_OP_ADD && n < kMaxAdds)
        ++n;
    for (size_t k = 0; k < n; ++k) {
        const ggml_tensor *a = g.node(i + k);
        if (!a->src[0] || !a->src[1] || !sameShape(first, a->src[0]) || !sameShape(first, a->src[1]) || !f32(a) ||
            !f32(a->src[0]) || !f32(a->src[1])) {
            n = k;
            break;
        }
    }
    static constexpr ggml_op kAdds[kMaxAdds] = {GGML_OP_ADD, GGML_OP_ADD, GGML_OP_ADD, GGML_OP_ADD, GGML_OP_ADD,
                                                GGML_OP_ADD, GGML_OP_ADD, GGML_OP_ADD, GGML_OP_ADD};
    while (n > 1 && !canFuse(g, i, kAdds, n))
        --n;
    return n > 1 ? n : 0;
}

// Which of a chain's ops read their sources elementwise (ggml_backend_vk_graph_compute's
// op_srcs_fused_elementwise): a source of another kind may not share the result's memory.
struct Pattern {
    size_t length = 0;
    const char *types = ""; // empty: the chain's ops, joined
    std::vector<bool> elementwise;
    int output = -1; // an inner node the kernel writes too (offset), or -1
};

// ggml_vk_can_fuse_topk_moe's routings (ggml-vulkan-types.h): the gating (softmax, sigmoid or
// sqrt(softplus)), the choice of the experts (ARGSORT and its VIEW: the ids, one output) and
// their weights gathered (GET_ROWS), normalized or not (the other output, at the end).
struct TopkMoe {
    std::initializer_list<ggml_op> ops;
    std::initializer_list<std::array<int, 3>> edges;
    int ids, gating, argsort, getRows; // offsets; the weights are the last
    ggml_unary_op unary; // the gating's, when a UNARY
    int bias = -1; // the ADD of the selection's bias, when one
};

const TopkMoe kTopkMoe[] = {
    {{GGML_OP_SOFT_MAX, GGML_OP_RESHAPE, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE,
      GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE},
     {{1, 0, 0},
      {2, 0, 0},
      {3, 0, 2},
      {4, 0, 1},
      {4, 1, 3},
      {5, 0, 4},
      {6, 0, 5},
      {7, 0, 6},
      {8, 0, 5},
      {8, 1, 7},
      {9, 0, 8}},
     3,
     0,
     2,
     4,
     GGML_UNARY_OP_COUNT},
    {{GGML_OP_UNARY, GGML_OP_RESHAPE, GGML_OP_ADD, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE,
      GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE},
     {{1, 0, 0},
      {2, 0, 0},
      {3, 0, 2},
      {4, 0, 3},
      {5, 0, 1},
      {5, 1, 4},
      {6, 0, 5},
      {7, 0, 6},
      {8, 0, 7},
      {9, 0, 6},
      {9, 1, 8},
      {10, 0, 9}},
     4,
     0,
     3,
     5,
     GGML_UNARY_OP_SIGMOID,
     2},
    {{GGML_OP_UNARY, GGML_OP_SQRT, GGML_OP_RESHAPE, GGML_OP_ADD, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS,
      GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE},
     {{1, 0, 0},
      {2, 0, 1},
      {3, 0, 1},
      {4, 0, 3},
      {5, 0, 4},
      {6, 0, 2},
      {6, 1, 5},
      {7, 0, 6},
      {8, 0, 7},
      {9, 0, 8},
      {10, 0, 7},
      {10, 1, 9},
      {11, 0, 10}},
     5,
     0,
     4,
     6,
     GGML_UNARY_OP_SOFTPLUS,
     3},
    {{GGML_OP_SOFT_MAX, GGML_OP_RESHAPE, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS},
     {{1, 0, 0}, {2, 0, 0}, {3, 0, 2}, {4, 0, 1}, {4, 1, 3}},
     3,
     0,
     2,
     4,
     GGML_UNARY_OP_COUNT},
    {{GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE, GGML_OP_SOFT_MAX, GGML_OP_RESHAPE},
     {{1, 0, 0}, {2, 1, 1}, {3, 0, 2}, {4, 0, 3}, {5, 0, 4}},
     1,
     4,
     0,
     2,
     GGML_UNARY_OP_COUNT},
};

// The routing at node i, its length (with a trailing SCALE of the weights, as deepseek2 and
// nemotron3 nano have), or 0. The device's abilities (subgroup operations) are taken as there.
size_t topkMoeAt(const Graph &g, size_t i, int &ids)
{
    for (const TopkMoe &m : kTopkMoe) {
        const size_t n = m.ops.size();
        const int out[] = {m.ids, int(n - 1)};
        if (i + n > g.size() || !canFuseSubgraph(g, i, std::span(m.ops.begin(), n), out))
            continue;
        if (!edgesAre(g, i, m.edges))
            continue;
        const ggml_tensor *gating = g.node(i + size_t(m.gating)), *weights = g.node(i + n - 1);
        const ggml_tensor *argsort = g.node(i + size_t(m.argsort)), *getRows = g.node(i + size_t(m.getRows));
        if (m.unary != GGML_UNARY_OP_COUNT && !unaryIs(gating, m.unary))
            continue;
        if (m.bias >= 0) { // the selection's bias: one row, packed
            const ggml_tensor *b = g.node(i + size_t(m.bias))->src[1];
            if (!b || rows(b) != 1 || !contiguous(b))
                continue;
        }
        const ggml_tensor *probs = getRows->src[0];
        if (!probs || probs->op != GGML_OP_RESHAPE)
            continue;
        if (probs->src[0] != argsort->src[0] && m.bias < 0)
            continue;
        if (!gating->src[0] || !contiguous(gating->src[0]) || !contiguous(weights))
            continue;
        if (gating->op == GGML_OP_SOFT_MAX &&
            (paramF32(gating, 0) != 1.0f || paramF32(gating, 1) != 0.0f || gating->src[1] || gating->src[2]))
            continue;
        if (gating->ne[0] > 512) // the kernel's most experts
            continue;
        ids = m.ids;
        const size_t last = i + n - 1;
        if (canFuseSubgraph(g, last - 1, {GGML_OP_DIV, GGML_OP_RESHAPE, GGML_OP_SCALE}, {2}) ||
            canFuseSubgraph(g, last, {GGML_OP_GET_ROWS, GGML_OP_SCALE}, {1}))
            return n + 1;
        return n;
    }
    return 0;
}

Pattern patternAt(const Graph &g, size_t i)
{
    const ggml_op op = g.node(i)->op;
    if (op == GGML_OP_ADD) {
        if (const size_t n = multiAdd(g, i)) {
            static const char *kNames[] = {"",
                                           "",
                                           "ADD+ADD",
                                           "ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD+ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD+ADD+ADD+ADD+ADD",
                                           "ADD+ADD+ADD+ADD+ADD+ADD+ADD+ADD+ADD"};
            return {n, kNames[n], std::vector<bool>(n, true)};
        }
        return {};
    }
    if (op == GGML_OP_MUL_MAT) {
        if (canFuse(g, i, {GGML_OP_MUL_MAT, GGML_OP_ADD, GGML_OP_ADD}) && mulMatAddOk(g.node(i), g.node(i + 1)) &&
            mulMatAddOk(g.node(i + 1), g.node(i + 2)))
            return {3, "MUL_MAT+ADD+ADD", {false, true, true}};
        if (canFuse(g, i, {GGML_OP_MUL_MAT, GGML_OP_ADD}) && mulMatAddOk(g.node(i), g.node(i + 1)))
            return {2, "MUL_MAT+ADD", {false, true}};
        return {};
    }
    if (op == GGML_OP_MUL_MAT_ID) {
        const ggml_tensor *mmid = g.node(i);
        if (canFuse(g, i, {GGML_OP_MUL_MAT_ID, GGML_OP_ADD_ID, GGML_OP_MUL}) && mulMatIdAddIdOk(mmid, g.node(i + 1)) &&
            mulMatIdMulOk(mmid, g.node(i + 1), g.node(i + 2)))
            return {3, "MUL_MAT_ID+ADD_ID+MUL", {false, true, true}};
        if (canFuse(g, i, {GGML_OP_MUL_MAT_ID, GGML_OP_ADD_ID}) && mulMatIdAddIdOk(mmid, g.node(i + 1)))
            return {2, "MUL_MAT_ID+ADD_ID", {false, true}};
        if (canFuse(g, i, {GGML_OP_MUL_MAT_ID, GGML_OP_MUL}) && mulMatIdMulOk(mmid, mmid, g.node(i + 1)))
            return {2, "MUL_MAT_ID+MUL", {false, true}};
        return {};
    }
    if (op == GGML_OP_RMS_NORM) {
        if (canFuseSubgraph(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ROPE, GGML_OP_VIEW, GGML_OP_SET_ROWS}, {4}) &&
            edgesAre(g, i, {{1, 0, 0}, {2, 0, 1}, {3, 0, 2}, {4, 0, 3}}) && rmsNormMulRopeOk(g, i) &&
            ropeSetRowsOk(g, i + 2))
            return {5, "RMS_NORM+MUL+ROPE+VIEW+SET_ROWS", std::vector<bool>(5, false)};
        if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ROPE}) && rmsNormMulOk(g, i, 3) &&
            rmsNormMulRopeOk(g, i))
            return {3, "RMS_NORM+MUL+ROPE", {false, true, true}};
        if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ADD, GGML_OP_MUL}) && rmsNormMulOk(g, i, 4))
            return {4, "RMS_NORM+MUL+ADD+MUL", std::vector<bool>(4, true)};
        if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ADD}) && rmsNormMulOk(g, i, 3))
            return {3, "RMS_NORM+MUL+ADD", std::vector<bool>(3, true)};
        if (canFuseSubgraph(g, i, {GGML_OP_RMS_NORM, GGML_OP_VIEW, GGML_OP_SET_ROWS}, {2}) &&
            edgesAre(g, i, {{1, 0, 0}, {2, 0, 1}}) && rmsNormSetRowsOk(g, i))
            return {3, "RMS_NORM+VIEW+SET_ROWS", std::vector<bool>(3, false)};
        if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL}) && rmsNormMulOk(g, i, 2))
            return {2, "RMS_NORM+MUL", {true, true}};
        return {};
    }
    if (op == GGML_OP_UNARY && unaryMulOk(g, i)) {
        static const char *kNames[GGML_UNARY_OP_COUNT] = {};
        kNames[GGML_UNARY_OP_GELU] = "GELU+MUL";
        kNames[GGML_UNARY_OP_SIGMOID] = "SIGMOID+MUL";
        kNames[GGML_UNARY_OP_SILU] = "SILU+MUL";
        kNames[GGML_UNARY_OP_SOFTPLUS] = "SOFTPLUS+MUL";
        return {2, kNames[paramI32(g.node(i), 0)], {true, true}};
    }
    if (op == GGML_OP_SSM_CONV) { // the convolution reads several tokens an output: not elementwise
        if (const size_t n = ssmConvSilu(g, i))
            return n == 3 ? Pattern{3, "SSM_CONV+ADD+SILU", {false, true, true}}
                          : Pattern{2, "SSM_CONV+SILU", {false, true}};
        return {};
    }
    if (op == GGML_OP_ROPE && canFuseSubgraph(g, i, {GGML_OP_ROPE, GGML_OP_VIEW, GGML_OP_SET_ROWS}, {2}) &&
        edgesAre(g, i, {{1, 0, 0}, {2, 0, 1}}) && ropeSetRowsOk(g, i))
        return {3, "ROPE+VIEW+SET_ROWS", std::vector<bool>(3, false)};
    if (op == GGML_OP_MUL && canFuse(g, i, {GGML_OP_MUL, GGML_OP_SIN, GGML_OP_SQR, GGML_OP_MUL, GGML_OP_ADD}) &&
        snakeOperandsOk(g, i))
        return {5, "MUL+SIN+SQR+MUL+ADD", std::vector<bool>(5, true)}; // the snake activation
    if (op == GGML_OP_SOFT_MAX || op == GGML_OP_UNARY || op == GGML_OP_ARGSORT) {
        int ids = -1;
        if (const size_t n = topkMoeAt(g, i, ids))
            return {n, "", std::vector<bool>(n, false), ids};
    }
    return {};
}

// The fusion is dropped where the chain's result would overwrite a source still being read.
bool overwritesASource(const Graph &g, size_t i, const Pattern &p)
{
    for (const int out : {int(p.length) - 1, p.output}) { // the end, and an inner output
        if (out < 0)
            continue;
        const ggml_tensor *dst = g.node(i + size_t(out));
        for (size_t k = 0; k < p.length; ++k)
            for (int s = 0; s < GGML_MAX_SRC; ++s) {
                const ggml_tensor *src = g.node(i + k)->src[s];
                if (!src || src->op == GGML_OP_NONE || !overlaps(src, dst, p.elementwise[k]))
                    continue;
                bool inner = false;
                for (size_t n = 0; n < k; ++n)
                    inner = inner || g.node(i + n) == src;
                if (!inner)
                    return true;
            }
    }
    return false;
}

} // namespace

std::optional<FusedChain> vulkanChainAt(const fusion::Graph &g, size_t i)
{
    const Pattern p = patternAt(g, i);
    if (p.length < 2 || overwritesASource(g, i, p))
        return std::nullopt;
    FusedChain c{.first = int(i), .last = int(i + p.length - 1), .types = p.types};
    if (c.types.empty())
        for (size_t k = 0; k < p.length; ++k)
            c.types += (k ? "+" : "") + g.topo.nodes[i + k].type;
    if (p.output >= 0)
        c.outputs.push_back(int(i) + p.output);
    return c;
}

uint32_t vulkanRmsPartialsBytes(const fusion::Graph &g, size_t first, size_t end, size_t alignment)
{
    const ggml_tensor *add = g.node(first);
    if (add->op != GGML_OP_ADD || end + 1 >= g.size())
        return 0;
    const ggml_tensor *rms = g.node(end + 1);
    if (rms->op != GGML_OP_RMS_NORM || rms->src[0] != g.node(end) || rows(rms) != 1)
        return 0;
    // ggml_vk_rms_partials_size: one sum per 512 elements of a row (the ADD's workgroup),
    // 32 bits each, rounded up to the binding alignment (a power of two, at least 4)
    const uint32_t partials = uint32_t((add->ne[0] + 511) / 512);
    const uint32_t align = uint32_t(std::max<size_t>(4, alignment));
    return (partials * 4 + align - 1) & ~(align - 1);
}

} // namespace llmscope::probe
