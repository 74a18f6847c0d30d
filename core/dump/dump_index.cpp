#include "core/dump/dump_index.h"

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <fstream>
#include <regex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/dump/dump_layout.h"
#include "core/dump/statistic_csv.h"
#include "core/dump/tensor_index.h"
#include "core/dump/topology.h"
#include "core/select/op_id.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/tensor/stats.h"
#include "core/text/reason_error.h"
#include "core/torch/pth_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/file_walk.h"
#include "core/util/text.h"

namespace llmscope {
namespace fs = std::filesystem;

namespace {

// Fills the place fields of rec from path components after the tensors root:
// {device}_{pid}/{exec}/{op folders...}/{before|after}/{file}.
bool placeFromComponents(const std::vector<std::string> &c, TensorRecord &rec)
{
    if (c.size() < 5)
        return false;
    auto dp = parseDevicePid(c[0]);
    auto exec = parseInt(c[1]);
    auto file = parseTensorFileName(c.back());
    const std::string phase = toLower(c[c.size() - 2]);
    if (!dp || !exec || !file || (phase != "before" && phase != "after"))
        return false;
    rec.device = dp->device;
    rec.pid = dp->pid;
    rec.exec = *exec;
    rec.before = phase == "before";
    rec.input = file->input;
    rec.index = file->index;
    rec.param = file->param;
    for (size_t i = 2; i + 2 < c.size(); ++i) {
        auto op = parseOpFolder(c[i]);
        if (!op)
            return false;
        rec.opFolders.push_back(c[i]);
        rec.opId += (rec.opId.empty() ? "" : "_") + std::to_string(op->index);
        rec.opName = op->name;
    }
    return !rec.opFolders.empty();
}

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

// msProbe's PyTorch dump: dump_tensor_data/Module.{module}.{Class}.forward.{call}.{input|output}.{i}.pt
// (also Functional.linear.5.forward.input.0.pt, ...). A module runs once a token in inference,
// so its call count is the round; the rank folder (rank{R}) is the device.
bool placeMsprobeTorch(const std::string &file, const std::string &tensorsRoot, TensorRecord &rec)
{
    static const std::regex name(
        R"(^((Module|Functional|Tensor|Torch|Distributed|NPU|Aten)\.(.+))\.(forward|backward)\.(\d+)\.(input|output)\.(\d+)(\.\d+)*\.pt$)");
    std::smatch m;
    if (file.size() > 1024 || !std::regex_match(file, m, name) || m[4].str() != "forward")
        return false; // (std::regex recurses once a character: no name is that long)
    std::string module = m[3].str();
    if (m[2].str() == "Module") { // Module.{name}.{Class}: the class goes
        const size_t dot = module.rfind('.');
        if (dot == std::string::npos)
            return false;
        module.erase(dot);
    }
    const auto call = parseInt(m[5].str()), index = parseInt(m[7].str());
    if (!call || !index || *index > 1000000)
        return false;
    const size_t rank = tensorsRoot.rfind("/rank");
    rec.device = rank == std::string::npos
        ? 0
        : int(parseInt(tensorsRoot.substr(rank + 5, tensorsRoot.find('/', rank + 1) - rank - 5)).value_or(0));
    rec.pid = 0;
    rec.exec = *call;
    rec.input = m[6].str() == "input";
    rec.index = int(*index);
    rec.before = false;
    rec.opFolders = {module};
    rec.opId = module;
    rec.opName = module;
    return true;
}

std::optional<double> parseStatField(const std::string &s)
{
    if (s == "N/A" || s.empty())
        return std::nullopt;
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end)
        return std::nullopt;
    return v;
}

// msProbe's per-exec statistic.csv rows become records without a payload.
void readStatisticCsv(const fs::path &csv, DumpIndex &index)
{
    std::ifstream in(csv);
    std::string line;
    if (!std::getline(in, line)) {
        index.problems.push_back({csv.string(), "empty statistic.csv"});
        return;
    }
    std::vector<std::string> header = split(trim(line), ',');
    auto col = [&](StatisticColumn c) -> int { // by name: another writer may order them otherwise
        auto it = std::find(header.begin(), header.end(), statisticColumnName(c));
        return it == header.end() ? -1 : int(it - header.begin());
    };
    using C = StatisticColumn;
    const int cDev = col(C::DevicePid), cExec = col(C::Exec), cName = col(C::OpName), cId = col(C::OpId),
              cIo = col(C::InputOutput), cIdx = col(C::Index), cDtype = col(C::Dtype), cShape = col(C::Shape),
              cMax = col(C::Max), cMin = col(C::Min), cMean = col(C::Mean), cNorm = col(C::Norm),
              cPath = col(C::TensorPath), cOpPath = col(C::OpPath), cPhase = col(C::BeforeAfter),
              cType = col(C::OpType), cSketch = col(C::Sketch), cDigest = col(C::Digest);
    if (cExec < 0 || cId < 0 || cIo < 0 || cMax < 0) {
        index.problems.push_back({csv.string(), "statistic.csv lacks msProbe's columns"});
        return;
    }
    int lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto f = split(trim(line), ',');
        if (f.size() != header.size()) {
            index.problems.push_back({csv.string(),
                                      "line " + std::to_string(lineNo) + " has " + std::to_string(f.size()) +
                                          " fields, header has " + std::to_string(header.size())});
            continue;
        }
        TensorRecord r;
        r.path = cPath >= 0 ? f[cPath] : csv.string();
        if (cDev >= 0)
            if (auto dp = parseDevicePid(f[cDev])) {
                r.device = dp->device;
                r.pid = dp->pid;
            }
        r.exec = parseInt(f[cExec]).value_or(0);
        r.opId = f[cId];
        r.opName = cName >= 0 ? f[cName] : "";
        r.input = toLower(f[cIo]).rfind("in", 0) == 0;
        r.before = cPhase >= 0 ? toLower(f[cPhase]) == "before" : r.input;
        if (cOpPath >= 0 && !f[cOpPath].empty())
            r.opFolders = split(f[cOpPath], '/');
        else if (cName >= 0 && cType >= 0)
            r.opFolders = {r.opId + "_" + f[cType]};
        r.index = cIdx >= 0 ? static_cast<int>(parseInt(f[cIdx]).value_or(0)) : 0;
        if (cDtype >= 0) {
            if (auto code = dtypeFromName(toLower(f[cDtype])))
                r.dtype = *code;
            else if (f[cDtype] != "N/A") {
                r.dtype = 4; // an engine's own type (q8_0) travels as bytes, as in .bin files
                r.engineType = f[cDtype];
            }
        }
        if (cShape >= 0 && f[cShape] != "N/A")
            for (const auto &d : split(f[cShape], 'x'))
                if (auto v = parseInt(d))
                    r.dims.push_back(*v);
        auto mx = parseStatField(f[cMax]), mn = cMin >= 0 ? parseStatField(f[cMin]) : std::nullopt,
             me = cMean >= 0 ? parseStatField(f[cMean]) : std::nullopt,
             no = cNorm >= 0 ? parseStatField(f[cNorm]) : std::nullopt;
        if (mx && mn && me && no) {
            r.stats = TensorStats{0, *mx, *mn, *me, *no, 0, 0, 0, {}};
            if (cSketch >= 0)
                if (auto sk = decodeSketch(f[cSketch]))
                    r.stats->sketch = std::move(*sk);
            if (cDigest >= 0)
                r.stats->digest = decodeDigest(f[cDigest]);
        }
        index.tensors.push_back(std::move(r));
    }
}

} // namespace

