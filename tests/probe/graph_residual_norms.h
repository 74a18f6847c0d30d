// A stack of residual sums, each normed as llama.cpp's layers norm the residual stream
// (build_norm after each ffn_inp/l_out ADD): h_k = x_k + h_{k-1}, then RMS_NORM(h_k) * w. The
// ADD is followed by its norm, which on Vulkan takes the ADD's partial sums of squares
// (fusion_rules.h's CarriedResult). The last sum is read by its norm only, so ggml's allocator
// computes that norm in place over it, as over a model's last residual before its output norm.
#pragma once
#include <vector>

#include <ggml.h>

struct ResidualNorms {
    std::vector<ggml_tensor *> adds, norms, muls; // one per block
};

inline ResidualNorms residualNorms(ggml_context *c, int blocks, int width, int tokens)
{
    ResidualNorms r;
    ggml_tensor *w = ggml_new_tensor_1d(c, GGML_TYPE_F32, width);
    ggml_set_name(w, "norm_w");
    ggml_set_input(w);
    ggml_tensor *h = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, tokens);
    ggml_set_input(h);
    for (int k = 0; k < blocks; ++k) {
        ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, tokens);
        ggml_set_input(x);
        h = ggml_add(c, x, h);
        ggml_format_name(h, "l_out-%d", k);
        ggml_tensor *n = ggml_rms_norm(c, h, 1e-5f);
        ggml_format_name(n, "norm-%d", k);
        ggml_tensor *m = ggml_mul(c, n, w);
        ggml_format_name(m, "attn_norm-%d", k);
        ggml_set_output(m);
        r.adds.push_back(h);
        r.norms.push_back(n);
        r.muls.push_back(m);
    }
    return r;
}

inline ggml_cgraph *residualNormsGraph(ggml_context *c, const ResidualNorms &r)
{
    ggml_cgraph *gf = ggml_new_graph(c);
    for (ggml_tensor *m : r.muls)
        ggml_build_forward_expand(gf, m);
    return gf;
}
