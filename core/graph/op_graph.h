// The operations of a program, one type whatever told of them: the probe's live topology, an
// opened dump's msit model file, or a PyTorch model_tree.json. A tree (model -> top-level
// operations -> their ops, as deep as the source goes) in graph order, each op with its dump
// folder, its output where the source says, and its inputs: the op that computes each, or a
// leaf's name (a weight, the KV cache, the token ids). The window's document holds one; the
// op tree, the heatmap, the layer graph and the inspector read it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/dump/fusion_record.h"
#include "core/dump/topology.h"
#include "core/live/live_protocol.h"

namespace llmscope {

struct GraphOp {
    std::string id, name, type;
    std::string folder; // op folders from the model down: "3_Decoder/1_Linear"
    std::vector<int64_t> shape; // output dims, outermost first; empty when unknown
    std::string dtype, backend; // empty when unknown
    std::vector<live::TopoInput> inputs; // in order
    int parent = -1; // index into OpGraph::ops(); -1 at the top
    std::vector<int> children; // indexes into OpGraph::ops(), in graph order
    std::string fusedChain, fusedLast; // a live run's fused chain (live::TopoOp), empty alone
    bool fusedOutput = false; // one of the chain's other outputs: its result reaches memory too
};

class OpGraph {
public:
    OpGraph() = default;
    // Groups are the top-level operations; an op whose id names no group stays at the top.
    explicit OpGraph(const live::Topology &t);
    // The model's children are the top-level operations; inputs are resolved by tensor name
    // to the latest earlier op that outputs it (the outermost where an op and its last child
    // output the same name), else a leaf.
    explicit OpGraph(const TopoNode &model);
    // Each op's backend by op id (an opened dump's kernel CSV); ops not named keep theirs.
    void nameBackends(const std::map<std::string, std::string> &byId);
    // A dump's fused chains (its first recorded round's, --keep-fusion): each member op, where
    // its id and name are the record's, says which chain it was computed in, as a live run's
    // topology does.
    void markFused(const std::vector<FusedChainRecord> &chains);

    const std::string &modelName() const { return m_modelName; } // empty for a live graph
    const std::string &modelType() const { return m_modelType; } // a live graph's: "GgmlGraph"
    const std::vector<GraphOp> &ops() const { return m_ops; } // parents before their children
    const std::vector<int> &top() const { return m_top; } // the top-level ops, in order
    const std::vector<int> &groups() const { return m_groups; } // the top-level ops the source named as groups
    const GraphOp *find(const std::string &id) const;
    int indexOf(const std::string &id) const; // -1 when absent
    bool empty() const { return m_ops.empty(); }
    size_t size() const { return m_ops.size(); }

private:
    int add(GraphOp op); // under op.parent
    std::string m_modelName, m_modelType;
    std::vector<GraphOp> m_ops;
    std::vector<int> m_top, m_groups;
    std::map<std::string, int> m_byId;
};

} // namespace llmscope
