// msit's tensor file (.bin): "name=value" header lines, "$End=1", then raw payload.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor/tensor.h"

namespace llmscope {

struct BinObject {
    uint64_t offset = 0, length = 0;
}; // relative to the data start

struct BinFileInfo {
    Tensor tensor; // data empty when read header-only
    uint64_t dataStart = 0; // file offset of the first payload byte
    uint64_t objectLength = 0;
    std::vector<BinObject> objects;
    uint64_t fileSize = 0;
};

// Parses and validates the header, and (unless headerOnly) reads object 0 as the payload.
// Every malformed, truncated or inconsistent file throws Error saying what is wrong.
BinFileInfo readBinFile(const std::string &path, bool headerOnly = false);
// The same from a descriptor the caller keeps open; `head` receives the file's first bytes
// as read (at least firstRead of them where the file has them), payload included if it fits.
BinFileInfo readBinFileAt(int fd, const std::string &path, bool headerOnly, size_t firstRead,
                          std::vector<uint8_t> &head);
Tensor readBin(const std::string &path);

// The header bytes msit writes for t: payload of t.data when hasData, none otherwise.
std::string encodeBinHeader(const Tensor &t);
// Writes header and payload atomically (temporary name, then rename), mode 0640. Returns the
// header's size (where the payload starts).
uint64_t writeBin(const std::string &path, const Tensor &t);
// The same for `name` in the open folder dirFd (util/atomic_file.h's writeFileAtomicAt).
uint64_t writeBinAt(int dirFd, const std::string &name, const std::string &shownPath, const Tensor &t);

} // namespace llmscope
