// A scan of a dump folder in msit's layout (tensors/...), msProbe's (atb_dump_data/...) or msit's
// PyTorch dump (torch_tensors/...):
// every tensor file's place and header, the topology files, and what could not be read.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/dump/topology.h"
#include "core/tensor/stats.h"

namespace llmscope {

struct TensorRecord {
    std::string path; // absolute file path; for statistic.csv rows, the CSV's path column
    int device = -1;
    int64_t pid = 0;
    int64_t exec = 0; // msit's execute count ("token id"), llmscope's round
    std::string opId; // "3_1"
    std::vector<std::string> opFolders; // {"3_Decoder", "1_Linear"}
    std::string opName; // the last folder's name part ("Linear")
    bool before = false; // before/after execution
    bool input = true; // intensor/outtensor
    int index = 0;
    std::string param; // parameter-name suffix of the file name, if any
    int32_t dtype = 0, format = 2;
    std::vector<int64_t> dims;
    bool hasData = false;
    uint64_t dataBytes = 0;
    uint64_t dataOffset = 0; // file offset of the payload (.bin files with data)
    std::string engineType; // engine_dtype attribute (e.g. q8_0), if any
    std::vector<int64_t> engineDims; // its engine_dims attribute: the elements the bytes hold
    // A write into the KV cache dumped as the rows it wrote (llmscope_kv_rows): the cache's
    // ggml type ("f16", "q8_0"); empty for any other tensor.
    std::string kvRowsType;
    std::optional<TensorStats> stats; // from max/min/mean/l2norm attributes or statistic.csv
    bool headerRead = true; // false: a scan without headers left dtype..stats unset
};

struct BinFileInfo;
// Fills the header fields of r (dtype .. stats) from a parsed .bin header.
void setRecordHeader(TensorRecord &r, const BinFileInfo &info);

struct DumpProblem {
    std::string path, message;
};

struct DumpIndex {
    std::string root;
    std::string layout; // "msit", "msprobe", "torch", or "" when no tensors were found
    std::vector<TensorRecord> tensors; // sorted by pid, exec, op path, before/after, input, index
    std::vector<std::string> modelFiles, layerFiles, torchTreeFiles;
    std::vector<DumpProblem> problems; // unreadable files; a scan never stops for one

    std::vector<int64_t> rounds() const;
};

// progress(done, total) is called while headers are read; returning false cancels the scan
// (Error "scan cancelled"). Throws Error when root does not exist or is not a folder.
using ScanProgress = std::function<bool(uint64_t done, uint64_t total)>;
// readHeaders false: only the place of each .bin file is recorded (headerRead false), for a
// reader that opens every file anyway (compare); files that are no tensor files then show
// up when read, not in problems.
DumpIndex scanDump(const std::string &root, const ScanProgress &progress = {}, bool readHeaders = true);

// The same scan a round at a time, for a window that shows what is read as it goes:
// onRound(chunk) gets each round's tensors (every {device}_{pid}/{exec} folder of that round,
// rounds in order; a chunk holds the problems met in it too), then one last chunk with the
// tensors outside round folders and msProbe's statistic.csv rows, when there are any.
// onRound or progress returning false cancels (Error "scan cancelled"). Returns the whole
// index, as scanDump would.
using RoundSink = std::function<bool(const DumpIndex &chunk)>;
DumpIndex scanDumpByRound(const std::string &root, const RoundSink &onRound, const ScanProgress &progress = {});

// The model topology files where msit and msProbe put them (model/{pid}/*.json,
// atb_dump_data/info/model/*/*.json, a model_tree.json at the top), found without walking
// the tensors: a window shows the operations before the scan of a large dump is done.
std::vector<std::string> findModelFiles(const std::string &root);

// Whether root holds msit's PyTorch dump (torch_tensors/, in it or in an msit_dump_* inside).
bool holdsTorchDump(const std::string &root);

} // namespace llmscope
