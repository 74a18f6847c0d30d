#include "core/graph/op_graph.h"

#include <algorithm>

#include <functional>

#include "core/dump/dump_layout.h"
#include "core/select/op_id.h"

namespace llmscope {
namespace {

// The folder of an op: its last id part and its type ("3_1" of type Linear: "1_Linear").
std::string folderOf(const std::string &id, const std::string &type)
{
    return opFolderName(int(OpId::lenient(id).last()), type);
}

} // namespace

int OpGraph::add(GraphOp op)
{
    const int at = int(m_ops.size());
    const std::string folder = folderOf(op.id, op.type);
    op.folder = op.parent < 0 ? folder : m_ops[size_t(op.parent)].folder + "/" + folder;
    if (op.parent < 0)
        m_top.push_back(at);
    else
        m_ops[size_t(op.parent)].children.push_back(at);
    m_byId.emplace(op.id, at);
    m_ops.push_back(std::move(op));
    return at;
}

OpGraph::OpGraph(const live::Topology &t) : m_modelType("GgmlGraph")
{
    for (const live::TopoOp &g : t.groups)
        m_groups.push_back(add({g.id, g.name, g.type, {}, g.shape, g.dtype, g.backend, g.inputs, -1, {}, {}, {}}));
    for (const live::TopoOp &o : t.ops) {
        const std::string group(opGroup(o.id));
        const int parent = group == o.id ? -1 : indexOf(group);
        add({o.id, o.name, o.type, {}, o.shape, o.dtype, o.backend, o.inputs, parent, {}, o.fusedChain, o.fusedLast});
    }
}

OpGraph::OpGraph(const TopoNode &model) : m_modelName(model.name), m_modelType(model.type)
{
    std::map<std::string, std::string> producer; // tensor name -> the latest op that outputs it
    std::function<void(const TopoNode &, int)> walk = [&](const TopoNode &n, int parent) {
        GraphOp op{n.id, n.name, n.type, {}, {}, {}, {}, {}, parent, {}, {}, {}};
        for (const std::string &name : n.inTensors) {
            const auto p = producer.find(name);
            op.inputs.push_back({p == producer.end() ? std::string() : p->second, name});
        }
        const int at = add(std::move(op));
        for (const TopoNode &c : n.children)
            walk(c, at);
        // After its children: a name an op and its last child both output is the op's.
        for (const std::string &name : n.outTensors)
            producer[name] = n.id;
        if (n.outTensors.empty())
            producer[n.name] = n.id;
    };
    for (const TopoNode &c : model.children)
        walk(c, -1);
    m_groups = m_top;
}

int OpGraph::indexOf(const std::string &id) const
{
    const auto it = m_byId.find(id);
    return it == m_byId.end() ? -1 : it->second;
}

const GraphOp *OpGraph::find(const std::string &id) const
{
    const int at = indexOf(id);
    return at < 0 ? nullptr : &m_ops[size_t(at)];
}

void OpGraph::markFused(const std::vector<FusedChainRecord> &chains)
{
    for (const FusedChainRecord &chain : chains)
        for (size_t k = 0; k < chain.ids.size(); ++k)
            if (const auto it = m_byId.find(chain.ids[k]); it != m_byId.end() &&
                m_ops[size_t(it->second)].fusedChain.empty() && k < chain.names.size() &&
                m_ops[size_t(it->second)].name == chain.names[k]) {
                // ids are places in a graph: the record's round may be another graph (decode
                // against the prompt's topology), so the op must also be the one named
                GraphOp &op = m_ops[size_t(it->second)];
                op.fusedChain = chain.types;
                op.fusedLast = chain.ids.back();
                op.fusedOutput =
                    std::find(chain.outputs.begin(), chain.outputs.end(), chain.ids[k]) != chain.outputs.end();
                if (op.backend.empty())
                    op.backend = chain.backend;
            }
}

void OpGraph::nameBackends(const std::map<std::string, std::string> &byId)
{
    for (const auto &[id, backend] : byId)
        if (const auto it = m_byId.find(id); it != m_byId.end() && !backend.empty())
            m_ops[size_t(it->second)].backend = backend;
}

} // namespace llmscope
