#include "probe/capture_plan.h"

#include <map>
#include <unordered_map>

#include "probe/capture.h"
#include "probe/fusion_rules.h"
#include "probe/ggml_api.h"
#include "probe/kv_rows.h"

namespace llmscope::probe {
namespace {

uint64_t weightKey(const ggml_tensor *t)
{
    return uint64_t(reinterpret_cast<uintptr_t>(t)) * 0x9E3779B97F4A7C15ull ^
        uint64_t(reinterpret_cast<uintptr_t>(t->data));
}

const ggml_tensor *rootOf(const ggml_tensor *t)
{
    return t->view_src ? t->view_src : t;
}

// A node that computes into another tensor's memory (in-place ops, copies and row writes
// into a view): its root changes after earlier nodes have read it.
bool writesIntoView(const ggml_tensor *t)
{
    return t->view_src && writesData(t);
}

// Whether the memory of a and b overlaps (both allocated).
bool overlaps(const ggml_tensor *a, const ggml_tensor *b)
{
    const auto *x = static_cast<const char *>(a->data), *y = static_cast<const char *>(b->data);
    return x < y + ggml().nbytes(b) && y < x + ggml().nbytes(a);
}

// Whether node t may have been computed into src's memory. Unknown before allocation: maybe.
bool mayComputeOver(const ggml_tensor *t, const ggml_tensor *src)
{
    if (writesIntoView(t))
        return false; // a write into a view changes its root: read that after the write
    return !t->data || !src->data || overlaps(t, src);
}

// Ops that may write memory other than their own output's: nothing is shared across them.
bool writesAnywhere(const ggml_tensor *t)
{
    switch (t->op) {
    case GGML_OP_CUSTOM:
    case GGML_OP_MAP_CUSTOM1:
    case GGML_OP_MAP_CUSTOM2:
    case GGML_OP_MAP_CUSTOM3:
    case GGML_OP_OPT_STEP_ADAMW:
    case GGML_OP_OPT_STEP_SGD: return true;
    default: return false;
    }
}

// Whether node m writes over t's memory (or may: unallocated, or writing anywhere).
bool overwrites(const GraphTopology &g, size_t m, const ggml_tensor *t)
{
    const ggml_tensor *w = g.nodes[m].tensor;
    return writesData(w) && (!w->data || writesAnywhere(w) || overlaps(w, t));
}

bool sameElements(const ggml_tensor *a, const ggml_tensor *b)
{
    if (a->data != b->data || a->type != b->type)
        return false;
    const GgmlApi &api = ggml();
    if (api.isContiguous(a) && api.isContiguous(b))
        return api.nelements(a) == api.nelements(b);
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        if (a->ne[d] != b->ne[d] || a->nb[d] != b->nb[d])
            return false;
    return true;
}

// Sets `same` for items read during the graph. An item of node i is taken before node i runs
// (tensors before execution, inputs it may compute over) or after it: at time 2i or 2i+1;
// node m writes its output between 2m and 2m+1. Items farther apart than a few
// dozen nodes are not worth the search.
void linkSameBytes(CapturePlan &plan, const GraphTopology &g)
{
    constexpr int kMaxWindow = 64;
    auto time = [](const PlanItem &it) { return 2 * it.node + (it.before || it.early ? 0 : 1); };
    std::map<std::pair<const void *, const void *>, int> last; // buffer and address -> latest item there
    for (size_t k = 0; k < plan.items.size(); ++k) {
        PlanItem &it = plan.items[k];
        if (it.kind != ItemKind::Data || it.kvRows || !it.tensor->data || (it.before && !it.input) || it.late)
            continue; // an output before its node runs holds nothing meaningful; a cache's rows are their own
        auto [pos, added] =
            last.try_emplace(std::pair<const void *, const void *>{it.tensor->buffer, it.tensor->data}, int(k));
        if (added)
            continue;
        const int j = pos->second;
        pos->second = int(k);
        const PlanItem &src = plan.items[size_t(j)];
        const int tj = time(src), tk = time(it);
        const int from = (tj + 1) / 2, to = (tk - 1) / 2; // the nodes that run in between
        if (tj > tk || to - from >= kMaxWindow || !sameElements(src.tensor, it.tensor))
            continue;
        bool intact = true;
        for (int m = from; intact && m <= to; ++m)
            intact = !overwrites(g, size_t(m), it.tensor);
        if (intact)
            it.same = j;
    }
}

} // namespace

namespace {

// Builds a plan phase by phase: which nodes are selected, which tensors each wants and how
// each is read, which share their bytes, and at which nodes to ask for them.
struct PlanBuilder {
    CapturePlan &plan;
    const GraphTopology &g;
    const Selection &sel;
    const ProbeConfig &c;
    const CopySources *copies = nullptr;
    std::unordered_map<const ggml_tensor *, int> lastWriter{}; // a root's memory -> the last node writing into it

