#include "core/dump/op_names.h"

#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/topology.h"
#include "core/util/error.h"

namespace llmscope {
namespace {

void addNodes(OpNames &out, const TopoNode &parent, const std::string &prefix)
{
    for (size_t c = 0; c < parent.children.size(); ++c) {
        const TopoNode &n = parent.children[c];
        const std::string path = (prefix.empty() ? "" : prefix + "/") + opFolderName(int(c), n.type);
        out.byPath[path] = {n.name, n.inTensors, n.paramJson};
        for (const auto &t : n.outTensors)
            out.computed.insert(t);
        addNodes(out, n, path);
    }
}

} // namespace

const OpNames::Node *OpNames::find(const std::string &opPath) const
{
    const auto it = byPath.find(opPath);
    return it == byPath.end() ? nullptr : &it->second;
}

std::string OpNames::inputName(const std::string &opPath, int index) const
{
    const Node *n = find(opPath);
    return n && index >= 0 && size_t(index) < n->inputs.size() ? n->inputs[size_t(index)] : std::string();
}

bool OpNames::isLeaf(const std::string &tensorName) const
{
    return !tensorName.empty() && !computed.empty() && !computed.count(tensorName);
}

OpNames readOpNames(const DumpIndex &idx)
{
    OpNames out;
    if (idx.modelFiles.empty())
        return out;
    try {
        addNodes(out, readTopologyFile(idx.modelFiles.front()), "");
    } catch (const Error &) {
        out = {}; // a broken topology file names nothing; the scan lists it as a problem
    }
    return out;
}

std::string opLabel(const std::string &opId, const std::string &name, const std::string &opType)
{
    std::string s = opId;
    if (!name.empty() && name != opType)
        s += " " + name;
    return s + " (" + opType + ")";
}

} // namespace llmscope
