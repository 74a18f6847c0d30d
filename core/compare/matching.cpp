#include "core/compare/matching.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/dump/dump_layout.h"
#include "core/dump/op_names.h"
#include "core/dump/topology.h"
#include "core/select/op_id.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/tensor.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

std::string side(const TensorRecord &r)
{
    return std::string(r.before ? "before" : "after") + (r.input ? "/in" : "/out") + std::to_string(r.index);
}

// Node names by op path ("3_DecoderLayer/5_MUL_MAT" -> "Kcur-2") from the model topology;
// none without one (op types stand in for them).
std::unordered_map<std::string, std::string> nodeNames(const OpNames &opNames)
{
    std::unordered_map<std::string, std::string> names;
    for (const auto &[path, node] : opNames.byPath)
        names[path] = node.name;
    return names;
}

// For each record, its key by layer, node name and op, with the occurrence of that
// (name, op) inside the layer: stable when other nodes are inserted around it. With byShape,
// a node without a name of its own (" (reshaped)": ggml's suffix alone) is told apart by its
// output's shape too: a backend that reorders the graph (Vulkan) may put two such nodes of
// one layer in the other order, and their occurrence alone would pair the wrong ones.
std::vector<std::string> semanticKeys(const DumpIndex &idx, const std::unordered_map<std::string, std::string> &names,
                                      bool byShape)
{
    auto unnamed = [&](const std::string &path) {
        const auto it = names.find(path);
        return it == names.end() || it->second.empty() || it->second[0] == ' ';
    };
    std::map<std::string, std::string> outShape; // pid/exec/op path -> its first output's dims
    if (byShape)
        for (const auto &r : idx.tensors) {
            if (r.input || r.index != 0 || r.opFolders.size() < 2 || !unnamed(r.opFolders[0] + "/" + r.opFolders[1]))
                continue;
            std::vector<int64_t> dims = r.dims;
            if (!r.headerRead) { // a scan that read no headers: this one's, for its shape
                try {
                    dims = readBinFile(r.path, true).tensor.dims;
                } catch (const Error &) {
                    continue; // unreadable: paired by occurrence, and its compare says why
                }
            }
            outShape[std::to_string(r.pid) + "/" + std::to_string(r.exec) + "/" + r.opFolders[0] + "/" +
                     r.opFolders[1]] = joinDims(dims);
        }
    auto nameOf = [&](const TensorRecord &r, const std::string &path) {
        auto it = names.find(path);
        std::string name = it != names.end() ? it->second : "";
        if (byShape && unnamed(path))
            name += "@" + outShape[std::to_string(r.pid) + "/" + std::to_string(r.exec) + "/" + path];
        return name;
    };
    // Occurrence numbers per (pid, exec, top folder, name+type), in child order.
    std::map<std::string, std::map<int, std::string>> children; // pid/exec/top -> child index -> name+type
    for (const auto &r : idx.tensors) {
        if (r.opFolders.size() < 2)
            continue;
        const auto child = parseOpFolder(r.opFolders[1]);
        const std::string path = r.opFolders[0] + "/" + r.opFolders[1];
        const std::string label = nameOf(r, path) + "|" + (child ? child->name : r.opName);
        children[std::to_string(r.pid) + "/" + std::to_string(r.exec) + "/" + r.opFolders[0]]
                [child ? child->index : 0] = label;
    }
    std::map<std::string, std::map<int, int>> occurrence;
    for (auto &[scope, byIndex] : children) {
        std::map<std::string, int> seen;
        for (auto &[index, label] : byIndex)
            occurrence[scope][index] = seen[label]++;
    }
    std::vector<std::string> keys;
    keys.reserve(idx.tensors.size());
    for (const auto &r : idx.tensors) {
        std::string key = std::to_string(r.exec) + "|";
        if (r.opFolders.empty()) {
            keys.push_back(key + r.opId + "|" + side(r));
            continue;
        }
        // The top-level operation by name without its index (Layer3, not 4_DecoderLayer).
        auto it = names.find(r.opFolders[0]);
        key += (it != names.end() ? it->second : r.opFolders[0]) + "|";
        if (r.opFolders.size() >= 2) {
            const auto child = parseOpFolder(r.opFolders[1]);
            const std::string path = r.opFolders[0] + "/" + r.opFolders[1];
            const std::string scope = std::to_string(r.pid) + "/" + std::to_string(r.exec) + "/" + r.opFolders[0];
            key += nameOf(r, path) + "|" + (child ? child->name : r.opName) + "#" +
                std::to_string(occurrence[scope][child ? child->index : 0]);
            for (size_t i = 2; i < r.opFolders.size(); ++i)
                key += "/" + r.opFolders[i];
        }
        keys.push_back(key + "|" + side(r));
    }
    return keys;
}

