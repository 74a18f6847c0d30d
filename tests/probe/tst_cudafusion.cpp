// The probe's model of what ggml's CUDA backend computes fused (cuda_fusion.cpp), on graphs built
// as llama.cpp builds them: a decoded token's layer with its norms, rotations, cache write, gated
// FFN and residual; a prompt's; an MoE layer's weighted sum of the experts; the softcap; runs of
// sums; SSM_CONV+SILU. And where CUDA's own checks refuse one: a prompt's products, a result over
// a source still being read, weights whose rows the float kernel cannot step through, fusion
// switched off. No CUDA device runs here: the chains are those ggml_cuda_try_fuse's code takes,
// and each multi-output run is also held against ggml's own ggml_can_fuse_subgraph.
#include <QTest>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <ggml.h>
#pragma GCC diagnostic push // ggml's internal header defines helpers this suite does not call
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h" // ggml's own ggml_can_fuse_subgraph, against which the matcher is held
#pragma GCC diagnostic pop

#include "probe/fusion_match.h"
#include "probe/fusion_rules.h"
#include "probe/ggml_api.h"
#include "probe/graph_topology.h"
#include "tests/probe/graph_arena.h"
#include "tests/probe/graph_mamba_snake.h"
#include "tests/probe/graph_moe_routing.h"

using namespace llmscope::probe;

namespace {

struct Graph {
    ggml_context *ctx = nullptr;
    ggml_cgraph *gf = nullptr;
    ggml_tensor *x = nullptr, *ffnIn = nullptr, *glu = nullptr, *out = nullptr;
    explicit Graph(size_t tensors)
    {
        ggml_init_params params{tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(params);
    }
    ~Graph() { ggml_free(ctx); }
    void finish(ggml_tensor *result)
    {
        ggml_set_output(result);
        gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, result);
    }
};

// A Qwen3-like layer: the input norm, the queries' and keys' own norms before their rotation,
// the keys written into the cache, the output product and residual, the FFN's norm, gate and up
// products with SwiGLU, and the down product with the second residual.
std::unique_ptr<Graph> buildLayer(int tokens, ggml_type weights)
{
    auto l = std::make_unique<Graph>(96);
    ggml_context *c = l->ctx;
    constexpr int width = 64, head = 16, heads = 4, kvHeads = 2, ff = 128;
    ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, tokens);
    ggml_tensor *pos = ggml_new_tensor_1d(c, GGML_TYPE_I32, tokens);
    ggml_tensor *idx = ggml_new_tensor_1d(c, GGML_TYPE_I64, tokens);
    for (ggml_tensor *in : {x, pos, idx})
        ggml_set_input(in);
    auto weight = [&](int64_t in, int64_t out) { return ggml_new_tensor_2d(c, weights, in, out); };
    auto normW = [&](int64_t n) { return ggml_new_tensor_1d(c, GGML_TYPE_F32, n); };
    ggml_tensor *cacheK = ggml_new_tensor_2d(c, GGML_TYPE_F16, head * kvHeads, 256);
    ggml_set_name(cacheK, "cache_k_l0");