    bool innerOutput(size_t i) const { return i < plan.innerOutputs.size() && plan.innerOutputs[i]; }
    bool held(size_t i) const { return i < plan.heldTo.size() && plan.heldTo[i] >= 0; }

    // Where each carried result is read: at the node its backend carries it to. Its reader is
    // not asked for before then, so that node's own inputs, wanted before it runs, are taken
    // after it has run too: where a node between writes over any of them (or over the result),
    // both are read at their own nodes, as any other.
    void holdCarried(const std::vector<CarriedResult> &carried)
    {
        // outputs wanted before they are computed: every selected node is cut before anyway
        const bool outputsBefore = sel.wantsTensor(true, false);
        for (const CarriedResult &r : carried) {
            if (r.from < 0 || r.to <= r.from || size_t(r.to) >= g.nodes.size())
                continue;
            if (!r.carried) {
                plan.cutAfter.resize(g.nodes.size(), 0);
                plan.cutAfter[size_t(r.from)] = 1;
                continue;
            }
            bool intact = !outputsBefore;
            for (const ggml_tensor *x : chainInputs(g, r.from + 1, r.to).external)
                for (int m = r.from + 1; intact && m <= r.to; ++m)
                    intact = x->data && !overwrites(g, size_t(m), x);
            if (intact) {
                plan.heldTo.resize(g.nodes.size(), -1);
                heldFrom.resize(g.nodes.size(), -1);
                plan.heldTo[size_t(r.from)] = r.to;
                heldFrom[size_t(r.to)] = r.from;
            }
        }
    }
    // Per node: the held node read at it, -1 for none.
    std::vector<int> heldFrom{};
    bool holds(size_t i) const { return i < heldFrom.size() && heldFrom[i] >= 0; }

    // The first node of the chain node i ends, or i where it ends none.
    size_t chainFirst(size_t i) const
    {
        size_t first = i;
        while (!plan.fusedInto.empty() && first > 0 && plan.fusedInto[first - 1] == int(i))
            --first;
        return first;
    }

    void selectNodes()
    {
        const size_t n = g.nodes.size();
        plan.selected.assign(n, 0);
        for (size_t i = 0; i < n; ++i) {
            const GraphNode &node = g.nodes[i];
            if (node.kvCache && !c.kvCache && !isCacheWrite(node.tensor))
                continue; // the cache and views of it: --kv-cache; the rows a write puts there: always
            const std::string groupId = std::to_string(node.group);
            const Selection::OpRef path[] = {{groupId, g.groups[size_t(node.group)].type}, {node.id, node.type}};
            plan.selected[i] =
                sel.selectsOpPath(path) && (plan.fusedInto.empty() || plan.fusedInto[i] < 0 || innerOutput(i));
        }
        // The last node writing into each root's memory, for deciding what is intact at the end.
        for (size_t i = 0; i < n; ++i)
            if (writesIntoView(g.nodes[i].tensor))
                lastWriter[rootOf(g.nodes[i].tensor)] = int(i);
    }

    void chooseOutputs()
    {
        const bool payload = c.tensors && !c.descOnly;
        const bool stats = c.stats && !c.descOnly && !payload;
        plan.payload = payload;
        plan.statsOnly = stats;
        plan.addStats = payload && c.stats;
        plan.csv = stats && c.statsCsv;
        plan.sketch = c.sketch;
        // -tiling's replay inputs and -symlink's links: a weight's file once a run. Keeping
        // only the ops with NaN/Inf may drop the round a weight was first taken in: not then.
        plan.weightsOnce = payload && (c.tiling || c.symlink) && !c.nanInfOnly;
        plan.post = true;
    }

    // What a post capture reads for t: the tensor a scheduler's copy of an input copies.
    const ggml_tensor *sourceOf(const ggml_tensor *t) const
    {
        if (copies)
            if (const auto found = copies->find(t); found != copies->end())
                return found->second;
        return t;
    }

