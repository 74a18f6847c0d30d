#include "core/dump/formats/dump_formats.h"

#include <cstdlib>

namespace llmscope::formats {

namespace {

bool placeEngine(const std::vector<std::string> &parts, const std::string &, TensorRecord &rec)
{
    return placeFromComponents(parts, rec);
}

bool placeTorch(const std::vector<std::string> &parts, const std::string &, TensorRecord &rec)
{
    return placeTorchComponents(parts, rec);
}

bool placeMsprobe(const std::vector<std::string> &parts, const std::string &folder, TensorRecord &rec)
{
    return placeMsprobeTorch(parts.back(), folder, rec);
}

void readEngineStatistics(const std::string &csv, DumpIndex &index)
{
    readStatisticCsv(csv, index);
    if (index.layout.empty())
        index.layout = "msprobe";
}

} // namespace

const std::vector<TensorFolder> &tensorFolders()
{
    static const std::vector<TensorFolder> folders = {
        {"tensors", nullptr, false, false, "msit", false, placeEngine,
         "not in {device}_{pid}/{exec}/{id}_{Op}/.../before|after/ layout"},
        {"torch_tensors", nullptr, false, true, "torch", false, placeTorch,
         "not in {device}_{pid}/{token}/{module}/input_{i}|output.pth layout"},
        {"dump_tensor_data", nullptr, true, true, "torch", true, placeMsprobe,
         "not msProbe's {Module|Functional}.{name}.forward.{call}.{input|output}.{i}.pt"},
        {"data", "atb_dump_data", false, false, "msprobe", false, placeEngine,
         "not in {device}_{pid}/{exec}/{id}_{Op}/.../before|after/ layout"},
    };
    return folders;
}

const std::vector<StatisticsFile> &statisticsFiles()
{
    static const std::vector<StatisticsFile> files = {
        {"dump.json", readMsprobeDumpJson}, // msProbe's PyTorch dump
        {"statistics.csv", readTorchStatisticsCsv}, // msit's PyTorch dump, in a module's folder
        {"statistic.csv", readEngineStatistics}, // msit's and msProbe's engine dumps
    };
    return files;
}

void readStatisticsFile(const std::string &path, DumpIndex &index)
{
    const std::string name = path.substr(path.rfind('/') + 1);
    for (const StatisticsFile &f : statisticsFiles())
        if (name == f.name) {
            f.read(path, index);
            return;
        }
    readEngineStatistics(path, index);
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

} // namespace llmscope::formats
