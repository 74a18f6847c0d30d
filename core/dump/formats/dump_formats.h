// The dump layouts scanDump reads, one file each: msit's engine dump (msit_layout.cpp, also
// msProbe's ATB dump), msit's PyTorch dump (msit_torch_layout.cpp) and msProbe's PyTorch dump
// (msprobe_torch_layout.cpp). The walker (core/dump/dump_index.cpp) finds a tensor file's
// layout by the folder it lies under, in the table below, and a statistics file's by its name.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/tensor/stats.h"

namespace llmscope::formats {

// A layout whose tensors lie under a folder of its own.
struct TensorFolder {
    const char *name; // the folder: "tensors", "torch_tensors", ...
    const char *inside; // the folder it must lie in ("atb_dump_data" for "data"), or null
    bool filesDirectlyIn; // the files lie directly in it, no deeper (msProbe's dump_tensor_data)
    bool torch; // torch.save files (.pt, .pth); msit's .bin files otherwise
    const char *layout; // DumpIndex::layout
    bool rootIsProcess; // the folder is one process's (its model_tree.json beside the files)
    // Fills rec's place from the file's path below the folder (its parts) and the folder's
    // path; false when the file is not where the layout puts its files.
    bool (*place)(const std::vector<std::string> &parts, const std::string &folder, TensorRecord &rec);
    const char *expected; // where the layout puts its files, said when one is not
};
const std::vector<TensorFolder> &tensorFolders();

// A statistics file a layout writes: its name, and the reader turning its rows into records
// without payloads.
struct StatisticsFile {
    const char *name;
    void (*read)(const std::string &path, DumpIndex &index);
};
const std::vector<StatisticsFile> &statisticsFiles();
void readStatisticsFile(const std::string &path, DumpIndex &index); // by its name; msit's statistic.csv otherwise

// msit's engine layout: {device}_{pid}/{exec}/{op folders...}/{before|after}/{file}.
bool placeFromComponents(const std::vector<std::string> &parts, TensorRecord &rec);
void readStatisticCsv(const std::string &csv, DumpIndex &index);
// msit's PyTorch layout
bool placeTorchComponents(const std::vector<std::string> &parts, TensorRecord &rec);
std::map<std::string, std::string> torchTreeIds(const std::string &treeFile);
void readTorchStatisticsCsv(const std::string &csv, DumpIndex &index);
// msProbe's PyTorch layout
bool placeMsprobeTorch(const std::string &file, const std::string &tensorsRoot, TensorRecord &rec);
void readMsprobeDumpJson(const std::string &file, DumpIndex &index);

// What the readers share: a statistic's text ("N/A": none), the four a PyTorch dump gives,
// and a record added to a torch dump's index.
std::optional<double> parseStatField(const std::string &s);
std::optional<TensorStats> statsOf(std::optional<double> max, std::optional<double> min, std::optional<double> mean,
                                   std::optional<double> l2norm);
void addTorchRecord(DumpIndex &index, TensorRecord &&r);

} // namespace llmscope::formats
