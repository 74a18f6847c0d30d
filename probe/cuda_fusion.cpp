// What ggml's CUDA backend computes fused, as ggml_cuda_graph_evaluate_and_capture decides it at
// each computed node that is not a view (ggml_cuda_try_fuse in ggml-cuda.cu: the first of its
// patterns that fits, with ggml_cuda_can_fuse's checks and ggml_cuda_check_fusion_memory_ranges):
// - the experts' outputs weighted and summed (MUL(+MUL), then a VIEW an expert and the ADDs);
// - ROPE+VIEW+SET_ROWS; the snake activation MUL+SIN+SQR+MUL+ADD; runs of ADDs or of MULs;
// - the gate and up products with their GLU (MUL_MAT+MUL_MAT+GLU, with biases, with NVFP4
//   scales; the experts' MUL_MAT_ID likewise), a product with its NVFP4 scale or with its bias,
//   on the matrix-vector kernels (one token);
// - RMS_NORM+MUL(+ROPE(+VIEW+SET_ROWS), +ADD), SSM_CONV(+ADD)+SILU,
//   SILU/SIGMOID/SOFTPLUS+MUL, RELU+SQR and the softcap SCALE+TANH+SCALE.
// - the MoE routings TOPK_MOE, a chain with two outputs (the experts chosen, an inner node, and
//   their weights, its end).
// Not modelled: GATED_DELTA_NET's writes into the cache; its nodes are read, which computes them
// unfused (the observer check says when that changed the program's results).
//
// What the probe cannot see is taken as fusing: the device's compute capability (the quantized
// matrix-vector fusion is off on Pascal and older; the float kernels' and the experts' batch
// limits differ by architecture; the card is taken as a recent NVIDIA one where that decides
// against fusing: float16 experts), allocation padding, GGML_CUDA_GRAPH_OPT's reordering of
// nodes (off by default). Reading a chain only at its end never
// changes what the program computes; at worst an inner node that ran alone is not read.
#include "probe/cuda_fusion.h"

#include <span>
#include <string>
#include <vector>

