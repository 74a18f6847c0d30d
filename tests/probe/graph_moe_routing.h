// A mixture of experts' routing as llama.cpp builds it (build_moe_ffn): the gate's logits to
// probabilities, the experts chosen (ARGSORT's top-k VIEW: the ids), their weights gathered and,
// when asked, normalized and scaled. What ggml's device backends compute in one kernel
// (TOPK_MOE), a chain with two outputs: the ids and the weights.
#pragma once
#include <cmath>
#include <string>

#include <ggml.h>

#include "probe/fusion_rules.h"
#include "probe/graph_topology.h"
#include "tests/probe/graph_arena.h"

enum class Gating { Softmax, Sigmoid, SoftmaxWithMask };
struct MoeRouting {
    ggml_tensor *logits = nullptr, *ids = nullptr, *weights = nullptr;
};

// computedLogits: the logits a node before the routing (the router's product), not an input.
inline MoeRouting moeRouting(ggml_context *c, int experts, int used, int tokens, Gating gating, bool normalize,
                             float scale = 1.0f, bool computedLogits = false)
{
    MoeRouting r;
    r.logits = ggml_new_tensor_2d(c, GGML_TYPE_F32, experts, tokens);
    ggml_set_input(r.logits);
    if (computedLogits)
        r.logits = ggml_scale(c, r.logits, 1.0f);
    ggml_tensor *probs = nullptr, *selection = nullptr;
    if (gating == Gating::Sigmoid) { // DeepSeek V3: a selection bias, the weights unbiased
        probs = ggml_sigmoid(c, r.logits);
        selection = ggml_add(c, probs, ggml_new_tensor_1d(c, GGML_TYPE_F32, experts));
    } else if (gating == Gating::SoftmaxWithMask) {
        probs = ggml_soft_max_ext(c, r.logits, nullptr, 0.5f, 0.0f); // scaled: not the kernel's
        selection = probs;
    } else {
        probs = ggml_soft_max(c, r.logits);
        selection = probs;
    }
    r.ids = ggml_argsort_top_k(c, selection, used);
    ggml_set_name(r.ids, "ffn_moe_topk-0");
    ggml_tensor *w = ggml_get_rows(c, ggml_reshape_3d(c, probs, 1, experts, tokens), r.ids);
    if (normalize) {
        w = ggml_reshape_2d(c, w, used, tokens);
        ggml_tensor *sum = ggml_clamp(c, ggml_sum_rows(c, w), 6.103515625e-5f, INFINITY);
        w = ggml_reshape_3d(c, ggml_div(c, w, sum), 1, used, tokens);
    }
    if (scale != 1.0f)
        w = ggml_scale(c, w, scale);
    ggml_set_name(w, "ffn_moe_weights-0");
    r.weights = w;
    return r;
}

// The experts' products as the MoE layer reads both outputs: the chosen experts' products times
// their weights.
inline ggml_tensor *expertsWeighted(ggml_context *c, const MoeRouting &r, int experts)
{
    ggml_tensor *act = ggml_new_tensor_3d(c, GGML_TYPE_F32, 32, 1, 1);
    ggml_tensor *w = ggml_new_tensor_3d(c, GGML_TYPE_Q8_0, 32, 16, experts);
    ggml_tensor *out = ggml_mul(c, ggml_mul_mat_id(c, w, act, r.ids), r.weights);
    ggml_set_output(out);
    return out;
}

// The routings backend b fuses in a graph of one routing over `tokens` with computed logits,
// placed in one buffer; moved: its experts chosen (the ARGSORT and its VIEW) placed over the
// logits' bytes, which its gating reads, a result over a source still read.
inline int routingsFused(llmscope::probe::FusingBackend b, int tokens, bool moved)
{
    using namespace llmscope::probe;
    ggml_init_params params{48 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *c = ggml_init(params);
    const MoeRouting r = moeRouting(c, 8, 2, tokens, Gating::Softmax, true, 1.0f, true);
    ggml_cgraph *gf = ggml_new_graph(c);
    ggml_build_forward_expand(gf, r.weights);
    placeInOneBuffer(gf);
    if (moved) {
        r.ids->view_src->data = r.logits->data;
        r.ids->data = static_cast<char *>(r.logits->data) + r.ids->view_offs;
    }
    const GraphTopology topo = GraphTopology::build(gf);
    int n = 0;
    for (const FusedChain &f : fusedChains(topo, b))
        n += f.types.find("ARGSORT") != std::string::npos;
    ggml_free(c);
    return n;
}
