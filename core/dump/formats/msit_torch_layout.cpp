// msit's PyTorch dump: tensor files' places, model_tree.json's ids and statistics.csv.
#include "core/dump/formats/dump_formats.h"

#include <filesystem>
#include <fstream>

#include "core/dump/dump_layout.h"
#include "core/dump/topology.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/torch/pth_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope::formats {
namespace fs = std::filesystem;

// msit's PyTorch dump: torch_tensors/{device}_{pid}/{token}/{module}/input_{i}.pth or
// output.pth / output_{i}.pth (a tuple's nested parts as _{i}_{j}). The device is torch's
// (cpu, cuda0, npu1): -1 for the CPU. The module's full name is its op id and folder.
bool placeTorchComponents(const std::vector<std::string> &c, TensorRecord &rec)
{
    if (c.size() == 3 && c[1] == "weights") { // dump_weight's {module}.{parameter}.pth: no round
        const std::string stem = c[2].substr(0, c[2].rfind('.'));
        const size_t dot = stem.rfind('.');
        const size_t us = c[0].rfind('_');
        const auto pid = us == std::string::npos ? std::nullopt : parseInt(c[0].substr(us + 1));
        if (dot == std::string::npos || dot == 0 || !pid)
            return false;
        rec.pid = *pid;
        rec.exec = -1;
        rec.input = true;
        rec.before = true;
        rec.index = 0;
        rec.param = stem.substr(dot + 1);
        rec.opFolders = {stem.substr(0, dot)};
        rec.opId = rec.opName = rec.opFolders[0];
        return true;
    }
    if (c.size() != 4)
        return false;
    const size_t us = c[0].rfind('_');
    const auto pid = us == std::string::npos ? std::nullopt : parseInt(c[0].substr(us + 1));
    const auto exec = parseInt(c[1]);
    if (!pid || !exec || *exec < 0)
        return false;
    const std::string dev = c[0].substr(0, us);
    size_t digits = dev.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(dev[digits - 1])))
        --digits;
    rec.device = dev == "cpu" || digits == dev.size() ? -1 : int(parseInt(dev.substr(digits)).value_or(-1));
    rec.pid = *pid;
    rec.exec = *exec;
    std::string stem = c[3].substr(0, c[3].rfind('.'));
    rec.input = stem.rfind("input", 0) == 0;
    if (!rec.input && stem.rfind("output", 0) != 0)
        return false;
    stem.erase(0, rec.input ? 5 : 6);
    rec.index = 0;
    if (!stem.empty()) { // _{i}, or _{i}_{j}...: the rest kept as the parameter suffix
        if (stem[0] != '_')
            return false;
        const size_t next = stem.find('_', 1);
        const auto i = parseInt(stem.substr(1, next == std::string::npos ? std::string::npos : next - 1));
        if (!i || *i < 0 || *i > 1000000)
            return false;
        rec.index = int(*i);
        if (next != std::string::npos)
            rec.param = stem.substr(next + 1);
    }
    rec.before = false;
    rec.opFolders = {c[2]};
    rec.opId = c[2];
    rec.opName = c[2];
    return !c[2].empty();
}

// A torch dump's module names and their ids by place in model_tree.json ("0_2_1"); none
// when the tree is missing or does not read (the module names stay the ids).
std::map<std::string, std::string> torchTreeIds(const std::string &treeFile)
{
    std::map<std::string, std::string> ids;
    std::error_code ec;
    if (!fs::is_regular_file(treeFile, ec))
        return ids;
    try {
        const auto bytes = readWholeFile(treeFile);
        const TopoNode root = parseTorchModelTree(std::string(bytes.begin(), bytes.end()));
        std::vector<const TopoNode *> stack{&root};
        while (!stack.empty()) {
            const TopoNode *n = stack.back();
            stack.pop_back();
            ids.emplace(n->name, n->id);
            for (const TopoNode &c : n->children)
                stack.push_back(&c);
        }
    } catch (const Error &) {
        ids.clear(); // listed among the problems where the tree is read
    }
    return ids;
}

