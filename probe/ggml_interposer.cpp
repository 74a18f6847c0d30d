// The preload side: interposes ggml's scheduler so every graph compute is seen, chains the
// host's own eval callback, and dumps the selected nodes through core's writer. Nothing
// thrown crosses into the host; on any doubt the probe passes through and warns once.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include "dump/dump_writer.h"
#include "dump/topology.h"
#include "ggml_api.h"
#include "graph_topology.h"
#include "probe_config.h"
#include "tensor/stats.h"

namespace llmscope::probe {
namespace {

void warn(const std::string &msg)
{
    std::fprintf(stderr, "[llmscope] %s\n", msg.c_str());
}

struct SchedState {
    ggml_backend_sched_eval_callback hostCb = nullptr;
    void *hostUd = nullptr;
    GraphTopology topo;
    int64_t round = -1;
    bool dumping = false;         // this round is selected
    std::vector<char> selected;   // per node
    std::vector<char> hostAsked;  // per node: the host asked for it too
};

class Probe {
public:
    static Probe &get()
    {
        static Probe p;
        return p;
    }
    bool active() const { return m_active.load(std::memory_order_relaxed); }
    void disable(const std::string &why)
    {
        if (m_active.exchange(false))
            warn(why + "; passing everything through from now on");
    }
    const ProbeConfig &config() const { return m_config; }
    std::mutex mutex;
    std::unordered_map<ggml_backend_sched_t, SchedState> scheds;
    std::atomic<int64_t> nextRound{0};
    bool topologyWritten = false;
    bool layoutChecked = false;

    DumpWriter *writer()
    {
        if (!m_writer) {
            DumpWriter::Options o;
            o.root = m_config.root;
            o.warn = warn;
            m_writer = std::make_unique<DumpWriter>(o);
        }
        return m_writer.get();
    }

private:
    Probe() : m_config(readProbeConfig())
    {
        if (!m_config.error.empty())
            warn("invalid setting (" + m_config.error + "); the probe stays inactive");
        if (m_config.active && !ggml().complete()) {
            warn("could not resolve ggml's functions in this process (statically linked llama.cpp?); "
                 "the probe stays inactive");
            m_config.active = false;
        }
        m_active = m_config.active;
    }
    ProbeConfig m_config;
    std::atomic<bool> m_active{false};
    std::unique_ptr<DumpWriter> m_writer;
};

int32_t aclDtype(ggml_type t)
{
    switch (t) {
    case GGML_TYPE_F32: return 0;
    case GGML_TYPE_F16: return 1;
    case GGML_TYPE_BF16: return 27;
    case GGML_TYPE_I8: return 2;
    case GGML_TYPE_I16: return 6;
    case GGML_TYPE_I32: return 3;
    case GGML_TYPE_I64: return 9;
    case GGML_TYPE_F64: return 11;
    default: return -1;
    }
}

size_t elementSize(ggml_type t)
{
    switch (aclDtype(t)) {
    case 0: case 3: return 4;
    case 1: case 27: case 6: return 2;
    case 2: return 1;
    case 9: case 11: return 8;
    default: return 0;
    }
}

// Builds the msit tensor for t: dims outermost first, payload dense, engine types raw.
Tensor capture(const ggml_tensor *t, bool wantData, bool wantStats)
{
    const GgmlApi &api = ggml();
    Tensor out;
    int nd = GGML_MAX_DIMS;
    while (nd > 1 && t->ne[nd - 1] == 1)
        --nd;
    for (int d = nd - 1; d >= 0; --d)
        out.dims.push_back(t->ne[d]);
    const int32_t acl = aclDtype(t->type);
    if (!wantData && !wantStats) {
        out.dtype = acl >= 0 ? acl : 4;
        if (acl < 0)
            out.setAttr(kEngineDTypeAttr, api.typeName(t->type));
        return out;
    }
    const size_t span = api.nbytes(t);
    std::vector<uint8_t> raw(span);
    if (t->data && span)
        api.tensorGet(t, raw.data(), 0, span);
    if (acl < 0) {
        // ggml's own block types keep their bytes and their own name.
        out.dtype = 4;
        out.setAttr(kEngineDTypeAttr, api.typeName(t->type));
        out.setAttr(kEngineDimsAttr, joinDims(out.dims));
        out.dims = {static_cast<int64_t>(span)};
        out.data = std::move(raw);
    } else {
        out.dtype = acl;
        const size_t es = elementSize(t->type);
        if (api.isContiguous(t)) {
            raw.resize(size_t(api.nelements(t)) * es);
            out.data = std::move(raw);
        } else {
            out.data.resize(size_t(api.nelements(t)) * es);
            uint8_t *dst = out.data.data();
            for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
                for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
                    for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                        for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                            std::memcpy(dst, raw.data() + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3], es);
                            dst += es;
                        }
        }
    }
    out.hasData = true;
    if (!wantData) {
        setStatsAttrs(out, acl >= 0 ? computeStats(out) : std::nullopt);
        out.hasData = false;
        out.data.clear();
    }
    return out;
}