namespace llmscope::probe {
namespace {

using namespace fusion;

bool f32or16(const ggml_tensor *t)
{
    return t && (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16);
}
bool sameLayout(const ggml_tensor *a, const ggml_tensor *b)
{
    return a && b && a->type == b->type && sameShape(a, b) && sameStride(a, b);
}

// ggml_cuda_is_view_or_noop: nodes the backend skips without trying a fusion.
bool viewOrNoop(const ggml_tensor *t)
{
    return elements(t) == 0 || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_TRANSPOSE || t->op == GGML_OP_VIEW ||
        t->op == GGML_OP_PERMUTE || t->op == GGML_OP_NONE;
}

// ggml_cuda_check_fusion_memory_ranges: no output (offsets from i) may overlap a source of the
// run that the run does not compute itself.
// A source that may alias the outputs (the routing's logits, which one block reads whole before
// it writes) is not held against them.
bool memoryOk(const Graph &g, size_t i, size_t n, std::initializer_list<int> outputs,
              const ggml_tensor *mayAlias = nullptr)
{
    for (const int o : outputs) {
        const ggml_tensor *dst = g.node(i + size_t(o));
        for (size_t j = 0; j < n; ++j)
            for (int s = 0; s < GGML_MAX_SRC; ++s) {
                const ggml_tensor *src = g.node(i + j)->src[s];
                if (!src || src->op == GGML_OP_NONE || src == mayAlias || !overlaps(dst, src, false))
                    continue;
                bool inner = false;
                for (size_t k = 0; k < j; ++k)
                    inner = inner || g.node(i + k) == src;
                if (!inner)
                    return false;
            }
    }
    return true;
}

// ggml_can_fuse_subgraph and the memory check together: the run of ops at node i with these
// outputs (offsets from i), computed as one.
bool subgraphFits(const Graph &g, size_t i, std::span<const ggml_op> ops, std::initializer_list<int> outputs,
                  const ggml_tensor *mayAlias = nullptr)
{
    return i + ops.size() <= g.size() && canFuseSubgraph(g, i, ops, std::span(outputs.begin(), outputs.size())) &&
        memoryOk(g, i, ops.size(), outputs, mayAlias);
}
bool subgraphFits(const Graph &g, size_t i, std::initializer_list<ggml_op> ops, std::initializer_list<int> outputs)
{
    return subgraphFits(g, i, std::span(ops.begin(), ops.size()), outputs);
}

// A product and its NVFP4 scale (the experts' gathered by their ids), and its bias.
std::vector<ggml_op> scaledProductOps(ggml_op op, bool withBias)
{
    std::vector<ggml_op> ops{op};
    if (op == GGML_OP_MUL_MAT_ID)
        ops.insert(ops.end(), {GGML_OP_RESHAPE, GGML_OP_REPEAT, GGML_OP_GET_ROWS});
    ops.push_back(GGML_OP_MUL);
    if (withBias)
        ops.push_back(op == GGML_OP_MUL_MAT ? GGML_OP_ADD : GGML_OP_ADD_ID);
    return ops;
}

// The MoE experts' outputs, each times its routing weight (and, first, an expert's scale), then
// summed expert by expert through views of the product (ggml_cuda_match_moe_weighted_reduction).
size_t moeWeightedSum(const Graph &g, size_t i)
{
    constexpr int64_t kMaxExperts = 15; // the chain's 2k+1 nodes within ggml_can_fuse_subgraph's 31
    const ggml_tensor *first = g.node(i);
    if (first->op != GGML_OP_MUL || !f32(first) || !contiguous(first))
        return 0;
    auto split = [](const ggml_tensor *mul, const ggml_tensor *&full) {
        auto weights = [mul](const ggml_tensor *t) {
            return f32(t) && contiguous(t) && t->ne[0] == 1 && t->ne[1] == mul->ne[1] && t->ne[2] == mul->ne[2] &&
                t->ne[3] == mul->ne[3];
        };
        auto experts = [mul](const ggml_tensor *t) { return f32(t) && contiguous(t) && sameShape(t, mul); };
        for (int a = 0; a < 2; ++a)
            if (experts(mul->src[a]) && weights(mul->src[1 - a])) {
                full = mul->src[a];
                return true;
            }
        return false;
    };
    const ggml_tensor *weighted = first, *full = nullptr;
    size_t muls = 1;
    if (i + 1 < g.size()) {
        const ggml_tensor *second = g.node(i + 1), *scaled = nullptr, *raw = nullptr;
        if (second->op == GGML_OP_MUL && f32(second) && contiguous(second) && split(second, scaled) &&
            scaled == first && split(first, raw)) {
            weighted = second;
            full = raw;
            muls = 2;
        }
    }
    if (!full && !split(first, full))
        return 0;
    const int64_t used = weighted->ne[1], tokens = weighted->ne[2] * weighted->ne[3];
    if (used < 2 || used > kMaxExperts || tokens <= 0)
        return 0;
    const size_t n = size_t(2 * used) + muls - 1;
    if (i + n > g.size())
        return 0;
    std::vector<ggml_op> ops(n, GGML_OP_MUL);
    std::vector<const ggml_tensor *> views;
    const ggml_tensor *sum = nullptr;
    size_t adds = 0;
    for (size_t k = muls; k < n; ++k) {
        const ggml_tensor *c = g.node(i + k);
        ops[k] = c->op;
        if (c->op == GGML_OP_VIEW) {
            const size_t expert = views.size();
            if (int64_t(expert) >= used || c->src[0] != weighted || c->view_src != weighted || !f32(c) ||
                c->ne[0] != weighted->ne[0] || c->ne[1] != tokens || c->ne[2] != 1 || c->ne[3] != 1 ||
                c->nb[0] != weighted->nb[0] || c->nb[1] != weighted->nb[2] || c->view_offs != expert * weighted->nb[1])
                return 0;
            views.push_back(c);
            continue;
        }
        if (c->op != GGML_OP_ADD || views.size() < 2 || adds + 1 >= views.size())
            return 0;
        if (c->src[0] != (adds == 0 ? views[0] : sum) || c->src[1] != views[adds + 1] || !f32(c))
            return 0;
        sum = c;
        ++adds;
    }
    if (int64_t(views.size()) != used || int64_t(adds) != used - 1 || !sum || !contiguous(sum) ||
        sum->ne[0] != weighted->ne[0] || sum->ne[1] != tokens || sum->ne[2] != 1 || sum->ne[3] != 1)
        return 0;
    return subgraphFits(g, i, ops, {int(n - 1)}) ? n : 0;
}

// ggml_cuda_topk_moe_fusion: the MoE routing at node i, as its gating (softmax, sigmoid,
// sqrt(softplus); or the softmax after the choice, gpt-oss's), a selection bias, the weights'
// normalization and scale.
struct TopkMoe {
    bool sigmoid = false, sqrtSoftplus = false, softmax = false, delayed = false, bias = false, norm = false,
         scale = false;
};

bool topkMoeShape(const Graph &g, size_t at, TopkMoe &a)
{
    const size_t n = g.size();
    auto node = [&](size_t k) { return g.node(k); };
    a.softmax = node(at)->op == GGML_OP_SOFT_MAX;
    if (node(at)->op == GGML_OP_UNARY) {
        if (unaryIs(node(at), GGML_UNARY_OP_SIGMOID)) {
            a.sigmoid = true;
        } else if (unaryIs(node(at), GGML_UNARY_OP_SOFTPLUS) && at + 1 < n && node(at + 1)->op == GGML_OP_SQRT &&
                   node(at + 1)->src[0] == node(at)) {
            a.sqrtSoftplus = true;
            ++at;
        } else {
            return false;
        }
    }
    a.delayed = node(at)->op == GGML_OP_ARGSORT;
    ++at;
    if (a.sigmoid || a.sqrtSoftplus || a.softmax) {
        if (at >= n || node(at)->op != GGML_OP_RESHAPE || node(at)->src[0] != node(at - 1))
            return false;
        const ggml_tensor *probs = node(at++);
        if (at >= n)
            return false;
        if (node(at)->op == GGML_OP_ADD && node(at)->src[0] == node(at - 2)) {
            a.bias = true;
            ++at;
        }
        if (at >= n || node(at)->op != GGML_OP_ARGSORT || node(at)->src[0] != node(at - (a.bias ? 1 : 2)))
            return false;
        ++at;
        if (at >= n || node(at)->op != GGML_OP_VIEW || node(at)->src[0] != node(at - 1))
            return false;
        ++at;
        if (at >= n || node(at)->op != GGML_OP_GET_ROWS || node(at)->src[0] != probs ||
            node(at)->src[1] != node(at - 1))
            return false;
        ++at;
    } else if (a.delayed) {
        if (at < 2)
            return false;
        const ggml_tensor *probs = node(at - 2);
        if (at >= n || node(at)->op != GGML_OP_VIEW || node(at)->src[0] != node(at - 1))
            return false;
        ++at;
        if (at >= n || node(at)->src[1] != node(at - 1) || node(at)->src[0] != probs)
            return false;
        ++at;
        for (const ggml_op op : {GGML_OP_RESHAPE, GGML_OP_SOFT_MAX, GGML_OP_RESHAPE}) {
            if (at >= n || node(at)->op != op || node(at)->src[0] != node(at - 1))
                return false;
            ++at;
        }
    }
    if (at >= n)
        return true;
    if (node(at)->op == GGML_OP_RESHAPE) { // RESHAPE, SUM_ROWS, CLAMP, DIV, RESHAPE
        a.norm = true;
        for (const ggml_op op : {GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP}) {
            if (at < n && node(at)->op == op && node(at)->src[0] == node(at - 1)) {
                ++at;
            } else {
                a.norm = false;
                return true;
            }
        }
        if (at >= n || node(at)->op != GGML_OP_DIV || node(at)->src[1] != node(at - 1) ||
            node(at)->src[0] != node(at - 3)) {
            a.norm = false;
            return true;
        }
        ++at;
        if (at >= n || node(at)->op != GGML_OP_RESHAPE || node(at)->src[0] != node(at - 1)) {
            a.norm = false;
            return true;
        }
        ++at;
    }
    a.scale = at < n && node(at)->op == GGML_OP_SCALE && node(at)->src[0] == node(at - 1);
    return true;
}

// ggml_cuda_should_use_topk_moe: an expert count the kernel is built for, packed tensors, a plain
// softmax (no scale, bias, mask or sinks).
bool topkMoeKernelOk(const ggml_tensor *gating, const ggml_tensor *logits, const ggml_tensor *weights,
                     const ggml_tensor *ids)
{
    const int64_t experts = ids->nb[0] ? int64_t(ids->nb[1] / ids->nb[0]) : 0;
    if (((experts & (experts - 1)) != 0 || experts > 512) && experts != 288 && experts != 576)
        return false;
    if (!contiguous(weights) || !contiguous(logits))
        return false;
    if (gating->op == GGML_OP_SOFT_MAX)
        return gating->src[0] && contiguous(gating->src[0]) && paramF32(gating, 0) == 1.0f &&
            paramF32(gating, 1) == 0.0f && !gating->src[1] && !gating->src[2];
    return gating->op != GGML_OP_UNARY || unaryIs(gating, GGML_UNARY_OP_SIGMOID) ||
        unaryIs(gating, GGML_UNARY_OP_SOFTPLUS);
}

// The routing fused: its length, and the experts chosen (an inner output) as an offset.
size_t topkMoe(const Graph &g, size_t i, int &ids)
{
    const ggml_tensor *node = g.node(i);
    if (node->op != GGML_OP_UNARY && node->op != GGML_OP_SOFT_MAX && node->op != GGML_OP_ARGSORT)
        return 0;
    TopkMoe a;
    if (!topkMoeShape(g, i, a) || !node->src[0])
        return 0;
    constexpr int64_t kRowsPerBlock = 8; // TOPK_MOE_ROWS_PER_BLOCK: one block reads its logits whole first
    const ggml_tensor *logits = node->src[0], *mayAlias = rows(node) <= kRowsPerBlock ? logits : nullptr;
    std::vector<ggml_op> ops;
    int idsAt = 0;
    const ggml_tensor *gating = node;
    if (!a.delayed) {
        ops = a.sigmoid      ? std::vector<ggml_op>{GGML_OP_UNARY}
            : a.sqrtSoftplus ? std::vector<ggml_op>{GGML_OP_UNARY, GGML_OP_SQRT}
                             : std::vector<ggml_op>{GGML_OP_SOFT_MAX};
        const int probsAt = int(ops.size()) - 1;
        if (a.bias)
            ops.insert(ops.end(), {GGML_OP_RESHAPE, GGML_OP_ADD, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS});
        else
            ops.insert(ops.end(), {GGML_OP_RESHAPE, GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS});
        idsAt = probsAt + (a.bias ? 4 : 3);
        if (a.norm)
            ops.insert(ops.end(), {GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE});
        if (a.scale)
            ops.push_back(GGML_OP_SCALE);
    } else if (!a.norm && !a.bias) { // gpt-oss: the softmax over the chosen experts' logits
        ops = {GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE, GGML_OP_SOFT_MAX, GGML_OP_RESHAPE};
        idsAt = 1;
        if (i + 4 < g.size())
            gating = g.node(i + 4);
    } else {
        return 0;
    }
    const size_t n = ops.size();
    if (!subgraphFits(g, i, ops, {idsAt, int(n - 1)}, mayAlias) ||
        !topkMoeKernelOk(gating, logits, g.node(i + n - 1), g.node(i + size_t(idsAt))))
        return 0;
    ids = idsAt;
    return n;
}

// ggml_cuda_should_fuse_rope_set_rows: the rotated rows flattened one per index into a float
// cache, normal or NeoX rotation.
bool ropeSetRowsOk(const ggml_tensor *rope, const ggml_tensor *view, const ggml_tensor *setRows)
{
    if (rope->op != GGML_OP_ROPE || view->op != GGML_OP_VIEW || setRows->op != GGML_OP_SET_ROWS)
        return false;
    if (!rope->src[0] || rope->src[0]->ne[3] != 1 || !f32or16(setRows) || !setRows->src[1] ||
        setRows->src[1]->type != GGML_TYPE_I64)
        return false;
    if (!contiguous(view) || view->ne[0] != rope->ne[0] * rope->ne[1])
        return false;
    const int mode = paramI32(rope, 2);
    return mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX;
}

// ggml_cuda_should_fuse_rms_norm_mul_rope: float32 throughout, the rotation of the product, the
// norm's shape, rows contiguous, an even rotation, no position offset.
bool rmsNormMulRopeOk(const ggml_tensor *rms, const ggml_tensor *mul, const ggml_tensor *rope)
{
    if (!f32(rms->src[0]) || !f32(rms) || !f32(mul->src[0]) || !f32(mul->src[1]) || !f32(mul) || !f32(rope))
        return false;
    if (rope->src[0] != mul || (rms == mul->src[1] && !sameShape(mul->src[0], rms)) || !sameShape(rms, mul))
        return false;
    if (!contiguousRows(rms->src[0]) || !contiguousRows(mul->src[0]) || !contiguousRows(mul->src[1]))
        return false;
    const int mode = paramI32(rope, 2);
    if (mode != GGML_ROPE_TYPE_NORMAL && mode != GGML_ROPE_TYPE_NEOX)
        return false;
    return paramI32(rope, 1) % 2 == 0 && rope->src[0]->ne[0] % 2 == 0 && paramI32(rope, 15) == 0;
}

// ggml_cuda_can_fuse's RMS_NORM+MUL(+ADD): float32, a broadcast only of the weight, rows
// contiguous, the residual packed.
bool rmsNormMulOk(const ggml_tensor *rms, const ggml_tensor *mul, const ggml_tensor *add)
{
    if (!f32(rms) || !f32(rms->src[0]) || !f32(mul->src[0]) || !f32(mul->src[1]) || !f32(mul))
        return false;
    if (add && (!f32(add->src[0]) || !f32(add->src[1]) || !f32(add)))
        return false;
    if (rms == mul->src[1] && !sameShape(mul->src[0], rms))
        return false;
    if (!contiguousRows(mul->src[0]) || !contiguousRows(mul->src[1]))
        return false;
    return !add || (contiguous(add->src[0]) && contiguousRows(add->src[1]));
}

// The matrix-vector kernels a product fuses into: quantized weights (MMVQ) or float ones
// (MMVF), for one token (ggml_cuda_should_fuse_mul_mat_vec_q and _f). The batch limits that
// depend on the architecture are taken at their largest.
bool mmvq(const ggml_tensor *mm)
{
    constexpr int64_t kMaxBatch = 8; // MMVQ_MAX_BATCH_SIZE
    const ggml_tensor *w = mm->src[0], *x = mm->src[1];
    if (!w || !x || !quantized(w->type) || !f32(x) || !f32(mm) || x->ne[1] > kMaxBatch)
        return false;
    return mm->op == GGML_OP_MUL_MAT ? mm->ne[1] == 1 : mm->ne[2] <= kMaxBatch;
}

bool mmvf(const ggml_tensor *mm)
{
    const ggml_tensor *w = mm->src[0], *x = mm->src[1];
    if (!w || !x || !f32(x) || !f32(mm))
        return false;
    size_t ts = 0;
    if (w->type == GGML_TYPE_F32)
        ts = 4;
    else if (w->type == GGML_TYPE_F16 || w->type == GGML_TYPE_BF16)
        ts = 2;
    if (ts == 0 || w->ne[0] % 2 != 0 || w->nb[0] != ts)
        return false;
    // NVIDIA cards with float16 (Volta on) or bfloat16 (Ampere on) matrix units take a batch of
    // many large matrices (the experts') to the matrix-matrix kernels: taken as such a card.
    if (ts == 2 && w->ne[1] > 512 && w->ne[2] * w->ne[3] != 1)
        return false;
    for (int d = 1; d < GGML_MAX_DIMS; ++d)
        if (w->nb[d] % (2 * ts) != 0)
            return false;
    return mm->op == GGML_OP_MUL_MAT ? mm->ne[1] == 1 : mm->ne[2] == 1;
}

// ggml_cuda_should_fuse_mul_mat: the gate's and the up product's results (through their scales
// and biases, when there are) feed the GLU as its gate and value; the same weights' layout, the
// same input (and expert ids); a GLU the kernel has, not swapped.
bool gluOfProductsOk(const ggml_tensor *up, const ggml_tensor *gate, const ggml_tensor *glu,
                     const ggml_tensor *upBias = nullptr, const ggml_tensor *gateBias = nullptr,
                     const ggml_tensor *upScale = nullptr, const ggml_tensor *gateScale = nullptr)
{
    const bool bias = upBias || gateBias, scale = upScale || gateScale;
    if ((bias && (!upBias || !gateBias)) || (scale && (!upScale || !gateScale)))
        return false;
    const bool mm = up->op == GGML_OP_MUL_MAT && gate->op == GGML_OP_MUL_MAT && glu->op == GGML_OP_GLU;
    const bool mmid = up->op == GGML_OP_MUL_MAT_ID && gate->op == GGML_OP_MUL_MAT_ID && glu->op == GGML_OP_GLU;
    if (!mm && !mmid)
        return false;
    const ggml_tensor *upBiasSrc = scale ? upScale : up, *gateBiasSrc = scale ? gateScale : gate;
    if (glu->src[0] != (bias ? gateBias : gateBiasSrc) || glu->src[1] != (bias ? upBias : upBiasSrc))
        return false;
    auto reads = [](const ggml_tensor *op, const ggml_tensor *t) { return op->src[0] == t || op->src[1] == t; };
    if (scale &&
        (upScale->op != GGML_OP_MUL || gateScale->op != GGML_OP_MUL || !reads(upScale, up) || !reads(gateScale, gate)))
        return false;
    if (bias) {
        const ggml_op biasOp = mm ? GGML_OP_ADD : GGML_OP_ADD_ID;
        if (upBias->op != biasOp || gateBias->op != biasOp)
            return false;
        if (mm && (!reads(upBias, upBiasSrc) || !reads(gateBias, gateBiasSrc)))
            return false;
        if (mmid &&
            (upBias->src[0] != upBiasSrc || gateBias->src[0] != gateBiasSrc || upBias->src[2] != up->src[2] ||
             gateBias->src[2] != gate->src[2]))
            return false;
    }
    if (!up->src[0] || !gate->src[0] || !sameLayout(up->src[0], gate->src[0]) || up->src[1] != gate->src[1])
        return false;
    if (mmid && up->src[2] != gate->src[2])
        return false;
    const int op = paramI32(glu, 0);
    if (op != GGML_GLU_OP_SWIGLU && op != GGML_GLU_OP_GEGLU && op != GGML_GLU_OP_SWIGLU_OAI &&
        op != GGML_GLU_OP_SWIGLU_CLAMP)
        return false;
    return paramI32(glu, 1) == 0; // not swapped
}

// An NVFP4 product's scale: one float32 number times the product (get_mul_mat_scale), or for
// the experts one number an expert gathered by their ids (get_mul_mat_id_scale).
bool nvfp4Scale(const ggml_tensor *scaleNode, const ggml_tensor *mm)
{
    if (scaleNode->src[0] != mm && scaleNode->src[1] != mm)
        return false;
    const ggml_tensor *scale = otherSource(scaleNode, mm);
    return mm->src[0]->type == GGML_TYPE_NVFP4 && f32(scaleNode) && f32(scale) && contiguous(scale) &&
        elements(scale) == 1 && sameShape(scaleNode, mm);
}

bool nvfp4ExpertScale(const Graph &g, size_t mmAt, const ggml_tensor *scaleNode)
{
    const ggml_tensor *mm = g.node(mmAt), *reshape = g.node(mmAt + 1), *repeat = g.node(mmAt + 2),
                      *rows = g.node(mmAt + 3);
    if (repeat->src[0] != reshape || rows->src[0] != repeat || rows->src[1] != mm->src[2])
        return false;
    if (!((scaleNode->src[0] == mm && scaleNode->src[1] == rows) ||
          (scaleNode->src[0] == rows && scaleNode->src[1] == mm)))
        return false;
    const ggml_tensor *scale = reshape->src[0];
    return scale && mm->src[0]->type == GGML_TYPE_NVFP4 && f32(scaleNode) && f32(scale) && contiguous(scale) &&
        elements(scale) == mm->src[0]->ne[2] && sameShape(scaleNode, mm);
}

// get_bias_tensor: the bias a bias op adds to the product (or its scale).
const ggml_tensor *biasOf(const ggml_tensor *biasNode, const ggml_tensor *of, ggml_op biasOp)
{
    if (biasOp == GGML_OP_ADD)
        return biasNode->src[0] == of ? biasNode->src[1] : biasNode->src[1] == of ? biasNode->src[0] : nullptr;
    return biasNode->src[0] == of ? biasNode->src[1] : nullptr;
}

// The gate and up products with NVFP4 scales (and biases) and their GLU, on MMVQ.
size_t scaledGlu(const Graph &g, size_t i, ggml_op op)
{
    const bool id = op == GGML_OP_MUL_MAT_ID;
    for (const bool withBias : {false, true}) {
        const std::vector<ggml_op> lane = scaledProductOps(op, withBias);
        const size_t laneLen = lane.size(), n = 2 * laneLen + 1, scaleOff = id ? 4 : 1;
        std::vector<ggml_op> ops = lane; // the gate's lane, the up's, their GLU
        ops.insert(ops.end(), lane.begin(), lane.end());
        ops.push_back(GGML_OP_GLU);
        if (!subgraphFits(g, i, ops, {int(n - 1)}))
            continue;
        const size_t gateAt = i, upAt = i + laneLen;
        const ggml_tensor *gate = g.node(gateAt), *up = g.node(upAt), *glu = g.node(i + n - 1);
        const ggml_tensor *gateScale = g.node(gateAt + scaleOff), *upScale = g.node(upAt + scaleOff);
        const ggml_tensor *gateOut = withBias ? g.node(gateAt + scaleOff + 1) : gateScale;
        const ggml_tensor *upOut = withBias ? g.node(upAt + scaleOff + 1) : upScale;
        if (!gluOfProductsOk(up, gate, glu, withBias ? upOut : nullptr, withBias ? gateOut : nullptr, upScale,
                             gateScale))
            continue;
        const bool scales = id ? nvfp4ExpertScale(g, gateAt, gateScale) && nvfp4ExpertScale(g, upAt, upScale)
                               : nvfp4Scale(gateScale, gate) && nvfp4Scale(upScale, up);
        if (!scales)
            continue;
        if (withBias && !id &&
            (!sameShape(gateOut->src[0], gateOut->src[1]) || !sameShape(upOut->src[0], upOut->src[1])))
            continue;
        if (mmvq(up))
            return n;
    }
    return 0;
}

// The gate and up products (with their biases) and their GLU, on MMVF or MMVQ.
size_t productsGlu(const Graph &g, size_t i, ggml_op op)
{
    const ggml_op biasOp = op == GGML_OP_MUL_MAT ? GGML_OP_ADD : GGML_OP_ADD_ID;
    if (subgraphFits(g, i, {op, biasOp, op, biasOp, GGML_OP_GLU}, {4}) &&
        gluOfProductsOk(g.node(i + 2), g.node(i), g.node(i + 4), g.node(i + 3), g.node(i + 1))) {
        const ggml_tensor *glu = g.node(i + 4), *gateBias = glu->src[0], *upBias = glu->src[1];
        const ggml_tensor *gate = nullptr, *up = nullptr;
        if (gateBias->src[0] == g.node(i) || gateBias->src[1] == g.node(i)) {
            gate = g.node(i);
            up = g.node(i + 2);
        } else if (gateBias->src[0] == g.node(i + 2) || gateBias->src[1] == g.node(i + 2)) {
            gate = g.node(i + 2);
            up = g.node(i);
        } else {
            return 0;
        }
        if (!biasOf(upBias, up, biasOp) || !biasOf(gateBias, gate, biasOp))
            return 0;
        if (biasOp == GGML_OP_ADD &&
            (!sameShape(gateBias->src[0], gateBias->src[1]) || !sameShape(upBias->src[0], upBias->src[1])))
            return 0;
        return mmvf(up) || mmvq(up) ? 5 : 0;
    }
    if (subgraphFits(g, i, {op, op, GGML_OP_GLU}, {2}) && gluOfProductsOk(g.node(i + 1), g.node(i), g.node(i + 2))) {
        const ggml_tensor *glu = g.node(i + 2), *gate = glu->src[0], *up = glu->src[1];
        if (!((gate == g.node(i) && up == g.node(i + 1)) || (gate == g.node(i + 1) && up == g.node(i))))
            return 0;
        return mmvf(up) || mmvq(up) ? 3 : 0;
    }
    return 0;
}

// A product with its NVFP4 scale (and bias), on MMVQ.
size_t scaledProduct(const Graph &g, size_t i, ggml_op op)
{
    const ggml_op biasOp = op == GGML_OP_MUL_MAT ? GGML_OP_ADD : GGML_OP_ADD_ID;
    const bool id = op == GGML_OP_MUL_MAT_ID;
    for (const bool withBias : {false, true}) {
        const std::vector<ggml_op> ops = scaledProductOps(op, withBias);
        const size_t n = ops.size();
        if (!subgraphFits(g, i, ops, {int(n - 1)}))
            continue;
        const ggml_tensor *mm = g.node(i), *scaleNode = g.node(i + (id ? 4 : 1));
        const ggml_tensor *outNode = withBias ? g.node(i + n - 1) : scaleNode;
        if (!(id ? nvfp4ExpertScale(g, i, scaleNode) : nvfp4Scale(scaleNode, mm)))
            continue;
        if (withBias && !biasOf(outNode, scaleNode, biasOp))
            continue;
        if (withBias && !id && !sameShape(outNode->src[0], outNode->src[1]))
            continue;
        if (withBias && id && outNode->src[2] != mm->src[2])
            continue;
        if (mmvq(mm))
            return n;
    }
    return 0;
}

// A product and its bias (the experts' by their ids), on MMVF or MMVQ.
size_t productBias(const Graph &g, size_t i, ggml_op op)
{
    const ggml_op biasOp = op == GGML_OP_MUL_MAT ? GGML_OP_ADD : GGML_OP_ADD_ID;
    if (!canFuse(g, i, {op, biasOp}))
        return 0;
    const ggml_tensor *mm = g.node(i), *bias = g.node(i + 1);
    if (!biasOf(bias, mm, biasOp))
        return 0;
    if (biasOp == GGML_OP_ADD_ID && bias->src[2] != mm->src[2])
        return 0;
    if (biasOp == GGML_OP_ADD && !sameShape(bias->src[0], bias->src[1]))
        return 0;
    return mmvf(mm) || mmvq(mm) ? 2 : 0;
}

// Runs of ADDs or of MULs, each adding to the last one's result a tensor of the first one's
// layout (at most 8).
size_t multiOp(const Graph &g, size_t i)
{
    const ggml_op op = g.node(i)->op;
    if (op != GGML_OP_ADD && op != GGML_OP_MUL)
        return 0;
    const ggml_op pair[2] = {op, op};
    size_t n = 0;
    for (; n <= 6; ++n) {
        if (!canFuse(g, i + n, pair, 2) || g.node(i + n) != g.node(i + n + 1)->src[0] ||
            !sameLayout(g.node(i + n)->src[1], g.node(i + n + 1)->src[1]))
            break;
    }
    ++n;
    return n > 1 ? n : 0;
}

// The snake activation, y = x + sin(a x)^2 / b, as one kernel when its operands fit it.
size_t snake(const Graph &g, size_t i)
{
    return i + 5 <= g.size() &&
            canFuseSubgraph(g, i, {GGML_OP_MUL, GGML_OP_SIN, GGML_OP_SQR, GGML_OP_MUL, GGML_OP_ADD}, {4}) &&
            snakeOperandsOk(g, i)
        ? 5
        : 0;
}

size_t rmsNormChain(const Graph &g, size_t i)
{
    const ggml_tensor *rms = g.node(i);
    if (rms->op != GGML_OP_RMS_NORM)
        return 0;
    if (subgraphFits(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ROPE, GGML_OP_VIEW, GGML_OP_SET_ROWS}, {4}) &&
        edgesAre(g, i, {{1, 0, 0}, {2, 0, 1}, {3, 0, 2}, {4, 0, 3}}) &&
        rmsNormMulRopeOk(rms, g.node(i + 1), g.node(i + 2)) &&
        ropeSetRowsOk(g.node(i + 2), g.node(i + 3), g.node(i + 4)))
        return 5;
    if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ROPE}) &&
        rmsNormMulRopeOk(rms, g.node(i + 1), g.node(i + 2)) && memoryOk(g, i, 3, {2}))
        return 3;
    if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL, GGML_OP_ADD}) && rmsNormMulOk(rms, g.node(i + 1), g.node(i + 2)))
        return 3;
    if (canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL}) && rmsNormMulOk(rms, g.node(i + 1), nullptr))
        return 2;
    return 0;
}

