#include "probe/inline_reader.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "probe/capture.h"
#include "probe/ggml_api.h"
#include "probe/probe.h"

namespace llmscope::probe {
namespace {

using SetAbort = void (*)(ggml_backend_t, ggml_abort_callback, void *);

// One CPU backend whose abort callback the probe answers.
struct CpuHook {
    ggml_abort_callback hostCb = nullptr;
    void *hostData = nullptr;
    // While a round is read inline on this backend (touched by the computing thread only):
    SchedState *round = nullptr;
    std::vector<ggml_tensor *> nodes; // the backend's graph
    std::vector<ggml_tensor *> marked; // nodes flagged as outputs for the call
    std::vector<int> computed; // the nodes it computes, in order, then nodes.size()
    size_t pos = 0; // computed[pos]: the node being computed
    int base = 0; // topology index of nodes[0]
    int next = 0; // the node whose tensors after execution are due next
    int calls = 0, expected = 0;
    bool stopped = false; // the host's callback stopped the graph
};

struct Hooks {
    std::mutex mutex;
    std::unordered_map<ggml_backend_t, CpuHook *> byBackend; // never freed: callbacks may come late
    SetAbort realSet = nullptr;
};
Hooks &hooks()
{
    static Hooks *h = new Hooks;
    return *h;
}

std::atomic<bool> g_broken{false}; // a count mismatch was seen: read other ways from now on
thread_local SchedState *t_round = nullptr; // the round this thread's scheduler computes inline

CpuHook *hookOf(ggml_backend_t backend)
{
    Hooks &h = hooks();
    std::lock_guard lock(h.mutex);
    auto it = h.byBackend.find(backend);
    return it == h.byBackend.end() ? nullptr : it->second;
}

// ggml-cpu's rule for the nodes it computes (and calls the abort callback after).
bool computes(const ggml_tensor *t)
{
    return writesData(t) && (t->flags & GGML_TENSOR_FLAG_COMPUTE) != 0;
}

// Everything due before node g of the backend's graph runs (all before it has run): the
// nodes before it that are not computed (views of what is final) whole, and g's tensors
// before execution with the inputs it may compute over in place.
void prepare(CpuHook &h, SchedState &s, int g)
{
    Probe &p = Probe::get();
    const CapturePlan &plan = s.capture.plan();
    for (; h.next < g; ++h.next) {
        const size_t i = size_t(h.base + h.next);
        takeItems(p, s, plan.atAsk[i]); // empty for a node not selected (a chain end: its inner outputs)
        takeItems(p, s, plan.atEval[i]);
    }
    if (g < int(h.nodes.size())) {
        const size_t i = size_t(h.base + g);
        if (plan.selected[i]) {
            takeItems(p, s, plan.atAsk[i]);
            const auto [first, last] = plan.atEval[i];
            for (uint32_t k = first; k < last; ++k)
                if (plan.items[k].early)
                    takeItems(p, s, {k, k + 1});
        }
    }
}

// Runs a step of reading; a failure (the disk, memory) turns the probe off, never the program.
template <class Step>
bool guarded(Probe &p, Step &&step)
{
    try {
        step();
        return true;
    } catch (const std::exception &e) {
        p.disable(std::string("dump failed: ") + e.what());
        return false;
    }
}

// Node h.next has run: its tensors after execution are taken, and the walk moves on.
void finished(Probe &p, CpuHook &h)
{
    const size_t i = size_t(h.base + h.next);
    const CapturePlan &plan = h.round->capture.plan();
    takeItems(p, *h.round, plan.atEval[i]); // a chain end not selected may hold its inner outputs
    ++h.next;
    h.pos = std::min(h.pos + 1, h.computed.size() - 1);
}

// ggml-cpu, after each node it computed (with one thread, everything of it is written).
bool nodeDone(void *data)
{
    CpuHook &h = *static_cast<CpuHook *>(data);
    if (h.round)
        ++h.calls; // every call counts: one too many shows as a mismatch
    Probe &p = Probe::get();
    const bool reading = h.round && h.next < int(h.nodes.size()) && p.active();
    if (reading && !guarded(p, [&] { finished(p, h); }))
        h.round = nullptr;
    const bool stop = h.hostCb && h.hostCb(h.hostData);
    h.stopped = h.stopped || stop;
    // The next node's inputs only when it will run: a stopped round holds what ran.
    if (reading && h.round && !stop && !guarded(p, [&] { prepare(h, *h.round, h.computed[h.pos]); }))
        h.round = nullptr;
    return stop;
}

// The round cannot be read inline: nothing it took is trusted, and later rounds are read the
// other ways.
void fail(Probe &p, SchedState &s, const std::string &what)
{
    s.inlineFailed = true;
    g_broken.store(true);
    p.warn(what + " in round " + std::to_string(s.round) +
           "; that round is not dumped, and later rounds are read another way");
}

void setAbortCallback(ggml_backend_t backend, ggml_abort_callback cb, void *data)
{
    Hooks &h = hooks();
    CpuHook *hook = nullptr;
    {
        std::lock_guard lock(h.mutex);
        CpuHook *&slot = h.byBackend[backend];
        if (!slot)
            slot = new CpuHook;
        hook = slot;
        hook->hostCb = cb;
        hook->hostData = data;
    }
    h.realSet(backend, nodeDone, hook);
}

} // namespace

void *wrapSetAbortCallback(void *real)
{
    Hooks &h = hooks();
    std::lock_guard lock(h.mutex);
    if (h.realSet && h.realSet != reinterpret_cast<SetAbort>(real))
        return real; // a second CPU backend variant: leave it alone
    h.realSet = reinterpret_cast<SetAbort>(real);
    return reinterpret_cast<void *>(&setAbortCallback);
}

bool inlineUsable(ggml_backend_sched_t sched, int threads)
{
    const GgmlCpuApi &cpu = ggmlCpu();
    if (g_broken.load() || threads != 1 || !cpu.isCpu)
        return false;
    const ggml_backend_t backend = ggml().soleBackend(sched);
    return backend && cpu.isCpu(backend) && hookOf(backend);
}

void inlineRoundBegin(SchedState &s)
{
    s.inlineNext = 0;
    s.inlineFailed = false;
    s.inlineStopped = false;
    t_round = &s;
}

bool inlineRoundEnd(Probe &p, SchedState &s)
{
    t_round = nullptr;
    if (!s.inlineFailed && !s.inlineStopped && s.inlineNext != int(s.capture.plan().topo->nodes.size()))
        fail(p, s, "ggml's CPU backend did not compute the whole graph");
    return !s.inlineFailed;
}

ggml_status inlineBackendCompute(ggml_backend_t backend, ggml_cgraph *graph,
                                 ggml_status (*real)(ggml_backend_t, ggml_cgraph *))
{
    SchedState *s = t_round;
    Probe &p = Probe::get();
    CpuHook *h = s && !s->inlineFailed && !s->inlineStopped && p.active() ? hookOf(backend) : nullptr;
    if (!h)
        return real(backend, graph);
    const GgmlApi &api = ggml();
    const GraphTopology &topo = *s->capture.plan().topo;
    h->nodes.clear();
    const int n = api.graphNNodes(graph);
    for (int j = 0; j < n; ++j)
        h->nodes.push_back(api.graphNode(graph, j));
    // The backend's graph must be the next stretch of the round's graph, in order.
    bool inOrder = s->inlineNext + n <= int(topo.nodes.size());
    for (int j = 0; inOrder && j < n; ++j)
        inOrder = topo.nodes[size_t(s->inlineNext + j)].tensor == h->nodes[size_t(j)];
    if (!inOrder) {
        fail(p, *s, "ggml's CPU backend was given the graph's nodes out of order");
        return real(backend, graph);
    }
    h->base = s->inlineNext;
    h->next = 0;
    h->calls = 0;
    h->expected = 0;
    h->stopped = false;
    h->marked.clear();
    h->computed.clear();
    const std::vector<int> &fusedInto = s->capture.plan().fusedInto;
    for (int j = 0; j < n; ++j) {
        ggml_tensor *t = h->nodes[size_t(j)];
        // --keep-fusion: a chain's inner nodes are computed with its last, one callback for all
        if (!fusedInto.empty() && fusedInto[size_t(h->base + j)] >= 0)
            continue;
        if (computes(t)) {
            ++h->expected;
            h->computed.push_back(j);
            if (!(t->flags & GGML_TENSOR_FLAG_OUTPUT)) { // no fusing: one callback per node
                t->flags |= GGML_TENSOR_FLAG_OUTPUT;
                h->marked.push_back(t);
            }
        }
    }
    h->computed.push_back(n);
    h->pos = 0;
    h->round = s;
    if (!guarded(p, [&] { prepare(*h, *s, h->computed[0]); }))
        h->round = nullptr;
    const ggml_status status = real(backend, graph);
    h->round = nullptr;
    for (ggml_tensor *t : h->marked)
        t->flags &= ~GGML_TENSOR_FLAG_OUTPUT;
    if (h->stopped || status != GGML_STATUS_SUCCESS) {
        s->inlineStopped = true; // what ran is taken; the rest never ran
    } else if (h->calls != h->expected) {
        fail(p, *s,
             "ggml's CPU backend reported " + std::to_string(h->calls) + " computed nodes where the probe expected " +
                 std::to_string(h->expected));
    } else if (p.active()) {
        guarded(p, [&] { prepare(*h, *s, n); }); // nodes after the last computed one
        s->inlineNext += n;
    }
    return status;
}

} // namespace llmscope::probe
