// The ggml side of the probe: interposes ggml's scheduler so every graph compute is seen,
// chains the host's own eval callback, and hands the selected nodes to the writer thread.
// Nothing thrown crosses into the host; on any doubt the probe passes through and warns.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <dlfcn.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/dump/fusion_record.h"
#include "core/dump/topology.h"
#include "core/tensor/stats.h"
#include "core/util/hash.h"
#include "probe/capture.h"
#include "probe/fusion_rules.h"
#include "probe/ggml_api.h"
#include "probe/graph_snapshot.h"
#include "probe/inline_reader.h"
#include "probe/op_info.h"
#include "probe/op_params.h"
#include "probe/probe.h"
#include "probe/round_output.h"
#include "probe/weight_reads.h"

namespace llmscope::probe {
namespace {

// Every ggml function the probe needs, found in this process; warns once when not.
bool ggmlUsable(Probe &p)
{
    static const bool ok = [&p] {
        if (ggml().complete())
            return true;
        p.warn("could not resolve ggml's functions in this process (statically linked llama.cpp?); "
               "ggml's graphs pass through undumped");
        return false;
    }();
    return ok;
}

// Checked on the first tensor seen; threads that race here check the same thing twice.
bool checkLayout(Probe &p, const ggml_tensor *t)
{
    if (!p.layoutChecked()) {
        if (!layoutMatches(t))
            p.disable("ggml_tensor's layout differs from the headers the probe was built with");
        p.setLayoutChecked();
    }
    return p.active();
}

// The index of node t in the round's graph. The scheduler asks about the nodes in graph
// order and reports the last one asked for, so the next or the current position is tried
// before the hash lookup.
int nodeIndex(SchedState &s, const GraphTopology &topo, const ggml_tensor *t, bool ask)
{
    const size_t guess = size_t(ask ? s.cursor + 1 : s.cursor);
    if (guess < topo.nodes.size() && topo.nodes[guess].tensor == t)
        return s.cursor = int(guess);
    auto found = topo.indexOf.find(t);
    if (found == topo.indexOf.end())
        return -1;
    return s.cursor = found->second;
}

uint64_t outputHash(const ggml_tensor *t, std::vector<uint8_t> &buf)
{
    const GgmlApi &api = ggml();
    buf.resize(api.nbytes(t));
    api.tensorGet(t, buf.data(), 0, buf.size());
    return fnv1a(std::string_view(reinterpret_cast<const char *>(buf.data()), buf.size())) | 1; // never 0
}

// --watch: node n has just been computed. A watched op's output is hashed when it is computed,
// and compared again after every later node; the first node after which it differs is kept.
void watchAfter(SchedState &s, int n)
{
    static thread_local std::vector<uint8_t> buf;
    for (size_t w = 0; w < s.watched.size(); ++w) {
        const GraphNode &node = s.topo->nodes[size_t(s.watched[w])];
        if (s.watched[w] == n) {
            s.watchHash[w] = outputHash(node.tensor, buf);
        } else if (s.watchHash[w] && s.changedAfter[w] < 0 && outputHash(node.tensor, buf) != s.watchHash[w]) {
            s.changedAfter[w] = n;
        }
    }
}

// Node by node: the scheduler asks for each node; the probe asks for the selected ones (and
// the node before each that wants its inputs before execution, so those are computed) and
// copies their tensors as they pass. The user data is the scheduler's state, which lives
// until the scheduler is freed.
bool evalCallback(ggml_tensor *t, bool ask, void *user)
{
    Probe &p = Probe::get();
    SchedState *s = static_cast<SchedState *>(user);
    auto host = [&](bool a) { return s->hostCb ? s->hostCb(t, a, s->hostUd) : !a; };
    // cpu_profiling and --watch: every node asked for, so each is computed alone.
    const bool everyNode = s->mode.everyNode() && p.active() && s->topo;
    // Node by node is the only read that goes through here (the others install the host's).
    const bool reading = s->mode.read == RoundRead::NodeByNode && s->capture.active();
    int n = -1; // the node, looked up once
    if (everyNode) {
        n = nodeIndex(*s, *s->topo, t, ask);
        if (n >= 0 && !ask && s->mode.watch)
            watchAfter(*s, n);
        if (n >= 0 && s->mode.profile) { // from the node asked for to it computed, it alone
            const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
            if (ask)
                s->profAsked[size_t(n)] = now;
            else
                s->profNs[size_t(n)] = now - s->profAsked[size_t(n)];
        }
        if (!reading) {
            if (n < 0)
                return host(ask);
            if (ask) {
                s->hostAsked[size_t(n)] = host(true);
                return true;
            }
            return s->hostAsked[size_t(n)] ? host(false) : true;
        }
    }
    if (!p.active() || !reading)
        return host(ask);
    const CapturePlan &plan = s->capture.plan();
    const int i = everyNode ? n : nodeIndex(*s, *plan.topo, t, ask);
    if (i < 0)
        return host(ask);
    try {
        if (!checkLayout(p, t))
            return host(ask);
        const bool mine = plan.selected[size_t(i)];
        if (ask) {
            // Everything before node i is computed now (node i-1 was asked for when node i
            // needs its "before" tensors or early ones), so its inputs are intact.
            if (mine) {
                takeItems(p, *s, plan.atAsk[size_t(i)]);
                const auto [first, last] = plan.atEval[size_t(i)];
                for (uint32_t k = first; k < last; ++k)
                    if (plan.items[k].early)
                        takeItems(p, *s, {k, k + 1});
            }
            const bool h = host(true);
            s->hostAsked[size_t(i)] = h;
            return h || plan.ask[size_t(i)] || everyNode;
        }
        takeItems(p, *s, plan.atEval[size_t(i)]); // a selected node's, or a chain end's inner outputs
        if (i == s->lastAsked)
            p.handOver(*s);
    } catch (const std::exception &e) {
        p.disable(std::string("dump failed: ") + e.what());
    }
    if (ask)
        return host(true);
    return s->hostAsked[size_t(i)] ? host(false) : true;
}

// Whole graph: only the host's own callback runs; the probe notes where it stops a graph.
bool hostOnlyCallback(ggml_tensor *t, bool ask, void *user)
{
    SchedState *s = static_cast<SchedState *>(user);
    if (!s->hostCb)
        return !ask;
    const bool r = s->hostCb(t, ask, s->hostUd);
    if (!ask && !r && s->topo) {
        auto found = s->topo->indexOf.find(t);
        s->cancelledAfter = found == s->topo->indexOf.end() ? -2 : found->second;
    }
    return r;
}

// After the whole graph, where some tensors are not kept to its end (CapturePlan::postAsk): the
// scheduler ends its graph at the nodes the plan asks for, and at such a node's eval the probe
// reads those tensors now; the host's own callback is answered as hostOnlyCallback does.
bool postCallback(ggml_tensor *t, bool ask, void *user)
{
    Probe &p = Probe::get();
    SchedState *s = static_cast<SchedState *>(user);
    auto host = [&](bool a) { return s->hostCb ? s->hostCb(t, a, s->hostUd) : !a; };
    if (!p.active() || s->mode.read != RoundRead::AfterGraph || !s->capture.active())
        return host(ask);
    const CapturePlan &plan = s->capture.plan();
    const int i = nodeIndex(*s, *plan.topo, t, ask);
    if (i < 0) { // as hostOnlyCallback: a stop there ends what is read
        const bool r = host(ask);
        if (!ask && !r)
            s->cancelledAfter = -2;
        return r;
    }
    const bool mine = size_t(i) < plan.postAsk.size() && plan.postAsk[size_t(i)];
    if (ask) {
        const bool h = host(true);
        s->hostAsked[size_t(i)] = h;
        return h || mine;
    }
    if (mine) {
        try {
            for (const uint32_t k : plan.inGraphAt[size_t(i)])
                s->prefetch.hold(plan.items[k].tensor);
        } catch (const std::exception &e) {
            p.disable(std::string("dump failed: ") + e.what());
        }
    }
    if (!s->hostAsked[size_t(i)])
        return true;
    const bool r = host(false);
    if (!r)
        s->cancelledAfter = i;
    return r;
}

// The scheduler gets the probe's callback only for rounds read node by node; otherwise the
// host's own (or none: then ggml computes the graph without asking about each node).
void install(SchedState &s, ggml_backend_sched_t sched, ggml_backend_sched_eval_callback cb)
{
    if (s.installedCb == cb)
        return;
    s.installedCb = cb;
    void *ud = cb == s.hostCb ? s.hostUd : static_cast<void *>(&s);
    ggml().setEvalCallback(sched, cb, ud);
}

// A cheap fingerprint of a graph: when it repeats, the topology built for it still holds.
uint64_t graphKey(ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    const int n = api.graphNNodes(graph);
    uint64_t h = 1469598103934665603ull ^ uint64_t(n);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    for (int i = 0; i < n; ++i) {
        const ggml_tensor *t = api.graphNode(graph, i);
        mix(reinterpret_cast<uintptr_t>(t));
        mix(uint64_t(t->op));
        mix(reinterpret_cast<uintptr_t>(t->view_src));
        for (int d = 0; d < GGML_MAX_DIMS; ++d)
            mix(uint64_t(t->ne[d]));
    }
    return h;
}

void ensureTopology(SchedState &s, ggml_cgraph *graph)
{
    const uint64_t key = graphKey(graph);
    if (s.topo && key == s.topoKey)
        return;
    s.topo = std::make_shared<const GraphTopology>(GraphTopology::build(graph));
    s.topoKey = key;
    Probe::get().noteContext(contextSettings(graph)); // a new graph: once, not every round
    s.plan.reset();
}

// Rounds computed on a device, their results recorded when the host synchronizes the scheduler.
// A lock of their own, never held while calling ggml: ggml's scheduler calls the interposed
// synchronize itself, from calls the probe makes under the probe's lock.
class PendingOutputs {
public:
    struct Pending {
        int64_t round = -1;
        const ggml_tensor *node = nullptr;
    };
    void put(ggml_backend_sched_t sched, Pending p)
    {
        std::lock_guard lock(m_mutex);
        m_bySched[sched] = p;
    }
    Pending take(ggml_backend_sched_t sched)
    {
        std::lock_guard lock(m_mutex);
        auto it = m_bySched.find(sched);
        if (it == m_bySched.end())
            return {};
        const Pending p = it->second;
        m_bySched.erase(it);
        return p;
    }

private:
    std::mutex m_mutex;
    std::unordered_map<ggml_backend_sched_t, Pending> m_bySched;
};
PendingOutputs &pendingOutputs()
{
    static PendingOutputs *p = new PendingOutputs; // never freed: the host may synchronize at exit
    return *p;
}

bool dumpsAnything(const ProbeConfig &c)
{
    return c.tensors || c.stats || c.descOnly;
}

// --keep-fusion: the chains the scheduler's backends compute fused in the round's graph, and
// the results they carry past memory (fusion_rules.h); none without the option.
void fusedNodes(Probe &p, ggml_backend_sched_t sched, SchedState &s)
{
    const ProbeConfig &c = p.config();
    s.chains.clear();
    s.carried.clear();
    s.chainsJson.clear();
    s.chainBackends.clear();
    if (!c.keepFusion || !s.topo)
        return;
    const GgmlApi &api = ggml();
    std::vector<int> backendOf(s.topo->nodes.size(), -1);
    std::vector<FusingBackend> rules;
    if (const ggml_backend_t sole = api.soleBackend(sched)) {
        const char *name = api.backendName ? api.backendName(sole) : nullptr;
        s.chainBackends.push_back(name ? name : "");
        rules.push_back(name ? fusingBackend(name) : FusingBackend::None);
        std::fill(backendOf.begin(), backendOf.end(), 0);
    } else { // each node where the scheduler put it (the graph is allocated by now)
        for (size_t i = 0; i < backendOf.size(); ++i) {
            const char *name = api.nodeBackendName(sched, s.topo->nodes[i].tensor);
            if (!name)
                continue;
            const auto known = std::find(s.chainBackends.begin(), s.chainBackends.end(), name);
            backendOf[i] = int(known - s.chainBackends.begin());
            if (known == s.chainBackends.end()) {
                s.chainBackends.push_back(name);
                rules.push_back(fusingBackend(name));
                if (rules.back() == FusingBackend::None && remoteBackendUnnamed(name))
                    p.warn(std::string(name) +
                           ": the probe does not know which backend this RPC server computes "
                           "on, nor so which chains it fuses; each op is read as computed unfused. "
                           "Name it in the program's environment: LLMSCOPE_RPC_BACKEND=CPU "
                           "(or Vulkan0, CUDA0, as ggml-rpc-server lists its devices)");
            }
        }
    }
    s.chains = fusedChains(*s.topo, backendOf, rules);
    // each backend's buffer alignment (a Vulkan device's storage offset alignment), from a node
    // it computes
    std::vector<size_t> alignment(rules.size(), 0);
    for (size_t i = 0; i < backendOf.size() && api.bufferAlignment; ++i) {
        const ggml_tensor *t = s.topo->nodes[i].tensor;
        if (backendOf[i] >= 0 && !alignment[size_t(backendOf[i])] && t->buffer)
            alignment[size_t(backendOf[i])] = api.bufferAlignment(t->buffer);
    }
    s.carried = carriedResults(*s.topo, backendOf, rules, s.chains, alignment);
}

// The chains the plan leaves whole, as the fusion record holds them: each op's id, name, sources
// and parameters.
std::vector<FusedChainRecord> fusionRecords(const SchedState &s)
{
    std::vector<FusedChainRecord> records;
    for (const FusedChain &chain : s.chains) {
        FusedChainRecord r;
        const ChainInputs in = chainInputs(*s.topo, chain.first, chain.last);
        for (int k = chain.first; k <= chain.last; ++k) {
            const GraphNode &n = s.topo->nodes[size_t(k)];
            r.ids.push_back(n.id);
            r.names.push_back(n.name);
            r.params.push_back(opParamsJson(n.type, n.tensor));
            r.rawParams.push_back(opParamsBytes(n.tensor));
            std::vector<std::string> &src = r.sources.emplace_back();
            for (const int from : in.sources[size_t(k - chain.first)])
                src.push_back(from == kNoSource ? ""
                                  : from >= 0   ? "in" + std::to_string(from)
                                                : "op" + std::to_string(-1 - from));
        }
        r.types = chain.types;
        for (const int o : chain.outputs)
            r.outputs.push_back(s.topo->nodes[size_t(o)].id);
        r.backend = size_t(chain.backend) < s.chainBackends.size() ? s.chainBackends[size_t(chain.backend)] : "";
        records.push_back(std::move(r));
    }
    return records;
}

// llmscope/fusion/{pid}/{round}.json: the chains read at their last node this round. Their text
// is made once a plan (it costs as much as a decoded token's statistics otherwise).
void writeFusionRecord(Probe &p, SchedState &s)
{
    if (s.chains.empty() || !p.writer())
        return;
    if (s.chainsJson.empty())
        s.chainsJson = fusionChainsJson(fusionRecords(s));
    p.writer()->submitText(fusionRecordPath(::getpid(), s.round), fusionRecordJson(s.round, s.chainsJson));
}

// "CPU", or "CUDA0,CPU": the backends a scheduler computes on, for the app.
std::string backendNames(ggml_backend_sched_t sched)
{
    const GgmlApi &api = ggml();
    std::string names;
    if (!api.schedNBackends || !api.schedBackend || !api.backendName)
        return names;
    for (int b = 0; b < api.schedNBackends(sched); ++b)
        if (const char *n = api.backendName(api.schedBackend(sched, b)))
            names += (names.empty() ? "" : ",") + std::string(n);
    return names;
}

// The backends that compute the graph's nodes, first seen first (the graph is allocated by now).
std::vector<std::string> nodeBackends(ggml_backend_sched_t sched, const GraphTopology &topo)
{
    const GgmlApi &api = ggml();
    std::vector<std::string> names;
    if (const ggml_backend_t sole = api.soleBackend(sched)) {
        if (const char *n = api.backendName ? api.backendName(sole) : nullptr)
            names.push_back(n);
        return names;
    }
    for (const GraphNode &node : topo.nodes)
        if (const char *n = api.nodeBackendName(sched, node.tensor))
            if (std::find(names.begin(), names.end(), n) == names.end())
                names.push_back(n);
    return names;
}

// Tells the app a graph of new ops or shapes (the prompt's, then decode's): its groups and
// ops with ids, names, types, output shapes and dtypes. Returns the key it goes by.
uint64_t liveTopology(Probe &p, const ProbeConfig &c, SchedState &s, ggml_backend_sched_t sched, int64_t round)
{
    LiveChannel *l = p.live();
    if (!l || !s.topo)
        return 0;
    if (s.liveTopo == s.topo.get())
        return s.liveKey;
    s.liveTopo = s.topo.get();
    const GgmlApi &api = ggml();
    const GraphTopology &g = *s.topo;
    live::Topology t;
    t.round = round;
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](const std::string &v) {
        for (unsigned char c : v)
            h = (h ^ c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    };
    for (size_t gi = 0; gi < g.groups.size(); ++gi) {
        t.groups.push_back({std::to_string(gi), g.groups[gi].name, g.groups[gi].type, {}, ""});
        mix(g.groups[gi].name);
    }
    // With fusion kept, each op computed inside a chain says which, so the tree can show it while
    // the program runs (the chains of this graph, as the plan will read them).
    std::vector<const FusedChain *> chainOf(g.nodes.size(), nullptr);
    if (c.keepFusion) {
        fusedNodes(p, sched, s);
        for (const FusedChain &chain : s.chains)
            for (int k = chain.first; k <= chain.last; ++k)
                chainOf[size_t(k)] = &chain;
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode &n = g.nodes[i];
        live::TopoOp op{n.id, n.name, n.type, describe(n.tensor, false).dims, api.typeName(n.tensor->type)};
        if (const FusedChain *chain = chainOf[i]) {
            op.fusedChain = chain->types;
            op.fusedLast = g.nodes[size_t(chain->last)].id;
        }
        // The scheduler has assigned every node a backend by now (the graph is allocated).
        if (const char *name = api.nodeBackendName(sched, n.tensor))
            op.backend = name;
        for (int s = 0; s < GGML_MAX_SRC && n.tensor->src[s]; ++s) { // the layer graph's edges
            const auto src = g.indexOf.find(n.tensor->src[s]);
            if (src != g.indexOf.end())
                op.inputs.push_back({g.nodes[size_t(src->second)].id, g.nodes[size_t(src->second)].name});
            else
                op.inputs.push_back({"", programName(api.getName(n.tensor->src[s]))});
        }
        mix(op.id);
        mix(op.name);
        mix(op.type);
        mix(op.backend); // the same graph on other backends is news to the app too
        mix(op.fusedChain);
        for (int64_t d : op.shape)
            mix(std::to_string(d));
        t.ops.push_back(std::move(op));
    }
    t.key = h;
    if (h != s.liveKey) {
        s.liveKey = h;
        l->send(std::move(t));
    }
    return h;
}

// The CPU backend's thread count and pool as llama.cpp sets them before each graph, seen
// through the functions it looks up with ggml_backend_reg_get_proc_address.
struct CpuThreads {
    std::mutex mutex;
    std::unordered_map<ggml_backend_t, int> threads;
    void (*realSetNThreads)(ggml_backend_t, int) = nullptr;
    void (*realSetThreadpool)(ggml_backend_t, ggml_threadpool_t) = nullptr;
};
CpuThreads &cpuThreads()
{
    static CpuThreads *c = new CpuThreads;
    return *c;
}

// The thread count llama.cpp last set for the scheduler's only backend; 0 when not known.
int soleBackendThreads(ggml_backend_sched_t sched)
{
    const ggml_backend_t backend = ggml().soleBackend(sched);
    if (!backend)
        return 0;
    CpuThreads &ct = cpuThreads();
    std::lock_guard lock(ct.mutex);
    auto it = ct.threads.find(backend);
    return it == ct.threads.end() ? 0 : it->second;
}

bool readsInline(const ProbeConfig &c, ggml_backend_sched_t sched, bool atAlloc)
{
    if (c.read != ReadMode::Auto && c.read != ReadMode::Inline)
        return false;
    const int threads = soleBackendThreads(sched);
    // At the first allocation llama.cpp has not set the count yet: expect it to be one.
    return inlineUsable(sched, threads == 0 && atAlloc ? 1 : threads);
}

// Schedulers made with pipeline parallelism (several copies of each input, one per graph in
// flight): allocating advances the copy in use, so the probe never allocates for the host there.
class ParallelScheds {
public:
    void add(ggml_backend_sched_t sched)
    {
        std::lock_guard lock(m_mutex);
        m_scheds.push_back(sched);
    }
    void remove(ggml_backend_sched_t sched)
    {
        std::lock_guard lock(m_mutex);
        std::erase(m_scheds, sched);
    }
    bool has(ggml_backend_sched_t sched)
    {
        std::lock_guard lock(m_mutex);
        return std::find(m_scheds.begin(), m_scheds.end(), sched) != m_scheds.end();
    }

private:
    std::mutex m_mutex;
    std::vector<ggml_backend_sched_t> m_scheds;
};
ParallelScheds &parallelScheds()
{
    static ParallelScheds *p = new ParallelScheds; // never freed: schedulers may be freed at exit
    return *p;
}

// What preparing an allocation did: the host's allocation is still to be made (with the graph
// as it was, to find the scheduler's copies of inputs in after it), or the probe made it.
struct KeepOutcome {
    bool allocated = false;
    std::unique_ptr<GraphSnapshot> snapshot;
};

// --keep-fusion: whether flagging what the plan keeps as graph outputs (each tensor it reads and
// its view's root) would unfuse a chain the probe does not model: Vulkan's TOPK_QSA refuses a
// flag on any of its nodes, its TOP_K end included; CUDA's GATED_DELTA_NET writes into the cache
// fused only when it is no output. backendOf names the backend that computes a node.
template <typename BackendOf>
bool flagUnfuses(const CapturePlan &plan, BackendOf backendOf)
{
    auto unfuses = [&](const ggml_tensor *t) {
        if (t->op != GGML_OP_TOP_K && t->op != GGML_OP_GATED_DELTA_NET)
            return false;
        const FusingBackend b = backendOf(t);
        return (t->op == GGML_OP_TOP_K && b == FusingBackend::Vulkan) ||
            (t->op == GGML_OP_GATED_DELTA_NET && b == FusingBackend::Cuda);
    };
    for (const PlanItem &it : plan.items) {
        if (it.kind != ItemKind::Data)
            continue;
        const ggml_tensor *t = it.kvRows ? it.cells : it.tensor;
        if (unfuses(t) || (t->view_src && unfuses(t->view_src)))
            return true;
    }
    return false;
}

// Flags the plan's tensors as graph outputs and has the scheduler plan its memory again.
bool markAndReserve(Probe &p, ggml_backend_sched_t sched, ggml_cgraph *graph, const std::vector<ggml_tensor *> &keep,
                    const GraphSnapshot *snapshot)
{
    const GgmlApi &api = ggml();
    std::vector<ggml_tensor *> marked;
    for (ggml_tensor *t : keep)
        if (!(t->flags & GGML_TENSOR_FLAG_OUTPUT)) {
            t->flags |= GGML_TENSOR_FLAG_OUTPUT;
            marked.push_back(t);
        }
    if (marked.empty())
        return true;
    // Flags set after the scheduler planned its memory change nothing until it plans again.
    bool reserved = api.schedReserve(sched, graph);
    if (snapshot)
        snapshot->restore();
    if (!reserved) {
        for (ggml_tensor *t : marked)
            t->flags &= ~GGML_TENSOR_FLAG_OUTPUT;
        api.schedReserve(sched, graph);
        if (snapshot)
            snapshot->restore();
        p.warn("no memory to keep the selected tensors until the graph ends; reading them node by node");
    }
    return reserved;
}

// Keeps what the plan reads after the whole graph, where it can: not over the memory allowed,
// not where a flag would unfuse a chain. True when the scheduler has planned with them kept.
template <typename BackendOf>
bool keepPlan(Probe &p, ggml_backend_sched_t sched, ggml_cgraph *graph, const CapturePlan &plan, BackendOf backendOf,
              const GraphSnapshot *snapshot)
{
    const ProbeConfig &c = p.config();
    // Keeping every wanted tensor grows the compute buffer by their size, so a long prompt is
    // read node by node instead, which keeps nothing (docs/performance.md has the memory).
    if (!plan.post || (c.read == ReadMode::Auto && plan.postBytes > c.keepBytes))
        return false;
    const auto keep = plan.tensorsToKeep();
    if (!plan.flagsKeepChains(keep) || (c.keepFusion && flagUnfuses(plan, backendOf)))
        return false;
    return markAndReserve(p, sched, graph, keep, snapshot);
}

// Before the scheduler allocates a new graph for a round the selection dumps: the tensors to
// be read after the whole graph are marked as graph outputs, and the scheduler re-plans its
// memory so that none of them is overwritten by a later node. Graphs reused by the host keep
// that plan; rounds on graphs allocated without it are read node by node.
void keepForRound(Probe &p, ggml_backend_sched_t sched, SchedState &s, ggml_cgraph *graph, KeepOutcome &out)
{
    const GgmlApi &api = ggml();
    const ProbeConfig &c = p.config();
    ++s.allocs;
    s.copySources.clear();
    // A graph the scheduler allocates inside its compute (the host never called alloc_graph):
    // that round was set up already and is read node by node.
    if (s.computeOpen || !dumpsAnything(c) || !api.schedReserve || !api.schedSynchronize)
        return;
    auto sel = p.selectionForRound(p.upcomingRound());
    if (!sel->selectsRound(p.upcomingRound()) || !sel->selectsDevice(0) || c.read == ReadMode::Node ||
        c.read == ReadMode::Inline || readsInline(c, sched, true))
        return;
    if (const ggml_backend_t sole = api.soleBackend(sched)) {
        ensureTopology(s, graph);
        fusedNodes(p, sched, s);
        const char *name = api.backendName ? api.backendName(sole) : nullptr;
        const FusingBackend rules = name ? fusingBackend(name) : FusingBackend::None;
        const auto plan = CapturePlan::build(s.topo, *sel, c, s.chains, s.carried);
        if (keepPlan(
                p, sched, graph, *plan, [rules](const ggml_tensor *) { return rules; }, nullptr)) {
            s.keptAlloc = s.allocs;
            s.keptSelection = sel.get();
        }
        return;
    }
    // Several backends: which backend computes each node (what fuses, which inputs cross to
    // another backend) is known once the scheduler has split the graph. It is allocated once
    // as the host asks, to see that; then the graph is put back, planned with the tensors
    // flagged, and put back again for the host's own allocation.
    if (parallelScheds().has(sched) || !api.schedReset || !api.schedSetTensorBackend || !api.graphNodes ||
        !api.schedTensorBackend) {
        if (c.read == ReadMode::Graph)
            p.warn("--read graph cannot keep tensors on this scheduler (pipeline parallel, or an older ggml): "
                   "reading node by node");
        return;
    }
    out.snapshot = std::make_unique<GraphSnapshot>(sched, graph);
    if (!out.snapshot->usable()) {
        out.snapshot.reset();
        return;
    }
    if (!api.schedAllocGraph(sched, graph)) {
        out.snapshot->restore();
        out.snapshot.reset();
        return; // the host's own call meets the same failure
    }
    out.allocated = true; // from here on, a failure leaves the host this allocation
    ensureTopology(s, graph);
    fusedNodes(p, sched, s);
    const CopySources copies = out.snapshot->copySources();
    // the nodes whose flag alone unfuses them (flagUnfuses), with their backends: resetting the
    // scheduler forgets them
    std::unordered_map<const ggml_tensor *, FusingBackend> backends;
    for (const GraphNode &n : s.topo->nodes)
        if (n.tensor->op == GGML_OP_TOP_K || n.tensor->op == GGML_OP_GATED_DELTA_NET)
            if (const char *name = api.nodeBackendName(sched, n.tensor))
                backends.emplace(n.tensor, fusingBackend(name));
    out.snapshot->restore(); // unallocated again: what the allocator places is known, and no two
    out.allocated = false; // tensors share an address by reuse (the size kept is not undercounted)
    const auto plan = CapturePlan::build(s.topo, *sel, c, s.chains, s.carried, &copies);
    auto backendOf = [&backends](const ggml_tensor *t) {
        const auto b = backends.find(t);
        return b == backends.end() ? FusingBackend::None : b->second;
    };
    if (!keepPlan(p, sched, graph, *plan, backendOf, out.snapshot.get())) {
        out.snapshot.reset();
        return;
    }
    s.keptAlloc = s.allocs;
    s.keptSelection = sel.get();
}

void prepareRound(Probe &p, ggml_backend_sched_t sched, SchedState &s, ggml_cgraph *graph)
{
    const ProbeConfig &c = p.config();
    p.handOver(s); // whatever the last round left (a cancelled graph ends early)
    pendingOutputs().take(sched); // a device round's result the host never waited for: its memory is the new graph's
    s.round = p.takeRound();
    std::vector<int32_t> sequences;
    auto positions = p.followTokens(s.round, graph, sequences); // recorded every round; golden's with --follow-tokens
    if (p.liveWanted())
        p.startLive("ggml", backendNames(sched));
    s.selection = p.selectionForRound(s.round);
    const Selection &sel = *s.selection;
    const bool chosen = sel.selectsRound(s.round) && sel.selectsDevice(0) && sel.selectsSequences(sequences);
    if (!sel.sequences.empty() && sequences.empty() && sel.selectsRound(s.round))
        p.warn("-seq: some rounds' sequences are unknown (the program fed embeddings, or decodes without "
               "libllama's llama_decode); they are not dumped");
    const bool dumping = dumpsAnything(c) && chosen;
    const OpInfoWanted info{c.opInfo, c.kernelInfo, c.tiling};
    const bool infoRound = info.any() && chosen;
    s.mode = RoundMode{RoundRead::None, c.cpuProfiling && chosen, !c.watch.empty() && chosen};
    const bool everyNode = s.mode.everyNode();
    s.asked = 0;
    s.lastAsked = -1;
    s.cursor = -1;
    s.cancelledAfter = -1;
    if (!dumping) {
        install(s, sched, s.hostCb);
        if (p.topologyWritten() && !p.live() && !infoRound && !everyNode) {
            p.noteRound(s.round, false, 0, 0);
            return;
        }
    }
    ensureTopology(s, graph);
    const uint64_t liveKey = liveTopology(p, c, s, sched, s.round);
    if (!dumping && p.topologyWritten() && !infoRound && !everyNode) { // the app follows the graph's shape
        p.noteRound(s.round, false, s.topo->nodes.size(), 0, false, false, liveKey);
        return;
    }
    if (!s.plan || s.planSelection != &sel || s.planAlloc != s.allocs) {
        fusedNodes(p, sched, s);
        const bool kept = s.keptAlloc == s.allocs && s.keptSelection == &sel;
        s.plan = CapturePlan::build(s.topo, sel, c, s.chains, s.carried, kept ? &s.copySources : nullptr);
        if (dumping && s.plan->unreadable)
            p.warn("some selected tensors lie in memory ggml cannot read back (weights repacked for this CPU, e.g. "
                   "AMX or CPU_REPACK buffers); they are described, not dumped (llmscope_skipped=unreadable_buffer)");
        s.planSelection = &sel;
        s.planAlloc = s.allocs;
    }
    if (dumping && s.backendsNoted != s.topo.get()) {
        p.noteBackends(nodeBackends(sched, *s.topo));
        s.backendsNoted = s.topo.get();
    }
    const CapturePlan &plan = *s.plan;
    const size_t n = plan.selected.size();
    if (s.mode.profile) { // every node is asked for, timed alone
        s.profAsked.assign(n, 0);
        s.profNs.assign(n, -1);
    }
    s.watched.clear();
    if (s.mode.watch) {
        for (size_t i = 0; i < n; ++i)
            if (c.watch.matches(s.topo->nodes[i].id, false))
                s.watched.push_back(int(i));
        s.watchHash.assign(s.watched.size(), 0);
        s.changedAfter.assign(s.watched.size(), -1);
    }
    if (dumping) {
        const bool post =
            plan.post && s.keptAlloc == s.allocs && s.keptSelection == &sel && !everyNode && plan.keptWhole();
        s.mode.read = post                               ? RoundRead::AfterGraph
            : !everyNode && readsInline(c, sched, false) ? RoundRead::Inline
                                                         : RoundRead::NodeByNode;
        // Sharing bytes read earlier needs every write to be a node's: not with several backends
        // (the scheduler copies inputs across), nor with the program's own eval callback, which
        // sees each tensor after the probe and could change it.
        s.capture.start(s.round, s.plan, post, ggml().soleBackend(sched) && !s.hostCb, std::move(positions));
        s.prefetch.clear();
        if (post && !plan.postAsk.empty()) {
            s.hostAsked.assign(n, 0);
            for (size_t i = 0; i < n; ++i)
                s.asked += plan.postAsk[i] != 0;
            install(s, sched, postCallback);
        } else if (post) {
            install(s, sched, s.hostCb ? hostOnlyCallback : nullptr);
        } else if (s.mode.read == RoundRead::Inline) {
            install(s, sched, s.hostCb); // the scheduler computes the graph as without the probe
        } else {
            s.hostAsked.assign(n, 0);
            for (size_t i = 0; i < n; ++i)
                if (plan.ask[i]) {
                    ++s.asked;
                    s.lastAsked = int(i);
                }
            install(s, sched, evalCallback);
        }
    } else if (everyNode) {
        s.hostAsked.assign(n, 0);
        install(s, sched, evalCallback);
    }
    if (infoRound)
        writeOpInfo(p, sched, plan, s.round, info);
    if (dumping)
        writeFusionRecord(p, s);
    if (c.topology && p.claimTopology()) {
        const TopoNode model = s.topo->toModel();
        const std::string pid = std::to_string(::getpid());
        p.writer()->submitText("model/" + pid + "/" + model.name + ".json", writeModelTopology(model));
        for (const TopoNode &op : model.children)
            p.writer()->submitText("layer/" + pid + "/" + op.name + ".json", writeLayerTopology(op));
    }
    uint64_t selected = 0;
    for (char x : plan.selected)
        selected += x != 0;
    // node by node, the nodes asked for: the scheduler ends its graph at each
    p.noteRound(s.round, dumping, n, selected, s.mode.read == RoundRead::AfterGraph, s.mode.read == RoundRead::Inline,
                liveKey, s.mode.read != RoundRead::Inline ? s.asked : 0);
}

// cpu_profiling/{pid}/operation_statistic_{round}.csv: each selected node that ran, as
// "{OP}_{id}", and the host time from the scheduler asking for it to it computed, alone (us).
void writeProfile(Probe &p, const SchedState &s)
{
    if (!s.plan || !s.topo)
        return;
    std::string csv = "opname,execute_us\n";
    for (size_t i = 0; i < s.topo->nodes.size() && i < s.profNs.size(); ++i)
        if (s.plan->selected[i] && s.profNs[i] >= 0) {
            const GraphNode &n = s.topo->nodes[i];
            char us[32];
            std::snprintf(us, sizeof us, "%.3f", double(s.profNs[i]) / 1000.0);
            csv += n.type + "_" + n.id + "," + us + "\n";
        }
    p.writer()->submitText("cpu_profiling/" + std::to_string(::getpid()) + "/operation_statistic_" +
                               std::to_string(s.round) + ".csv",
                           csv);
}

// A CSV field: quoted when it holds a comma, a quote or a line break (a tensor's name may).
std::string csvField(const std::string &v)
{
    if (v.find_first_of(",\"\n\r") == std::string::npos)
        return v;
    std::string q = "\"";
    for (char c : v)
        q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' || c == '\r' ? ' ' : c);
    return q + "\"";
}

// watch/{pid}/watch_{round}.csv: each watched op and the first node after which its output
// changed (empty: it held until the graph ended); changes go into the status too.
void writeWatch(Probe &p, const SchedState &s)
{
    std::string csv = "watched_op,watched_name,changed_after_op,changed_after_name,changed_after_type\n";
    for (size_t w = 0; w < s.watched.size(); ++w) {
        const GraphNode &n = s.topo->nodes[size_t(s.watched[w])];
        csv += n.id + "," + csvField(n.name) + ",";
        if (s.changedAfter[w] >= 0) {
            const GraphNode &a = s.topo->nodes[size_t(s.changedAfter[w])];
            csv += a.id + "," + csvField(a.name) + "," + a.type;
            p.noteWatchChange("round " + std::to_string(s.round) + ": " + n.id + " " + n.name + " changed after " +
                              a.id + " " + a.name + " (" + a.type + ")");
        } else {
            csv += ",,";
        }
        csv += "\n";
    }
    p.writer()->submitText("watch/" + std::to_string(::getpid()) + "/watch_" + std::to_string(s.round) + ".csv", csv);
}

// Whether a dumped round's graph ended before its last node: the program's abort callback (an
// error status; inline, ggml-cpu stopping) or its eval callback cancelling the graph.
bool endedEarly(const SchedState &s, ggml_status status)
{
    if (status != GGML_STATUS_SUCCESS || s.cancelledAfter != -1)
        return true;
    if (s.mode.read == RoundRead::Inline)
        return s.inlineStopped;
    // Node by node, a round hands itself over at its last asked node: still open, it ended
    // before that node.
    return s.mode.read == RoundRead::NodeByNode && s.lastAsked >= 0 && s.capture.active();
}

// A post round: the graph has run whole; every wanted tensor is read now.
void readAfterGraph(Probe &p, ggml_backend_sched_t sched, SchedState &s)
{
    ggml().schedSynchronize(sched);
    const CapturePlan &plan = s.capture.plan();
    if (!plan.topo->nodes.empty() && !checkLayout(p, plan.topo->nodes.front().tensor))
        return;
    // A graph the host stopped early: only what ran.
    const size_t nodes = s.cancelledAfter == -1 ? plan.selected.size() : size_t(std::max(s.cancelledAfter + 1, 0));
    s.prefetch.fetch(sched, plan, nodes, s.weightsSent);
    s.capture.setPrefetch(&s.prefetch);
    for (size_t i = 0; i < nodes; ++i) { // a node not selected has none, but a chain end its inner outputs
        takeItems(p, s, plan.atAsk[i]);
        takeItems(p, s, plan.atEval[i]);
    }
    s.capture.setPrefetch(nullptr);
    s.prefetch.clear();
    p.handOver(s);
}

// The round's own result, its graph's last node (dump/output_record.h): recorded now where the
// compute has ended (the CPU computes synchronously; a round read after the graph was
// synchronized), else when the host synchronizes the scheduler.
void noteRoundOutput(Probe &p, ggml_backend_sched_t sched, int64_t round, ggml_cgraph *graph, const RoundMode &mode)
{
    const GgmlApi &api = ggml();
    const int n = api.graphNNodes(graph);
    const ggml_tensor *last = n > 0 ? api.graphNode(graph, n - 1) : nullptr;
    if (!last)
        return;
    try {
        if (mode.read == RoundRead::AfterGraph || computesSynchronously(sched)) {
            if (mode.read == RoundRead::AfterGraph)
                api.schedSynchronize(sched); // read after it next: the wait is the round's anyway
            recordRoundOutput(p, round, last);
            return;
        }
    } catch (const std::exception &e) {
        p.warn(std::string("could not record round ") + std::to_string(round) + "'s result: " + e.what());
        return;
    }
    pendingOutputs().put(sched, {round, last});
}

void setNThreads(ggml_backend_t backend, int n)
{
    CpuThreads &c = cpuThreads();
    {
        std::lock_guard lock(c.mutex);
        c.threads[backend] = n;
    }
    c.realSetNThreads(backend, n);
}

void setThreadpool(ggml_backend_t backend, ggml_threadpool_t pool)
{
    if (pool)
        Probe::get().setHostPool(); // the host brought its own: leave it alone
    cpuThreads().realSetThreadpool(backend, pool);
}

// Asking for many nodes splits the graph into one compute per node; without a persistent
// pool the CPU backend starts its threads for each of them (GGML.md: a 100x collapse with 2
// threads). llama.cpp resets the backend's pool before every graph, so attach ours each time,
// sized to the thread count llama.cpp just set. With one thread there is no thread to start,
// but ggml would still set up and free a pool for every node.
void attachThreadpool(Probe &p, ggml_backend_sched_t sched, SchedState &s)
{
    if (!p.config().threadpool || p.hostPool() || s.asked < 2)
        return;
    const GgmlApi &api = ggml();
    const GgmlCpuApi &cpu = ggmlCpu();
    if (!cpu.complete() || !api.schedNBackends || !api.schedBackend)
        return;
    CpuThreads &ct = cpuThreads();
    for (int b = 0; b < api.schedNBackends(sched); ++b) {
        ggml_backend_t backend = api.schedBackend(sched, b);
        if (!backend || !cpu.isCpu(backend))
            continue;
        int threads = 0;
        {
            std::lock_guard lock(ct.mutex);
            auto it = ct.threads.find(backend);
            threads = it == ct.threads.end() ? 0 : it->second;
        }
        if (threads < 1)
            continue;
        if (s.pool && s.poolThreads != threads) {
            cpu.threadpoolFree(s.pool);
            s.pool = nullptr;
        }
        if (!s.pool) {
            ggml_threadpool_params params = cpu.paramsDefault(threads);
            s.pool = cpu.threadpoolNew(&params);
            s.poolThreads = threads;
            if (!s.pool)
                return;
        }
        ct.realSetThreadpool ? ct.realSetThreadpool(backend, s.pool) : cpu.setThreadpool(backend, s.pool);
    }
}

} // namespace

std::vector<int> cpuThreadCounts()
{
    CpuThreads &c = cpuThreads();
    std::lock_guard lock(c.mutex);
    std::vector<int> counts;
    for (const auto &[backend, n] : c.threads)
        counts.push_back(n);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}
} // namespace llmscope::probe

