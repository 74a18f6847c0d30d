// Names and paths of msit's dump layout, in one place for the writer and the index.
#pragma once
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmscope {

// "msit_dump_YYYYmmdd_HHMMSS" in local time, as msit names its folder.
std::string dumpFolderName(std::time_t when);
// The msit_dump_* folders directly inside folder (an -o folder), oldest first; none when it has none.
std::vector<std::string> dumpsInside(const std::string &folder);

// A name safe as one path component: '/', '\\', control characters and leading dots
// become '_', ".." cannot survive, empty becomes "_", and it is cut to 200 bytes.
std::string sanitizeName(std::string_view name);

// "tensors/{device}_{pid}/{exec}", relative to the msit_dump_* folder: one round's tensors.
std::string roundFolder(int device, int64_t pid, int64_t exec);
std::string opFolderName(int index, std::string_view name); // "{index}_{name}", sanitized
std::string opPath(const std::vector<std::string> &folders); // "3_DecoderLayer/29_MUL_MAT"
std::string tensorFileName(bool input, int index); // "intensor0.bin"
// A tensor's file by its name: a .bin or .npy, in any case (no copy of the name: every record of a
// dump goes through it).
bool isTensorFile(std::string_view path);
// "tensors/{device}_{pid}/{exec}/{op folders}", the folders sanitized: an op's folder in a round.
std::string opRelativePath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders);
// "tensors/{device}_{pid}/{exec}/{op folders}/{before|after}/{in|out}tensor{i}.bin", the
// folders sanitized: where a tensor's file goes, relative to the msit_dump_* folder.
std::string tensorRelativePath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                               bool before, bool input, int index);

// "{device}_{pid}": device -1 when the folder has only a pid.
struct DevicePid {
    int device = -1;
    int64_t pid = 0;
};
std::optional<DevicePid> parseDevicePid(std::string_view folder);

// "{index}_{Name}" -> index and name.
struct OpFolder {
    int index = 0;
    std::string name;
};
std::optional<OpFolder> parseOpFolder(std::string_view folder);

// intensor0.bin, outTensor1.bin, outtensor0_output.bin (any casing; optional parameter name).
struct TensorFileName {
    bool input = true;
    int index = 0;
    std::string param;
};
std::optional<TensorFileName> parseTensorFileName(std::string_view file);

} // namespace llmscope
