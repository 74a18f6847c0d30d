#include "core/compare/tensor_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ggml/ggml_library.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/tensor/npy_file.h"
#include "core/torch/pth_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {
constexpr size_t kFirstRead = 16384; // header and a small payload in one read

bool isNpy(const std::string &path)
{
    const std::string lower = toLower(path);
    return lower.size() > 4 && lower.compare(lower.size() - 4, 4, ".npy") == 0;
}
} // namespace

TensorReader::TensorReader(const std::string &path) : m_path(path)
{
    initFromFile();
}

void TensorReader::initFromFile()
{
    const std::string &path = m_path;
    if (isNpy(path) || isTorchFile(path)) {
        m_whole = isNpy(path) ? readNpy(path) : readPth(path);
        m_header = m_whole;
        m_header.data.clear();
        m_available = m_whole.data.size();
    } else {
        openFile();
        const BinFileInfo info = readBinFileAt(m_fd, path, true, kFirstRead, m_head);
        m_header = info.tensor;
        if (!m_header.hasData || info.objects.empty())
            throw Error("'" + path + "' holds no data (a statistics or description-only file)");
        m_dataOffset = info.dataStart + info.objects.front().offset;
        m_available = info.fileSize > m_dataOffset ? info.fileSize - m_dataOffset : 0;
    }
    check(m_available);
}

TensorReader::TensorReader(TensorRecord &r) : m_path(r.path)
{
    if (isNpy(r.path) || isTorchFile(r.path)) {
        initFromFile();
        return;
    }
    if (!r.headerRead) {
        // One open for header and payload; small payloads come with the header's read.
        openFile();
        const BinFileInfo info = readBinFileAt(m_fd, m_path, true, kFirstRead, m_head);
        setRecordHeader(r, info);
        m_header = info.tensor;
        m_dataOffset = r.dataOffset;
        m_available = r.dataBytes;
        if (!r.hasData) {
            ::close(m_fd);
            m_fd = -1;
        }
        return;
    }
    if (!r.hasData || r.dataOffset == 0) {
        initFromFile(); // no shortcut: read the header again
        return;
    }
    m_header.dtype = r.dtype;
    m_header.format = r.format;
    m_header.dims = r.dims;
    m_header.hasData = true;
    if (!r.engineType.empty())
        m_header.setAttr(kEngineDTypeAttr, r.engineType);
    if (!r.engineDims.empty())
        m_header.setAttr(kEngineDimsAttr, joinDims(r.engineDims));
    m_dataOffset = r.dataOffset;
    m_available = r.dataBytes; // the scan checked it against the file's size; a shorter file fails to read
    openFile();
}

TensorReader::TensorReader(const std::string &modelPath, const ggml::ModelTensor &t) : m_path(modelPath)
{
    if (!t.type)
        throw Error("'" + modelPath + "': " + t.name + " is stored as " + t.typeName +
                    ", which ggml cannot give as floats");
    m_header.dtype = 4;
    m_header.dims = {int64_t(t.bytes)};
    m_header.hasData = true;
    m_header.setAttr(kEngineDTypeAttr, t.type->name);
    m_header.setAttr(kEngineDimsAttr, joinDims(t.dims));
    m_dataOffset = t.offset;
    m_available = t.bytes;
    openFile();
    check(m_available);
}

void TensorReader::requireData()
{
    if (!m_header.hasData)
        throw Error("'" + m_path + "' holds no data (a statistics or description-only file)");
    if (!m_checked) // checked once: a view set since (keepLast) stays
        check(m_available);
}

void TensorReader::openFile()
{
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        throw Error("cannot open '" + m_path + "': " + std::strerror(errno));
    ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
}

void TensorReader::check(uint64_t available)
{
    const std::string &path = m_path;
    m_checked = true;
    if (auto engine = m_header.attr(kEngineDTypeAttr)) {
        m_block = ggml::Library::get().type(*engine);
        if (!m_block)
            throw Error("'" + path + "': the engine's own type " + *engine + " is not one ggml (" +
                        ggml::Library::get().path() + ") can give as floats");
        const auto dims = m_header.attr(kEngineDimsAttr);
        if (!dims)
            throw Error("'" + path + "': " + *engine + " data without its dims (engine_dims)");
        try {
            std::vector<int64_t> logical;
            for (const auto &d : split(*dims, ','))
                logical.push_back(parseInt(trim(d)).value_or(-1));
            m_count = elementCount(logical);
            if (m_block->bytes(m_count) > available)
                throw Error("payload shorter than its " + *engine + " dims " + *dims + " need");
        } catch (const Error &e) {
            throw Error("'" + path + "': " + e.what());
        }
        return;
    }
    if (!isNumeric(m_header.dtype))
        throw Error("'" + path + "': " + dtypeName(m_header.dtype) + " cannot be compared element by element");
    std::optional<uint64_t> need;
    try {
        m_count = elementCount(m_header.dims);
        need = dtypeBytes(m_header.dtype, m_count);
    } catch (const Error &e) {
        throw Error("'" + path + "': " + e.what());
    }
    if (!need || *need > available)
        throw Error("'" + path + "': payload shorter than its dims " + joinDims(m_header.dims) + " need");
}

