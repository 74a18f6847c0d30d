// The capture plan on a real ggml graph, allocated by ggml's own allocator: which tensors read
// during the graph share bytes taken earlier in the round (PlanItem::same), and which may not
// because a node wrote over them in between (an op computed in place over its input).
#include <QTest>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_set>

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml.h>

#include "probe/capture_plan.h"
#include "probe/fusion_rules.h"
#include "probe/ggml_api.h"
#pragma GCC diagnostic push // ggml's internal header defines helpers this suite does not call
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h" // ggml's own ggml_can_fuse, against which the probe's rule is held
#pragma GCC diagnostic pop
#include "probe/graph_topology.h"
#include "probe/round_capture.h"
#include "tests/probe/graph_moe_routing.h"
#include "tests/probe/graph_residual_norms.h"

using namespace llmscope;
using namespace llmscope::probe;

namespace {

struct Graph {
    ggml_context *ctx = nullptr;
    ggml_cgraph *gf = nullptr;
    ggml_gallocr_t galloc = nullptr;
    ggml_tensor *x = nullptr, *w = nullptr, *norm = nullptr, *mul = nullptr, *view = nullptr, *add = nullptr,
                *out = nullptr;
    ~Graph()
    {
        if (galloc)
            ggml_gallocr_free(galloc);
        if (ctx)
            ggml_free(ctx);
    }
};

// x -> rms_norm -> mul(w) -> reshape -> add(x) -> scale. The allocator computes the mul in
// place over the norm (its only reader), as llama.cpp's layers have it.
std::unique_ptr<Graph> buildGraph()
{
    auto g = std::make_unique<Graph>();
    ggml_init_params params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    g->ctx = ggml_init(params);
    g->x = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, 64);
    ggml_set_name(g->x, "x");
    ggml_set_input(g->x);
    g->w = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, 64);
    ggml_set_name(g->w, "w");
    ggml_set_input(g->w);
    g->norm = ggml_rms_norm(g->ctx, g->x, 1e-5f);
    ggml_set_name(g->norm, "norm-0");
    g->mul = ggml_mul(g->ctx, g->norm, g->w);
    ggml_set_name(g->mul, "mul-0");
    g->view = ggml_reshape_2d(g->ctx, g->mul, 8, 8);
    ggml_set_name(g->view, "view-0");
    g->add = ggml_add(g->ctx, ggml_reshape_1d(g->ctx, g->view, 64), g->x);
    ggml_set_name(g->add, "add-0");
    g->out = ggml_scale(g->ctx, g->add, 2.0f);
    ggml_set_name(g->out, "out-0");
    ggml_set_output(g->out);
    g->gf = ggml_new_graph(g->ctx);
    ggml_build_forward_expand(g->gf, g->out);
    g->galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (!ggml_gallocr_alloc_graph(g->galloc, g->gf))
        return nullptr;
    return g;
}

// The chain ggml-cpu fuses, in variants: x -> rms_norm -> mul(w) -> scale, where the norm may
// also feed a second node, be a graph output, or w may be F16 or a broadcast scalar.
enum class Variant { Plain, NormUsedTwice, NormIsOutput, HalfWeight, ScalarWeight };
struct Chain {
    ggml_context *ctx = nullptr;
    ggml_cgraph *gf = nullptr;
    ~Chain() { ggml_free(ctx); }
};
std::unique_ptr<Chain> buildChain(Variant v)
{
    auto c = std::make_unique<Chain>();
    ggml_init_params params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    c->ctx = ggml_init(params);
    ggml_tensor *x = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, 64, 3);
    ggml_set_input(x);
    ggml_tensor *w = v == Variant::HalfWeight ? ggml_new_tensor_1d(c->ctx, GGML_TYPE_F16, 64)
        : v == Variant::ScalarWeight          ? ggml_new_tensor_1d(c->ctx, GGML_TYPE_F32, 1)
                                              : ggml_new_tensor_1d(c->ctx, GGML_TYPE_F32, 64);
    ggml_tensor *norm = ggml_rms_norm(c->ctx, x, 1e-5f);
    ggml_set_name(norm, "norm-0");
    if (v == Variant::NormIsOutput)
        ggml_set_output(norm);
    ggml_tensor *mul = ggml_mul(c->ctx, norm, w);
    ggml_set_name(mul, "mul-0");
    ggml_tensor *out = ggml_scale(c->ctx, mul, 2.0f);
    if (v == Variant::NormUsedTwice)
        out = ggml_add(c->ctx, out, norm);
    ggml_set_output(out);
    c->gf = ggml_new_graph(c->ctx);
    ggml_build_forward_expand(c->gf, out);
    return c;
}

