// The ggml side of the probe: interposes ggml's scheduler so every graph compute is seen,
// chains the host's own eval callback, and hands the selected nodes to the writer thread.
// Nothing thrown crosses into the host; on any doubt the probe passes through and warns.
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "capture.h"
#include "dump/topology.h"
#include "ggml_api.h"
#include "probe.h"
#include "tensor/stats.h"

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

bool layoutMatches(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    int64_t n = 1;
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        n *= t->ne[d];
    return api.getName(t) == t->name && api.nelements(t) == n;
}

// Hands one tensor to the writer: a header, statistics (weights from the cache), or a payload.
void submitTensor(Probe &p, SchedState &s, int node, const ggml_tensor *t, bool before, bool input, int index)
{
    const ProbeConfig &c = p.config();
    TensorJob job;
    job.round = s.round;
    job.folders = s.topo.folders(node);
    job.before = before;
    job.input = input;
    job.index = index;
    const bool payload = c.tensors && !c.descOnly;
    const bool stats = c.stats && !c.descOnly && !payload;
    job.csv = stats && c.statsCsv;
    job.opType = s.topo.nodes[size_t(node)].type;
    if (stats && isWeight(t)) {
        if (auto cached = p.weightStats(t)) {
            job.tensor = std::move(*cached);
        } else {
            Tensor full = capture(t, Capture::Payload);
            setStatsAttrs(full, aclDtype(t->type) >= 0 ? computeStats(full) : std::nullopt);
            full.hasData = false;
            full.data.clear();
            p.rememberWeightStats(t, full);
            job.tensor = std::move(full);
        }
    } else if (!c.kvCache && isKvCache(t)) {
        // An input that is a view of the KV cache: described, not copied, unless asked for.
        job.tensor = capture(t, Capture::Header);
        job.tensor.setAttr("llmscope_skipped", "kv_cache");
    } else if (stats) {
        job.tensor = capture(t, aclDtype(t->type) >= 0 ? Capture::Payload : Capture::Header);
        job.statsOnly = true;
    } else {
        job.tensor = capture(t, payload ? Capture::Payload : Capture::Header);
        job.addStats = payload && c.stats && aclDtype(t->type) >= 0;
    }
    s.pendingBytes += job.tensor.data.size() + 256;
    s.pending.push_back(std::move(job));
    if (s.pendingBytes > (16u << 20))
        p.handOver(s);
}

void writeSide(Probe &p, SchedState &s, int i, bool before, bool inputs)
{
    const ggml_tensor *t = s.topo.nodes[size_t(i)].tensor;
    if (inputs) {
        for (int k = 0; k < GGML_MAX_SRC && t->src[k]; ++k)
            submitTensor(p, s, i, t->src[k], before, true, k);
    } else {
        submitTensor(p, s, i, t, before, false, 0);
    }
}

bool wantsAny(const Selection &sel, bool before)
{
    return sel.wantsTensor(before, true) || sel.wantsTensor(before, false);
}