std::vector<int64_t> DumpIndex::rounds() const
{
    std::set<int64_t> s;
    for (const auto &t : tensors)
        s.insert(t.exec);
    return {s.begin(), s.end()};
}

void setRecordHeader(TensorRecord &r, const BinFileInfo &info)
{
    const Tensor &t = info.tensor;
    r.dtype = t.dtype;
    r.format = t.format;
    r.dims = t.dims;
    r.hasData = t.hasData;
    r.dataBytes = t.hasData && !info.objects.empty() ? info.objects.front().length : 0;
    r.dataOffset = t.hasData && !info.objects.empty() ? info.dataStart + info.objects.front().offset : 0;
    r.engineType = t.attr(kEngineDTypeAttr).value_or("");
    r.engineDims.clear();
    if (const auto dims = t.attr(kEngineDimsAttr))
        for (const auto &d : split(*dims, ',')) {
            const auto v = parseInt(trim(d));
            r.engineDims.push_back(v && *v >= 0 ? *v : -1); // a bad entry stays, for the reader to refuse
        }
    r.kvRowsType = t.attr("llmscope_kv_rows") ? t.attr("llmscope_kv_type").value_or("?") : std::string();
    r.stats = statsFromAttrs(t);
    r.headerRead = true;
}

namespace {

// What a walk finds: tensor files still to read (with the folder their place is read from),
// and msProbe's statistic.csv files.
struct Found {
    struct Bin {
        std::string file, tensorsRoot;
        bool msprobe, torch = false;
    };
    std::vector<Bin> bins;
    std::vector<std::string> statCsvs;
};

// Sorts files into found and index's topology lists by name and place.
void classify(const std::string &full, const std::string &rootPath, DumpIndex &index, Found &found)
{
    const std::string name = full.substr(full.rfind('/') + 1);
    // The nearest enclosing "tensors" or "atb_dump_data/data" folder below root, found in
    // the path text (path objects cost more than the header reads here).
    std::string tensorsRoot;
    bool msprobe = false, torch = false;
    for (size_t end = full.rfind('/'); end != std::string::npos && end >= rootPath.size();
         end = full.rfind('/', end - 1)) {
        const size_t begin = full.rfind('/', end - 1);
        const std::string_view dir(full.data() + begin + 1, end - begin - 1);
        if (dir == "tensors" || dir == "torch_tensors") {
            tensorsRoot = full.substr(0, end);
            torch = dir == "torch_tensors";
            break;
        }
        if (dir == "dump_tensor_data" && end == full.rfind('/')) { // msProbe's PyTorch dump
            tensorsRoot = full.substr(0, end);
            torch = msprobe = true;
            break;
        }
        if (dir == "data" && begin >= 14 && full.compare(begin - 14, 14, "/atb_dump_data") == 0) {
            tensorsRoot = full.substr(0, end);
            msprobe = true;
            break;
        }
    }
    const std::string lower = toLower(name);
    if (torch && isTorchFile(lower)) {
        found.bins.push_back({full, tensorsRoot, msprobe, true});
    } else if (lower.size() > 4 && lower.substr(lower.size() - 4) == ".bin" && !tensorsRoot.empty() && !torch) {
        found.bins.push_back({full, tensorsRoot, msprobe});
    } else if (name == "dump.json" && tensorsRoot.empty()) { // msProbe's PyTorch dump: its statistics
        found.statCsvs.push_back(full);
    } else if (name == "statistic.csv" || (torch && name == "statistics.csv")) {
        found.statCsvs.push_back(full);
    } else if (name == "model_tree.json") {
        index.torchTreeFiles.push_back(full);
    } else if (lower.size() > 5 && lower.substr(lower.size() - 5) == ".json") {
        const fs::path p(full);
        const std::string parent2 = p.parent_path().parent_path().filename().string();
        if (parent2 == "model")
            index.modelFiles.push_back(full);
        else if (parent2 == "layer")
            index.layerFiles.push_back(full);
    }
}

// Places each found tensor file and reads its header into index.tensors; files that cannot
// be read go to index.problems. progress counts files across calls (done, total).
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

void readBins(const std::vector<Found::Bin> &bins, DumpIndex &index, const ScanProgress &progress, uint64_t &done,
              uint64_t total, bool readHeaders)
{
    std::map<std::string, std::map<std::string, std::string>> torchIds; // by process folder
    for (const auto &b : bins) {
        if (progress && (done % 64 == 0) && !progress(done, total))
            throw Error("scan cancelled");
        ++done;
        TensorRecord rec;
        rec.path = b.file;
        const auto parts = split(b.file.substr(b.tensorsRoot.size() + 1), '/');
        const bool placed = b.torch && b.msprobe ? placeMsprobeTorch(parts.back(), b.tensorsRoot, rec)
            : b.torch                            ? placeTorchComponents(parts, rec)
                                                 : placeFromComponents(parts, rec);
        if (!placed) {
            index.problems.push_back(
                {rec.path,
                 b.torch && b.msprobe ? "not msProbe's {Module|Functional}.{name}.forward.{call}.{input|output}.{i}.pt"
                     : b.torch        ? "not in {device}_{pid}/{token}/{module}/input_{i}|output.pth layout"
                                      : "not in {device}_{pid}/{exec}/{id}_{Op}/.../before|after/ layout"});
            continue;
        }
        if (b.torch) {
            try {
                // The whole file where headers are read (info, the window): its statistics for
                // the heatmap, as a .bin's header carries them; the pickle alone otherwise.
                const Tensor t = readPth(rec.path, readHeaders);
                rec.dtype = t.dtype;
                rec.dims = t.dims;
                rec.hasData = true;
                rec.dataBytes = dtypeBytes(t.dtype, elementCount(t.dims)).value_or(0);
                if (readHeaders)
                    rec.stats = computeStats(t);
                const std::string process = b.msprobe ? b.tensorsRoot : b.tensorsRoot + "/" + parts[0];
                auto ids = torchIds.find(process);
                if (ids == torchIds.end())
                    ids = torchIds.emplace(process, torchTreeIds(process + "/model_tree.json")).first;
                if (const auto id = ids->second.find(rec.opName); id != ids->second.end() && !id->second.empty())
                    rec.opId = id->second; // the tree's place: the window's ids, and first-run order
            } catch (const Error &e) {
                index.problems.push_back({rec.path, e.what()});
                continue;
            }
            if (index.layout.empty())
                index.layout = "torch";
            index.tensors.push_back(std::move(rec));
            continue;
        }
        if (readHeaders) {
            try {
                setRecordHeader(rec, readBinFile(rec.path, true));
            } catch (const Error &e) {
                index.problems.push_back({rec.path, e.what()});
                continue;
            }
        } else {
            rec.headerRead = false;
        }
        if (index.layout.empty())
            index.layout = b.msprobe ? "msprobe" : "msit";
        index.tensors.push_back(std::move(rec));
    }
}

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

// The four statistics a PyTorch dump gives of a tensor, when all four are known.
std::optional<TensorStats> statsOf(std::optional<double> max, std::optional<double> min, std::optional<double> mean,
                                   std::optional<double> l2norm)
{
    if (!max || !min || !mean || !l2norm)
        return std::nullopt;
    TensorStats st;
    st.max = *max;
    st.min = *min;
    st.mean = *mean;
    st.l2norm = *l2norm;
    return st;
}

void addTorchRecord(DumpIndex &index, TensorRecord &&r)
{
    if (index.layout.empty())
        index.layout = "torch";
    index.tensors.push_back(std::move(r));
}

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

// msProbe's PyTorch dump.json: {"data": {"Module.{name}.{Class}.forward.{call}": {"input_args":
// [{"dtype", "shape", "Max", "Min", "Mean", "Norm", "data_name"}], "output": [...]}}}. Each
// tensor's statistics as a record without payload, unless its data_name file is there (then
// the .pt is the record).
// Python's json writes NaN, Infinity and -Infinity (a mask's minimum), which JSON has not:
// outside strings they read as null (that statistic unknown).
std::string withoutNonFinite(const std::vector<uint8_t> &bytes)
{
    std::string out;
    out.reserve(bytes.size());
    bool inString = false, escaped = false;
    for (size_t i = 0; i < bytes.size(); ++i) {
        const char c = char(bytes[i]);
        if (inString) {
            escaped = !escaped && c == '\\';
            inString = escaped || c != '"';
            out += c;
            continue;
        }
        inString = c == '"';
        bool replaced = false;
        for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
            if (!replaced && bytes.size() - i >= word.size() &&
                std::memcmp(bytes.data() + i, word.data(), word.size()) == 0) {
                out += "null";
                i += word.size() - 1;
                replaced = true;
            }
        if (!replaced)
            out += c;
    }
    return out;
}

void readMsprobeDumpJson(const std::string &file, DumpIndex &index)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(withoutNonFinite(readWholeFile(file)));
    } catch (const std::exception &e) {
        index.problems.push_back({file, std::string("dump.json does not read: ") + e.what()});
        return;
    }
    const auto data = j.is_object() ? j.find("data") : j.end();
    if (!j.is_object() || data == j.end() || !data->is_object()) {
        index.problems.push_back({file, "dump.json without msProbe's \"data\" object"});
        return;
    }
    const fs::path folder = fs::path(file).parent_path();
    std::error_code ec;
    for (auto it = data->begin(); it != data->end(); ++it) {
        if (!it.value().is_object())
            continue;
        for (const char *side : {"input_args", "output"}) {
            const auto list = it.value().find(side);
            if (list == it.value().end() || !list->is_array())
                continue;
            for (size_t i = 0; i < list->size() && i < 100000; ++i) {
                const nlohmann::json &t = (*list)[i];
                if (!t.is_object())
                    continue;
                const auto dataName = t.find("data_name");
                if (dataName != t.end() && dataName->is_string() &&
                    fs::exists(folder / "dump_tensor_data" / fs::path(dataName->get<std::string>()).filename(), ec))
                    continue;
                TensorRecord r;
                // named as its file would be: Module.{name}.{Class}.forward.{call}.{input|output}.{i}.pt
                const std::string as =
                    it.key() + "." + (side[0] == 'i' ? "input" : "output") + "." + std::to_string(i) + ".pt";
                if (!placeMsprobeTorch(as, folder.string() + "/dump_tensor_data", r))
                    continue;
                r.path = file;
                r.hasData = false;
                auto number = [&](const char *k) -> std::optional<double> {
                    const auto v = t.find(k);
                    return v != t.end() && v->is_number() ? std::optional(v->get<double>()) : std::nullopt;
                };
                if (const auto type = t.find("dtype"); type != t.end() && type->is_string()) {
                    const std::string d = type->get<std::string>();
                    r.dtype = dtypeFromName(d.rfind("torch.", 0) == 0 ? d.substr(6) : d).value_or(0);
                }
                if (const auto shape = t.find("shape"); shape != t.end() && shape->is_array())
                    for (const auto &d : *shape)
                        if (d.is_number_integer() && d.get<int64_t>() >= 0 && r.dims.size() < 16)
                            r.dims.push_back(d.get<int64_t>());
                r.stats = statsOf(number("Max"), number("Min"), number("Mean"), number("Norm"));
                addTorchRecord(index, std::move(r));
            }
        }
    }
}

