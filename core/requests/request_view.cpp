#include "core/requests/request_view.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/record_folder.h"
#include "core/dump/topology.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace fs = std::filesystem;

namespace llmscope {
namespace {

enum class FileKind { Other, Weight, Cache };

// Hard links where the two folders share a file system, else copies. A dump's symbolic link
// (-symlink: relative, to an earlier round's identical file) is followed, since the view's
// rounds are numbered otherwise.
void copyTree(const fs::path &given, const fs::path &to)
{
    std::error_code ec;
    const fs::path from = fs::is_symlink(given, ec) ? fs::canonical(given, ec) : given;
    fs::create_directories(to.parent_path(), ec);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::create_hard_links, ec);
    if (ec) {
        fs::remove_all(to, ec);
        fs::copy(from, to, fs::copy_options::recursive, ec);
        if (ec)
            throw Error("cannot copy '" + from.string() + "' to '" + to.string() + "': " + ec.message());
    }
}

// An input that holds the whole KV cache or a mask over it: attention's keys, values and mask.
bool isCacheWide(const fs::path &rel)
{
    const auto file = parseTensorFileName(rel.filename().string());
    const auto op = parseOpFolder(rel.parent_path().parent_path().filename().string());
    if (!file || !op || !file->input)
        return false;
    return (op->name == "FLASH_ATTN_EXT" && file->index >= 1) || (op->name == "SOFT_MAX" && file->index == 1);
}

std::string keptItems(const std::string &list, const std::vector<size_t> &rows, size_t count)
{
    const std::vector<std::string> items = split(list, ',');
    if (items.size() != count)
        return {};
    std::string out;
    for (size_t i : rows)
        out += (out.empty() ? "" : ",") + items[i];
    return out;
}

// What one round of the view keeps: the request's tokens among the round's, and among the
// tokens the round computed outputs for (their rows after llama.cpp's out_ids).
struct RoundRows {
    size_t count = 0; // the round's tokens
    std::vector<size_t> rows; // the request's, of them
    size_t outCount = 0; // the round's output rows; 0: not recorded
    std::vector<size_t> outRows; // the request's, of those
    bool whole() const { return rows.size() == count; }
};

// rows of x's outermost dimension (of `of`), the rest as it is; one row drops that dimension,
// as the probe writes a one-token round. False when the payload does not split so.
bool keepRows(Tensor &x, size_t of, const std::vector<size_t> &rows)
{
    if (!x.hasData || x.dims.empty() || uint64_t(x.dims[0]) != of || of == 0 || x.data.size() % of)
        return false;
    // Another dimension of that length too (attention's products when the round holds as many
    // tokens as heads): which one is the tokens' cannot be told, so nothing is cut.
    if (std::find(x.dims.begin() + 1, x.dims.end(), int64_t(of)) != x.dims.end())
        return false;
    const size_t rowBytes = x.data.size() / of;
    std::vector<uint8_t> kept;
    kept.reserve(rows.size() * rowBytes);
    for (size_t i : rows)
        kept.insert(kept.end(), x.data.begin() + std::ptrdiff_t(i * rowBytes),
                    x.data.begin() + std::ptrdiff_t((i + 1) * rowBytes));
    const bool hadStats = statsFromAttrs(x).has_value();
    x.data = std::move(kept);
    x.dims[0] = int64_t(rows.size());
    if (rows.size() == 1 && x.dims.size() > 1)
        x.dims.erase(x.dims.begin());
    if (hadStats)
        setStatsAttrs(x, computeStats(x));
    for (const char *attr : {"llmscope_kv_cells", "llmscope_kv_positions"}) // a cache write's rows
        if (const auto list = x.attr(attr))
            x.setAttr(attr, keptItems(*list, rows, of));
    return true;
}

// One round's files into the view's round folder `to`; kindOf says which files are a model
// weight or the cache (by the name the topology gives the op's input).
void viewRound(const fs::path &from, const fs::path &to, const RoundRows &r,
               const std::function<FileKind(const fs::path &)> &kindOf, RequestView &v)
{
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file())
            continue;
        const fs::path rel = fs::relative(it->path(), from);
        if (it->path().extension() != ".bin") { // an op's parameters; a whole round's statistic.csv
            if (r.whole() || it->path().extension() == ".json")
                copyTree(it->path(), to / rel);
            else
                ++v.leftOut;
            continue;
        }
        Tensor x = r.whole() ? readBinFile(it->path().string(), true).tensor : readBin(it->path().string());
        // What holds cells, positions or indices of the whole batch or cache is laid out otherwise
        // in another program by construction: token ids, positions, cache rows, masks.
        const FileKind kind = kindOf(it->path());
        if (isIndexType(x.dtype) || x.attr("llmscope_skipped") || isCacheWide(rel) || kind == FileKind::Cache) {
            ++v.leftOut;
            continue;
        }
        if (r.whole() || kind == FileKind::Weight) {
            copyTree(it->path(), to / rel);
            continue;
        }
        // A shared round: one row a token, or one row an output (after out_ids); with one output
        // the file is that output's row.
        const bool quantized = x.attr("engine_dtype").has_value(); // blocks, not rows
        bool kept = !quantized && keepRows(x, r.count, r.rows);
        if (!kept && !quantized && r.outCount > 1 && !r.outRows.empty())
            kept = keepRows(x, r.outCount, r.outRows);
        if (!kept && !quantized && r.outCount == 1 && r.outRows.size() == 1 && x.hasData &&
            std::find(x.dims.begin(), x.dims.end(), int64_t(r.count)) == x.dims.end()) {
            copyTree(it->path(), to / rel);
            continue;
        }
        if (!kept) { // statistics of the whole batch, quantized blocks, a token dimension inside, another's output
            ++v.leftOut;
            continue;
        }
        makeDirs((to / rel).parent_path().string());
        writeBin((to / rel).string(), x);
        ++v.sliced;
    }
}

} // namespace

