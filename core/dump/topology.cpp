#include "core/dump/topology.h"

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope {
namespace {

using nlohmann::json;

std::vector<std::string> stringList(const json &j, const char *key)
{
    std::vector<std::string> out;
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return out;
    if (!it->is_array())
        throw Error(std::string("'") + key + "' must be a list of tensor names");
    for (const auto &v : *it) {
        if (!v.is_string())
            throw Error(std::string("'") + key + "' holds a non-string entry");
        out.push_back(v.get<std::string>());
    }
    return out;
}

std::string stringField(const json &j, const char *key)
{
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    if (!it->is_string())
        throw Error(std::string("'") + key + "' must be a string");
    return it->get<std::string>();
}

void assignIds(TopoNode &node, const std::string &prefix)
{
    for (size_t i = 0; i < node.children.size(); ++i) {
        TopoNode &c = node.children[i];
        c.id = prefix.empty() ? std::to_string(i) : prefix + "_" + std::to_string(i);
        assignIds(c, c.id);
    }
}

TopoNode parseOp(const json &j, int depth)
{
    if (!j.is_object())
        throw Error("a node must be a JSON object");
    if (depth > 64)
        throw Error("nodes nested deeper than 64 levels");
    TopoNode n;
    n.name = stringField(j, "opName");
    n.type = stringField(j, "opType");
    if (auto it = j.find("param"); it != j.end() && !it->is_null())
        n.paramJson = it->dump();
    n.inTensors = stringList(j, "inTensors");
    n.outTensors = stringList(j, "outTensors");
    n.internalTensors = stringList(j, "internalTensors");
    if (auto it = j.find("nodes"); it != j.end() && !it->is_null()) {
        if (!it->is_array())
            throw Error("'nodes' must be a list");
        for (const auto &c : *it)
            n.children.push_back(parseOp(c, depth + 1));
    }
    return n;
}

TopoNode parseTorch(const json &j, int depth)
{
    if (!j.is_object())
        throw Error("a module must be a JSON object");
    if (depth > 256)
        throw Error("modules nested deeper than 256 levels");
    TopoNode n;
    n.name = stringField(j, "name");
    n.type = stringField(j, "type");
    if (auto it = j.find("children"); it != j.end() && !it->is_null()) {
        if (!it->is_array())
            throw Error("'children' must be a list");
        for (const auto &c : *it)
            n.children.push_back(parseTorch(c, depth + 1));
    }
    return n;
}

json parseJson(const std::string &text)
{
    try {
        return json::parse(text);
    } catch (const json::exception &e) {
        throw Error(std::string("not valid JSON: ") + e.what());
    }
}

json opToJson(const TopoNode &n)
{
    json j;
    j["opName"] = n.name;
    j["opType"] = n.type;
    j["param"] = n.paramJson.empty() ? json::object() : json::parse(n.paramJson);
    j["inTensors"] = n.inTensors;
    j["outTensors"] = n.outTensors;
    if (!n.internalTensors.empty() || !n.children.empty())
        j["internalTensors"] = n.internalTensors;
    if (!n.children.empty()) {
        j["nodes"] = json::array();
        for (const auto &c : n.children)
            j["nodes"].push_back(opToJson(c));
    }
    return j;
}

} // namespace

size_t TopoNode::countNodes() const
{
    size_t n = 1;
    for (const auto &c : children)
        n += c.countNodes();
    return n;
}

const TopoNode *TopoNode::find(const std::string &wanted) const
{
    if (id == wanted)
        return this;
    for (const auto &c : children)
        if (wanted == c.id || wanted.rfind(c.id + "_", 0) == 0)
            return c.find(wanted);
    return nullptr;
}

std::string TopoNode::folderName() const
{
    const size_t us = id.rfind('_');
    return (us == std::string::npos ? id : id.substr(us + 1)) + "_" + type;
}

TopoNode parseModelTopology(const std::string &text)
{
    const json j = parseJson(text);
    if (!j.is_object() || !j.contains("modelName"))
        throw Error("not a model topology: no 'modelName'");
    TopoNode m = parseOp(json{{"nodes", j.value("nodes", json::array())}}, 0);
    m.name = stringField(j, "modelName");
    m.inTensors = stringList(j, "inTensors");
    m.outTensors = stringList(j, "outTensors");
    m.internalTensors = stringList(j, "internalTensors");
    m.weightTensors = stringList(j, "weightTensors");
    m.kCacheTensors = stringList(j, "kCacheTensors");
    m.vCacheTensors = stringList(j, "vCacheTensors");
    assignIds(m, "");
    return m;
}

TopoNode parseLayerTopology(const std::string &text)
{
    const json j = parseJson(text);
    if (!j.is_object() || !j.contains("opName"))
        throw Error("not a layer topology: no 'opName'");
    TopoNode n = parseOp(j, 0);
    assignIds(n, "");
    return n;
}

TopoNode parseTorchModelTree(const std::string &text)
{
    const json j = parseJson(text);
    if (!j.is_object() || !j.contains("name"))
        throw Error("not a model_tree.json: no 'name'");
    TopoNode n = parseTorch(j, 0);
    assignIds(n, "");
    return n;
}

TopoNode readTopologyFile(const std::string &path)
{
    const auto bytes = readWholeFile(path);
    const std::string text(bytes.begin(), bytes.end());
    try {
        const json j = parseJson(text);
        if (j.is_object() && j.contains("modelName"))
            return parseModelTopology(text);
        if (j.is_object() && j.contains("opName"))
            return parseLayerTopology(text);
        if (j.is_object() && j.contains("name") && j.contains("children"))
            return parseTorchModelTree(text);
        throw Error("neither a model, a layer nor a model_tree topology");
    } catch (const Error &e) {
        throw Error("'" + path + "': " + e.what());
    }
}

std::string writeModelTopology(const TopoNode &m)
{
    json j;
    j["modelName"] = m.name;
    j["weightTensors"] = m.weightTensors;
    j["inTensors"] = m.inTensors;
    j["outTensors"] = m.outTensors;
    j["internalTensors"] = m.internalTensors;
    j["kCacheTensors"] = m.kCacheTensors;
    j["vCacheTensors"] = m.vCacheTensors;
    j["nodes"] = json::array();
    for (const auto &c : m.children)
        j["nodes"].push_back(opToJson(c));
    return j.dump(4);
}

std::string writeLayerTopology(const TopoNode &op)
{
    return opToJson(op).dump(4);
}

} // namespace llmscope