void readStatisticCsvs(const std::vector<std::string> &csvs, DumpIndex &index)
{
    for (const auto &csv : csvs) {
        if (csv.size() >= 10 && csv.compare(csv.size() - 10, 10, "/dump.json") == 0) {
            readMsprobeDumpJson(csv, index);
            continue;
        }
        if (csv.size() >= 15 && csv.compare(csv.size() - 15, 15, "/statistics.csv") == 0) {
            readTorchStatisticsCsv(csv, index);
            continue;
        }
        readStatisticCsv(csv, index);
        if (index.layout.empty())
            index.layout = "msprobe";
    }
}

// By pid, round, op id (numeric parts: "2" < "10"), after before before, input, index.
void sortTensors(std::vector<TensorRecord> &tensors)
{
    std::vector<std::pair<std::tuple<int64_t, int64_t, std::vector<int64_t>, bool, bool, int>, size_t>> keys;
    keys.reserve(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
        const TensorRecord &r = tensors[i];
        keys.push_back({{r.pid, r.exec, OpId::lenient(r.opId).parts(), !r.before, !r.input, r.index}, i});
    }
    std::sort(keys.begin(), keys.end());
    std::vector<TensorRecord> sorted;
    sorted.reserve(keys.size());
    for (const auto &k : keys)
        sorted.push_back(std::move(tensors[k.second]));
    tensors = std::move(sorted);
}

