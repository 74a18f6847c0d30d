// The probe's model of what ggml's Vulkan backend computes fused (vulkan_fusion.cpp), on graphs
// built as llama.cpp builds a layer's: the norm and its weight, the keys rotated and written into
// the cache, the output product and the residual. Which chains it finds, and where Vulkan's own
// checks refuse one: a prompt's product (not one row), a quantized cache, a chain split across
// backends, a result that would overwrite a source still being read, fusion switched off.
// tst_vulkan holds the model against what ggml-vulkan launches on Mesa's device.
#include <QTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <ggml.h>

#include "probe/fusion_rules.h"
#include "probe/ggml_api.h"
#include "probe/graph_topology.h"
#include "tests/probe/graph_arena.h"
#include "tests/probe/graph_mamba_snake.h"
#include "tests/probe/graph_moe_routing.h"
#include "tests/probe/graph_residual_norms.h"

using namespace llmscope::probe;

namespace {

struct Layer {
    ggml_context *ctx = nullptr;
    ggml_cgraph *gf = nullptr;
    ggml_tensor *normIn = nullptr, *normed = nullptr, *attnOut = nullptr, *residual = nullptr;
    ~Layer() { ggml_free(ctx); }
};

// tokens: 1 for a decoded token, more for a prompt; cache: the KV cache's type.
std::unique_ptr<Layer> buildLayer(int tokens, ggml_type cache = GGML_TYPE_F16)
{
    auto l = std::make_unique<Layer>();
    ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    l->ctx = ggml_init(params);
    ggml_context *c = l->ctx;
    constexpr int width = 64, head = 16, kvHeads = 2;
    ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, tokens);
    ggml_set_input(x);
    ggml_tensor *normW = ggml_new_tensor_1d(c, GGML_TYPE_F32, width);
    ggml_tensor *wk = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, head * kvHeads);
    ggml_tensor *wo = ggml_new_tensor_2d(c, GGML_TYPE_F32, width, width);
    ggml_tensor *pos = ggml_new_tensor_1d(c, GGML_TYPE_I32, tokens);
    ggml_tensor *idx = ggml_new_tensor_1d(c, GGML_TYPE_I64, tokens);
    ggml_set_input(pos);
    ggml_set_input(idx);
    ggml_tensor *cacheK = ggml_new_tensor_2d(c, cache, head * kvHeads, 256);
    ggml_set_name(cacheK, "cache_k_l0");

    ggml_tensor *norm = ggml_rms_norm(c, x, 1e-5f);
    ggml_set_name(norm, "norm-0");
    ggml_tensor *attnNorm = ggml_mul(c, norm, normW);
    ggml_set_name(attnNorm, "attn_norm-0");
    ggml_tensor *k = ggml_mul_mat(c, wk, attnNorm);
    ggml_set_name(k, "Kcur-0");
    k = ggml_reshape_3d(c, k, head, kvHeads, tokens);
    k = ggml_rope_ext(c, k, pos, nullptr, head, 0, 256, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    ggml_set_name(k, "Kcur-0");
    ggml_tensor *kRows = ggml_view_2d(c, k, head * kvHeads, tokens, k->nb[2], 0);
    ggml_tensor *write = ggml_set_rows(c, cacheK, kRows, idx);
    ggml_tensor *attnOut = ggml_mul_mat(c, wo, attnNorm);
    ggml_set_name(attnOut, "attn_out-0");
    ggml_tensor *residual = ggml_add(c, attnOut, x);
    ggml_set_name(residual, "ffn_inp-0");
    ggml_set_output(residual);
    l->gf = ggml_new_graph(c);
    ggml_build_forward_expand(l->gf, write);
    ggml_build_forward_expand(l->gf, residual);
    l->normIn = x;
    l->normed = attnNorm;
    l->attnOut = attnOut;
    l->residual = residual;
    return l;
}