using namespace llmscope::probe;

#define LLMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

LLMSCOPE_EXPORT void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
                                                          ggml_backend_sched_eval_callback cb, void *ud)
{
    const GgmlApi &api = ggml();
    if (!api.setEvalCallback)
        return; // nothing to forward to: cannot happen in a process that uses ggml
    Probe &p = Probe::get();
    if (!p.active() || !ggmlUsable(p)) {
        api.setEvalCallback(sched, cb, ud);
        return;
    }
    std::lock_guard lock(p.mutex);
    SchedState &s = p.scheds()[sched];
    s.hostCb = cb;
    s.hostUd = ud;
    // The host's choice until a round needs the probe's: each graph compute decides.
    s.installedCb = cb;
    api.setEvalCallback(sched, cb, ud);
}

LLMSCOPE_EXPORT bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    if (!api.schedAllocGraph)
        return false; // nothing to forward to: cannot happen in a process that uses ggml
    Probe &p = Probe::get();
    // A device round's result the host never waited for: its graph is rebuilt by now, and the
    // probe's reserve would synchronize and record it from the new graph's tensor.
    pendingOutputs().take(sched);
    KeepOutcome kept;
    if (p.active() && ggmlUsable(p)) {
        try {
            std::lock_guard lock(p.mutex);
            auto it = p.scheds().find(sched);
            if (it != p.scheds().end())
                keepForRound(p, sched, it->second, graph, kept);
        } catch (const std::exception &e) {
            p.disable(std::string("graph preparation failed: ") + e.what());
        }
    }
    if (kept.allocated)
        return true;
    const bool allocated = api.schedAllocGraph(sched, graph);
    if (allocated && kept.snapshot) {
        std::lock_guard lock(p.mutex);
        auto it = p.scheds().find(sched);
        if (it != p.scheds().end())
            it->second.copySources = kept.snapshot->copySources();
    }
    return allocated;
}

