#include "graph/op_catalog.h"

#include <functional>

#include "dump/dump_layout.h"
#include "select/op_id.h"

namespace llmscope {
namespace {

// The folder of an op: its last id part and its type ("3_1" of type Linear: "1_Linear").
std::string folderOf(const std::string &id, const std::string &type)
{
    return opFolderName(int(OpId::lenient(id).last()), type);
}

} // namespace

OpCatalog::OpCatalog(const live::Topology &t)
{
    for (const auto &g : t.groups)
        m_ops[g.id] = {g.name, g.type, folderOf(g.id, g.type)};
    for (const auto &o : t.ops) {
        const std::string group(opGroup(o.id));
        const auto g = m_ops.find(group);
        const std::string folder = folderOf(o.id, o.type);
        m_ops[o.id] = {o.name, o.type, g != m_ops.end() && group != o.id ? g->second.path + "/" + folder : folder};
    }
}

OpCatalog::OpCatalog(const TopoNode &model)
{
    std::function<void(const TopoNode &, const std::string &)> add = [&](const TopoNode &n, const std::string &above) {
        for (const TopoNode &c : n.children) {
            const std::string path = (above.empty() ? "" : above + "/") + folderOf(c.id, c.type);
            m_ops[c.id] = {c.name, c.type, path};
            add(c, path);
        }
    };
    add(model, "");
}

const CatalogOp *OpCatalog::find(const std::string &id) const
{
    const auto it = m_ops.find(id);
    return it == m_ops.end() ? nullptr : &it->second;
}

} // namespace llmscope