    // One tensor a node wants, and how it is read.
    void add(int node, const ggml_tensor *t, bool before, bool input, int index)
    {
        if (input)
            t = sourceOf(t);
        PlanItem it;
        it.tensor = t;
        it.node = node;
        it.before = before;
        it.input = input;
        it.index = index;
        const bool rowsWritten = !c.kvCache && !before && !input && isCacheWrite(t);
        if (rowsWritten) {
            it.kvRows = true;
            it.cells = sourceOf(t->src[1]);
            it.kind = c.descOnly ? ItemKind::Header : ItemKind::Data;
        } else if (!c.kvCache && isKvCache(t)) {
            it.kind = ItemKind::Header;
            it.kvSkipped = true;
        } else if (!c.descOnly && c.weightsInModel && isWeight(t)) {
            it.kind = ItemKind::Header;
            it.inModel = true;
        } else if (!c.descOnly && !isReadable(t)) {
            it.kind = ItemKind::Header;
            it.unreadable = true;
            ++plan.unreadable;
        } else if (c.descOnly || (plan.statsOnly && aclDtype(t->type) < 0)) {
            it.kind = ItemKind::Header;
        } else if (isWeight(t) && (plan.statsOnly || (plan.payload && plan.weightsOnce))) {
            it.kind = ItemKind::Weight;
            it.weightKey = weightKey(t);
        }
        it.header = rowsWritten ? describeCacheWrite(t, it.kind != ItemKind::Header && plan.payload)
                                : describe(t, it.kind != ItemKind::Header && plan.payload);
        it.elements = it.header.elementCount();
        if (it.kind != ItemKind::Header) {
            it.bytes = rowsWritten ? cacheWriteBytes(t) : denseBytes(t);
            it.direct = !rowsWritten && isDirect(t);
        }
        it.early = it.kind == ItemKind::Data && input && !before && mayComputeOver(g.nodes[size_t(node)].tensor, t);
        if (it.kind == ItemKind::Weight && plan.payload)
            plan.dataBytes += it.bytes; // at first sight
        if (it.kind == ItemKind::Data) {
            plan.dataBytes += it.bytes;
            // Read after the whole graph, the tensor must hold what it held at this moment.
            // An output before its node runs holds nothing meaningful: only node by node.
            const auto w = lastWriter.find(rootOf(t));
            const bool rewritten = w != lastWriter.end() && (before ? w->second >= node : w->second > node);
            if ((before && !input) || rewritten)
                plan.post = false;
        }
        plan.items.push_back(std::move(it));
    }

    // The selected nodes' tensors in graph order: those wanted before a node runs (read when
    // the scheduler asks) then those after (read at its eval).
    void addItems()
    {
        const size_t n = g.nodes.size();
        plan.atAsk.assign(n, {0, 0});
        plan.atEval.assign(n, {0, 0});
        for (size_t i = 0; i < n; ++i) {
            const ggml_tensor *t = g.nodes[i].tensor;
            auto side = [&](bool before, bool inputs) {
                if (!sel.wantsTensor(before, inputs))
                    return;
                if (inputs && chainFirst(i) < i) {
                    // a chain's end: the chain's inputs, as one op's (its inner results never reach
                    // memory); the fusion record says which of its nodes reads which
                    const ChainInputs in = chainInputs(g, int(chainFirst(i)), int(i));
                    for (size_t k = 0; k < in.external.size(); ++k)
                        add(int(i), in.external[k], before, true, int(k));
                } else if (inputs) {
                    for (int k = 0; k < GGML_MAX_SRC && t->src[k]; ++k)
                        add(int(i), t->src[k], before, true, k);
                } else {
                    add(int(i), t, before, false, 0);
                }
            };
            const uint32_t a = uint32_t(plan.items.size());
            if (plan.selected[i] && !innerOutput(i)) {
                side(true, true);
                side(true, false);
            }
            const uint32_t b = uint32_t(plan.items.size());
            if (plan.selected[i] && !innerOutput(i)) {
                side(false, true);
                if (held(i)) // its inputs before it runs (they are intact then), its output later
                    for (size_t k = b; k < plan.items.size(); ++k)
                        plan.items[k].early = true; // a description or a weight: any moment will do
                else
                    side(false, false);
            }
            // the chain's inner outputs, in memory once it has run: with its end's
            for (size_t o = chainFirst(i); o < i && sel.wantsTensor(false, false); ++o)
                if (innerOutput(o) && plan.selected[o]) {
                    add(int(o), g.nodes[o].tensor, false, false, 0);
                    plan.items.back().late = true;
                }
            // results carried to this node: their outputs, intact until now
            if (holds(i) && plan.selected[size_t(heldFrom[i])] && sel.wantsTensor(false, false)) {
                const size_t o = size_t(heldFrom[i]);
                add(int(o), g.nodes[o].tensor, false, false, 0);
                plan.items.back().late = true;
            }
            plan.atAsk[i] = {a, b};
            plan.atEval[i] = {b, uint32_t(plan.items.size())};
            if (holds(i)) { // nothing is asked for between the held node and this one: all at its eval
                for (uint32_t k = a; k < uint32_t(plan.items.size()); ++k) {
                    plan.items[k].late = plan.items[k].late || k < b;
                    plan.items[k].early = false;
                }
                plan.atAsk[i] = {a, a};
                plan.atEval[i] = {a, uint32_t(plan.items.size())};
            }
        }
    }

