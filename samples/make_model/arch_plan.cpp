#include "arch_plan.h"

#include <functional>
#include <map>
#include <stdexcept>

#include "model_writer.h"

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

// llama, qwen2 (q, k and v biases), qwen3 (per-head q and k norms before RoPE) and qwen3moe
// (qwen3 with routed experts): the same skeleton with their differences.
void llamaLike(Builder &b, int vocab, bool biases, bool qkNorm, bool moe)
{
    const int64_t expertFf = b.s.expertFf;
    b.common(moe ? expertFf : b.s.ff);
    b.rmsEps();
    if (moe) {
        if (b.s.experts < 2 || b.s.expertsUsed < 1 || b.s.expertsUsed > b.s.experts)
            throw std::runtime_error("--experts must be at least 2 and --experts-used between 1 and --experts");
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

const std::map<std::string, std::function<void(Builder &, int)>> &families()
{
    static const std::map<std::string, std::function<void(Builder &, int)>> f{
        {"llama", [](Builder &b, int v) { llamaLike(b, v, false, false, false); }},
        {"qwen2", [](Builder &b, int v) { llamaLike(b, v, true, false, false); }},
        {"qwen3", [](Builder &b, int v) { llamaLike(b, v, false, true, false); }},
        {"qwen3moe", [](Builder &b, int v) { llamaLike(b, v, false, true, true); }},
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
