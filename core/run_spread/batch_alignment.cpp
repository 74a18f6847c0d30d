#include "core/run_spread/batch_alignment.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/token_record.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace fs = std::filesystem;

namespace llmscope {
namespace {

// A tensor file's place below its round folder ("2_DecoderLayer/7_MUL_MAT/after/outtensor0.bin").
std::string belowRound(const TensorRecord &t)
{
    const size_t tensors = t.path.rfind("/tensors/");
    if (tensors == std::string::npos)
        return {};
    const size_t device = t.path.find('/', tensors + 9),
                 round = device == std::string::npos ? device : t.path.find('/', device + 1);
    return round == std::string::npos ? std::string() : t.path.substr(round + 1);
}

} // namespace

namespace {
template <class Records>
bool otherPositions(const Records &refTokens, const Records &runTokens)
{
    bool same = true, recorded = !refTokens.empty() && !runTokens.empty();
    for (const auto &[round, r] : refTokens) {
        recorded = recorded && !r.positions.empty();
        const auto other = runTokens.find(round);
        same = same && other != runTokens.end() && other->second.positions == r.positions;
    }
    for (const auto &[round, r] : runTokens)
        recorded = recorded && !r.positions.empty();
    return recorded && !same;
}
} // namespace

bool needsLiningUp(const std::string &reference, const std::string &run)
{
    return otherPositions(readTokenRecords(reference), readTokenRecords(run));
}

std::optional<Alignment> alignByPosition(const std::string &reference, const std::string &run,
                                         const std::string &outDir)
{
    const auto refTokens = readTokenRecords(reference), runTokens = readTokenRecords(run); // read once
    if (!otherPositions(refTokens, runTokens))
        return std::nullopt;
    std::map<int32_t, std::pair<int64_t, size_t>> where; // position -> the run's round and row there
    for (const auto &[round, r] : runTokens)
        for (size_t k = 0; k < r.positions.size(); ++k)
            where.try_emplace(r.positions[k], round, k);

    const DumpIndex index = scanDump(run);
    if (index.tensors.empty())
        throw Error(run + ": no tensor files to line up");
    std::map<std::string, std::map<int64_t, const TensorRecord *>> files; // below the round -> round -> file
    int device = -1;
    int64_t pid = 0;
    for (const TensorRecord &t : index.tensors) {
        const std::string below = belowRound(t);
        if (below.empty() || fs::path(t.path).extension() != ".bin" || (!files.empty() && t.pid != pid))
            continue; // one process: the first
        files[below][t.exec] = &t;
        device = t.device;
        pid = t.pid;
    }
    Alignment a;
    const fs::path out = fs::path(outDir) / fs::path(index.root).filename();
    a.dump = out.string();
    std::error_code ec;
    fs::remove_all(out, ec);
    makeDirs(out.string());
    // What compare reads besides the tensors: the topology files and the programs' status.
    for (const char *keep : {"model", "layer"})
        if (fs::exists(fs::path(index.root) / keep))
            fs::copy(fs::path(index.root) / keep, out / keep, fs::copy_options::recursive, ec);
    for (const auto &e : fs::directory_iterator(fs::path(index.root) / "llmscope", ec))
        if (e.is_regular_file() && e.path().extension() == ".json") {
            makeDirs((out / "llmscope").string());
            fs::copy_file(e.path(), out / "llmscope" / e.path().filename(), ec);
        }
    // The reference's files by their place and round: their shapes say what to gather.
    std::map<std::pair<std::string, int64_t>, const TensorRecord *> refFiles;
    const DumpIndex refIndex = scanDump(reference);
    for (const TensorRecord &t : refIndex.tensors)
        refFiles.emplace(std::make_pair(belowRound(t), t.exec), &t);
    for (const auto &file : files)
        for (const auto &[refRound, r] : refTokens) {
            const std::string &below = file.first;
            const auto &byRound = file.second; // plain references: the lambda below takes them
            const auto ref = refFiles.find({below, refRound});
            // Integer inputs are indices into their own round's batch (out_ids, positions): they
            // differ by construction between batchings, and are not compared.
            if (ref == refFiles.end() || r.positions.empty() || !ref->second->engineType.empty() ||
                isIndexType(ref->second->dtype)) {
                ++a.leftOut;
                continue;
            }
            const std::vector<int64_t> &want = ref->second->dims;
            // The run's file and row of a position: a one-token round's file is that row (its
            // token dimension dropped), a several-token round's the row of that position.
            auto rowOf = [&](int32_t p,
                             const std::vector<int64_t> &rowShape) -> std::pair<const TensorRecord *, int64_t> {
                const auto w = where.find(p);
                const auto f = w == where.end() ? byRound.end() : byRound.find(w->second.first);
                if (f == byRound.end() || !f->second->engineType.empty())
                    return {nullptr, 0};
                const std::vector<int64_t> &d = f->second->dims;
                // The whole file is that position's row only in a round of that position alone, or
                // as the last token's row of a round that kept only its last (inp_out_ids).
                const std::vector<int32_t> &held = runTokens.at(w->second.first).positions;
                if (d == rowShape)
                    return held.size() == 1 || p == held.back() ? std::make_pair(f->second, int64_t(-1))
                                                                : std::make_pair(nullptr, int64_t(0));
                if (d.size() == rowShape.size() + 1 &&
                    std::equal(d.begin() + 1, d.end(), rowShape.begin(), rowShape.end()) &&
                    int64_t(w->second.second) < d[0])
                    return {f->second, int64_t(w->second.second)};
                return {nullptr, 0};
            };
            std::vector<std::pair<const TensorRecord *, int64_t>> rows;
            if (r.positions.size() > 1 && !want.empty() && want[0] == int64_t(r.positions.size())) {
                const std::vector<int64_t> rowShape(want.begin() + 1, want.end()); // one row a position
                for (int32_t p : r.positions)
                    rows.push_back(rowOf(p, rowShape));
            } else { // one row: the last position's (a decode round, the last token's outputs, a weight)
                rows.push_back(rowOf(r.positions.back(), want));
            }
            if (std::any_of(rows.begin(), rows.end(), [](const auto &x) { return x.first == nullptr; })) {
                ++a.leftOut;
                continue;
            }
            Tensor t = readBin(rows.front().first->path);
            if (rows.size() > 1 || rows.front().second >= 0) {
                Tensor gathered = t;
                gathered.data.clear();
                gathered.dims = want;
                for (const auto &[file, row] : rows) {
                    const Tensor part = file == rows.front().first ? t : readBin(file->path);
                    const size_t count = row < 0 ? 1 : size_t(part.dims[0]);
                    const size_t bytes = part.data.size() / std::max<size_t>(count, 1), at = row < 0 ? 0 : size_t(row);
                    gathered.data.insert(gathered.data.end(), part.data.begin() + std::ptrdiff_t(at * bytes),
                                         part.data.begin() + std::ptrdiff_t((at + 1) * bytes));
                }
                t = std::move(gathered);
                ++a.aligned;
            } else {
                ++a.copied;
            }
            const std::string target = (out / roundFolder(device, pid, refRound) / below).string();
            makeDirs(fs::path(target).parent_path().string());
            writeBin(target, t);
        }
    return a;
}

} // namespace llmscope