TensorReader::~TensorReader()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void TensorReader::readBytes(uint64_t from, uint64_t to, uint8_t *dst)
{
    uint64_t done = 0;
    if (m_dataOffset + to <= m_head.size()) { // came with the header
        std::memcpy(dst, m_head.data() + m_dataOffset + from, to - from);
        done = to - from;
    }
    while (done < to - from) {
        const ssize_t r = ::pread(m_fd, dst + done, to - from - done, off_t(m_dataOffset + from + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            throw Error("cannot read '" + m_path + "': " + (r < 0 ? std::strerror(errno) : "file shrank"));
        done += uint64_t(r);
    }
}

void TensorReader::keepLast(uint64_t n)
{
    if (n > m_count)
        throw Error("'" + m_path + "': fewer elements than the last " + std::to_string(n) + " asked for");
    m_skip += m_count - n;
    m_count = n;
}

void TensorReader::unpermuteHeads(uint64_t headSize)
{
    if (headSize < 2 || headSize % 2 || m_count % headSize)
        throw Error("'" + m_path + "': " + std::to_string(m_count) + " elements do not split into heads of " +
                    std::to_string(headSize));
    m_headSize = headSize;
}

void TensorReader::selectRows(uint64_t rowSize, const std::vector<uint64_t> &rows)
{
    if (rowSize == 0 || m_count % rowSize)
        throw Error("'" + m_path + "': " + std::to_string(m_count) + " elements do not split into rows of " +
                    std::to_string(rowSize));
    for (uint64_t r : rows)
        if (r >= m_count / rowSize)
            throw Error("'" + m_path + "': row " + std::to_string(r) + " asked for, it holds " +
                        std::to_string(m_count / rowSize));
    m_rowSize = rowSize;
    m_rows = rows;
    m_count = rows.size() * rowSize;
}

void TensorReader::read(uint64_t first, uint64_t n, float *out)
{
    if (m_rowSize) { // each chosen row in turn, within it the elements asked for
        while (n) {
            const uint64_t row = first / m_rowSize, at = first % m_rowSize, take = std::min(n, m_rowSize - at);
            readStored(m_skip + m_rows[row] * m_rowSize + at, take, out);
            first += take;
            out += take;
            n -= take;
        }
        return;
    }
    if (!m_headSize) {
        readStored(m_skip + first, n, out);
        return;
    }
    const uint64_t d = m_headSize, half = d / 2;
    const uint64_t h0 = first / d, h1 = (first + n + d - 1) / d; // whole heads around the range
    m_heads.resize((h1 - h0) * d);
    readStored(m_skip + h0 * d, (h1 - h0) * d, m_heads.data());
    for (uint64_t k = first; k < first + n; ++k) {
        const uint64_t j = k % d; // Hugging Face's place in the head: half j / half, index j % half
        out[k - first] = m_heads[(k / d - h0) * d + 2 * (j % half) + j / half];
    }
}

void TensorReader::readStored(uint64_t first, uint64_t n, float *out)
{
    if (m_block) { // whole blocks, dequantized, then the elements asked for
        const uint64_t bs = uint64_t(m_block->blockSize);
        const uint64_t b0 = first / bs, b1 = (first + n + bs - 1) / bs;
        m_scratch.resize((b1 - b0) * m_block->blockBytes);
        readBytes(b0 * m_block->blockBytes, b1 * m_block->blockBytes, m_scratch.data());
        const bool whole = first == b0 * bs && n == (b1 - b0) * bs;
        if (!whole)
            m_blockFloats.resize((b1 - b0) * bs);
        float *dst = whole ? out : m_blockFloats.data();
        if (m_block->toFloat)
            m_block->toFloat(m_scratch.data(), dst, int64_t((b1 - b0) * bs));
        else // f32
            std::memcpy(dst, m_scratch.data(), (b1 - b0) * bs * sizeof(float));
        if (!whole)
            std::memcpy(out, m_blockFloats.data() + (first - b0 * bs), n * sizeof(float));
        return;
    }
    if (m_fd < 0) {
        decodeToFloat(m_header.dtype, m_whole.data.data(), first, n, out);
        return;
    }
    // Sub-byte types start inside a byte: read from the byte holding element `first`.
    const uint64_t bits = uint64_t(dtypeInfo(m_header.dtype)->bits);
    const uint64_t from = first * bits / 8, to = ((first + n) * bits + 7) / 8;
    const bool direct = m_header.dtype == 0; // float32: the file's bytes are the answer
    uint8_t *dst = direct ? reinterpret_cast<uint8_t *>(out) : nullptr;
    if (!direct) {
        m_scratch.resize(to - from + 1);
        dst = m_scratch.data();
    }
    readBytes(from, to, dst);
    if (!direct) {
        // Element `first` may sit inside the first byte read (sub-byte types).
        decodeToFloat(m_header.dtype, dst, first - from * 8 / bits, n, out);
    }
}

} // namespace llmscope
