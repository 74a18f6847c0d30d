// msit's manual mapping, for engines whose dumps cannot be matched automatically: the program
// calls dumpData() at the places it wants compared, on the golden side and the test side, and
// `llmscope compare` pairs the two metadata.json files by data id and token id.
//
// Layout (msit's): {dir}/{pid}_cmp_dump_data/{source}_tensor/{token_id}/{data_id}_tensor.npy
// and {dir}/{pid}_cmp_dump_data/{source}_tensor/metadata.json: {data_id: {token_id: [paths]}}.
// source is "golden" or "acl". manual/llmscope_dump_data.py is the same for Python (NumPy).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor/tensor.h"

namespace llmscope {

class ManualDumper {
public:
    // dir: where {pid}_cmp_dump_data goes. Throws Error for a source other than golden/acl.
    ManualDumper(std::string source, std::string dir = ".");

    // Saves the tensor as .npy and records it; returns the path written.
    std::string dumpData(const std::string &dataId, const Tensor &value, int64_t tokenId = 0);
    // Records a tensor file that already exists (e.g. an ATB dump's .bin) under dataId.
    void dumpPath(const std::string &dataId, const std::string &tensorPath, int64_t tokenId = 0);

    std::string metadataPath() const;

private:
    void record(const std::string &dataId, int64_t tokenId, const std::string &path);
    std::string m_source, m_folder;
};

} // namespace llmscope
