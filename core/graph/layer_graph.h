// One layer of a model as a graph: its ops (the ggml nodes of a top-level operation) joined
// by their data edges, and what flows in from outside as leaves: weights, the KV cache, other
// layers' outputs and the graph's inputs. Built from the live topology or from an opened
// dump's model topology (whose inputs are resolved by tensor name).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "dump/topology.h"
#include "live/live_protocol.h"

namespace llmscope {

struct LayerGraph {
    enum class Kind { Op, Weight, Cache, Outside };
    struct Node {
        std::string id;   // the op's id; for an Outside leaf computed by another layer, that op's
        std::string name; // node or tensor name
        std::string type; // ggml op; empty for leaves
        Kind kind = Kind::Op;
    };
    std::vector<Node> nodes;                  // the layer's ops first, in graph order, then leaves
    std::vector<std::pair<int, int>> edges;   // from -> to, indices into nodes
    int opCount() const;
};

// The ops of group `group` ("2") and their inputs.
LayerGraph buildLayerGraph(const std::vector<live::TopoOp> &ops, const std::string &group);

// An opened dump's topology as the live one: its groups, and its ops with ids and inputs,
// each input name resolved to the latest earlier op that outputs it (else a leaf).
std::pair<std::vector<live::TopoOp>, std::vector<live::TopoOp>> topologyOps(const TopoNode &model);

} // namespace llmscope
