#include "graph/layer_graph.h"

#include "select/op_id.h"
#include <algorithm>
#include <map>
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

std::string groupOf(const std::string &id)
{
    return std::string(opGroup(id));
}
} // namespace

int LayerGraph::opCount() const
{
    int n = 0;
    for (const auto &x : nodes)
        n += x.kind == Kind::Op;
    return n;
}

LayerGraph buildLayerGraph(const std::vector<live::TopoOp> &ops, const std::string &group)
{
    LayerGraph g;
    std::unordered_map<std::string, int> index; // op id or leaf name -> node
    std::vector<const live::TopoOp *> layer; // the layer's ops, in graph order: nodes 0..n-1
    for (const auto &o : ops)
        if (groupOf(o.id) == group && o.id.find('_') != std::string::npos) {
            index[o.id] = int(g.nodes.size());
            g.nodes.push_back({o.id, o.name, o.type, LayerGraph::Kind::Op});
            layer.push_back(&o);
        }
    for (int to = 0; to < int(layer.size()); ++to) {
        for (const auto &in : layer[size_t(to)]->inputs) {
            const std::string key = in.op.empty() ? "leaf:" + in.name : in.op;
            auto it = index.find(key);
            if (it == index.end()) { // from outside the layer: one leaf per source
                LayerGraph::Node leaf{in.op, in.name, "", in.op.empty() ? leafKind(in.name) : LayerGraph::Kind::Outside};
                it = index.emplace(key, int(g.nodes.size())).first;
                g.nodes.push_back(std::move(leaf));
            }
            if (std::find(g.edges.begin(), g.edges.end(), std::pair{it->second, to}) == g.edges.end())
                g.edges.push_back({it->second, to}); // one edge for an input used twice
        }
    }
    return g;
}

std::pair<std::vector<live::TopoOp>, std::vector<live::TopoOp>> topologyOps(const TopoNode &model)
{
    std::vector<live::TopoOp> groups, ops;
    std::map<std::string, std::string> producer; // tensor name -> the latest op that outputs it
    for (const TopoNode &gr : model.children) {
        groups.push_back({gr.id, gr.name, gr.type, {}, ""});
        for (const TopoNode &o : gr.children) {
            live::TopoOp op{o.id, o.name, o.type, {}, ""};
            for (const std::string &name : o.inTensors) {
                const auto p = producer.find(name);
                op.inputs.push_back({p == producer.end() ? std::string() : p->second, name});
            }
            for (const std::string &name : o.outTensors)
                producer[name] = o.id;
            if (o.outTensors.empty())
                producer[o.name] = o.id;
            ops.push_back(std::move(op));
        }
    }
    return {groups, ops};
}

} // namespace llmscope