RequestView viewOfRequest(const std::string &dumpRoot, const Request &r, const std::string &outDir, int32_t upTo)
{
    const auto records = readTokenRecords(dumpRoot);
    // The process whose tokens were recorded (llmscope/tokens/{pid}, the folder the records were
    // read from) and its msit_dump_* folder (dumpRoot may be the -o folder around it).
    const fs::path tokens(firstRecordFolder(dumpRoot, "tokens"));
    const auto pidNumber = parseInt(tokens.filename().string());
    if (tokens.empty() || !pidNumber)
        throw Error(dumpRoot + ": its rounds record no tokens (dump it again with this llmscope)");
    const int64_t pid = *pidNumber;
    const fs::path root = tokens.parent_path().parent_path().parent_path();
    const DumpIndex index = scanDump(root.string(), {}, /*readHeaders=*/false);
    std::error_code ec;
    // Each round's folder (device, pid): the tensors' own.
    std::map<int64_t, std::pair<int, fs::path>> roundFolders;
    for (const TensorRecord &t : index.tensors)
        if (t.pid == pid && !roundFolders.count(t.exec))
            roundFolders[t.exec] = {t.device, root / roundFolder(t.device, t.pid, t.exec)};

    // Model weights: an op's input the topology names as a GGUF tensor ("blk.0.attn_q.weight").
    std::optional<TopoNode> model;
    for (auto it = fs::directory_iterator(root / "model" / std::to_string(pid), ec);
         !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".json" && !model) {
            try {
                model = readTopologyFile(it->path().string());
            } catch (const Error &) {
                // no names: no file of a shared round is taken for a weight
            }
        }
    // By the names the topology gives an op's inputs: a model weight ("blk.0.attn_q.weight"), kept
    // whole; the KV cache or a view of it ("cache_k_l0 (view)"), laid out by every sequence's cells.
    std::map<std::string, FileKind> kinds;
    for (const TensorRecord &t : index.tensors) {
        const TopoNode *node = model && t.input && t.pid == pid ? model->find(t.opId) : nullptr;
        const std::string name =
            node && size_t(t.index) < node->inTensors.size() ? node->inTensors[size_t(t.index)] : "";
        auto endsWith = [&name](const std::string &tail) {
            return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
        };
        if (endsWith(".weight") || endsWith(".bias"))
            kinds[fs::path(t.path).lexically_normal().string()] = FileKind::Weight;
        else if (name.rfind("cache_k", 0) == 0 || name.rfind("cache_v", 0) == 0)
            kinds[fs::path(t.path).lexically_normal().string()] = FileKind::Cache;
    }
    auto kindOf = [&kinds](const fs::path &path) {
        const auto k = kinds.find(path.lexically_normal().string());
        return k == kinds.end() ? FileKind::Other : k->second;
    };

    RequestView v;
    const fs::path out = fs::path(outDir) / root.filename();
    v.dump = out.string();
    fs::remove_all(out, ec);
    makeDirs(out.string());
    // The topology and the run's records that do not depend on the round.
    for (const char *keep : {"model", "layer"})
        if (fs::exists(root / keep))
            copyTree(root / keep, out / keep);
    for (const auto &e : fs::directory_iterator(root / "llmscope", ec))
        if (e.is_regular_file() && e.path().extension() == ".json") {
            makeDirs((out / "llmscope").string());
            fs::copy_file(e.path(), out / "llmscope" / e.path().filename(), ec);
        }

    int64_t k = 0;
    for (const int64_t round : r.rounds) {
        const auto rec = records.find(round);
        if (rec == records.end())
            continue;
        const TokenRecord &t = rec->second;
        std::vector<size_t> rows;
        const bool positioned = t.positions.size() == t.tokens.size();
        for (size_t i = 0; i < t.sequences.size(); ++i)
            if (t.sequences[i] == r.sequence && (!positioned || t.positions[i] <= upTo))
                rows.push_back(i);
        if (rows.empty())
            continue;
        TokenRecord mine;
        for (size_t i : rows) {
            mine.tokens.push_back(t.tokens[i]);
            mine.sequences.push_back(t.sequences[i]);
            if (positioned)
                mine.positions.push_back(t.positions[i]);
        }
        makeDirs((out / tokenRecordPath(pid, k)).parent_path().string());
        writeFileAtomic((out / tokenRecordPath(pid, k)).string(),
                        tokenRecordJson(k, mine.tokens, t.replaced, mine.positions, mine.sequences));
        ++v.rounds;
        RoundRows rr{t.tokens.size(), rows, t.outputs.size(), {}};
        for (size_t o = 0; o < t.outputs.size(); ++o)
            if (std::find(rows.begin(), rows.end(), size_t(t.outputs[o])) != rows.end())
                rr.outRows.push_back(o);
        const auto folder = roundFolders.find(round);
        if (folder != roundFolders.end())
            viewRound(folder->second.second, out / roundFolder(folder->second.first, pid, k), rr, kindOf, v);
        if (rr.whole())
            ++v.whole;
        ++k;
    }
    return v;
}

} // namespace llmscope
