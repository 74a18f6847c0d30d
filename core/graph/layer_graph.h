// One layer of a model as a graph: its ops (the ggml nodes of a top-level operation) joined
// by their data edges, and what flows in from outside as leaves: weights, the KV cache, other
// layers' outputs and the graph's inputs. Built from the operations' graph, whatever its source.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/graph/op_graph.h"

namespace llmscope {

struct LayerGraph {
    enum class Kind { Op, Weight, Cache, Outside };
    struct Node {
        std::string id; // the op's id; for an Outside leaf computed by another layer, that op's
        std::string name; // node or tensor name
        std::string type; // ggml op; empty for leaves
        Kind kind = Kind::Op;
    };
    std::vector<Node> nodes; // the layer's ops first, in graph order, then leaves
    std::vector<std::pair<int, int>> edges; // from -> to, indices into nodes
    int opCount() const;
};

// The ops directly under top-level op `group` ("2") and their inputs.
LayerGraph buildLayerGraph(const OpGraph &graph, const std::string &group);

} // namespace llmscope