void sortLists(DumpIndex &index)
{
    for (auto *list : {&index.modelFiles, &index.layerFiles, &index.torchTreeFiles})
        std::sort(list->begin(), list->end());
}

fs::path checkedRoot(const std::string &rootText)
{
    std::error_code ec;
    const fs::path root = fs::absolute(rootText, ec);
    if (ec || !fs::is_directory(root, ec))
        throw ReasonError(Reason(Said::NotAFolder, {rootText}));
    return root;
}

// The round a folder holds when it is {tensors root}/{device}_{pid}/{exec}.
std::optional<int64_t> roundOfFolder(const std::string &path)
{
    const size_t e = path.rfind('/');
    if (e == std::string::npos || e == 0)
        return std::nullopt;
    const size_t d = path.rfind('/', e - 1);
    if (d == std::string::npos || d == 0)
        return std::nullopt;
    const size_t t = path.rfind('/', d - 1);
    if (t == std::string::npos)
        return std::nullopt;
    const std::string_view parent(path.data() + t + 1, d - t - 1);
    const bool msprobe = parent == "data" && t >= 14 && path.compare(t - 14, 14, "/atb_dump_data") == 0;
    if (parent == "torch_tensors") // {device}_{pid} with torch's device name
        return path.find('_', d + 1) < e ? parseInt(path.substr(e + 1)) : std::nullopt;
    if (parent != "tensors" && !msprobe)
        return std::nullopt;
    if (!parseDevicePid(path.substr(d + 1, e - d - 1)))
        return std::nullopt;
    return parseInt(path.substr(e + 1));
}

