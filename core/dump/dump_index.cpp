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
#include "core/dump/formats/dump_formats.h"
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
        const formats::TensorFolder *format = nullptr;
    };
    std::vector<Bin> bins;
    std::vector<std::string> statCsvs;
};

// Sorts files into found and index's topology lists by name and place.
void classify(const std::string &full, const std::string &rootPath, DumpIndex &index, Found &found)
{
    const std::string name = full.substr(full.rfind('/') + 1);
    // The nearest enclosing folder of a layout's tensors below root (formats::tensorFolders),
    // found in the path text (path objects cost more than the header reads here).
    std::string tensorsRoot;
    const formats::TensorFolder *format = nullptr;
    for (size_t end = full.rfind('/'); end != std::string::npos && end >= rootPath.size() && !format;
         end = full.rfind('/', end - 1)) {
        const size_t begin = full.rfind('/', end - 1);
        const std::string_view dir(full.data() + begin + 1, end - begin - 1);
        for (const formats::TensorFolder &f : formats::tensorFolders()) {
            if (dir != f.name || (f.filesDirectlyIn && end != full.rfind('/')))
                continue;
            if (f.inside) {
                const std::string inside = "/" + std::string(f.inside);
                if (begin < inside.size() || full.compare(begin - inside.size(), inside.size(), inside) != 0)
                    continue;
            }
            tensorsRoot = full.substr(0, end);
            format = &f;
            break;
        }
    }
    const bool torch = format && format->torch;
    const std::string lower = toLower(name);
    if (torch && isTorchFile(lower)) {
        found.bins.push_back({full, tensorsRoot, format});
    } else if (lower.size() > 4 && lower.substr(lower.size() - 4) == ".bin" && format && !torch) {
        found.bins.push_back({full, tensorsRoot, format});
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
        if (!b.format->place(parts, b.tensorsRoot, rec)) {
            index.problems.push_back({rec.path, b.format->expected});
            continue;
        }
        if (b.format->torch) {
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
                const std::string process = b.format->rootIsProcess ? b.tensorsRoot : b.tensorsRoot + "/" + parts[0];
                auto ids = torchIds.find(process);
                if (ids == torchIds.end())
                    ids = torchIds.emplace(process, formats::torchTreeIds(process + "/model_tree.json")).first;
                if (const auto id = ids->second.find(rec.opName); id != ids->second.end() && !id->second.empty())
                    rec.opId = id->second; // the tree's place: the window's ids, and first-run order
            } catch (const Error &e) {
                index.problems.push_back({rec.path, e.what()});
                continue;
            }
            if (index.layout.empty())
                index.layout = b.format->layout;
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
            index.layout = b.format->layout;
        index.tensors.push_back(std::move(rec));
    }
}

void readStatisticCsvs(const std::vector<std::string> &csvs, DumpIndex &index)
{
    for (const auto &csv : csvs)
        formats::readStatisticsFile(csv, index);
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
            if (!formats::placeFromComponents(parts, rec) || rec.exec != round)
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