    ggml_tensor *h = ggml_mul(c, ggml_rms_norm(c, x, 1e-6f), normW(width));
    ggml_set_name(h, "attn_norm-0");
    auto rotated = [&](ggml_tensor *w, int n, const char *name) {
        ggml_tensor *t = ggml_reshape_3d(c, ggml_mul_mat(c, w, h), head, n, tokens);
        t = ggml_mul(c, ggml_rms_norm(c, t, 1e-6f), normW(head));
        t = ggml_rope_ext(c, t, pos, nullptr, head, GGML_ROPE_TYPE_NEOX, 256, 1e6f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        ggml_set_name(t, name);
        return t;
    };
    ggml_tensor *q = rotated(weight(width, head * heads), heads, "Qcur-0");
    ggml_tensor *k = rotated(weight(width, head * kvHeads), kvHeads, "Kcur-0");
    ggml_tensor *write = ggml_set_rows(c, cacheK, ggml_view_2d(c, k, head * kvHeads, tokens, k->nb[2], 0), idx);
    // attention stands in as the queries' rows read after the cache write
    ggml_tensor *attn = ggml_cont(c, ggml_reshape_2d(c, q, head * heads, tokens));
    ggml_tensor *ffnIn = ggml_add(c, ggml_mul_mat(c, weight(head * heads, width), attn), x);
    ggml_set_name(ffnIn, "ffn_inp-0");
    ggml_tensor *f = ggml_mul(c, ggml_rms_norm(c, ffnIn, 1e-6f), normW(width));
    ggml_set_name(f, "ffn_norm-0");
    ggml_tensor *glu =
        ggml_swiglu_split(c, ggml_mul_mat(c, weight(width, ff), f), ggml_mul_mat(c, weight(width, ff), f));
    ggml_set_name(glu, "ffn_swiglu-0");
    ggml_tensor *out = ggml_add(c, ggml_mul_mat(c, weight(ff, width), glu), ffnIn);
    ggml_set_name(out, "l_out-0");
    ggml_set_output(out);
    l->gf = ggml_new_graph(c);
    ggml_build_forward_expand(l->gf, write);
    ggml_build_forward_expand(l->gf, out);
    l->x = x;
    l->ffnIn = ffnIn;
    l->glu = glu;
    l->out = out;
    return l;
}

// Each chain as its ops and its last node's name: QCOMPARE names the first that differs.
QStringList chainsOf(const GraphTopology &topo, const std::vector<FusedChain> &chains)
{
    QStringList out;
    for (const FusedChain &f : chains)
        out << QString::fromStdString(f.types + " -> " + topo.nodes[size_t(f.last)].name);
    return out;
}

// ggml's own test of a run of nodes with outputs (offsets from first).
bool ggmlCanFuseSubgraph(ggml_cgraph *gf, int first, const std::vector<ggml_op> &ops, std::vector<int> outputs)
{
    for (int &o : outputs)
        o += first;
    return ggml_can_fuse_subgraph(gf, first, int(ops.size()), ops.data(), outputs.data(), int(outputs.size()));
}

// The chains the CUDA rules find; each is also one that ggml's own test lets a backend compute
// as one, its last node the output (its use counts are the graph's as built).
QStringList cudaChains(const Graph &g)
{
    const GraphTopology topo = GraphTopology::build(g.gf);
    const auto chains = fusedChains(topo, FusingBackend::Cuda);
    for (const FusedChain &f : chains) {
        std::vector<ggml_op> ops;
        for (int k = f.first; k <= f.last; ++k)
            ops.push_back(topo.nodes[size_t(k)].tensor->op);
        std::vector<int> outputs{f.last - f.first};
        for (const int o : f.outputs)
            outputs.push_back(o - f.first);
        if (!ggmlCanFuseSubgraph(g.gf, f.first, ops, outputs))
            return {QString::fromStdString("not ggml's: " + f.types)};
    }
    return chainsOf(topo, chains);
}

} // namespace

