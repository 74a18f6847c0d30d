#include "core/graph/layer_graph.h"

#include <algorithm>
#include <unordered_map>

namespace llmscope {

namespace {
LayerGraph::Kind leafKind(const std::string &name)
{
    if (name.rfind("cache_", 0) == 0 || name.find("kv_cache") != std::string::npos)
        return LayerGraph::Kind::Cache;
    if (name.find(".weight") != std::string::npos || name.find(".bias") != std::string::npos ||
        name.find("weight") != std::string::npos)
        return LayerGraph::Kind::Weight;
    return LayerGraph::Kind::Outside;
}
} // namespace

int LayerGraph::opCount() const
{
    int n = 0;
    for (const auto &x : nodes)
        n += x.kind == Kind::Op;
    return n;
}

LayerGraph buildLayerGraph(const OpGraph &graph, const std::string &group)
{
    LayerGraph g;
    const int at = graph.indexOf(group);
    if (at < 0)
        return g;
    std::unordered_map<std::string, int> index; // op id or leaf name -> node
    std::vector<const GraphOp *> layer; // the layer's ops, in graph order: nodes 0..n-1
    for (const int c : graph.ops()[size_t(at)].children) {
        const GraphOp &o = graph.ops()[size_t(c)];
        index[o.id] = int(g.nodes.size());
        g.nodes.push_back({o.id, o.name, o.type, LayerGraph::Kind::Op});
        layer.push_back(&o);
    }
    for (int to = 0; to < int(layer.size()); ++to) {
        for (const auto &in : layer[size_t(to)]->inputs) {
            const std::string key = in.op.empty() ? "leaf:" + in.name : in.op;
            auto it = index.find(key);
            if (it == index.end()) { // from outside the layer: one leaf per source
                LayerGraph::Node leaf{in.op, in.name, "",
                                      in.op.empty() ? leafKind(in.name) : LayerGraph::Kind::Outside};
                it = index.emplace(key, int(g.nodes.size())).first;
                g.nodes.push_back(std::move(leaf));
            }
            if (std::find(g.edges.begin(), g.edges.end(), std::pair{it->second, to}) == g.edges.end())
                g.edges.push_back({it->second, to}); // one edge for an input used twice
        }
    }
    return g;
}

} // namespace llmscope