std::vector<std::string> chainsOf(const GraphTopology &topo, const std::vector<FusedChain> &chains)
{
    std::vector<std::string> out;
    for (const FusedChain &f : chains) {
        std::string s = f.types + ":";
        for (int k = f.first; k <= f.last; ++k)
            s += " " + topo.nodes[size_t(k)].type;
        out.push_back(s);
    }
    return out;
}

} // namespace

class TstVulkanFusion : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(ggml().complete(), "ggml's functions were not found"); }

    void aDecodedTokensLayer()
    {
        auto l = buildLayer(1);
        const GraphTopology topo = GraphTopology::build(l->gf);
        const auto chains = fusedChains(topo, FusingBackend::Vulkan);
        QCOMPARE(chainsOf(topo, chains),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL", "ROPE+VIEW+SET_ROWS: ROPE VIEW SET_ROWS",
                                           "MUL_MAT+ADD: MUL_MAT ADD"}));
        // each chain's inner nodes point at its end; the end and every other node are read
        const auto into = fusedInto(chains, topo.nodes.size());
        for (const FusedChain &f : chains) {
            for (int k = f.first; k < f.last; ++k)
                QCOMPARE(into[size_t(k)], f.last);
            QCOMPARE(into[size_t(f.last)], -1);
        }
        // the CPU fuses only the norm
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Cpu)),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL"}));
    }

    // A prompt's output product has a row a token: Vulkan adds its bias in the product only for
    // a matrix-vector product.
    void aPromptsProductIsNotFused()
    {
        auto l = buildLayer(4);
        const GraphTopology topo = GraphTopology::build(l->gf);
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan)),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL", "ROPE+VIEW+SET_ROWS: ROPE VIEW SET_ROWS"}));
    }

    // The rotation writes into the cache only a float cache: a q8_0 cache converts on its own.
    void aQuantizedCacheKeepsItsWrite()
    {
        auto l = buildLayer(1, GGML_TYPE_Q8_0);
        const GraphTopology topo = GraphTopology::build(l->gf);
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan)),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL", "MUL_MAT+ADD: MUL_MAT ADD"}));
    }

    // The scheduler splits the graph between backends: no chain crosses the split.
    void aChainNeverCrossesBackends()
    {
        auto l = buildLayer(1);
        const GraphTopology topo = GraphTopology::build(l->gf);
        std::vector<int> backendOf(topo.nodes.size(), 0);
        backendOf[size_t(topo.indexOf.at(l->residual))] = 1; // the residual on the CPU
        const auto chains = fusedChains(topo, backendOf, {FusingBackend::Vulkan, FusingBackend::Cpu});
        QCOMPARE(chainsOf(topo, chains),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL", "ROPE+VIEW+SET_ROWS: ROPE VIEW SET_ROWS"}));
        for (const FusedChain &f : chains)
            QCOMPARE(f.backend, 0);
    }

    // Vulkan drops a fusion whose result would overwrite a source it still reads: the residual
    // allocated over the product's input (the norm's result, dead after the product).
    void aResultOverASourceIsNotFused()
    {
        auto l = buildLayer(1);
        placeInOneBuffer(l->gf);
        {
            const GraphTopology topo = GraphTopology::build(l->gf);
            QCOMPARE(fusedChains(topo, FusingBackend::Vulkan).size(), size_t(3));
        }
        l->residual->data = l->normed->data; // same size: 64 floats
        const GraphTopology topo = GraphTopology::build(l->gf);
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan)),
                 (std::vector<std::string>{"RMS_NORM+MUL: RMS_NORM MUL", "ROPE+VIEW+SET_ROWS: ROPE VIEW SET_ROWS"}));
    }

    // A run of sums (MoE's expert outputs added up, a residual's terms) is one kernel; an
    // activation times its gate is one.
    void sumsAndGatedActivations()
    {
        ggml_init_params params{32 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        ggml_tensor *t[4];
        for (auto &x : t)
            x = ggml_new_tensor_2d(c, GGML_TYPE_F32, 32, 2);
        ggml_tensor *sum = ggml_add(c, ggml_add(c, ggml_add(c, t[0], t[1]), t[2]), t[3]);
        ggml_tensor *gated = ggml_mul(c, ggml_silu(c, sum), t[0]);
        ggml_tensor *gelu = ggml_gelu(c, t[1]); // read again below: not fused
        ggml_tensor *other = ggml_add(c, ggml_mul(c, gelu, t[2]), gelu);
        ggml_tensor *out = ggml_add(c, ggml_scale(c, gated, 2.0f), ggml_scale(c, other, 2.0f));
        ggml_set_output(out);
        ggml_cgraph *gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, out);
        const GraphTopology topo = GraphTopology::build(gf);
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan)),
                 (std::vector<std::string>{"ADD+ADD+ADD: ADD ADD ADD", "SILU+MUL: SILU MUL"}));
        ggml_free(c);
    }

    // The experts' products as llama.cpp's MoE layer builds them: the chosen experts' down
    // products times their routing weights, and (gpt-oss) the experts' biases added by the same
    // ids. Vulkan folds both into the product's matrix-vector kernel, for a decoded token; a
    // prompt's (more than 8 tokens) products are matrix-matrix and stand alone; a weight per
    // expert that is not one number an expert is not folded.
    void theExpertsProducts_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("oneWeightAnExpert");
        QTest::addColumn<QString>("chain");
        QTest::newRow("decoded") << 1 << false << true << "MUL_MAT_ID+MUL: MUL_MAT_ID MUL";
        QTest::newRow("decoded, biases") << 1 << true << true << "MUL_MAT_ID+ADD_ID+MUL: MUL_MAT_ID ADD_ID MUL";
        QTest::newRow("prompt") << 12 << true << true << "";
        QTest::newRow("a weight a feature") << 1 << false << false << "";
    }
    void theExpertsProducts()
    {
        QFETCH(int, tokens);
        QFETCH(bool, bias);
        QFETCH(bool, oneWeightAnExpert);
        QFETCH(QString, chain);
        ggml_init_params params{32 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        constexpr int width = 64, ff = 32, experts = 4, used = 2;
        ggml_tensor *down = ggml_new_tensor_3d(c, GGML_TYPE_Q8_0, ff, width, experts);
        ggml_tensor *act = ggml_new_tensor_3d(c, GGML_TYPE_F32, ff, used, tokens);
        ggml_tensor *ids = ggml_new_tensor_2d(c, GGML_TYPE_I32, used, tokens);
        ggml_tensor *weights = ggml_new_tensor_3d(c, GGML_TYPE_F32, oneWeightAnExpert ? 1 : width, used, tokens);
        ggml_set_input(act);
        ggml_set_input(ids);
        ggml_set_input(weights);
        ggml_tensor *experts_ = ggml_mul_mat_id(c, down, act, ids);
        if (bias)
            experts_ = ggml_add_id(c, experts_, ggml_new_tensor_2d(c, GGML_TYPE_F32, width, experts), ids);
        ggml_tensor *weighted = ggml_mul(c, experts_, weights);
        ggml_tensor *out = ggml_scale(c, weighted, 0.5f);
        ggml_set_output(out);
        ggml_cgraph *gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, out);
        const GraphTopology topo = GraphTopology::build(gf);
        const auto chains = chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan));
        QCOMPARE(chains, chain.isEmpty() ? std::vector<std::string>{} : std::vector<std::string>{chain.toStdString()});
        QVERIFY(chainsOf(topo, fusedChains(topo, FusingBackend::Cpu)).empty());
        ggml_free(c);
    }

    // Mamba's convolution with its bias and SiLU, or with its SiLU alone; the snake activation.
    void convolutionAndSnake()
    {
        ggml_init_params params{48 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        ggml_tensor *withBias = mambaConvolution(c, true), *plain = mambaConvolution(c, false);
        ggml_set_name(plain, "plain");
        ggml_tensor *snake = snakeActivation(c, ggml_new_tensor_2d(c, GGML_TYPE_F32, 16, 32));
        ggml_tensor *out =
            ggml_add(c, ggml_add(c, ggml_reshape_2d(c, withBias, 16, 4), ggml_reshape_2d(c, plain, 16, 4)),
                     ggml_view_2d(c, snake, 16, 4, snake->nb[1], 0));
        ggml_set_output(out);
        ggml_cgraph *gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, out);
        const GraphTopology topo = GraphTopology::build(gf);
        QCOMPARE(chainsOf(topo, fusedChains(topo, FusingBackend::Vulkan)),
                 (std::vector<std::string>{"SSM_CONV+ADD+SILU: SSM_CONV ADD SILU", "SSM_CONV+SILU: SSM_CONV SILU",
                                           "MUL+SIN+SQR+MUL+ADD: MUL SIN SQR MUL ADD"}));
        QVERIFY(fusedChains(topo, FusingBackend::Cpu).empty());
        ggml_free(c);
    }

    // The MoE routing, one kernel with two outputs: the experts chosen (an inner node, which the
    // probe reads at the chain's end) and their weights (the end). Softmax gating with the weights
    // normalized (qwen3moe), and scaled too (deepseek2's trailing SCALE); sigmoid gating with a
    // selection bias; not for a softmax with a scale, or more experts than the kernel takes.
    void theMoeRouting_data()
    {
        QTest::addColumn<int>("gating");
        QTest::addColumn<int>("experts");
        QTest::addColumn<bool>("normalize");
        QTest::addColumn<float>("scale");
        QTest::addColumn<QString>("chain");
        const QString norm = "SOFT_MAX+RESHAPE+ARGSORT+VIEW+GET_ROWS+RESHAPE+SUM_ROWS+CLAMP+DIV+RESHAPE";
        QTest::newRow("softmax, normalized") << int(Gating::Softmax) << 8 << true << 1.0f << norm;
        QTest::newRow("softmax, normalized, scaled") << int(Gating::Softmax) << 8 << true << 2.5f << norm + "+SCALE";
        QTest::newRow("softmax") << int(Gating::Softmax) << 8 << false << 1.0f
                                 << "SOFT_MAX+RESHAPE+ARGSORT+VIEW+GET_ROWS";
        QTest::newRow("sigmoid, biased selection") << int(Gating::Sigmoid) << 8 << true << 1.0f
                                                   << "SIGMOID+RESHAPE+ADD+ARGSORT+VIEW+GET_ROWS+RESHAPE+SUM_ROWS+"
                                                      "CLAMP+DIV+RESHAPE";
        QTest::newRow("softmax with a scale") << int(Gating::SoftmaxWithMask) << 8 << true << 1.0f << "";
        QTest::newRow("1024 experts") << int(Gating::Softmax) << 1024 << true << 1.0f << "";
    }
    void theMoeRouting()
    {
        QFETCH(int, gating);
        QFETCH(int, experts);
        QFETCH(bool, normalize);
        QFETCH(float, scale);
        QFETCH(QString, chain);
        ggml_init_params params{48 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        const MoeRouting r = moeRouting(c, experts, 2, 1, Gating(gating), normalize, scale);
        ggml_tensor *out = expertsWeighted(c, r, experts);
        ggml_cgraph *gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, r.weights);
        ggml_build_forward_expand(gf, out);
        const GraphTopology topo = GraphTopology::build(gf);
        std::vector<FusedChain> routings;
        for (const FusedChain &f : fusedChains(topo, FusingBackend::Vulkan))
            if (f.types.find("ARGSORT") != std::string::npos)
                routings.push_back(f);
        if (chain.isEmpty()) {
            QVERIFY(routings.empty());
        } else {
            QCOMPARE(routings.size(), size_t(1));
            QCOMPARE(QString::fromStdString(routings[0].types), chain);
            QCOMPARE(routings[0].outputs, std::vector<int>{topo.indexOf.at(r.ids)});
            QCOMPARE(routings[0].last, topo.indexOf.at(r.weights));
            const auto inner = innerOutputs(routings, topo.nodes.size());
            QCOMPARE(int(std::count(inner.begin(), inner.end(), 1)), 1);
            QVERIFY(inner[size_t(topo.indexOf.at(r.ids))]);
        }
        ggml_free(c);
    }

    // The experts chosen written over the logits the gating reads: Vulkan refuses the fusion.
    void chosenOverTheLogits_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<bool>("fused");
        QTest::newRow("one token") << 1 << false;
        QTest::newRow("16 tokens") << 16 << false;
    }
    void chosenOverTheLogits()
    {
        QFETCH(int, tokens);
        QFETCH(bool, fused);
        QCOMPARE(routingsFused(FusingBackend::Vulkan, tokens, false), 1);
        QCOMPARE(routingsFused(FusingBackend::Vulkan, tokens, true), fused ? 1 : 0);
    }

    // A decoded token's residual ADD hands its norm the partial sums of squares: the probe reads
    // the ADD where the norm's chain ends. ggml-vulkan has 1024 bytes of room for the sums a
    // computation: a 4096-wide row takes 8 sums, 32 bytes at a 16-byte alignment (64 at 64), so
    // the 33rd pair of a computation (the 17th) gets none and is cut apart instead; the room
    // starts afresh where the scheduler splits the graph. A prompt's norm (several rows) takes none.
    void theNormsSumsCarriedFromItsAdd()
    {
        ggml_init_params params{256 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        const ResidualNorms r = residualNorms(c, 40, 4096, 1);
        const GraphTopology topo = GraphTopology::build(residualNormsGraph(c, r));
        const std::vector<int> one(topo.nodes.size(), 0);
        const auto chains = fusedChains(topo, FusingBackend::Vulkan);
        QCOMPARE(chains.size(), size_t(40)); // RMS_NORM+MUL each
        auto carriedOf = [&](const std::vector<CarriedResult> &carried) {
            std::vector<int> out; // per block: 1 carried, 0 cut, -1 none, -2 to another node
            for (size_t k = 0; k < r.adds.size(); ++k) {
                const int add = topo.indexOf.at(r.adds[k]), mul = topo.indexOf.at(r.muls[k]);
                int v = -1;
                for (const CarriedResult &cr : carried)
                    if (cr.from == add)
                        v = cr.to != mul ? -2 : cr.carried ? 1 : 0;
                out.push_back(v);
            }
            return out;
        };
        auto expect = [](int carried, int cut) {
            std::vector<int> v(size_t(carried), 1);
            v.resize(size_t(carried + cut), 0);
            return v;
        };
        QCOMPARE(carriedOf(carriedResults(topo, one, {FusingBackend::Vulkan}, chains, {16})), expect(32, 8));
        QCOMPARE(carriedOf(carriedResults(topo, one, {FusingBackend::Vulkan}, chains, {64})), expect(16, 24));
        QCOMPARE(carriedOf(carriedResults(topo, one, {FusingBackend::Vulkan}, chains, {0})), expect(40, 0));
        // block 20 on the CPU: two computations on the device, each with its own room
        std::vector<int> split = one;
        for (ggml_tensor *t : {r.adds[20], r.norms[20], r.muls[20]})
            split[size_t(topo.indexOf.at(t))] = 1;
        std::vector<int> want = expect(16, 4);
        want.push_back(-1);
        for (int v : expect(16, 3))
            want.push_back(v);
        QCOMPARE(
            carriedOf(carriedResults(topo, split, {FusingBackend::Vulkan, FusingBackend::Cpu},
                                     fusedChains(topo, split, {FusingBackend::Vulkan, FusingBackend::Cpu}), {64, 64})),
            want);
        // a row of 4097: 9 sums, 36 bytes aligned to 48 at 16: 21 pairs fit
        {
            ggml_context *odd = ggml_init(params);
            const ResidualNorms o = residualNorms(odd, 24, 4097, 1);
            const GraphTopology oddTopo = GraphTopology::build(residualNormsGraph(odd, o));
            const auto carried =
                carriedResults(oddTopo, std::vector<int>(oddTopo.nodes.size(), 0), {FusingBackend::Vulkan},
                               fusedChains(oddTopo, FusingBackend::Vulkan), {16});
            QCOMPARE(carried.size(), size_t(24));
            QCOMPARE(std::count_if(carried.begin(), carried.end(), [](const CarriedResult &c) { return c.carried; }),
                     21);
            ggml_free(odd);
        }
        // no other backend carries anything
        QVERIFY(carriedResults(topo, one, {FusingBackend::Cpu}, fusedChains(topo, FusingBackend::Cpu), {16}).empty());
        QVERIFY(carriedResults(topo, one, {FusingBackend::Cuda}, fusedChains(topo, FusingBackend::Cuda), {16}).empty());
        ggml_free(c);

        c = ggml_init(params);
        const ResidualNorms prompt = residualNorms(c, 4, 4096, 2);
        const GraphTopology promptTopo = GraphTopology::build(residualNormsGraph(c, prompt));
        QVERIFY(carriedResults(promptTopo, std::vector<int>(promptTopo.nodes.size(), 0), {FusingBackend::Vulkan},
                               fusedChains(promptTopo, FusingBackend::Vulkan), {16})
                    .empty());
        ggml_free(c);
    }

    // The sums go from the last ADD of a run of them (one kernel); an ADD computed inside a
    // product (MUL_MAT+ADD) writes none, as ggml-vulkan asks only a node that is an ADD.
    void aRunOfSumsCarriesFromItsLast()
    {
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *c = ggml_init(params);
        ggml_tensor *a = ggml_new_tensor_1d(c, GGML_TYPE_F32, 512), *b = ggml_new_tensor_1d(c, GGML_TYPE_F32, 512),
                    *d = ggml_new_tensor_1d(c, GGML_TYPE_F32, 512), *w = ggml_new_tensor_2d(c, GGML_TYPE_F32, 512, 512);
        for (ggml_tensor *t : {a, b, d, w})
            ggml_set_input(t);
        ggml_tensor *sum = ggml_add(c, ggml_add(c, a, b), d);
        ggml_tensor *norm = ggml_rms_norm(c, sum, 1e-5f);
        ggml_tensor *product = ggml_add(c, ggml_mul_mat(c, w, norm), a);
        ggml_tensor *norm2 = ggml_rms_norm(c, product, 1e-5f);
        ggml_cgraph *gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, norm2);
        const GraphTopology topo = GraphTopology::build(gf);
        const auto chains = fusedChains(topo, FusingBackend::Vulkan);
        QCOMPARE(chainsOf(topo, chains), (std::vector<std::string>{"ADD+ADD: ADD ADD", "MUL_MAT+ADD: MUL_MAT ADD"}));
        const auto carried =
            carriedResults(topo, std::vector<int>(topo.nodes.size(), 0), {FusingBackend::Vulkan}, chains, {16});
        QCOMPARE(carried.size(), size_t(1));
        QCOMPARE(carried[0].from, topo.indexOf.at(sum));
        QCOMPARE(carried[0].to, topo.indexOf.at(norm));
        QVERIFY(carried[0].carried);
        ggml_free(c);
    }

    // ggml-vulkan's switch: set to anything, it turns every fusion off.
    void theSwitchTurnsItOff()
    {
        qputenv("GGML_VK_DISABLE_FUSION", "0");
        QCOMPARE(fusingBackend("Vulkan0"), FusingBackend::None);
        qunsetenv("GGML_VK_DISABLE_FUSION");
        QCOMPARE(fusingBackend("Vulkan1"), FusingBackend::Vulkan);
        QCOMPARE(fusingBackend("BLAS"), FusingBackend::None);
    }
};

QTEST_GUILESS_MAIN(TstVulkanFusion)
#include "tst_vulkanfusion.moc"