// The round folders directly inside a process folder ({tensors root}/{device}_{pid}).
std::map<int64_t, std::string> roundFolders(const std::string &processFolder)
{
    std::map<int64_t, std::string> out;
    DIR *dir = ::opendir(processFolder.c_str());
    if (!dir)
        return out;
    while (const dirent *e = ::readdir(dir))
        if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
            if (const auto exec = parseInt(e->d_name); exec && fs::is_directory(processFolder + "/" + e->d_name))
                out.emplace(*exec, processFolder + "/" + e->d_name);
    ::closedir(dir);
    return out;
}

// A process folder's index ({tensors root}/{device}_{pid}, its writer's index whole), with
// what turns its lines into records.
struct IndexedProcess {
    TensorIndexFile index;
    std::string dumpRoot, prefix; // prefix: "tensors/{device}_{pid}/"

    // The round's records as a walk would place them; nullopt when a line does not read or
    // does not lie in this process's folder (the round is walked instead).
    std::optional<std::vector<TensorRecord>> records(int64_t round) const
    {
        auto files = index.files(round);
        if (!files)
            return std::nullopt;
        std::vector<TensorRecord> out;
        out.reserve(files->size());
        for (IndexedFile &f : *files) {
            if (f.relativePath.compare(0, prefix.size(), prefix) != 0)
                return std::nullopt;
            const auto parts = split(f.relativePath.substr(8), '/');
            for (const auto &p : parts)
                if (p.empty() || p == "." || p == "..")
                    return std::nullopt;
            TensorRecord rec;
            rec.path = dumpRoot + "/" + f.relativePath;
            if (!placeFromComponents(parts, rec) || rec.exec != round)
                return std::nullopt;
            try {
                setRecordHeader(rec, f.info);
            } catch (const Error &) {
                return std::nullopt;
            }
            out.push_back(std::move(rec));
        }
        return out;
    }
};

