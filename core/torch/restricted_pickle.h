// The pickle torch.save writes for a tensor, read by a small interpreter that knows only what
// such a pickle uses: Python's own unpickler would call whatever the file names (a pickle is a
// program), so this one builds plain values and refuses any other callable or opcode, saying
// which. Nothing from the file is ever run.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmscope::torchfile {

// A saved tensor as its pickle describes it: where its elements are in which storage.
struct TensorRef {
    std::string storageKey; // the zip entry data/{key}
    std::string storageType; // torch's storage class: FloatStorage, HalfStorage, ...
    int64_t storageElements = 0;
    int64_t offset = 0; // in elements
    std::vector<int64_t> size, stride;
};

// The tensor data.pkl rebuilds. Throws Error (message naming path) when the pickle is
// malformed, holds anything other than one tensor, or asks for a callable a saved tensor
// never uses.
TensorRef readTensorPickle(std::string_view pickle, const std::string &path);

} // namespace llmscope::torchfile