size_t unaryChain(const Graph &g, size_t i)
{
    const ggml_tensor *u = g.node(i);
    if (canFuse(g, i, {GGML_OP_UNARY, GGML_OP_MUL}) &&
        (unaryIs(u, GGML_UNARY_OP_SILU) || unaryIs(u, GGML_UNARY_OP_SIGMOID) || unaryIs(u, GGML_UNARY_OP_SOFTPLUS))) {
        const ggml_tensor *mul = g.node(i + 1), *other = otherSource(mul, u);
        if (f32or16(u) && u->type == mul->type && other && other->type == u->type && contiguous1(other) && u->src[0] &&
            contiguous1(u->src[0]) && sameShape(other, u))
            return 2;
    }
    if (canFuse(g, i, {GGML_OP_UNARY, GGML_OP_SQR}) && unaryIs(u, GGML_UNARY_OP_RELU) && f32or16(u) &&
        u->type == g.node(i + 1)->type && u->src[0] && contiguous(u->src[0]))
        return 2;
    return 0;
}

// The softcap: scale, tanh, scale, neither scale with a bias.
size_t softcap(const Graph &g, size_t i)
{
    if (!canFuse(g, i, {GGML_OP_SCALE, GGML_OP_UNARY, GGML_OP_SCALE}) || !unaryIs(g.node(i + 1), GGML_UNARY_OP_TANH))
        return 0;
    return paramF32(g.node(i), 1) == 0.0f && paramF32(g.node(i + 2), 1) == 0.0f ? 3 : 0;
}