std::shared_ptr<const IndexedProcess> indexedProcess(const std::string &dir)
{
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash < 8 || dir.compare(slash - 8, 8, "/tensors") != 0)
        return nullptr;
    const std::string name = dir.substr(slash + 1);
    const auto dp = parseDevicePid(name);
    if (!dp)
        return nullptr;
    const std::string dumpRoot = dir.substr(0, slash - 8);
    auto index = TensorIndexFile::open(dumpRoot + "/" + tensorIndexPath(dp->device, dp->pid));
    if (!index)
        return nullptr;
    return std::make_shared<const IndexedProcess>(IndexedProcess{std::move(*index), dumpRoot, "tensors/" + name + "/"});
}

} // namespace

DumpIndex scanDump(const std::string &rootText, const ScanProgress &progress, bool readHeaders)
{
    const fs::path root = checkedRoot(rootText);
    DumpIndex index;
    index.root = root.string();
    Found found;
    const std::string &rootPath = root.native();
    walkFiles(
        rootPath, [&](const std::string &full) { classify(full, rootPath, index, found); },
        [&](const std::string &path, const std::string &why) {
            index.problems.push_back({path, "folder not read: " + why});
        });
    uint64_t done = 0;
    readBins(found.bins, index, progress, done, found.bins.size(), readHeaders);
    if (progress)
        progress(found.bins.size(), found.bins.size());
    readStatisticCsvs(found.statCsvs, index);
    sortLists(index);
    sortTensors(index.tensors);
    return index;
}