    // After the whole graph, a tensor whose memory is a chain's inner node (a view of it: a MoE
    // routing's experts chosen, a view of its ARGSORT; its weights, a reshape of its DIV) keeps
    // it only with that node flagged, and a flag there unfuses the chain: such a tensor is read
    // when the chain has run instead (PlanItem::inGraph), its value then what every later read
    // of it sees. Ending the graph there starts a new computation, where a Vulkan device's room
    // for carried sums is empty again: where the room had run out unobserved, the graph is
    // ended after the sum too (cutAfter), so that its norm sums its own input as unobserved.
    void planInGraph()
    {
        if (plan.fusedInto.empty())
            return;
        for (PlanItem &it : plan.items) {
            if (it.kind != ItemKind::Data || it.kvRows)
                continue;
            const auto root = g.indexOf.find(rootOf(it.tensor));
            if (root == g.indexOf.end() || root->second == it.node)
                continue;
            const auto r = size_t(root->second);
            if (plan.fusedInto[r] < 0 || innerOutput(r))
                continue;
            // written into after the chain (in place, or a copy into a view of it): the value
            // at the chain's end is not the item's; kept, its root unfuses the chain (node by node)
            const auto w = lastWriter.find(rootOf(it.tensor));
            if (w != lastWriter.end() && w->second > plan.fusedInto[r])
                continue;
            it.inGraph = true;
            plan.postAsk.resize(g.nodes.size(), 0);
            plan.inGraphAt.resize(g.nodes.size());
            plan.postAsk[size_t(plan.fusedInto[r])] = 1;
            plan.inGraphAt[size_t(plan.fusedInto[r])].push_back(uint32_t(&it - plan.items.data()));
        }
        for (size_t i = 0; i < plan.cutAfter.size() && !plan.postAsk.empty(); ++i)
            plan.postAsk[i] = plan.postAsk[i] || plan.cutAfter[i];
    }

    // After the whole graph, tensors with the same bytes (a node's output read again as the
    // next node's input, a reshape of it) are copied once.
    void shareSameData()
    {
        // A device's tensors' addresses are offsets from one base every buffer of it shares
        // (ggml-vulkan's): the same address in two buffers is two tensors.
        std::map<std::pair<const void *, const void *>, int> byData;
        for (size_t k = 0; k < plan.items.size(); ++k) {
            PlanItem &it = plan.items[k];
            if (it.kind != ItemKind::Data)
                continue;
            const ggml_tensor *t = it.tensor;
            if (t->data && !it.kvRows && !it.inGraph && ggml().isContiguous(t)) { // in the graph: its address is reused
                auto [pos, added] = byData.emplace(std::pair<const void *, const void *>{t->buffer, t->data}, int(k));
                const PlanItem &first = plan.items[size_t(pos->second)];
                if (!added && first.tensor->type == t->type && first.bytes == it.bytes) {
                    it.alias = pos->second;
                    continue;
                }
            }
            plan.postBytes += it.bytes;
        }
        linkSameBytes(plan, g);
    }