std::string exactKey(const TensorRecord &r)
{
    return std::to_string(r.exec) + "|" + opPath(r.opFolders) + "|" + side(r);
}

// Same topology when every op path both dumps have holds the same op, and the model
// topologies (when both exist) name the same nodes.
bool sameTopology(const DumpIndex &g, const DumpIndex &m, const std::unordered_map<std::string, std::string> &na,
                  const std::unordered_map<std::string, std::string> &nb)
{
    std::map<std::string, std::string> a;
    for (const auto &r : g.tensors)
        a[r.opId] = r.opName;
    std::set<std::string> bIds;
    for (const auto &r : m.tensors) {
        bIds.insert(r.opId);
        auto it = a.find(r.opId);
        if (it != a.end() && it->second != r.opName)
            return false;
    }
    if (!na.empty() && !nb.empty() && na != nb)
        return false;
    // Many ids on one side only: a different graph that happens to agree where it overlaps.
    size_t common = 0;
    for (const auto &[id, name] : a)
        common += bIds.count(id);
    return common * 10 >= std::max(a.size(), bIds.size()) * 9;
}

// A PyTorch module's dotted name (root.model.layers.0.mlp): a golden id across frameworks.
bool isModuleName(const std::string &id)
{
    if (id.empty() || id.size() > 1024 || id.find('.') == std::string::npos)
        return false;
    for (unsigned char c : id)
        if (!std::isalnum(c) && c != '.' && c != '_')
            return false;
    return true;
}

} // namespace

OpMapping parseOpMapping(const std::string &text)
{
    OpMapping m;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &e) {
        throw Error(std::string("mapping file is not JSON: ") + e.what());
    }
    auto add = [&](const nlohmann::json &g, const nlohmann::json &y) {
        if (!g.is_string() || !y.is_string())
            throw Error("mapping file: op ids must be strings like \"3_1\"");
        for (const std::string &id : {g.get<std::string>(), y.get<std::string>()})
            if (!OpId::parse(id) && !isModuleName(id))
                throw Error("mapping file: '" + id + "' is not an op id like 3_1 (nor a PyTorch module's name)");
        m[g.get<std::string>()] = y.get<std::string>();
    };
    if (j.is_object() && j.contains("pairs")) {
        if (!j["pairs"].is_array())
            throw Error("mapping file: \"pairs\" must be a list of {\"golden\": ID, \"my\": ID}");
        for (const auto &p : j["pairs"]) {
            if (!p.is_object() || !p.contains("golden") || !p.contains("my"))
                throw Error("mapping file: every pair needs \"golden\" and \"my\"");
            add(p["golden"], p["my"]);
        }
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            add(it.key(), it.value());
    } else {
        throw Error("mapping file: expected an object of golden op id -> my op id");
    }
    return m;
}

OpMapping loadOpMapping(const std::string &path)
{
    const auto bytes = readWholeFile(path);
    try {
        return parseOpMapping(std::string(bytes.begin(), bytes.end()));
    } catch (const Error &e) {
        throw Error("'" + path + "': " + e.what());
    }
}

