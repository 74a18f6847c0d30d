// msit's engine dump (and msProbe's ATB dump): tensor files' places and statistic.csv.
#include "core/dump/formats/dump_formats.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/dump/dump_layout.h"
#include "core/dump/statistic_csv.h"
#include "core/select/op_id.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/util/text.h"

namespace llmscope::formats {

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

// msProbe's per-exec statistic.csv rows become records without a payload.
void readStatisticCsv(const std::string &csv, DumpIndex &index)
{
    std::ifstream in(csv);
    std::string line;
    if (!std::getline(in, line)) {
        index.problems.push_back({csv, "empty statistic.csv"});
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
        index.problems.push_back({csv, "statistic.csv lacks msProbe's columns"});
        return;
    }
    int lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto f = split(trim(line), ',');
        if (f.size() != header.size()) {
            index.problems.push_back({csv,
                                      "line " + std::to_string(lineNo) + " has " + std::to_string(f.size()) +
                                          " fields, header has " + std::to_string(header.size())});
            continue;
        }
        TensorRecord r;
        r.path = cPath >= 0 ? f[cPath] : csv;
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

} // namespace llmscope::formats
