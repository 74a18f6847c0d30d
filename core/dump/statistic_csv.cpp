#include "core/dump/statistic_csv.h"

#include <iterator>

#include "core/dump/dump_layout.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/util/text.h"

namespace llmscope {
namespace {
// Commas and newlines would break the row; names come from the engine.
std::string field(std::string s)
{
    for (char &c : s)
        if (c == ',' || c == '\n' || c == '\r')
            c = '_';
    return s;
}
} // namespace

const char *statisticColumnName(StatisticColumn c)
{
    static const char *const names[] = {
        "Device and PID", "Execution Count", "Op Name",      "Op Type", "Op Id", "Input/Output", "Index",
        "Dtype",          "Format",          "Shape",        "Max",     "Min",   "Mean",         "Norm",
        "Tensor Path",    "Op Path",         "Before/After", "Sketch",  "Digest"};
    static_assert(std::size(names) == size_t(StatisticColumn::Count));
    return names[size_t(c)];
}

std::string statisticCsvHeader()
{
    std::string header;
    for (size_t c = 0; c < size_t(StatisticColumn::Count); ++c)
        header += (c ? "," : "") + std::string(statisticColumnName(StatisticColumn(c)));
    return header + "\n";
}

StatisticRowParts statisticRowParts(const StatisticRow &r)
{
    std::string id, path;
    for (const auto &f : r.opFolders) {
        const auto op = parseOpFolder(f);
        id += (id.empty() ? "" : "_") + (op ? std::to_string(op->index) : std::string("0"));
        path += (path.empty() ? "" : "/") + f;
    }
    const auto last = r.opFolders.empty() ? std::nullopt : parseOpFolder(r.opFolders.back());
    std::string shape;
    for (size_t i = 0; i < r.dims.size(); ++i)
        shape += (i ? "x" : "") + std::to_string(r.dims[i]);
    const std::string devPid = std::to_string(r.device) + "_" + std::to_string(r.pid);
    StatisticRowParts p;
    p.beforeExec = devPid + ",";
    p.afterExec = "," + field(last ? last->name : "") + "," + field(r.opType) + "," + id + "," +
        (r.input ? "input" : "output") + "," + std::to_string(r.index) + "," +
        field(r.engineType.empty() ? dtypeName(r.dtype) : r.engineType) + "," + formatName(r.format) + "," +
        (shape.empty() ? "N/A" : shape) + ",";
    // The path's round folder follows its last "/tensors/{device}_{pid}/": op folders hold no '/'.
    const std::string tensorPath = field(r.tensorPath);
    const std::string marker = "/tensors/" + devPid + "/" + std::to_string(r.exec) + "/";
    const size_t at = tensorPath.rfind(marker);
    if (at == std::string::npos) {
        p.beforePathExec = "," + tensorPath;
        p.pathHasExec = false;
    } else {
        const size_t execAt = at + marker.size() - 1 - std::to_string(r.exec).size();
        p.beforePathExec = "," + tensorPath.substr(0, execAt);
        p.afterPathExec = tensorPath.substr(execAt + std::to_string(r.exec).size());
    }
    p.afterPathExec += "," + field(path) + "," + (r.before ? "before" : "after") + ",";
    return p;
}

void appendStatisticCsvLine(std::string &out, const StatisticRowParts &p, int64_t exec,
                            const std::optional<TensorStats> &stats)
{
    const std::string round = std::to_string(exec);
    out += p.beforeExec;
    out += round;
    out += p.afterExec;
    if (stats) {
        appendStat(out, stats->max);
        out += ',';
        appendStat(out, stats->min);
        out += ',';
        appendStat(out, stats->mean);
        out += ',';
        appendStat(out, stats->l2norm);
    } else {
        out += "N/A,N/A,N/A,N/A";
    }
    out += p.beforePathExec;
    if (p.pathHasExec)
        out += round;
    out += p.afterPathExec;
    if (stats && !stats->sketch.empty())
        out += encodeSketch(stats->sketch);
    out += ',';
    if (stats && stats->digest)
        out += encodeDigest(stats->digest);
    out += '\n';
}

std::string statisticCsvLine(const StatisticRow &r)
{
    std::string line;
    appendStatisticCsvLine(line, statisticRowParts(r), r.exec, r.stats);
    return line;
}

} // namespace llmscope