LLMSCOPE_EXPORT ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t *backends, ggml_backend_buffer_type_t *bufts,
                                                            int n_backends, size_t graph_size, bool parallel,
                                                            bool op_offload)
{
    using Fn = ggml_backend_sched_t (*)(ggml_backend_t *, ggml_backend_buffer_type_t *, int, size_t, bool, bool);
    static const Fn real = reinterpret_cast<Fn>(findRealSymbol("ggml_backend_sched_new"));
    if (!real)
        return nullptr; // nothing to forward to: cannot happen in a process that uses ggml
    ggml_backend_sched_t sched = real(backends, bufts, n_backends, graph_size, parallel, op_offload);
    if (sched && parallel)
        parallelScheds().add(sched);
    return sched;
}

// The cores this process may run on (its affinity, e.g. under taskset), else the online ones.
long usableCores()
{
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return ::sysconf(_SC_NPROCESSORS_ONLN);
}

// True when the scheduler's CPU backend runs as many threads as there are cores: the probe's
// writer thread would then take a core from the graph.
bool crowdsCores(ggml_backend_sched_t sched)
{
    static const long cores = usableCores();
    const GgmlApi &api = ggml();
    if (!api.schedNBackends || !api.schedBackend)
        return false;
    CpuThreads &ct = cpuThreads();
    std::lock_guard lock(ct.mutex);
    for (int b = 0; b < api.schedNBackends(sched); ++b) {
        auto it = ct.threads.find(api.schedBackend(sched, b));
        if (it != ct.threads.end() && it->second > 1 && it->second >= cores)
            return true;
    }
    return false;
}

