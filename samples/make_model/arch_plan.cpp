#include "samples/make_model/arch_plan.h"

#include <functional>
#include <map>
#include <stdexcept>

#include "samples/make_model/model_writer.h"

namespace {

using Init = TensorPlan::Init;

struct Builder {
    const ModelSpec &s;
    ArchPlan p;
    int64_t headDim() const { return s.width / s.heads; }
    int64_t kvDim() const { return headDim() * s.kvHeads; }

    void u32(const std::string &k, int64_t v) { p.meta.push_back({k, uint32_t(v)}); }
    void f32(const std::string &k, double v) { p.meta.push_back({k, float(v)}); }
    void flag(const std::string &k, bool v) { p.meta.push_back({k, v}); }
    void add(const std::string &name, std::vector<int64_t> ne, Init init = Init::Matrix)
    {
        p.tensors.push_back({name, std::move(ne), init});
    }
    // The keys every family here reads, by the names llama.cpp gives them.
    void common(int64_t ff)
    {
        u32("context_length", s.context);
        u32("embedding_length", s.width);
        u32("block_count", s.layers);
        u32("feed_forward_length", ff);
        u32("attention.head_count", s.heads);
        u32("attention.head_count_kv", s.kvHeads);
        u32("rope.dimension_count", headDim());
    }
    void rmsEps() { f32("attention.layer_norm_rms_epsilon", 1e-5); }
    void attention(const std::string &b, bool biases)
    {
        add(b + "attn_q.weight", {s.width, s.width});
        add(b + "attn_k.weight", {s.width, kvDim()});
        add(b + "attn_v.weight", {s.width, kvDim()});
        if (biases) {
            add(b + "attn_q.bias", {s.width}, Init::Small);
            add(b + "attn_k.bias", {kvDim()}, Init::Small);
            add(b + "attn_v.bias", {kvDim()}, Init::Small);
        }
        add(b + "attn_output.weight", {s.width, s.width});
    }
    void denseFfn(const std::string &b)
    {
        add(b + "ffn_gate.weight", {s.width, s.ff});
        add(b + "ffn_up.weight", {s.width, s.ff});
        add(b + "ffn_down.weight", {s.ff, s.width});
    }
    void experts(const std::string &b, int64_t expertFf)
    {
        add(b + "ffn_gate_inp.weight", {s.width, s.experts});
        add(b + "ffn_gate_exps.weight", {s.width, expertFf, s.experts});
        add(b + "ffn_up_exps.weight", {s.width, expertFf, s.experts});
        add(b + "ffn_down_exps.weight", {expertFf, s.width, s.experts});
    }
    void moeKeys(int64_t expertFf)
    {
        u32("expert_count", s.experts);
        u32("expert_used_count", s.expertsUsed);
        u32("expert_feed_forward_length", expertFf);
    }
    void head(int vocab, bool tied = false)
    {
        add("output_norm.weight", {s.width}, Init::Norm);
        if (!tied)
            add("output.weight", {s.width, vocab});
    }
};

void checkExperts(const ModelSpec &s)
{
    if (s.experts < 2 || s.expertsUsed < 1 || s.expertsUsed > s.experts)
        throw std::runtime_error("--experts must be at least 2 and --experts-used between 1 and --experts");
}

// llama, qwen2 (q, k and v biases), qwen3 (per-head q and k norms before RoPE) and qwen3moe
// (qwen3 with routed experts): the same skeleton with their differences.
void llamaLike(Builder &b, int vocab, bool biases, bool qkNorm, bool moe)
{
    const int64_t expertFf = b.s.expertFf;
    b.common(moe ? expertFf : b.s.ff);
    b.rmsEps();
    if (moe) {
        checkExperts(b.s);
        b.moeKeys(expertFf);
    }
    b.add("token_embd.weight", {b.s.width, vocab});
    for (int l = 0; l < b.s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.add(p + "attn_norm.weight", {b.s.width}, Init::Norm);
        b.attention(p, biases);
        if (qkNorm) {
            b.add(p + "attn_q_norm.weight", {b.headDim()}, Init::Norm);
            b.add(p + "attn_k_norm.weight", {b.headDim()}, Init::Norm);
        }
        b.add(p + "ffn_norm.weight", {b.s.width}, Init::Norm);
        if (moe)
            b.experts(p, expertFf);
        else
            b.denseFfn(p);
    }
    b.head(vocab);
}

// gemma3: per-head q and k norms, norms after attention and after the FFN, GEGLU, the
// embedding scaled by sqrt(width); layer 0 attends through a sliding window of 8, layer 1 to
// everything (pattern 2), and the output shares the embedding's matrix.
void gemma3(Builder &b, int vocab)
{
    b.common(b.s.ff);
    b.rmsEps();
    b.u32("attention.key_length", b.headDim());
    b.u32("attention.value_length", b.headDim());
    b.u32("attention.sliding_window", 8);
    b.u32("attention.sliding_window_pattern", 2);
    b.add("token_embd.weight", {b.s.width, vocab});
    for (int l = 0; l < b.s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.add(p + "attn_norm.weight", {b.s.width}, Init::Norm);
        b.attention(p, false);
        b.add(p + "attn_q_norm.weight", {b.headDim()}, Init::Norm);
        b.add(p + "attn_k_norm.weight", {b.headDim()}, Init::Norm);
        b.add(p + "post_attention_norm.weight", {b.s.width}, Init::Norm);
        b.add(p + "ffn_norm.weight", {b.s.width}, Init::Norm);
        b.denseFfn(p);
        b.add(p + "post_ffw_norm.weight", {b.s.width}, Init::Norm);
    }
    b.head(vocab, true);
}

// phi3: q, k and v in one product, and the FFN's gate and up in one (the gate its first half).
void phi3(Builder &b, int vocab)
{
    b.common(b.s.ff);
    b.rmsEps();
    b.add("token_embd.weight", {b.s.width, vocab});
    for (int l = 0; l < b.s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.add(p + "attn_norm.weight", {b.s.width}, Init::Norm);
        b.add(p + "attn_qkv.weight", {b.s.width, b.s.width + 2 * b.kvDim()});
        b.add(p + "attn_output.weight", {b.s.width, b.s.width});
        b.add(p + "ffn_norm.weight", {b.s.width}, Init::Norm);
        b.add(p + "ffn_up.weight", {b.s.width, 2 * int64_t(b.s.ff)});
        b.add(p + "ffn_down.weight", {b.s.ff, b.s.width});
    }
    b.head(vocab);
}

// gpt-oss (llama.cpp's openai-moe): attention sinks, biases on q, k, v, the output and every
// expert (added by ADD_ID), the router's top k softmaxed, SWIGLU_OAI; even layers attend
// through a sliding window of 8.
void gptOss(Builder &b, int vocab)
{
    checkExperts(b.s);
    const int64_t ffe = b.s.expertFf;
    b.common(b.s.ff);
    b.rmsEps();
    b.u32("attention.key_length", b.headDim());
    b.u32("attention.value_length", b.headDim());
    b.u32("attention.sliding_window", 8);
    b.moeKeys(ffe);
    b.add("token_embd.weight", {b.s.width, vocab});
    for (int l = 0; l < b.s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.add(p + "attn_norm.weight", {b.s.width}, Init::Norm);
        b.attention(p, true);
        b.add(p + "attn_output.bias", {b.s.width}, Init::Small);
        b.add(p + "attn_sinks.weight", {b.s.heads}, Init::Small);
        b.add(p + "post_attention_norm.weight", {b.s.width}, Init::Norm);
        b.experts(p, ffe);
        b.add(p + "ffn_gate_inp.bias", {b.s.experts}, Init::Small);
        b.add(p + "ffn_gate_exps.bias", {ffe, b.s.experts}, Init::Small);
        b.add(p + "ffn_up_exps.bias", {ffe, b.s.experts}, Init::Small);
        b.add(p + "ffn_down_exps.bias", {b.s.width, b.s.experts}, Init::Small);
    }
    b.head(vocab);
}

// deepseek2 with multi-head latent attention (low-rank q, k and v through a cache of one latent
// row a token: rank 64 plus 16 rotated dimensions), layer 0 dense, the others routed by
// sigmoid with a selection bias, normalized and scaled, beside one shared expert.
void deepseek2(Builder &b, int vocab)
{
    checkExperts(b.s);
    const int64_t qRank = 64, kvRank = 64, rope = 16, nope = 32, vHead = 32, ffe = b.s.expertFf;
    const int64_t h = b.s.heads;
    b.u32("context_length", b.s.context);
    b.u32("embedding_length", b.s.width);
    b.u32("block_count", b.s.layers);
    b.u32("feed_forward_length", b.s.ff);
    b.u32("attention.head_count", h);
    b.u32("attention.head_count_kv", 1);
    b.rmsEps();
    b.u32("attention.q_lora_rank", qRank);
    b.u32("attention.kv_lora_rank", kvRank);
    b.u32("attention.key_length", kvRank + rope);
    b.u32("attention.value_length", kvRank);
    b.u32("attention.key_length_mla", nope + rope);
    b.u32("attention.value_length_mla", vHead);
    b.u32("rope.dimension_count", rope);
    b.moeKeys(ffe);
    b.u32("expert_shared_count", 1);
    b.u32("leading_dense_block_count", 1);
    b.f32("expert_weights_scale", 2.5);
    b.flag("expert_weights_norm", true);
    b.u32("expert_gating_func", 2); // sigmoid
    b.add("token_embd.weight", {b.s.width, vocab});
    for (int l = 0; l < b.s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.add(p + "attn_norm.weight", {b.s.width}, Init::Norm);
        b.add(p + "attn_q_a.weight", {b.s.width, qRank});
        b.add(p + "attn_q_a_norm.weight", {qRank}, Init::Norm);
        b.add(p + "attn_q_b.weight", {qRank, h * (nope + rope)});
        b.add(p + "attn_kv_a_mqa.weight", {b.s.width, kvRank + rope});
        b.add(p + "attn_kv_a_norm.weight", {kvRank}, Init::Norm);
        b.add(p + "attn_k_b.weight", {nope, kvRank, h});
        b.add(p + "attn_v_b.weight", {kvRank, vHead, h});
        b.add(p + "attn_output.weight", {h * vHead, b.s.width});
        b.add(p + "ffn_norm.weight", {b.s.width}, Init::Norm);
        if (l == 0) {
            b.denseFfn(p);
            continue;
        }
        b.experts(p, ffe);
        b.add(p + "exp_probs_b.bias", {b.s.experts}, Init::Small);
        b.add(p + "ffn_gate_shexp.weight", {b.s.width, ffe});
        b.add(p + "ffn_up_shexp.weight", {b.s.width, ffe});
        b.add(p + "ffn_down_shexp.weight", {ffe, b.s.width});
    }
    b.head(vocab);
}

const std::map<std::string, std::function<void(Builder &, int)>> &families()
{
    static const std::map<std::string, std::function<void(Builder &, int)>> f{
        {"llama", [](Builder &b, int v) { llamaLike(b, v, false, false, false); }},
        {"qwen2", [](Builder &b, int v) { llamaLike(b, v, true, false, false); }},
        {"qwen3", [](Builder &b, int v) { llamaLike(b, v, false, true, false); }},
        {"qwen3moe", [](Builder &b, int v) { llamaLike(b, v, false, true, true); }},
        {"gemma3", gemma3},
        {"phi3", phi3},
        {"gpt-oss", gptOss},
        {"deepseek2", deepseek2},
    };
    return f;
}

} // namespace

std::string archNames()
{
    std::string s;
    for (const auto &[name, _] : families())
        s += (s.empty() ? "" : ", ") + name;
    return s;
}

ArchPlan archPlan(const ModelSpec &spec, int vocab)
{
    const auto it = families().find(spec.arch);
    if (it == families().end())
        throw std::runtime_error("--arch takes " + archNames() + ", not '" + spec.arch + "'");
    Builder b{spec, {}};
    b.p.arch = spec.arch;
    it->second(b, vocab);
    return b.p;
}