namespace {

// CSV fields, quotes kept apart ("(1, 18, 256)" is one field).
std::vector<std::string> csvFields(const std::string &line)
{
    std::vector<std::string> f(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
            f.back() += line[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            f.emplace_back();
        else if (c != '\r')
            f.back() += c;
    }
    return f;
}

} // namespace

// msit's PyTorch statistics.csv in a module's folder (dump_statistics_mode): one record without
// a payload per row, placed as the folder's tensors would be. Where the folder holds the
// tensors too, they carry the same statistics and the rows are not read again.
void readTorchStatisticsCsv(const std::string &csv, DumpIndex &index)
{
    const fs::path folder = fs::path(csv).parent_path();
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(folder, ec))
        if (isTorchFile(e.path().filename().string()))
            return;
    const std::string torchRoot = "/torch_tensors/";
    const size_t at = csv.rfind(torchRoot);
    const auto parts =
        at == std::string::npos ? std::vector<std::string>() : split(csv.substr(at + torchRoot.size()), '/');
    TensorRecord place;
    // weights/statistics.csv: each parameter's statistics and sketch (register_hook writes
    // them), placed as dump_weight's weights/{module}.{parameter}.pth would be
    const bool weights = parts.size() == 3 && parts[1] == "weights";
    if (weights ? !placeTorchComponents({parts[0], parts[1], "module.weight.pth"}, place)
                : parts.size() != 4 || !placeTorchComponents({parts[0], parts[1], parts[2], "output.pth"}, place)) {
        index.problems.push_back({csv, "not in torch_tensors/{device}_{pid}/{token}/{module}/ or weights/ layout"});
        return;
    }
    const auto ids = torchTreeIds(csv.substr(0, at + torchRoot.size()) + parts[0] + "/model_tree.json");
    if (const auto id = ids.find(place.opName); !weights && id != ids.end() && !id->second.empty())
        place.opId = id->second;
    std::ifstream in(csv);
    std::string line;
    const std::vector<std::string> header = std::getline(in, line) ? csvFields(line) : std::vector<std::string>();
    auto col = [&](const char *name) {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : int(it - header.begin());
    };
    const int cIo = col("InputOutput"), cIdx = col("Index"), cType = col("DataType"), cShape = col("Shape"),
              cMax = col("Max"), cMin = col("Min"), cMean = col("Mean"), cNorm = col("L2Norm"), cSketch = col("Sketch"),
              cName = col("NodeName"), cParam = col("Parameter");
    if (cIo < 0 || cIdx < 0 || cMax < 0 || cMin < 0 || cMean < 0 || cNorm < 0 ||
        (weights && (cName < 0 || cParam < 0))) {
        index.problems.push_back(
            {csv,
             weights ? "weights/statistics.csv lacks its columns (NodeName, Parameter, "
                       "InputOutput, Index, Max, Min, Mean, L2Norm)"
                     : "statistics.csv lacks msit's columns (InputOutput, Index, Max, Min, Mean, L2Norm)"});
        return;
    }
    for (int lineNo = 2; std::getline(in, line); ++lineNo) {
        const auto f = csvFields(line);
        const auto idx = f.size() == header.size() ? parseInt(f[size_t(cIdx)]) : std::nullopt;
        if (!idx || *idx < 0) {
            index.problems.push_back({csv, "line " + std::to_string(lineNo) + " does not read"});
            continue;
        }
        TensorRecord r = place;
        r.path = csv;
        r.input = toLower(f[size_t(cIo)]).rfind("in", 0) == 0;
        r.index = int(*idx);
        r.hasData = false;
        if (weights) { // a module's parameter: no round
            const std::string &module = f[size_t(cName)], &param = f[size_t(cParam)];
            if (module.empty() || param.empty() || module.size() > 1024 || param.find('/') != std::string::npos) {
                index.problems.push_back({csv, "line " + std::to_string(lineNo) + " names no parameter"});
                continue;
            }
            r.opFolders = {module};
            r.opId = r.opName = module;
            r.param = param;
            r.input = r.before = true;
        }
        if (cType >= 0) {
            const std::string type = f[size_t(cType)];
            r.dtype = dtypeFromName(type.rfind("torch.", 0) == 0 ? type.substr(6) : type).value_or(0);
        }
        if (cShape >= 0) { // "(1, 18, 256)"
            std::string shape = f[size_t(cShape)];
            shape.erase(std::remove_if(shape.begin(), shape.end(), [](char c) { return c == '(' || c == ')'; }),
                        shape.end());
            for (const auto &d : split(shape, ','))
                if (const auto v = parseInt(trim(d)); v && *v >= 0)
                    r.dims.push_back(*v);
        }
        r.stats = statsOf(parseStatField(f[size_t(cMax)]), parseStatField(f[size_t(cMin)]),
                          parseStatField(f[size_t(cMean)]), parseStatField(f[size_t(cNorm)]));
        if (r.stats && cSketch >= 0)
            if (auto sk = decodeSketch(f[size_t(cSketch)]))
                r.stats->sketch = std::move(*sk);
        if (r.stats && !r.dims.empty()) {
            try {
                r.stats->count = elementCount(r.dims);
            } catch (const Error &) {
                index.problems.push_back({csv, "line " + std::to_string(lineNo) + ": a shape no tensor has"});
                continue;
            }
        }
        addTorchRecord(index, std::move(r));
    }
}

} // namespace llmscope::formats
