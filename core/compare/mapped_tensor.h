// A tensor file opened for comparison: .bin payloads are memory-mapped and decoded to
// float32 chunk by chunk; .npy files are read whole.
#pragma once
#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace llmscope {

class MappedTensor {
public:
    // Throws Error for unreadable, truncated or non-numeric files, naming the file.
    explicit MappedTensor(const std::string &path);
    ~MappedTensor();
    MappedTensor(const MappedTensor &) = delete;
    MappedTensor &operator=(const MappedTensor &) = delete;

    const Tensor &header() const { return m_header; } // dtype, dims, attributes; no data
    uint64_t count() const { return m_count; }
    void decode(uint64_t first, uint64_t n, float *out) const;

private:
    Tensor m_header;
    uint64_t m_count = 0;
    void *m_map = nullptr;
    size_t m_mapSize = 0;
    const uint8_t *m_data = nullptr;
    Tensor m_whole; // .npy
};

} // namespace llmscope