LLMSCOPE_EXPORT ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    Probe &p = Probe::get();
    SchedState *round = nullptr; // a state this thread touches outside the lock until the graph ends
    int64_t roundNo = -1; // the round's number, for its result
    RoundMode mode;
    SchedState *opened = nullptr; // computeOpen set: cleared when the compute returns
    if (p.active() && ggmlUsable(p)) {
        try {
            std::lock_guard lock(p.mutex);
            auto it = p.scheds().find(sched);
            if (it != p.scheds().end()) {
                SchedState &s = it->second;
                s.computeOpen = true;
                opened = &s;
                prepareRound(p, sched, s, graph);
                roundNo = s.round;
                mode = s.mode;
                if (mode.touchesDuringGraph()) {
                    round = &s;
                    s.computing.store(std::this_thread::get_id(), std::memory_order_release);
                }
                if (mode.dumping() && mode.read != RoundRead::AfterGraph)
                    attachThreadpool(p, sched, s);
                if (mode.read == RoundRead::Inline)
                    inlineRoundBegin(s);
            }
        } catch (const std::exception &e) {
            p.disable(std::string("topology failed: ") + e.what());
        }
    }
    WriterThread *writer = p.active() ? p.writer() : nullptr;
    if (writer)
        writer->graphStarted(crowdsCores(sched));
    const ggml_status status = api.graphComputeAsync(sched, graph);
    if (opened) {
        std::lock_guard lock(p.mutex);
        opened->computeOpen = false;
    }
    if (writer)
        writer->graphEnded();
    if (roundNo >= 0 && status == GGML_STATUS_SUCCESS && p.active())
        noteRoundOutput(p, sched, roundNo, graph, mode);
    if (!round)
        return status;
    SchedState &s = *round;
    try {
        if (mode.read == RoundRead::Inline) {
            if (inlineRoundEnd(p, s))
                p.handOver(s);
            else
                p.dropRound(s);
        } else if (mode.read == RoundRead::AfterGraph && p.active()) {
            if (status == GGML_STATUS_SUCCESS)
                readAfterGraph(p, sched, s);
            else
                p.handOver(s);
        }
    } catch (const std::exception &e) {
        p.disable(std::string("dump failed: ") + e.what());
    }
    if (mode.dumping() && p.active() && endedEarly(s, status))
        p.noteStopped(s.round);
    if (!mode.everyNode()) {
        s.computing.store({}, std::memory_order_release);
        return status;
    }
    std::lock_guard lock(p.mutex);
    s.computing.store({}, std::memory_order_release);
    if (p.active()) {
        try {
            if (mode.profile)
                writeProfile(p, s);
            if (mode.watch)
                writeWatch(p, s);
        } catch (const std::exception &e) {
            p.disable(std::string("cpu profiling failed: ") + e.what());
        }
    }
    return status;
}