bool layoutMatches(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    int64_t n = 1;
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        n *= t->ne[d];
    return api.getName(t) == t->name && api.nelements(t) == n;
}

void writeSide(Probe &p, SchedState &s, int i, bool before, bool inputs)
{
    const ProbeConfig &c = p.config();
    const GraphNode &node = s.topo.nodes[size_t(i)];
    const bool data = c.tensors && !c.descOnly;
    const bool stats = c.stats && !c.descOnly && !data;
    const auto folders = s.topo.folders(i);
    if (inputs) {
        for (int k = 0; k < GGML_MAX_SRC && node.tensor->src[k]; ++k)
            p.writer()->writeTensor(0, getpid(), s.round, folders, before, true, k,
                                    capture(node.tensor->src[k], data, stats));
    } else {
        p.writer()->writeTensor(0, getpid(), s.round, folders, before, false, 0, capture(node.tensor, data, stats));
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
    const Selection &sel = p.config().selection;
    try {
        if (!p.layoutChecked) {
            p.layoutChecked = true;
            if (!layoutMatches(t)) {
                p.disable("ggml_tensor's layout differs from the headers the probe was built with");
                return host(ask);
            }
        }
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
    } catch (const std::exception &e) {
        p.disable(std::string("dump failed: ") + e.what());
    }
    return s->hostAsked[size_t(i)] ? host(false) : true;
}

void prepareRound(Probe &p, SchedState &s, ggml_cgraph *graph)
{
    const ProbeConfig &c = p.config();
    s.round = p.nextRound++;
    s.dumping = (c.tensors || c.stats || c.descOnly) && c.selection.selectsRound(s.round) &&
                c.selection.selectsDevice(0);
    if (!s.dumping && p.topologyWritten) {
        s.topo = {};
        return;
    }
    s.topo = GraphTopology::build(graph);
    const size_t n = s.topo.nodes.size();
    s.selected.assign(n, 0);
    s.hostAsked.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const GraphNode &node = s.topo.nodes[i];
        if (node.kvCache && !c.kvCache)
            continue;
        const GraphGroup &g = s.topo.groups[size_t(node.group)];
        s.selected[i] = c.selection.selectsOp(node.id, node.type) ||
                        (c.selection.child && !c.selection.opNames.empty() &&
                         c.selection.selectsOp(std::to_string(node.group), g.type));
    }
    if (c.topology && !p.topologyWritten) {
        p.topologyWritten = true;
        const TopoNode model = s.topo.toModel();
        const std::string pid = std::to_string(getpid());
        p.writer()->writeText("model/" + pid + "/" + model.name + ".json", writeModelTopology(model));
        for (const TopoNode &op : model.children)
            p.writer()->writeText("layer/" + pid + "/" + op.name + ".json", writeLayerTopology(op));
    }
}

} // namespace
} // namespace llmscope::probe

using namespace llmscope::probe;

extern "C" {

__attribute__((visibility("default"))) void
ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback cb, void *ud)
{
    const GgmlApi &api = ggml();
    if (!api.setEvalCallback)
        return; // nothing to forward to: cannot happen in a process that uses ggml
    Probe &p = Probe::get();
    if (!p.active()) {
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

__attribute__((visibility("default"))) ggml_status
ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    Probe &p = Probe::get();
    if (p.active()) {
        try {
            std::lock_guard lock(p.mutex);
            auto it = p.scheds.find(sched);
            if (it != p.scheds.end())
                prepareRound(p, it->second, graph);
        } catch (const std::exception &e) {
            p.disable(std::string("topology failed: ") + e.what());
        }
    }
    return api.graphComputeAsync(sched, graph);
}

} // extern "C"