    // Node by node, a node is asked for when its own tensors are wanted after it runs, or the
    // next node's before it runs, early ones included (then everything up to this node has
    // been computed).
    void planAsks()
    {
        const size_t n = g.nodes.size();
        const bool after = sel.wantsTensor(false, true) || sel.wantsTensor(false, false);
        const bool before = sel.wantsTensor(true, true) || sel.wantsTensor(true, false);
        std::vector<char> early(n, 0);
        for (const PlanItem &it : plan.items)
            early[size_t(it.node)] |= it.early;
        plan.ask.assign(n, 0);
        for (size_t i = 0; i < n; ++i) {
            // a held node's own items are all taken elsewhere (its inputs when it is asked for)
            const bool own = !held(i) &&
                ((plan.selected[i] && after && !innerOutput(i)) || plan.atEval[i].first < plan.atEval[i].second);
            // what the next node wants before it runs, unless this node is held to it (or to the
            // end of its chain): then it is taken when that has run
            const bool next =
                !held(i) && i + 1 < n && plan.selected[i + 1] && !innerOutput(i + 1) && (before || early[i + 1]);
            plan.ask[i] = own || next || (i < plan.cutAfter.size() && plan.cutAfter[i]);
        }
        // A fused chain's inner node is never asked for: the scheduler would end its graph there
        // and the chain would run unfused. The node before the chain is, where the chain's end
        // wants its inputs (the chain's) before it runs.
        for (size_t i = 0; i < n && !plan.fusedInto.empty(); ++i) {
            if (plan.fusedInto[i] < 0)
                continue;
            plan.ask[i] = 0;
            const size_t end = size_t(plan.fusedInto[i]);
            if ((i == 0 || plan.fusedInto[i - 1] != plan.fusedInto[i]) && i > 0 && !held(i - 1) && plan.selected[end] &&
                (before || early[end]))
                plan.ask[i - 1] = 1;
        }
        // Node by node the round is handed over at the last asked node's eval: items taken later
        // (a node's, read when it is asked for, before it runs) would be lost. The node holding
        // the last items is asked for too, or, held, the node it is held to.
        int last = -1;
        for (size_t i = 0; i < n; ++i)
            if (plan.atAsk[i].first < plan.atAsk[i].second || plan.atEval[i].first < plan.atEval[i].second)
                last = int(i);
        if (last >= 0)
            plan.ask[held(size_t(last)) ? size_t(plan.heldTo[size_t(last)]) : size_t(last)] = 1;
    }
};

} // namespace

std::shared_ptr<const CapturePlan> CapturePlan::build(std::shared_ptr<const GraphTopology> topo, const Selection &sel,
                                                      const ProbeConfig &c, const std::vector<FusedChain> &chains,
                                                      const std::vector<CarriedResult> &carried,
                                                      const CopySources *copies)
{
    auto plan = std::make_shared<CapturePlan>();
    if (!chains.empty()) {
        plan->fusedInto = probe::fusedInto(chains, topo->nodes.size());
        plan->innerOutputs = probe::innerOutputs(chains, topo->nodes.size());
    }
    PlanBuilder b{*plan, *topo, sel, c, copies};
    b.holdCarried(carried);
    b.selectNodes();
    b.chooseOutputs();
    b.addItems();
    b.planInGraph();
    b.shareSameData();
    b.planAsks();
    plan->topo = std::move(topo);
    return plan;
}

std::vector<ggml_tensor *> CapturePlan::tensorsToKeep() const
{
    std::vector<ggml_tensor *> out;
    for (const PlanItem &it : items) {
        if (it.kind != ItemKind::Data || it.inGraph)
            continue;
        // Tensors with memory already (weights, the KV cache, the host's own buffers) are
        // not the allocator's; neither are views of them.
        auto *t = const_cast<ggml_tensor *>(it.kvRows ? it.cells : it.tensor); // a write's cells
        auto *root = const_cast<ggml_tensor *>(rootOf(t));
        if (t->data || root->data)
            continue;
        out.push_back(t);
        if (root != t)
            out.push_back(root);
    }
    return out;
}

bool CapturePlan::flagsKeepChains(const std::vector<ggml_tensor *> &keep) const
{
    if (fusedInto.empty())
        return true;
    for (const ggml_tensor *t : keep) {
        const auto at = topo->indexOf.find(t);
        if (at == topo->indexOf.end())
            continue;
        const auto i = size_t(at->second);
        if (fusedInto[i] >= 0 && !(i < innerOutputs.size() && innerOutputs[i]))
            return false;
    }
    return true;
}

bool CapturePlan::keptWhole() const
{
    const GgmlApi &api = ggml();
    for (const PlanItem &it : items) {
        if (it.kind != ItemKind::Data || it.inGraph) // read when its chain has run
            continue;
        const ggml_tensor *root = rootOf(it.kvRows ? it.cells : it.tensor);
        if (!root->data && !root->buffer)
            return false; // not allocated yet: ggml allocates it inside the compute, unkept
        const bool allocators =
            root->buffer && api.bufferUsage && api.bufferUsage(root->buffer) == GGML_BACKEND_BUFFER_USAGE_COMPUTE;
        if (allocators && !(root->flags & GGML_TENSOR_FLAG_OUTPUT))
            return false;
    }
    return true;
}

} // namespace llmscope::probe