// The host waits for its scheduler here (llama.cpp, before it reads the logits): a round
// computed on a device has ended, and its result is recorded before the host goes on.
LLMSCOPE_EXPORT void ggml_backend_sched_synchronize(ggml_backend_sched_t sched)
{
    const GgmlApi &api = ggml();
    if (!api.schedSynchronize)
        return; // nothing to forward to: cannot happen in a process that uses ggml
    api.schedSynchronize(sched);
    Probe &p = Probe::get();
    if (!p.active())
        return;
    const auto pending = pendingOutputs().take(sched);
    if (pending.round < 0)
        return;
    try {
        recordRoundOutput(p, pending.round, pending.node);
    } catch (const std::exception &e) {
        p.warn(std::string("could not record round ") + std::to_string(pending.round) + "'s result: " + e.what());
    }
}

// Each backend compute of a scheduler's graph (a split, or the stretch between two nodes the
// host's callback asks for): rounds read inline follow the CPU backend's nodes here.
LLMSCOPE_EXPORT ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, ggml_cgraph *graph)
{
    using Fn = ggml_status (*)(ggml_backend_t, ggml_cgraph *);
    static const Fn real = reinterpret_cast<Fn>(findRealSymbol("ggml_backend_graph_compute_async"));
    if (!real)
        return GGML_STATUS_FAILED; // nothing to forward to: cannot happen in a process that uses ggml
    return inlineBackendCompute(backend, graph, real);
}