bool evalCallback(ggml_tensor *t, bool ask, void *user)
{
    auto sched = static_cast<ggml_backend_sched_t>(user);
    Probe &p = Probe::get();
    SchedState *s = nullptr;
    {
        std::lock_guard lock(p.mutex);
        auto it = p.scheds.find(sched);
        if (it == p.scheds.end())
            return !ask;
        s = &it->second;
    }
    auto host = [&](bool a) { return s->hostCb ? s->hostCb(t, a, s->hostUd) : !a; };
    auto found = s->topo.indexOf.find(t);
    if (!p.active() || !s->dumping || found == s->topo.indexOf.end())
        return host(ask);
    const int i = found->second;
    const Selection &sel = *s->selection;
    try {
        bool layoutOk = true;
        std::call_once(p.layoutOnce, [&] {
            if (!layoutMatches(t)) {
                layoutOk = false;
                p.disable("ggml_tensor's layout differs from the headers the probe was built with");
            }
        });
        if (!layoutOk || !p.active())
            return host(ask);
        const bool mine = s->selected[size_t(i)];
        const bool nextWantsBefore = size_t(i + 1) < s->selected.size() && s->selected[size_t(i + 1)] &&
                                     wantsAny(sel, true);
        if (ask) {
            // Everything before node i is computed now (node i-1 was asked for when node i
            // needs its "before" tensors), so its inputs are intact.
            if (mine && sel.wantsTensor(true, true))
                writeSide(p, *s, i, true, true);
            if (mine && sel.wantsTensor(true, false))
                writeSide(p, *s, i, true, false);
            const bool h = host(true);
            s->hostAsked[size_t(i)] = h;
            return h || (mine && wantsAny(sel, false)) || nextWantsBefore;
        }
        if (mine && sel.wantsTensor(false, true))
            writeSide(p, *s, i, false, true);
        if (mine && sel.wantsTensor(false, false))
            writeSide(p, *s, i, false, false);
        if (i == s->lastAsked)
            p.handOver(*s);
    } catch (const std::exception &e) {
        p.disable(std::string("dump failed: ") + e.what());
    }
    if (ask)
        return host(true);
    return s->hostAsked[size_t(i)] ? host(false) : true;
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

void prepareRound(Probe &p, SchedState &s, ggml_cgraph *graph)
{
    const ProbeConfig &c = p.config();
    p.handOver(s); // whatever the last round left (a cancelled graph ends early)
    s.round = p.nextRound++;
    s.selection = p.selectionForRound();
    const Selection &sel = *s.selection;
    s.dumping = (c.tensors || c.stats || c.descOnly) && sel.selectsRound(s.round) && sel.selectsDevice(0);
    s.asked = 0;
    s.lastAsked = -1;
    if (!s.dumping && p.topologyWritten) {
        p.noteRound(s.round, false, 0, 0);
        return;
    }
    const uint64_t key = graphKey(graph);
    const bool same = key == s.topoKey && !s.topo.nodes.empty();
    if (!same) {
        s.topo = GraphTopology::build(graph);
        s.topoKey = key;
    }
    const size_t n = s.topo.nodes.size();
    if (!same || s.topoSelection != &sel) {
        s.topoSelection = &sel;
        s.selected.assign(n, 0);
        for (size_t i = 0; i < n; ++i) {
            const GraphNode &node = s.topo.nodes[i];
            if (node.kvCache && !c.kvCache)
                continue;
            const GraphGroup &g = s.topo.groups[size_t(node.group)];
            s.selected[i] = sel.selectsOp(node.id, node.type) ||
                            (sel.child && !sel.opNames.empty() && sel.selectsOp(std::to_string(node.group), g.type));
        }
    }
    s.hostAsked.assign(n, 0);
    if (s.dumping)
        for (size_t i = 0; i < n; ++i)
            if (s.selected[i] || (i + 1 < n && s.selected[i + 1])) {
                ++s.asked;
                s.lastAsked = int(i);
            }
    if (c.topology && !p.topologyWritten) {
        p.topologyWritten = true;
        const TopoNode model = s.topo.toModel();
        const std::string pid = std::to_string(::getpid());
        p.writer()->submitText("model/" + pid + "/" + model.name + ".json", writeModelTopology(model));
        for (const TopoNode &op : model.children)
            p.writer()->submitText("layer/" + pid + "/" + op.name + ".json", writeLayerTopology(op));
    }
    uint64_t selected = 0;
    for (char x : s.selected)
        selected += x != 0;
    p.noteRound(s.round, s.dumping, n, selected);
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
        Probe::get().hostPool = true; // the host brought its own: leave it alone
    cpuThreads().realSetThreadpool(backend, pool);
}

// Asking for many nodes splits the graph into one compute per node; without a persistent
// pool the CPU backend starts its threads for each of them (GGML.md: a 100x collapse with 2
// threads). llama.cpp resets the backend's pool before every graph, so attach ours each time,
// sized to the thread count llama.cpp just set. With one thread there is nothing to start.
void attachThreadpool(Probe &p, ggml_backend_sched_t sched, SchedState &s)
{
    if (!p.config().threadpool || p.hostPool || s.asked < 2)
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
        if (threads < 2)
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
    {
        std::lock_guard lock(p.mutex);
        SchedState &s = p.scheds[sched];
        s.hostCb = cb;
        s.hostUd = ud;
    }
    api.setEvalCallback(sched, evalCallback, sched);
}

LLMSCOPE_EXPORT ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    Probe &p = Probe::get();
    if (p.active() && ggmlUsable(p)) {
        try {
            std::lock_guard lock(p.mutex);
            auto it = p.scheds.find(sched);
            if (it != p.scheds.end()) {
                prepareRound(p, it->second, graph);
                if (it->second.dumping)
                    attachThreadpool(p, sched, it->second);
            }
        } catch (const std::exception &e) {
            p.disable(std::string("topology failed: ") + e.what());
        }
    }
    return api.graphComputeAsync(sched, graph);
}

LLMSCOPE_EXPORT void ggml_backend_sched_free(ggml_backend_sched_t sched)
{
    const GgmlApi &api = ggml();
    Probe &p = Probe::get();
    ggml_threadpool_t pool = nullptr;
    {
        std::lock_guard lock(p.mutex);
        auto it = p.scheds.find(sched);
        if (it != p.scheds.end()) {
            pool = it->second.pool;
            p.scheds.erase(it);
        }
    }
    if (api.schedFree)
        api.schedFree(sched);
    if (pool)
        ggmlCpu().threadpoolFree(pool);
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
    if (std::strcmp(name, "ggml_backend_cpu_set_threadpool") == 0 &&
        (!c.realSetThreadpool || c.realSetThreadpool == reinterpret_cast<decltype(c.realSetThreadpool)>(fn))) {
        c.realSetThreadpool = reinterpret_cast<decltype(c.realSetThreadpool)>(fn);
        return reinterpret_cast<void *>(&setThreadpool);
    }
    return fn;
}