// The chain's length at node i (0: none), and an inner output's offset when it has one.
size_t lengthAt(const Graph &g, size_t i, int &output)
{
    const ggml_tensor *node = g.node(i);
    if (viewOrNoop(node) || !(node->flags & GGML_TENSOR_FLAG_COMPUTE))
        return 0;
    if (const size_t n = moeWeightedSum(g, i))
        return n;
    if (const size_t n = topkMoe(g, i, output))
        return n;
    if (node->op == GGML_OP_ROPE && subgraphFits(g, i, {GGML_OP_ROPE, GGML_OP_VIEW, GGML_OP_SET_ROWS}, {2}) &&
        ropeSetRowsOk(node, g.node(i + 1), g.node(i + 2)))
        return 3;
    if (const size_t n = snake(g, i))
        return n;
    if (const size_t n = multiOp(g, i))
        return n;
    for (const ggml_op op : {GGML_OP_MUL_MAT, GGML_OP_MUL_MAT_ID}) {
        if (const size_t n = scaledGlu(g, i, op))
            return n;
        if (const size_t n = productsGlu(g, i, op))
            return n;
    }
    for (const ggml_op op : {GGML_OP_MUL_MAT, GGML_OP_MUL_MAT_ID})
        if (const size_t n = scaledProduct(g, i, op))
            return n;
    for (const ggml_op op : {GGML_OP_MUL_MAT, GGML_OP_MUL_MAT_ID})
        if (const size_t n = productBias(g, i, op))
            return n;
    if (const size_t n = rmsNormChain(g, i))
        return n;
    if (const size_t n = ssmConvSilu(g, i))
        return n;
    if (const size_t n = unaryChain(g, i))
        return n;
    return softcap(g, i);
}

} // namespace

std::optional<FusedChain> cudaChainAt(const fusion::Graph &g, size_t i)
{
    int output = -1;
    const size_t n = lengthAt(g, i, output);
    if (n < 2)
        return std::nullopt;
    std::string types;
    for (size_t k = 0; k < n; ++k)
        types += (k ? "+" : "") + g.topo.nodes[i + k].type;
    FusedChain c{.first = int(i), .last = int(i + n - 1), .types = types};
    if (output >= 0)
        c.outputs.push_back(int(i) + output);
    return c;
}

} // namespace llmscope::probe