std::string writeOpMapping(const OpMapping &m)
{
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto &[g, y] : m)
        pairs.push_back({{"golden", g}, {"my", y}});
    return nlohmann::json{{"pairs", pairs}}.dump(2) + "\n";
}

Matching matchDumps(const DumpIndex &golden, const DumpIndex &my, const OpMapping &mapping)
{
    return matchDumps(golden, my, mapping, readOpNames(golden), readOpNames(my));
}

Matching matchDumps(const DumpIndex &golden, const DumpIndex &my, const OpMapping &mapping, const OpNames &goldenNames,
                    const OpNames &myNames)
{
    const auto gn = nodeNames(goldenNames), mn = nodeNames(myNames);
    Matching out;
    std::vector<char> usedG(golden.tensors.size()), usedM(my.tensors.size());
    // 1. The user's pairs: op id to op id, tensor by tensor in each round.
    if (!mapping.empty()) {
        std::unordered_map<std::string, size_t> byIdSide;
        for (size_t i = 0; i < my.tensors.size(); ++i) {
            const auto &r = my.tensors[i];
            byIdSide[std::to_string(r.exec) + "|" + r.opId + "|" + side(r)] = i;
        }
        for (size_t i = 0; i < golden.tensors.size(); ++i) {
            const auto &r = golden.tensors[i];
            auto m = mapping.find(r.opId);
            if (m == mapping.end())
                continue;
            auto it = byIdSide.find(std::to_string(r.exec) + "|" + m->second + "|" + side(r));
            if (it == byIdSide.end() || usedM[it->second])
                continue;
            out.pairs.push_back(
                {&r, &my.tensors[it->second], "mapping " + r.opId + " -> " + m->second, {}, {}, nullptr});
            usedG[i] = usedM[it->second] = 1;
        }
    }
    // 2. Everything else, by path or by meaning.
    const bool same = sameTopology(golden, my, gn, mn);
    out.method = mapping.empty() ? (same ? Said::SameTopology : Said::ByLayerNameOp)
                                 : (same ? Said::MappingSameTopology : Said::MappingByLayerNameOp);
    auto pairBy = [&](const std::vector<std::string> &gk, const std::vector<std::string> &mk) {
        std::unordered_map<std::string, size_t> byKey;
        for (size_t i = 0; i < my.tensors.size(); ++i)
            if (!usedM[i])
                byKey.emplace(mk[i], i);
        for (size_t i = 0; i < golden.tensors.size(); ++i) {
            if (usedG[i])
                continue;
            auto it = byKey.find(gk[i]);
            if (it == byKey.end() || usedM[it->second])
                continue;
            out.pairs.push_back({&golden.tensors[i], &my.tensors[it->second], gk[i], {}, {}, nullptr});
            usedG[i] = usedM[it->second] = 1;
        }
    };
    if (same) {
        std::vector<std::string> gk, mk;
        for (const auto &r : golden.tensors)
            gk.push_back(exactKey(r));
        for (const auto &r : my.tensors)
            mk.push_back(exactKey(r));
        pairBy(gk, mk);
    } else {
        // Unnamed nodes by their shapes first; what that leaves (sides computing other shapes:
        // another batch) by occurrence alone.
        pairBy(semanticKeys(golden, gn, true), semanticKeys(my, mn, true));
        pairBy(semanticKeys(golden, gn, false), semanticKeys(my, mn, false));
    }
    for (size_t i = 0; i < golden.tensors.size(); ++i)
        if (!usedG[i])
            out.onlyGolden.push_back(&golden.tensors[i]);
    for (size_t i = 0; i < my.tensors.size(); ++i)
        if (!usedM[i])
            out.onlyMy.push_back(&my.tensors[i]);
    // Golden execution order: the index sorts its tensors that way.
    std::sort(out.pairs.begin(), out.pairs.end(),
              [&](const TensorPair &a, const TensorPair &b) { return a.golden < b.golden; });
    return out;
}

} // namespace llmscope