DumpIndex scanDumpByRound(const std::string &rootText, const RoundSink &onRound, const ScanProgress &progress)
{
    const fs::path root = checkedRoot(rootText);
    DumpIndex index;
    index.root = root.string();
    Found rest; // what lies outside the round folders
    struct Round {
        std::vector<std::string> folders; // to walk, every device and pid
        // listed by their writer's index, read when the round's turn comes; the folder is
        // walked instead if the index's lines for it do not read
        std::vector<std::pair<std::shared_ptr<const IndexedProcess>, std::string>> indexed;
    };
    std::map<int64_t, Round> rounds;
    const std::string &rootPath = root.native();
    auto problem = [&](const std::string &path, const std::string &why) {
        index.problems.push_back({path, "folder not read: " + why});
    };
    walkFiles(
        rootPath, [&](const std::string &full) { classify(full, rootPath, index, rest); }, problem,
        [&](const std::string &dir) {
            if (auto indexed = indexedProcess(dir)) {
                const auto listed = indexed->index.rounds();
                for (const auto &[round, folder] : roundFolders(dir)) { // a listed round whose folder is gone: none
                    if (std::binary_search(listed.begin(), listed.end(), round))
                        rounds[round].indexed.emplace_back(indexed, folder);
                    else // written after the index was closed, or by another writer
                        rounds[round].folders.push_back(folder);
                }
                return false;
            }
            const auto round = roundOfFolder(dir);
            if (round)
                rounds[*round].folders.push_back(dir);
            return !round;
        },
        rootPath);
    uint64_t done = 0;
    const uint64_t total = rounds.size() + 1;
    for (auto &[round, parts] : rounds) {
        if (progress && !progress(done, total))
            throw Error("scan cancelled");
        ++done;
        DumpIndex chunk;
        chunk.root = index.root;
        for (const auto &[process, folder] : parts.indexed) {
            if (auto records = process->records(round)) {
                chunk.layout = "msit";
                std::move(records->begin(), records->end(), std::back_inserter(chunk.tensors));
            } else {
                parts.folders.push_back(folder);
            }
        }
        Found found;
        for (const auto &folder : parts.folders)
            walkFiles(
                folder, [&](const std::string &full) { classify(full, rootPath, chunk, found); }, problem, {},
                rootPath);
        uint64_t files = 0;
        const uint64_t roundsDone = done;
        readBins(
            found.bins, chunk, [&](uint64_t, uint64_t) { return !progress || progress(roundsDone, total); }, files,
            found.bins.size(), true); // Cancel heard every 64 files, not only between rounds
        readStatisticCsvs(found.statCsvs, chunk); // msProbe's statistic.csv lies in its round's folder
        sortTensors(chunk.tensors);
        if (!onRound(chunk))
            throw Error("scan cancelled");
        if (index.layout.empty())
            index.layout = chunk.layout;
        std::move(chunk.tensors.begin(), chunk.tensors.end(), std::back_inserter(index.tensors));
        std::move(chunk.problems.begin(), chunk.problems.end(), std::back_inserter(index.problems));
    }
    DumpIndex last; // tensor files outside the round folders, and msProbe's statistic.csv rows
    last.root = index.root;
    uint64_t files = 0;
    readBins(rest.bins, last, {}, files, rest.bins.size(), true);
    readStatisticCsvs(rest.statCsvs, last);
    sortTensors(last.tensors);
    if (!last.tensors.empty() && !onRound(last))
        throw Error("scan cancelled");
    if (index.layout.empty())
        index.layout = last.layout;
    std::move(last.tensors.begin(), last.tensors.end(), std::back_inserter(index.tensors));
    std::move(last.problems.begin(), last.problems.end(), std::back_inserter(index.problems));
    if (progress)
        progress(total, total);
    sortLists(index);
    sortTensors(index.tensors);
    return index;
}

std::vector<std::string> findModelFiles(const std::string &root)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const fs::path &base : {fs::path(root) / "model", fs::path(root) / "atb_dump_data" / "info" / "model"}) {
        std::vector<std::string> found;
        for (auto p = fs::directory_iterator(base, ec); !ec && p != fs::directory_iterator(); p.increment(ec)) {
            std::error_code e2;
            for (auto f = fs::directory_iterator(p->path(), e2); !e2 && f != fs::directory_iterator(); f.increment(e2))
                if (toLower(f->path().extension().string()) == ".json")
                    found.push_back(f->path().string());
        }
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
        ec.clear();
    }
    if (fs::is_regular_file(fs::path(root) / "model_tree.json", ec))
        out.push_back((fs::path(root) / "model_tree.json").string());
    if (out.empty()) // an -o folder: the dumps it holds, oldest first
        for (const std::string &d : dumpsInside(root)) {
            std::vector<std::string> inner = findModelFiles(d);
            out.insert(out.end(), inner.begin(), inner.end());
        }
    return out;
}

bool holdsTorchDump(const std::string &root)
{
    std::error_code ec;
    if (fs::is_directory(fs::path(root) / "torch_tensors", ec))
        return true;
    for (const auto &e : fs::directory_iterator(root, ec))
        if (e.path().filename().string().rfind("msit_dump_", 0) == 0 &&
            fs::is_directory(e.path() / "torch_tensors", ec))
            return true;
    return false;
}

} // namespace llmscope