class TstCudaFusion : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(ggml().complete(), "ggml's functions were not found"); }

    // One token through quantized weights: every product is a matrix-vector product (MMVQ), so
    // the gate and up products fuse with their GLU and the output products with the residual.
    void aDecodedTokensLayer()
    {
        auto l = buildLayer(1, GGML_TYPE_Q4_0);
        QCOMPARE(cudaChains(*l),
                 (QStringList{
                     "RMS_NORM+MUL -> attn_norm-0",
                     "RMS_NORM+MUL+ROPE+VIEW+SET_ROWS -> cache_k_l0 (view)",
                     "RMS_NORM+MUL+ROPE -> Qcur-0",
                     "MUL_MAT+ADD -> ffn_inp-0",
                     "RMS_NORM+MUL -> ffn_norm-0",
                     "MUL_MAT+MUL_MAT+SWIGLU -> ffn_swiglu-0",
                     "MUL_MAT+ADD -> l_out-0",
                 }));
    }

    // A prompt's products are matrix-matrix: only the norms and rotations fuse.
    void aPromptsProductsStandAlone()
    {
        auto l = buildLayer(4, GGML_TYPE_Q4_0);
        QCOMPARE(cudaChains(*l),
                 (QStringList{
                     "RMS_NORM+MUL -> attn_norm-0",
                     "RMS_NORM+MUL+ROPE+VIEW+SET_ROWS -> cache_k_l0 (view)",
                     "RMS_NORM+MUL+ROPE -> Qcur-0",
                     "RMS_NORM+MUL -> ffn_norm-0",
                 }));
    }

    // Float weights take the float matrix-vector kernel (MMVF), which needs rows of an even
    // length whose strides it can step through two at a time.
    void floatWeights()
    {
        auto l = buildLayer(1, GGML_TYPE_F16);
        QCOMPARE(cudaChains(*l).size(), qsizetype(7));
        QVERIFY(cudaChains(*l)[5].startsWith("MUL_MAT+MUL_MAT+SWIGLU"));

        Graph g(16);
        ggml_tensor *w = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F16, 63, 8); // odd rows
        ggml_tensor *x = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 63, 1);
        ggml_tensor *bias = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 8, 1);
        g.finish(ggml_scale(g.ctx, ggml_add(g.ctx, ggml_mul_mat(g.ctx, w, x), bias), 2.0f));
        QVERIFY(cudaChains(g).empty());
    }

    // The GLU's result placed over the FFN's input, which both products still read: CUDA drops
    // the fusion (ggml_cuda_check_fusion_memory_ranges).
    void aResultOverASourceIsNotFused()
    {
        auto l = buildLayer(1, GGML_TYPE_Q4_0);
        placeInOneBuffer(l->gf);
        QCOMPARE(cudaChains(*l).size(), qsizetype(7));
        ggml_tensor *normed = l->glu->src[0]->src[1]; // the FFN norm's result, both products' input
        l->glu->data = normed->data;
        const auto chains = cudaChains(*l);
        QCOMPARE(chains.size(), qsizetype(6));
        for (const QString &c : chains)
            QVERIFY2(!c.contains("SWIGLU"), qPrintable(c));
        // over the gate's product, which the chain computes itself: fused; and the down product's
        // residual over its input, a pair CUDA does not check: fused
        l->glu->data = l->glu->src[0]->data;
        l->out->data = l->glu->data;
        QCOMPARE(cudaChains(*l).size(), qsizetype(7));
    }

    // llama.cpp's MoE layer: the chosen experts' outputs times their routing weights, then added
    // up expert by expert through a view of each (build_moe_ffn). One kernel for 2 to 15 experts.
    void theExpertsWeightedSum_data()
    {
        QTest::addColumn<int>("used");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<QString>("chain");
        QTest::newRow("2 experts") << 2 << 1 << "MUL+VIEW+VIEW+ADD -> moe_out";
        QTest::newRow("4 experts, a prompt") << 4 << 5 << "MUL+VIEW+VIEW+ADD+VIEW+ADD+VIEW+ADD -> moe_out";
        QTest::newRow("16 experts") << 16 << 1 << "";
    }
    void theExpertsWeightedSum()
    {
        QFETCH(int, used);
        QFETCH(int, tokens);
        QFETCH(QString, chain);
        Graph g(64);
        constexpr int width = 32;
        ggml_tensor *experts = ggml_new_tensor_3d(g.ctx, GGML_TYPE_F32, width, used, tokens);
        ggml_tensor *weights = ggml_new_tensor_3d(g.ctx, GGML_TYPE_F32, 1, used, tokens);
        ggml_set_input(experts);
        ggml_set_input(weights);
        ggml_tensor *weighted = ggml_mul(g.ctx, experts, weights);
        ggml_tensor *sum = nullptr;
        for (int e = 0; e < used; ++e) {
            ggml_tensor *v = ggml_view_2d(g.ctx, weighted, width, tokens, weighted->nb[2], size_t(e) * weighted->nb[1]);
            sum = sum ? ggml_add(g.ctx, sum, v) : v;
        }
        ggml_set_name(sum, "moe_out");
        g.finish(ggml_scale(g.ctx, sum, 0.5f));
        const auto chains = cudaChains(g);
        QCOMPARE(chains, chain.isEmpty() ? QStringList{} : QStringList{chain});
        if (!chain.isEmpty()) { // the run as ggml itself judges it
            std::vector<ggml_op> ops{GGML_OP_MUL, GGML_OP_VIEW};
            for (int e = 1; e < used; ++e)
                ops.insert(ops.end(), {GGML_OP_VIEW, GGML_OP_ADD});
            QVERIFY(ggmlCanFuseSubgraph(g.gf, 0, ops, {int(ops.size()) - 1}));
        }
    }

    // Gemma's softcap (scale, tanh, scale); a run of sums onto one result; an activation times
    // its gate; ReLU squared; Mamba's convolution and its SiLU.
    void smallChains()
    {
        Graph g(64);
        ggml_context *c = g.ctx;
        ggml_tensor *t[4];
        for (auto &x : t)
            x = ggml_new_tensor_2d(c, GGML_TYPE_F32, 32, 2);
        ggml_tensor *capped = ggml_scale(c, ggml_tanh(c, ggml_scale(c, t[0], 1.0f / 30)), 30.0f);
        ggml_set_name(capped, "capped");
        ggml_tensor *sum = ggml_add(c, ggml_add(c, ggml_add(c, capped, t[1]), t[2]), t[3]);
        ggml_set_name(sum, "sum");
        ggml_tensor *gated = ggml_mul(c, ggml_silu(c, sum), t[0]);
        ggml_set_name(gated, "gated");
        ggml_tensor *squared = ggml_sqr(c, ggml_relu(c, gated));
        ggml_set_name(squared, "squared");
        ggml_tensor *sx = ggml_new_tensor_3d(c, GGML_TYPE_F32, 3 + 2, 32, 1); // d_conv-1+tokens, d_inner
        ggml_tensor *kernel = ggml_new_tensor_2d(c, GGML_TYPE_F32, 4, 32);
        ggml_tensor *conv = ggml_silu(c, ggml_ssm_conv(c, sx, kernel));
        ggml_set_name(conv, "conv");
        ggml_tensor *out = ggml_add(c, ggml_mul(c, squared, ggml_reshape_2d(c, conv, 32, 2)), t[1]);
        g.finish(ggml_scale(c, out, 2.0f));
        QCOMPARE(cudaChains(g),
                 (QStringList{
                     "SCALE+TANH+SCALE -> capped",
                     "ADD+ADD+ADD -> sum",
                     "SILU+MUL -> gated",
                     "RELU+SQR -> squared",
                     "SSM_CONV+SILU -> conv",
                 }));
        // the CPU fuses none of them
        const GraphTopology topo = GraphTopology::build(g.gf);
        QVERIFY(fusedChains(topo, FusingBackend::Cpu).empty());
    }

    // Mamba's convolution with its bias and SiLU; the snake activation, whose x is read again at
    // its end; a snake whose x has a third dimension is not the kernel's.
    void convolutionAndSnake()
    {
        Graph g(48);
        ggml_context *c = g.ctx;
        ggml_tensor *conv = mambaConvolution(c, true);
        ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, 16, 32);
        ggml_tensor *snake = snakeActivation(c, x);
        ggml_tensor *deep = snakeActivation(c, ggml_new_tensor_3d(c, GGML_TYPE_F32, 4, 32, 2));
        ggml_set_name(deep, "deep");
        ggml_tensor *out = ggml_add(
            c,
            ggml_sum(c, ggml_add(c, ggml_reshape_2d(c, conv, 16, 4), ggml_view_2d(c, snake, 16, 4, snake->nb[1], 0))),
            ggml_sum(c, deep));
        g.finish(out);
        QCOMPARE(cudaChains(g), (QStringList{"SSM_CONV+ADD+SILU -> conv", "MUL+SIN+SQR+MUL+ADD -> snake"}));
    }

    // The MoE routing, one kernel with two outputs: the experts chosen (an inner node) and their
    // weights (the end); for expert counts the kernel is built for (powers of two to 512, 288, 576).
    void theMoeRouting_data()
    {
        QTest::addColumn<int>("gating");
        QTest::addColumn<int>("experts");
        QTest::addColumn<bool>("normalize");
        QTest::addColumn<float>("scale");
        QTest::addColumn<QString>("chain");
        const QString norm = "SOFT_MAX+RESHAPE+ARGSORT+VIEW+GET_ROWS+RESHAPE+SUM_ROWS+CLAMP+DIV+RESHAPE";
        QTest::newRow("softmax, normalized") << int(Gating::Softmax) << 128 << true << 1.0f << norm;
        QTest::newRow("softmax, normalized, scaled") << int(Gating::Softmax) << 64 << true << 2.5f << norm + "+SCALE";
        QTest::newRow("softmax") << int(Gating::Softmax) << 8 << false << 1.0f
                                 << "SOFT_MAX+RESHAPE+ARGSORT+VIEW+GET_ROWS";
        QTest::newRow("sigmoid, biased selection")
            << int(Gating::Sigmoid) << 256 << true << 1.0f
            << "SIGMOID+RESHAPE+ADD+ARGSORT+VIEW+GET_ROWS+RESHAPE+SUM_ROWS+CLAMP+DIV+RESHAPE";
        QTest::newRow("288 experts") << int(Gating::Softmax) << 288 << true << 1.0f << norm;
        QTest::newRow("96 experts") << int(Gating::Softmax) << 96 << true << 1.0f << "";
        QTest::newRow("softmax with a scale") << int(Gating::SoftmaxWithMask) << 8 << true << 1.0f << "";
    }
    void theMoeRouting()
    {
        QFETCH(int, gating);
        QFETCH(int, experts);
        QFETCH(bool, normalize);
        QFETCH(float, scale);
        QFETCH(QString, chain);
        Graph g(48);
        ggml_context *c = g.ctx;
        const MoeRouting r = moeRouting(c, experts, 2, 1, Gating(gating), normalize, scale);
        ggml_tensor *out = expertsWeighted(c, r, experts);
        g.gf = ggml_new_graph(c);
        ggml_build_forward_expand(g.gf, r.weights);
        ggml_build_forward_expand(g.gf, out);
        QStringList routings;
        for (const QString &f : cudaChains(g))
            if (f.contains("ARGSORT") || f.startsWith("not ggml's"))
                routings << f;
        QCOMPARE(routings, chain.isEmpty() ? QStringList{} : QStringList{chain + " -> ffn_moe_weights-0"});
        if (!chain.isEmpty()) {
            const GraphTopology topo = GraphTopology::build(g.gf);
            for (const FusedChain &f : fusedChains(topo, FusingBackend::Cuda))
                if (f.last == topo.indexOf.at(r.weights))
                    QCOMPARE(f.outputs, std::vector<int>{topo.indexOf.at(r.ids)});
        }
    }

    // The experts chosen written over the logits the gating reads: CUDA's kernel reads a block's
    // logits whole before it writes, so for up to 8 tokens (one block) it fuses all the same.
    void chosenOverTheLogits_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<bool>("fused");
        QTest::newRow("one token") << 1 << true;
        QTest::newRow("16 tokens") << 16 << false;
    }
    void chosenOverTheLogits()
    {
        QFETCH(int, tokens);
        QFETCH(bool, fused);
        QCOMPARE(routingsFused(FusingBackend::Cuda, tokens, false), 1);
        QCOMPARE(routingsFused(FusingBackend::Cuda, tokens, true), fused ? 1 : 0);
    }

    // A softcap with a bias in its scales is not the softcap kernel's; sums onto tensors of other
    // layouts are separate kernels.
    void nearMisses()
    {
        Graph g(32);
        ggml_context *c = g.ctx;
        ggml_tensor *a = ggml_new_tensor_2d(c, GGML_TYPE_F32, 32, 2);
        ggml_tensor *row = ggml_new_tensor_1d(c, GGML_TYPE_F32, 32);
        ggml_tensor *capped = ggml_scale_bias(c, ggml_tanh(c, ggml_scale(c, a, 0.5f)), 2.0f, 1.0f);
        ggml_tensor *sum = ggml_add(c, ggml_add(c, capped, a), row); // a broadcast row: another layout
        g.finish(ggml_scale(c, sum, 2.0f));
        QVERIFY(cudaChains(g).empty());
    }

    // The scheduler splits the graph between backends: no chain crosses the split, and the CPU's
    // part keeps its own rules.
    void aChainNeverCrossesBackends()
    {
        auto l = buildLayer(1, GGML_TYPE_Q4_0);
        const GraphTopology topo = GraphTopology::build(l->gf);
        std::vector<int> backendOf(topo.nodes.size(), 0);
        backendOf[size_t(topo.indexOf.at(l->out))] = 1; // the last residual on the CPU
        const auto chains = fusedChains(topo, backendOf, {FusingBackend::Cuda, FusingBackend::Cpu});
        QCOMPARE(chains.size(), size_t(6));
        for (const FusedChain &f : chains)
            QCOMPARE(f.backend, 0);
    }

    // A source on another backend is read there through the scheduler's copy, which the
    // consumer then names instead ("CPU#act#0"): the activation is still used twice.
    void aUseThroughTheSchedulersCopy()
    {
        Graph g(16);
        ggml_context *c = g.ctx;
        ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, 32, 2), *y = ggml_new_tensor_2d(c, GGML_TYPE_F32, 32, 2);
        ggml_tensor *act = ggml_silu(c, x);
        ggml_set_name(act, "act");
        ggml_tensor *elsewhere = ggml_scale(c, act, 2.0f);
        g.finish(ggml_add(c, ggml_mul(c, act, y), elsewhere));
        QVERIFY(cudaChains(g).isEmpty());
        ggml_tensor *copy = ggml_dup_tensor(c, act);
        ggml_set_name(copy, "CPU#act#0");
        elsewhere->src[0] = copy;
        const GraphTopology topo = GraphTopology::build(g.gf);
        std::vector<int> backendOf(topo.nodes.size(), 0);
        backendOf[size_t(topo.indexOf.at(elsewhere))] = 1;
        QVERIFY(fusedChains(topo, backendOf, {FusingBackend::Cuda, FusingBackend::Cpu}).empty());
        ggml_set_name(copy, "CPU#other#0"); // a copy of something else: the pair is fused
        QCOMPARE(fusedChains(topo, backendOf, {FusingBackend::Cuda, FusingBackend::Cpu}).size(), size_t(1));
    }

    // An NVFP4 product times its scale, then its bias: ggml tries the scale alone first, so the
    // bias is added on its own.
    void anNvfp4ProductsScale()
    {
        Graph g(16);
        ggml_context *c = g.ctx;
        ggml_tensor *w = ggml_new_tensor_2d(c, GGML_TYPE_NVFP4, 256, 16);
        ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, 256, 1);
        ggml_tensor *scale = ggml_new_tensor_1d(c, GGML_TYPE_F32, 1);
        ggml_tensor *bias = ggml_new_tensor_2d(c, GGML_TYPE_F32, 16, 1);
        ggml_tensor *scaled = ggml_mul(c, ggml_mul_mat(c, w, x), scale);
        ggml_set_name(scaled, "scaled");
        g.finish(ggml_scale(c, ggml_add(c, scaled, bias), 2.0f));
        QCOMPARE(cudaChains(g), QStringList{"MUL_MAT+MUL -> scaled"});
    }

    // Float16 experts with their biases: the float matrix-vector kernel takes them when an
    // expert's matrix has at most 512 rows (on cards with float16 matrix units).
    void float16Experts_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("fused");
        QTest::newRow("512 rows") << 512 << true;
        QTest::newRow("1024 rows") << 1024 << false;
    }
    void float16Experts()
    {
        QFETCH(int, rows);
        QFETCH(bool, fused);
        Graph g(16);
        ggml_context *c = g.ctx;
        constexpr int width = 64, experts = 4, used = 2;
        ggml_tensor *w = ggml_new_tensor_3d(c, GGML_TYPE_F16, width, rows, experts);
        ggml_tensor *act = ggml_new_tensor_3d(c, GGML_TYPE_F32, width, used, 1);
        ggml_tensor *ids = ggml_new_tensor_2d(c, GGML_TYPE_I32, used, 1);
        ggml_tensor *bias = ggml_new_tensor_2d(c, GGML_TYPE_F32, rows, experts);
        ggml_tensor *out = ggml_add_id(c, ggml_mul_mat_id(c, w, act, ids), bias, ids);
        ggml_set_name(out, "experts_out");
        g.finish(ggml_scale(c, out, 0.5f));
        QCOMPARE(cudaChains(g), fused ? QStringList{"MUL_MAT_ID+ADD_ID -> experts_out"} : QStringList{});
    }

    // The contiguity tests the rules are made of, against ggml's own over strides of every kind
    // (views that skip, pad, transpose, or stride a dimension of one).
    void contiguityAsGgmlJudgesIt()
    {
        Graph g(4);
        ggml_tensor *t = ggml_new_tensor_4d(g.ctx, GGML_TYPE_F32, 1, 1, 1, 1);
        std::mt19937 random(7);
        auto pick = [&](int n) { return int(random() % unsigned(n)); };
        int disagreements = 0;
        for (int trial = 0; trial < 20000; ++trial) {
            for (int d = 0; d < GGML_MAX_DIMS; ++d) {
                t->ne[d] = 1 + pick(3);
                t->nb[d] = size_t(4 * (1 + pick(24)));
            }
            if (pick(2) == 0) { // packed from some dimension on
                const int from = pick(GGML_MAX_DIMS);
                for (int d = from; d < GGML_MAX_DIMS; ++d)
                    t->nb[d] = d == 0 ? 4 : t->nb[d - 1] * size_t(t->ne[d - 1]);
            }
            disagreements += llmscope::probe::fusion::contiguous(t) != ggml_is_contiguous(t);
            disagreements += llmscope::probe::fusion::contiguous1(t) != ggml_is_contiguous_1(t);
            disagreements += llmscope::probe::fusion::contiguousRows(t) != ggml_is_contiguous_rows(t);
        }
        QCOMPARE(disagreements, 0);
        // the case that parted them: a dimension of one whose stride is not the packed one
        t->ne[0] = 4, t->ne[1] = 1, t->ne[2] = 3, t->ne[3] = 1;
        t->nb[0] = 4, t->nb[1] = 32, t->nb[2] = 32, t->nb[3] = 96;
        QCOMPARE(llmscope::probe::fusion::contiguous1(t), ggml_is_contiguous_1(t));
    }

    // ggml-cuda's switch turns every fusion off for a nonzero number; HIP's and MUSA's builds of
    // it share its rules.
    void theSwitchTurnsItOff()
    {
        qputenv("GGML_CUDA_DISABLE_FUSION", "1");
        QCOMPARE(fusingBackend("CUDA0"), FusingBackend::None);
        QCOMPARE(fusingBackend("ROCm0"), FusingBackend::None);
        qputenv("GGML_CUDA_DISABLE_FUSION", "0");
        QCOMPARE(fusingBackend("CUDA0"), FusingBackend::Cuda);
        qunsetenv("GGML_CUDA_DISABLE_FUSION");
        QCOMPARE(fusingBackend("CUDA1"), FusingBackend::Cuda);
        QCOMPARE(fusingBackend("ROCm0"), FusingBackend::Cuda);
        QCOMPARE(fusingBackend("MUSA0"), FusingBackend::Cuda);
        QCOMPARE(fusingBackend("BLAS"), FusingBackend::None);
    }
};

QTEST_GUILESS_MAIN(TstCudaFusion)
#include "tst_cudafusion.moc"