LLMSCOPE_EXPORT void ggml_backend_sched_free(ggml_backend_sched_t sched)
{
    const GgmlApi &api = ggml();
    Probe &p = Probe::get();
    ggml_threadpool_t pool = nullptr;
    {
        std::lock_guard lock(p.mutex);
        auto it = p.scheds().find(sched);
        if (it != p.scheds().end()) {
            pool = it->second.pool;
            p.handOver(it->second); // what a round cut short took, as at exit
            p.scheds().erase(it);
        }
    }
    pendingOutputs().take(sched);
    parallelScheds().remove(sched);
    if (api.schedFree)
        api.schedFree(sched);
    if (pool)
        ggmlCpu().threadpoolFree(pool);
}

// A buffer freed (a model's weights, a scheduler's compute memory): the writer may be reading
// a weight of it for its statistics (weight_reads.h), and never reads one after.
LLMSCOPE_EXPORT void ggml_backend_buffer_free(ggml_backend_buffer_t buffer)
{
    using Fn = void (*)(ggml_backend_buffer_t);
    static const Fn real = reinterpret_cast<Fn>(findRealSymbol("ggml_backend_buffer_free"));
    if (buffer) {
        const GgmlApi &api = ggml();
        // A buffer made of others frees its parts inside ggml, where the probe may not see it.
        WeightReads::get().freeing(buffer, api.bufferIsMulti && api.bufferIsMulti(buffer));
    }
    if (real)
        real(buffer);
}

