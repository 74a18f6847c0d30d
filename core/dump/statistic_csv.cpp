#include "dump/statistic_csv.h"

#include "dump/dump_layout.h"
#include "tensor/dtype.h"
#include "util/text.h"

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

std::string statisticCsvHeader()
{
    return "Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,"
           "Max,Min,Mean,Norm,Tensor Path,Op Path,Before/After\n";
}

std::string statisticCsvLine(const StatisticRow &r)
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
    auto stat = [&](double TensorStats::*m) { return r.stats ? formatStat((*r.stats).*m) : std::string("N/A"); };
    return std::to_string(r.device) + "_" + std::to_string(r.pid) + "," + std::to_string(r.exec) + "," +
           field(last ? last->name : "") + "," + field(r.opType) + "," + id + "," + (r.input ? "input" : "output") +
           "," + std::to_string(r.index) + "," + field(r.engineType.empty() ? dtypeName(r.dtype) : r.engineType) +
           "," + formatName(r.format) + "," + (shape.empty() ? "N/A" : shape) + "," + stat(&TensorStats::max) + "," +
           stat(&TensorStats::min) + "," + stat(&TensorStats::mean) + "," + stat(&TensorStats::l2norm) + "," +
           field(r.tensorPath) + "," + field(path) + "," + (r.before ? "before" : "after") + "\n";
}

} // namespace llmscope
