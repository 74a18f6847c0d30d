// msit's op and kernel info files (operation_io_tensors/{pid}/operation_tensors_{exec}.csv,
// kernel_io_tensors/{pid}/kernel_tensors_{exec}.csv): '|'-delimited despite the extension,
// one row per dumped operation, lists inside a field joined with ';'. At most 10,000 rows a
// file; more go to operation_tensors_{exec}_{k}.csv.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llmscope {

struct OpInfoRow {
    std::string caseName; // the node's name in the program ("ffn_out-2")
    std::string opName; // its op ("MUL_MAT")
    std::string opParam; // its decoded parameters as compact JSON ("{}" when none)
    std::vector<std::string> inDtypes, inFormats, inShapes, outDtypes, outFormats, outShapes; // shapes "1,18,512"
    std::vector<std::string> inFiles, outFiles; // the tensor files written for it, if any
    std::string testType; // "operation" or "kernel"
    std::string fromModel; // the op's id ("3_29")
    std::string socVersion; // the backend that ran it ("CPU", "CUDA0")
};

constexpr size_t kOpInfoRowsPerFile = 10000;
extern const char *const kOpInfoHeader;

// The file text, header first. '|' and newlines inside a value become '/' and ' ' (the format
// has no quoting).
std::string opInfoCsv(const std::vector<OpInfoRow> &rows, size_t firstCaseNum = 1);
// Throws Error for a file that is not one (a wrong header, a row of the wrong width).
std::vector<OpInfoRow> parseOpInfoCsv(const std::string &text);

// Each op's backend (op id -> "CPU", "Vulkan0") from the kernel CSVs of a dump folder or of the
// msit_dump_* folders in an -o folder, the first round's that names it; empty without any.
// Unreadable files are passed over.
std::map<std::string, std::string> readOpBackends(const std::string &dumpRoot);

// "operation_io_tensors/{pid}/operation_tensors_{exec}.csv" (part 0), "..._{exec}_{part}.csv".
std::string opInfoPath(bool kernel, int64_t pid, int64_t exec, size_t part = 0);

} // namespace llmscope
