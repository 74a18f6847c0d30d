// The capture plan on a real ggml graph, allocated by ggml's own allocator: which tensors read
// during the graph share bytes taken earlier in the round (PlanItem::same), and which may not
// because a node wrote over them in between (an op computed in place over its input).
#include <QTest>

#include <map>
#include <memory>
#include <tuple>
#include <unordered_set>

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml.h>

#include "capture_plan.h"
#include "ggml_api.h"
#include "graph_topology.h"
#include "round_capture.h"

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
