// A tensor file opened for comparison and read chunk by chunk into float32: .bin payloads
// with pread straight into the caller's buffer (no copy for float32), .npy files whole, and
// ggml's quantized blocks (a dumped payload, or a weight in its model file) dequantized by
// ggml's own to_float, block by block.
// A file is opened once: a header the dump scan left unread is read here, and a payload that
// came with the header's first read is not read again.
// pread rather than mmap: unmapping thousands of files from several threads costs a TLB
// shootdown on every core each time, which measured slower than copying from the page cache.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/tensor/tensor.h"

namespace llmscope {
namespace ggml {
struct BlockType;
struct ModelTensor;
} // namespace ggml

class TensorReader {
public:
    // Throws Error for unreadable, truncated or non-numeric files, naming the file.
    explicit TensorReader(const std::string &path);
    // From a dump index record. A header the scan read is not read again; one it left
    // unread is read now and written into the record. Throws Error for unreadable files;
    // call requireData() before read().
    explicit TensorReader(TensorRecord &record);
    // A tensor of a GGUF model file (a weight), in ggml's type. Throws Error for types ggml
    // cannot give as floats.
    TensorReader(const std::string &modelPath, const ggml::ModelTensor &tensor);
    ~TensorReader();
    TensorReader(const TensorReader &) = delete;
    TensorReader &operator=(const TensorReader &) = delete;

    // Throws Error unless the file holds numeric data its dims fit.
    void requireData();
    const Tensor &header() const { return m_header; } // dtype, dims, attributes; no data
    uint64_t count() const { return m_count; }
    // Elements [first, first + n) as float32. Throws Error when the file cannot be read.
    void read(uint64_t first, uint64_t n, float *out);
    // Views for another framework's layout, applied by read() and count(): only the last n
    // elements (rows an engine no longer computes); and each run of headSize elements
    // reordered from ggml's interleaved pairs to Hugging Face's halves (the converter's Q/K
    // row permutation undone: element 2i + h of a head is read as element i + h headSize/2).
    void keepLast(uint64_t n);
    void unpermuteHeads(uint64_t headSize);
    // Only these rows of rowSize elements, in this order (one expert's rows of an op that
    // computes every token's experts together). Throws Error for rows the tensor does not hold.
    void selectRows(uint64_t rowSize, const std::vector<uint64_t> &rows);
    // ggml's block type of the data ("q4_0"); null for dtypes read directly.
    const ggml::BlockType *blockType() const { return m_block; }

private:
    void initFromFile();
    void check(uint64_t available);
    void openFile();
    void readBytes(uint64_t from, uint64_t to, uint8_t *dst);
    void readStored(uint64_t first, uint64_t n, float *out); // the file's elements, no view

    std::string m_path;
    Tensor m_header;
    uint64_t m_count = 0;
    int m_fd = -1;
    uint64_t m_dataOffset = 0; // file offset of element 0
    uint64_t m_available = 0; // payload bytes the file holds
    std::vector<uint8_t> m_head; // the file's first bytes, as read with the header
    std::vector<uint8_t> m_scratch; // raw bytes of non-float32 chunks
    Tensor m_whole; // .npy
    const ggml::BlockType *m_block = nullptr; // ggml blocks, dequantized on read
    std::vector<float> m_blockFloats;
    uint64_t m_skip = 0, m_headSize = 0, m_rowSize = 0; // the views
    std::vector<uint64_t> m_rows;
    bool m_checked = false; // check() passed
    std::vector<float> m_heads;
};

} // namespace llmscope