// A model file mapped into memory holds its weights, which the writer may still have to read
// (llama.cpp frees the buffers over it first; another program may not). An allocator may call
// this holding its own locks: nothing here allocates unless weights are pending, and the next
// munmap (a sanitizer's, libc's) is found when the probe loads, not here.
namespace {
using Munmap = int (*)(void *, size_t);
const Munmap g_realMunmap = reinterpret_cast<Munmap>(dlsym(RTLD_NEXT, "munmap"));
} // namespace

LLMSCOPE_EXPORT int munmap(void *addr, size_t length)
{
#if !defined(__SANITIZE_THREAD__)
    WeightReads::unmapping(addr, length);
#else
    // ThreadSanitizer's symbolizer unmaps memory while it writes a report, holding the runtime's
    // locks: the registry's instrumented code would enter the runtime again and wait on them for
    // ever. Its builds test the registry directly (tst_weightreads), not through this.
    (void)addr;
#endif
    if (g_realMunmap)
        return g_realMunmap(addr, length);
    return int(::syscall(SYS_munmap, addr, length)); // before the probe's own initialisation
}

// llama.cpp finds the CPU backend's thread and pool setters through this lookup; the probe
// hands back wrappers that remember what was set, then call the real ones.
LLMSCOPE_EXPORT void *ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char *name)
{
    const GgmlApi &api = ggml();
    if (!api.regGetProcAddress)
        return nullptr;
    void *fn = api.regGetProcAddress(reg, name);
    if (!fn || !name || !Probe::get().active())
        return fn;
    CpuThreads &c = cpuThreads();
    std::lock_guard lock(c.mutex);
    if (std::strcmp(name, "ggml_backend_set_n_threads") == 0 &&
        (!c.realSetNThreads || c.realSetNThreads == reinterpret_cast<decltype(c.realSetNThreads)>(fn))) {
        c.realSetNThreads = reinterpret_cast<decltype(c.realSetNThreads)>(fn);
        return reinterpret_cast<void *>(&setNThreads);
    }
    if (std::strcmp(name, "ggml_backend_set_abort_callback") == 0 && dumpsAnything(Probe::get().config()))
        return wrapSetAbortCallback(fn);
    if (std::strcmp(name, "ggml_backend_cpu_set_threadpool") == 0 &&
        (!c.realSetThreadpool || c.realSetThreadpool == reinterpret_cast<decltype(c.realSetThreadpool)>(fn))) {
        c.realSetThreadpool = reinterpret_cast<decltype(c.realSetThreadpool)>(fn);
        return reinterpret_cast<void *>(&setThreadpool);
    }
    return fn;
}