// The plan item of node `t` for (before, input, index).
int itemOf(const CapturePlan &plan, const ggml_tensor *t, bool before, bool input, int index)
{
    for (size_t k = 0; k < plan.items.size(); ++k) {
        const PlanItem &it = plan.items[k];
        if (plan.topo->nodes[size_t(it.node)].tensor == t && it.before == before && it.input == input &&
            it.index == index)
            return int(k);
    }
    return -2;
}

} // namespace

class TstCapturePlan : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(ggml().complete(), "ggml's functions were not found"); }

    void sharesBytesNoNodeWroteOver()
    {
        auto g = buildGraph();
        QVERIFY(g);
        QCOMPARE(g->mul->data, g->norm->data); // the precondition: computed in place
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(g->gf));
        Selection sel;
        sel.rounds = Rounds::all();
        sel.time = DumpTime::Both;
        ProbeConfig c;
        c.tensors = true;
        const auto plan = CapturePlan::build(topo, sel, c);
        const CapturePlan &p = *plan;
        auto item = [&](const ggml_tensor *t, bool before, bool input, int index) {
            const int k = itemOf(p, t, before, input, index);
            if (k < 0)
                qFatal("no plan item");
            return k;
        };
        auto same = [&](const ggml_tensor *t, bool before, bool input, int index) {
            return p.items[size_t(item(t, before, input, index))].same;
        };
        // The item whose bytes are actually taken: sharing goes through the latest earlier one.
        auto source = [&](const ggml_tensor *t, bool before, bool input, int index) {
            int k = item(t, before, input, index);
            while (p.items[size_t(k)].same >= 0)
                k = p.items[size_t(k)].same;
            return k;
        };

        // The norm's output, read again before the mul runs: nothing ran in between.
        const int normOut = item(g->norm, false, false, 0);
        QCOMPARE(same(g->mul, true, true, 0), normOut);
        // The mul computes over it: its input after execution is taken before it runs (early),
        // with the same bytes; its output lies there too but was written, so it is read again.
        QVERIFY(p.items[size_t(item(g->mul, false, true, 0))].early);
        QCOMPARE(same(g->mul, false, true, 0), item(g->mul, true, true, 0));
        QCOMPARE(source(g->mul, false, true, 0), normOut);
        QCOMPARE(same(g->mul, false, false, 0), -1);
        // Reshapes write nothing: the add reads the mul's output.
        QCOMPARE(source(g->view, false, false, 0), item(g->mul, false, false, 0));
        QCOMPARE(source(g->add, true, true, 0), item(g->mul, false, false, 0));
        // x, read by the norm and again by the add, untouched in between.
        QCOMPARE(source(g->add, true, true, 1), item(g->norm, true, true, 0));
        // The add's output is new bytes; an output before its node runs is never shared.
        QCOMPARE(same(g->add, false, false, 0), -1);
        QCOMPARE(same(g->add, true, false, 0), -1);
    }

    // The probe's rule for what ggml-cpu fuses agrees with ggml's own ggml_can_fuse (plus the
    // CPU's type checks) at every node of every variant, and finds the chain where it is.
    void fusedChainsAreThoseGgmlFuses_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<bool>("fused"); // whether ggml-cpu computes norm-0 and mul-0 as one
        QTest::newRow("plain") << int(Variant::Plain) << true;
        QTest::newRow("norm used twice") << int(Variant::NormUsedTwice) << false;
        QTest::newRow("norm a graph output") << int(Variant::NormIsOutput) << false;
        QTest::newRow("F16 weight") << int(Variant::HalfWeight) << false; // ggml_can_fuse yes, the CPU's types no
        QTest::newRow("scalar weight") << int(Variant::ScalarWeight) << false; // a broadcast: not a row as long
    }
    void fusedChainsAreThoseGgmlFuses()
    {
        QFETCH(int, variant);
        QFETCH(bool, fused);
        auto c = buildChain(Variant(variant));
        const GraphTopology topo = GraphTopology::build(c->gf);
        const auto chains = fusedChains(topo, FusingBackend::Cpu);
        QCOMPARE(chains.size(), size_t(fused ? 1 : 0));
        static constexpr ggml_op kOps[] = {GGML_OP_RMS_NORM, GGML_OP_MUL};
        for (int i = 0; i < ggml_graph_n_nodes(c->gf); ++i) {
            const bool ggmlSays = ggml_can_fuse(c->gf, i, kOps, 2);
            const bool probeSays =
                std::any_of(chains.begin(), chains.end(), [i](const FusedChain &f) { return f.first == i; });
            if (probeSays)
                QVERIFY2(ggmlSays, "the probe fuses what ggml_can_fuse refuses");
            if (ggmlSays && !probeSays)
                QVERIFY2(Variant(variant) == Variant::HalfWeight || Variant(variant) == Variant::ScalarWeight,
                         "ggml_can_fuse allows a chain the probe misses for no CPU type reason");
        }
        if (fused) {
            QCOMPARE(topo.nodes[size_t(chains[0].first)].name, std::string("norm-0"));
            QCOMPARE(topo.nodes[size_t(chains[0].last)].name, std::string("mul-0"));
            QCOMPARE(chains[0].types, std::string("RMS_NORM+MUL"));
            const auto into = fusedInto(chains, topo.nodes.size());
            QCOMPARE(into[size_t(chains[0].first)], chains[0].last);
            QCOMPARE(into[size_t(chains[0].last)], -1);
        }
        // ggml-cpu's switch, read as ggml reads it
        qputenv("GGML_CPU_DISABLE_FUSION", "1");
        QCOMPARE(fusingBackend("CPU"), FusingBackend::None);
        qunsetenv("GGML_CPU_DISABLE_FUSION");
        QCOMPARE(fusingBackend("CPU"), FusingBackend::Cpu);
        QCOMPARE(fusingBackend("Vulkan0"), FusingBackend::Vulkan);
        qputenv("GGML_VK_DISABLE_FUSION", "0"); // ggml-vulkan asks only whether it is set
        QCOMPARE(fusingBackend("Vulkan0"), FusingBackend::None);
        qunsetenv("GGML_VK_DISABLE_FUSION");
        QCOMPARE(fusingBackend("CUDA0"), FusingBackend::Cuda);
        QCOMPARE(fusingBackend("Metal"), FusingBackend::None); // not modelled: the observer check tells
    }

    // --keep-fusion's plan: the chain's inner node is not read; the chain's end takes the chain's
    // inputs (the norm's, then the product's other factor), and says which node reads which.
    void aFusedChainIsReadAtItsEnd()
    {
        auto c = buildChain(Variant::Plain);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(c->gf));
        const auto chains = fusedChains(*topo, FusingBackend::Cpu);
        QCOMPARE(chains.size(), size_t(1));
        Selection sel;
        sel.rounds = Rounds::all();
        sel.time = DumpTime::Both;
        ProbeConfig conf;
        conf.tensors = true;
        const auto plan = CapturePlan::build(topo, sel, conf, chains);
        QVERIFY(!plan->selected[size_t(chains[0].first)]);
        QVERIFY(plan->selected[size_t(chains[0].last)]);
        const ggml_tensor *norm = topo->nodes[size_t(chains[0].first)].tensor;
        const ggml_tensor *mul = topo->nodes[size_t(chains[0].last)].tensor;
        QCOMPARE(itemOf(*plan, norm, false, false, 0), -2);
        QCOMPARE(plan->items[size_t(itemOf(*plan, mul, true, true, 0))].tensor, norm->src[0]);
        QCOMPARE(plan->items[size_t(itemOf(*plan, mul, true, true, 1))].tensor, mul->src[1]);
        QCOMPARE(itemOf(*plan, mul, true, true, 2), -2);
        const ChainInputs in = chainInputs(*topo, chains[0].first, chains[0].last);
        QCOMPARE(in.external, (std::vector<const ggml_tensor *>{norm->src[0], mul->src[1]}));
        QCOMPARE(in.sources, (std::vector<std::vector<int>>{{0}, {-1, 1}})); // the product reads the norm, then input 1
        for (const PlanItem &it : plan->items)
            QVERIFY2(it.tensor != norm, "the chain's inner result is read");
        for (ggml_tensor *t : plan->tensorsToKeep())
            QVERIFY2(t != norm, "the chain's inner result kept as a graph output: that breaks the chain");
        QVERIFY2(!plan->ask[size_t(chains[0].first)], "node by node, asking for the inner node splits the chain");
        QVERIFY(plan->ask[size_t(chains[0].last)]);
        // without the option every node is read
        const auto unfused = CapturePlan::build(topo, sel, conf);
        QVERIFY(unfused->selected[size_t(chains[0].first)]);
    }

    // A chain with two outputs (the MoE routing on Vulkan): its inner output, the experts chosen,
    // is taken when the chain's end has run, with the end's tensors, and never asked for itself;
    // selected alone, it still has the end asked for. The routing's other inner nodes are not read.
    void aChainsInnerOutputIsReadAtItsEnd()
    {
        ggml_init_params params{48 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *ctx = ggml_init(params);
        const MoeRouting r = moeRouting(ctx, 8, 2, 1, Gating::Softmax, true);
        ggml_cgraph *gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, r.weights);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(gf));
        const auto chains = fusedChains(*topo, FusingBackend::Vulkan);
        QCOMPARE(chains.size(), size_t(1));
        const size_t ids = size_t(topo->indexOf.at(r.ids)), end = size_t(chains[0].last);
        QCOMPARE(chains[0].outputs, std::vector<int>{int(ids)});
        ProbeConfig conf;
        conf.tensors = true;
        for (const bool alone : {false, true}) {
            Selection sel;
            sel.rounds = Rounds::all();
            if (alone)
                sel.ids = OpIds::parse(topo->nodes[ids].id);
            const auto plan = CapturePlan::build(topo, sel, conf, chains);
            QVERIFY(plan->selected[ids]);
            QCOMPARE(plan->selected[end], char(!alone));
            const int item = itemOf(*plan, r.ids, false, false, 0);
            QVERIFY(item >= 0);
            QVERIFY(plan->items[size_t(item)].late);
            QVERIFY2(uint32_t(item) >= plan->atEval[end].first && uint32_t(item) < plan->atEval[end].second,
                     "the experts chosen are taken when the chain's end has run");
            QCOMPARE(plan->atEval[ids].first, plan->atEval[ids].second);
            QCOMPARE(plan->atAsk[ids].first, plan->atAsk[ids].second);
            QVERIFY2(!plan->ask[ids], "node by node, asking for the inner output splits the chain");
            QVERIFY(plan->ask[end]);
            for (size_t k = size_t(chains[0].first); k < end; ++k)
                if (k != ids)
                    QVERIFY2(!plan->selected[k] && !plan->ask[k],
                             qPrintable(QString::fromStdString(topo->nodes[k].type)));
            QCOMPARE(itemOf(*plan, r.weights, false, false, 0) >= 0, !alone);
        }
        ggml_free(ctx);
    }

    // Kept after the whole graph, a chain's output that is a view (the experts chosen, a view of
    // their ARGSORT; the weights, a reshape of their DIV) would need its root flagged too, and a
    // backend fuses no chain with a flagged node inside: such tensors are not kept but read when
    // the chain has run (the scheduler asked for its end), the later node that reads the weights
    // included; everything else is kept. A selection outside chains is kept whole.
    void aChainsViewOutputIsReadWhenTheChainHasRun()
    {
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *ctx = ggml_init(params);
        const MoeRouting r = moeRouting(ctx, 8, 2, 1, Gating::Softmax, true);
        ggml_tensor *out = expertsWeighted(ctx, r, 8);
        ggml_cgraph *gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, r.weights); // the routing first, in one piece, as llama.cpp builds it
        ggml_build_forward_expand(gf, out);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(gf));
        const auto chains = fusedChains(*topo, FusingBackend::Vulkan);
        QVERIFY(!chains.empty());
        const FusedChain &routing = chains[0];
        QCOMPARE(topo->nodes[size_t(routing.last)].tensor, r.weights); // a reshape of the chain's DIV
        ProbeConfig conf;
        conf.stats = true;
        Selection all;
        all.rounds = Rounds::all();
        const auto plan = CapturePlan::build(topo, all, conf, chains);
        QVERIFY(plan->post);
        const auto keep = plan->tensorsToKeep();
        for (const ggml_tensor *t : {r.ids, r.ids->view_src, r.weights, r.weights->view_src})
            QVERIFY2(std::find(keep.begin(), keep.end(), t) == keep.end(), t->name);
        QVERIFY(std::find(keep.begin(), keep.end(), out) != keep.end());
        QVERIFY(plan->flagsKeepChains(keep));
        const size_t end = size_t(routing.last);
        QCOMPARE(plan->postAsk.size(), topo->nodes.size());
        for (size_t i = 0; i < topo->nodes.size(); ++i)
            QCOMPARE(bool(plan->postAsk[i]), i == end);
        // read at the chain's end: every item of the experts chosen and of their weights (as the
        // chain's outputs and as later nodes' inputs), nothing else, none sharing another's bytes
        size_t outputs = 0, inputs = 0;
        for (size_t k = 0; k < plan->items.size(); ++k) {
            const PlanItem &it = plan->items[k];
            const bool routed = it.kind == ItemKind::Data && (it.tensor == r.ids || it.tensor == r.weights);
            QCOMPARE(it.inGraph, routed);
            if (!routed)
                continue;
            QVERIFY(std::count(plan->inGraphAt[end].begin(), plan->inGraphAt[end].end(), uint32_t(k)));
            QCOMPARE(it.alias, -1);
            (it.input ? inputs : outputs) += 1;
        }
        QCOMPARE(outputs, size_t(2));
        QVERIFY(inputs >= 2); // the experts' product reads the ids, the weighting the weights
        QCOMPARE(plan->inGraphAt[end].size(), outputs + inputs);
        Selection one = all;
        one.ids = OpIds::parse(topo->nodes[size_t(topo->indexOf.at(out))].id);
        one.part = TensorPart::Outputs;
        const auto outside = CapturePlan::build(topo, one, conf, chains);
        QVERIFY(outside->flagsKeepChains(outside->tensorsToKeep()));
        QVERIFY(outside->postAsk.empty());
        ggml_free(ctx);
    }

    // A routing's weights written over in place after the chain: their value at the chain's end
    // is not the later op's output, so that output is not read there; kept, its root unfuses
    // the routing, and the round is read node by node.
    void aViewWrittenAfterTheChainIsNotReadAtItsEnd()
    {
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *ctx = ggml_init(params);
        const MoeRouting r = moeRouting(ctx, 8, 2, 1, Gating::Softmax, true);
        ggml_tensor *bias = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1, 2, 1);
        ggml_set_input(bias);
        ggml_tensor *bumped = ggml_add_inplace(ctx, r.weights, bias);
        ggml_cgraph *gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, r.weights);
        ggml_build_forward_expand(gf, bumped);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(gf));
        const auto chains = fusedChains(*topo, FusingBackend::Vulkan);
        QVERIFY(!chains.empty());
        QCOMPARE(topo->nodes[size_t(chains[0].last)].tensor, r.weights);
        ProbeConfig conf;
        conf.stats = true;
        Selection one;
        one.rounds = Rounds::all();
        one.ids = OpIds::parse(topo->nodes[size_t(topo->indexOf.at(bumped))].id);
        one.part = TensorPart::Outputs;
        const auto plan = CapturePlan::build(topo, one, conf, chains);
        QVERIFY(plan->post);
        for (const PlanItem &it : plan->items)
            QVERIFY(!it.inGraph);
        QVERIFY(plan->postAsk.empty());
        QVERIFY(!plan->flagsKeepChains(plan->tensorsToKeep()));
        ggml_free(ctx);
    }

    // A scheduler with several backends feeds a node its copy of an input from another backend.
    // Read after the whole graph, the input is taken from the tensor it copies (kept), not from
    // the copy, whose memory the allocator reuses once its split has run; node by node (no
    // copies given) from the copy, as the node read it.
    void anInputCopiedAcrossBackendsIsReadFromItsSource()
    {
        ggml_init_params params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *ctx = ggml_init(params);
        ggml_tensor *x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        ggml_set_input(x);
        ggml_tensor *scaled = ggml_scale(ctx, x, 3.0f); // computed on one backend
        ggml_set_name(scaled, "scaled-0");
        ggml_tensor *copy = ggml_dup_tensor(ctx, scaled); // the other backend's copy of it
        ggml_set_name(copy, "Dev#scaled-0#0");
        ggml_tensor *sum = ggml_add(ctx, copy, x);
        ggml_set_name(sum, "sum-0");
        ggml_cgraph *gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, scaled);
        ggml_build_forward_expand(gf, sum);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(gf));
        ProbeConfig conf;
        conf.stats = true;
        Selection sel;
        sel.rounds = Rounds::all();
        const CopySources copies{{copy, scaled}};
        const auto kept = CapturePlan::build(topo, sel, conf, {}, {}, &copies);
        const auto nodeByNode = CapturePlan::build(topo, sel, conf);
        const int k = itemOf(*kept, sum, true, true, 0), n = itemOf(*nodeByNode, sum, true, true, 0);
        QVERIFY(k >= 0 && n >= 0);
        QCOMPARE(kept->items[size_t(k)].tensor, scaled);
        QCOMPARE(nodeByNode->items[size_t(n)].tensor, copy);
        const auto keep = kept->tensorsToKeep();
        QVERIFY(std::find(keep.begin(), keep.end(), scaled) != keep.end());
        QVERIFY(std::find(keep.begin(), keep.end(), copy) == keep.end());
        ggml_free(ctx);
    }

    // Vulkan's ADD hands its norm the partial sums of squares (fusion_rules.h's CarriedResult).
    // Node by node the ADD is never asked for: its output is taken when the norm's chain has run,
    // its inputs when it is asked for (before it runs), and the chain's inputs wanted before it
    // runs are taken after it has run, intact then. The last sum, which its norm overwrites in
    // place, is read at its own node. A pair the backend had no room for is cut apart, selected
    // or not.
    void aCarriedResultIsReadWhereItsReaderEnds()
    {
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *ctx = ggml_init(params);
        const ResidualNorms r = residualNorms(ctx, 3, 1024, 1);
        ggml_cgraph *gf = residualNormsGraph(ctx, r);
        ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
        QVERIFY(ggml_gallocr_alloc_graph(galloc, gf));
        QCOMPARE(r.norms[2]->data, r.adds[2]->data); // read by its norm only: normed in place
        QVERIFY(r.norms[1]->data != r.adds[1]->data);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(gf));
        const auto chains = fusedChains(*topo, FusingBackend::Vulkan);
        const std::vector<int> one(topo->nodes.size(), 0);
        const auto carried = carriedResults(*topo, one, {FusingBackend::Vulkan}, chains, {16});
        QCOMPARE(carried.size(), size_t(3));
        ProbeConfig conf;
        conf.stats = true;
        auto at = [&](const ggml_tensor *t) { return size_t(topo->indexOf.at(t)); };
        auto inside = [](int item, std::pair<uint32_t, uint32_t> range) {
            return item >= 0 && uint32_t(item) >= range.first && uint32_t(item) < range.second;
        };
        // msit's default (inputs before, outputs after), and inputs after too
        for (const DumpTime time : {DumpTime::InputsBeforeOutputsAfter, DumpTime::Both}) {
            Selection sel;
            sel.rounds = Rounds::all();
            sel.time = time;
            sel.part = time == DumpTime::Both ? TensorPart::Inputs : TensorPart::Both; // no outputs before
            const bool after = time == DumpTime::Both;
            const auto plan = CapturePlan::build(topo, sel, conf, chains, carried);
            for (size_t k = 0; k < 2; ++k) {
                const size_t add = at(r.adds[k]), mul = at(r.muls[k]);
                QCOMPARE(plan->heldTo.at(add), int(mul));
                QVERIFY2(!plan->ask[add], "asking for the ADD ends the graph between it and its norm");
                if (!after) {
                    const int out = itemOf(*plan, r.adds[k], false, false, 0);
                    QVERIFY(inside(out, plan->atEval[mul]) && plan->items[size_t(out)].late);
                }
                for (int input : {0, 1}) {
                    QVERIFY(inside(itemOf(*plan, r.adds[k], true, true, input), plan->atAsk[add]));
                    if (after) {
                        const int in = itemOf(*plan, r.adds[k], false, true, input);
                        QVERIFY(inside(in, plan->atEval[add]) && plan->items[size_t(in)].early);
                    }
                }
                const int before = itemOf(*plan, r.muls[k], true, true, 0); // the chain's input: the sum
                QVERIFY(inside(before, plan->atEval[mul]) && plan->items[size_t(before)].late);
                QCOMPARE(plan->atAsk[mul].first, plan->atAsk[mul].second);
                QVERIFY(plan->ask[mul]);
                QVERIFY2(add == 0 || plan->ask[add - 1], "the ADD's inputs are read once the node before it has run");
            }
            const size_t last = at(r.adds[2]);
            QCOMPARE(plan->heldTo.at(last), -1);
            QVERIFY(plan->ask[last]);
        }

        // the held ADD alone, its inputs only: taken when it is asked for, so the node it is held to
        // is asked for after it (node by node the round is handed over at the last asked node)
        Selection inputs;
        inputs.rounds = Rounds::all();
        inputs.part = TensorPart::Inputs;
        inputs.ids = OpIds::parse(topo->nodes[at(r.adds[1])].id);
        const auto alone = CapturePlan::build(topo, inputs, conf, chains, carried);
        QVERIFY(!alone->ask[at(r.adds[1])]);
        QVERIFY2(alone->ask[at(r.muls[1])], "the ADD's inputs would be taken after the round was handed over");
        // descriptions only, inputs after too: every item of the held node is taken when it is
        // asked for, as it never runs on its own
        ProbeConfig described;
        described.descOnly = true;
        inputs.time = DumpTime::Both;
        const auto headers = CapturePlan::build(topo, inputs, described, chains, carried);
        const auto range = headers->atEval[at(r.adds[1])];
        QVERIFY(range.first < range.second);
        for (uint32_t k = range.first; k < range.second; ++k)
            QVERIFY(headers->items[k].kind == ItemKind::Header && headers->items[k].early);

        // the pair the backend had no room for: cut apart though only the first norm is selected
        Selection only;
        only.rounds = Rounds::all();
        only.ids = OpIds::parse(topo->nodes[at(r.muls[0])].id);
        auto cut = carried;
        cut[1].carried = false;
        const auto held = CapturePlan::build(topo, only, conf, chains, carried);
        const auto apart = CapturePlan::build(topo, only, conf, chains, cut);
        QVERIFY(!held->selected[at(r.adds[1])] && !apart->selected[at(r.adds[1])]);
        QVERIFY(!held->ask[at(r.adds[1])]);
        QVERIFY(apart->ask[at(r.adds[1])]);
        ggml_gallocr_free(galloc);
        ggml_free(ctx);
    }

    void sharedItemsPointAtOneCopy_data()
    {
        QTest::addColumn<bool>("shareLive");
        QTest::newRow("one backend") << true;
        QTest::newRow("several backends") << false;
    }

    void sharedItemsPointAtOneCopy()
    {
        QFETCH(bool, shareLive);
        auto g = buildGraph();
        QVERIFY(g);
        auto topo = std::make_shared<const GraphTopology>(GraphTopology::build(g->gf));
        Selection sel;
        sel.rounds = Rounds::all();
        ProbeConfig c;
        c.tensors = true;
        const auto plan = CapturePlan::build(topo, sel, c);
        RoundCapture cap;
        cap.start(0, plan, false, shareLive);
        std::unordered_set<uint64_t> weights;
        for (size_t i = 0; i < plan->selected.size(); ++i) { // as node by node: before, then after
            cap.take(plan->atAsk[i].first, plan->atAsk[i].second, weights);
            cap.take(plan->atEval[i].first, plan->atEval[i].second, weights);
        }
        const CapturedRound r = cap.finish();
        int shared = 0;
        uint64_t copied = 0;
        std::map<uint64_t, int> offsets;
        for (size_t k = 0; k < plan->items.size(); ++k) {
            const PlanItem &it = plan->items[k];
            QVERIFY(r.at[k] != CapturedRound::kNotTaken);
            if (it.same >= 0 && shareLive) {
                QCOMPARE(r.at[k], r.at[size_t(it.same)]);
                ++shared;
            } else if (offsets.emplace(r.at[k], int(k)).second) {
                copied += it.bytes;
            }
        }
        QCOMPARE(r.arena.size(), size_t(copied)); // every other item copied once, in order
        if (shareLive)
            QVERIFY(shared >= 2); // the norm's output as the mul's input, x as the add's input
        else
            QCOMPARE(int(offsets.size()), int(plan->items.size()));
    }
};

QTEST_GUILESS_MAIN(TstCapturePlan)
#include "tst_captureplan.moc"
