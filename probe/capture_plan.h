// What one round of a graph dumps: every tensor the selection wants (node outputs and inputs,
// before or after execution), in graph order, with its msit header prepared once per graph.
// A plan also says whether all of it can be read after the whole graph has run ("post"
// capture: the scheduler computes the graph in one piece, and the tensors are kept by marking
// them as graph outputs), or only node by node from the eval callback.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <ggml.h>

#include "core/tensor/tensor.h"
#include "probe/fusion_rules.h"
#include "probe/graph_snapshot.h"
#include "probe/graph_topology.h"
#include "probe/probe_config.h"

namespace llmscope::probe {

enum class ItemKind : uint8_t {
    Data, // payload copied (tensors, or tensors and statistics); statistics only: computed when taken
    Header, // described only: -sd, a skipped KV-cache view, an engine type under stats
    Weight, // a weight: never changes, so taken at first sight only (its statistics, or with
    // plan.weightsOnce its payload; later rounds link to that file)
};

struct PlanItem {
    const ggml_tensor *tensor = nullptr; // valid while the graph is
    int node = 0;
    bool before = false, input = false;
    int index = 0;
    ItemKind kind = ItemKind::Data;
    bool kvSkipped = false;
    // A write into the KV cache without --kv-cache: the rows it put there, read back at its
    // cells (kv_rows.h), not the whole cache.
    bool kvRows = false;
    const ggml_tensor *cells = nullptr; // kvRows: the write's cell indices (its src[1], or what that copies)
    bool unreadable = false; // in a buffer ggml cannot read back (capture.h isReadable): described only
    bool inModel = false; // a weight left to its model file (--weights-in-model): described only
    int alias = -1; // post capture: an earlier item with the very same bytes (no second copy)
    // Read during the graph (inline, node by node): an earlier item of the same bytes that no
    // node wrote over between the two takes (an output read again as a later node's input):
    // this one shares its copy or statistics.
    int same = -1;
    uint64_t bytes = 0; // dense payload bytes (Data and Weight)
    uint64_t elements = 0; // the header's element count, for statistics
    bool direct = false; // host memory laid out as the payload: one memcpy of `bytes` from data
    // Node by node: an input after execution that the node may have computed over in place
    // (ggml's allocator reuses an input's memory for the output), so taken when the node is
    // asked for, before it runs: it holds then what the node reads, and the node changes
    // nothing else.
    bool early = false;
    // Taken at a later node's eval: a chain's inner output (at the chain's end), or a result
    // its backend carries to a later node (at that node: CapturePlan::heldTo).
    bool late = false;
    // Post capture: a tensor whose memory is a fused chain's inner node (a view of it: a MoE
    // routing's experts chosen and weights, as the chain's outputs or later nodes' inputs):
    // flagging that node would unfuse the chain, so its bytes are read when the chain's end has
    // run (CapturePlan::postAsk, inGraphAt), not kept.
    bool inGraph = false;
    uint64_t weightKey = 0; // Weight: the tensor and its data, for what was taken at first sight
    Tensor header; // dtype, dims and engine attributes; no data
};

struct CapturePlan {
    std::shared_ptr<const GraphTopology> topo;
    std::vector<PlanItem> items;
    // Per node: the items taken when the scheduler asks for it (before it runs) and when it
    // has run, as [first, last) ranges into items. Node by node, the early items of the second
    // range are taken with the first.
    std::vector<std::pair<uint32_t, uint32_t>> atAsk, atEval;
    std::vector<char> selected; // per node
    // Per node (--keep-fusion): the last node of the fused chain it is computed inside, -1 when
    // computed on its own. Such a node is not selected and is no input of the chain's end: its
    // output never reaches memory.
    std::vector<int> fusedInto;
    // Per node (--keep-fusion; empty without): 1 for a chain's inner output, whose result the
    // fused kernel writes too. Selected as any node, its output is taken with the chain end's
    // (in that node's eval range), never asked for itself.
    std::vector<char> innerOutputs;
    // Per node (--keep-fusion; empty without): a result its backend carries to a later node
    // outside memory (fusion_rules.h's CarriedResult): the node it is read at, -1 for none.
    // Such a node is never asked for itself: its output is taken at that node's eval, its
    // inputs when it is asked for (before it runs, as early ones). Left -1 where a node between
    // would write over its output.
    std::vector<int> heldTo;
    // Per node (--keep-fusion; empty without): 1 where the backend carries no result to the
    // next node though it could (its room for them ran out): the graph is ended there, so that
    // the next node computes alone as it does unobserved.
    std::vector<char> cutAfter;
    std::vector<char> ask; // per node: node by node, the probe asks the scheduler for it
    // Per node (empty without PlanItem::inGraph items): after the whole graph, the scheduler is
    // asked for the ends of chains with such items, and ends its graph there so that they are
    // read before later nodes reuse their memory; and, as node by node, at cutAfter's nodes.
    std::vector<char> postAsk;
    std::vector<std::vector<uint32_t>> inGraphAt; // per node: the inGraph items read at its eval
    uint64_t dataBytes = 0; // Data items, every one copied (node by node)
    uint64_t postBytes = 0; // Data items that are no alias (post capture)
    uint64_t unreadable = 0; // items described only because ggml cannot read them back
    // What the writer makes of each item (from the dump types).
    bool payload = false; // tensor files with data
    bool statsOnly = false; // statistics instead of data
    bool addStats = false; // data and statistics
    bool csv = false; // statistics as rows of the round's statistic.csv
    bool sketch = true; // statistics with their error sketch
    bool weightsOnce = false; // payloads: a weight's file written once a run, linked after
    bool post = false; // every item is intact after the whole graph has run

    // The selection's nodes and the tensors to take from each. Tensors whose data pointers
    // are set (after allocation) get aliases; before allocation there are none. With copies
    // (a post capture on a scheduler with several backends), an input the scheduler copied
    // from another backend is read from the tensor it copies, which is kept: the copy's
    // memory is the allocator's until the split that reads it ends.
    static std::shared_ptr<const CapturePlan> build(std::shared_ptr<const GraphTopology> topo, const Selection &sel,
                                                    const ProbeConfig &c, const std::vector<FusedChain> &chains = {},
                                                    const std::vector<CarriedResult> &carried = {},
                                                    const CopySources *copies = nullptr);
    // The tensors the post capture reads that the scheduler's allocator places: marking
    // these as graph outputs keeps their memory until the graph is done.
    std::vector<ggml_tensor *> tensorsToKeep() const;
    // Allocated: whether every tensor the post capture reads is kept until the graph ends
    // (flagged as a graph output, or in memory the allocator does not place). A graph the
    // scheduler split otherwise than when they were flagged is read node by node.
    bool keptWhole() const;
    // --keep-fusion: whether flagging `keep` as graph outputs leaves every chain whole. Backends
    // fuse no chain with a flagged node inside but its declared outputs; a chain's output that
    // is a view (Vulkan's chosen experts, a view of their ARGSORT) keeps its memory only with
    // its root flagged, and then the chain runs unfused.
    bool flagsKeepChains(const std::vector<ggml_tensor *> &keep) const;
};

} // namespace llmscope::probe
