#include "compare/mapped_tensor.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tensor/bin_file.h"
#include "tensor/convert.h"
#include "tensor/dtype.h"
#include "tensor/npy_file.h"
#include "util/error.h"
#include "util/text.h"

namespace llmscope {

MappedTensor::MappedTensor(const std::string &path)
{
    const std::string lower = toLower(path);
    if (lower.size() > 4 && lower.substr(lower.size() - 4) == ".npy") {
        m_whole = readNpy(path);
        m_header = m_whole;
        m_header.data.clear();
        m_data = m_whole.data.data();
    } else {
        const BinFileInfo info = readBinFile(path, true);
        m_header = info.tensor;
        if (!m_header.hasData || info.objects.empty())
            throw Error("'" + path + "' holds no data (a statistics or description-only file)");
        const BinObject &obj = info.objects.front();
        if (obj.length) {
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                throw Error("cannot open '" + path + "': " + std::strerror(errno));
            m_mapSize = size_t(info.fileSize);
            m_map = ::mmap(nullptr, m_mapSize, PROT_READ, MAP_PRIVATE, fd, 0);
            ::close(fd);
            if (m_map == MAP_FAILED) {
                m_map = nullptr;
                throw Error("cannot map '" + path + "': " + std::strerror(errno));
            }
            ::madvise(m_map, m_mapSize, MADV_SEQUENTIAL);
            m_data = static_cast<const uint8_t *>(m_map) + info.dataStart + obj.offset;
        }
    }
    if (!isNumeric(m_header.dtype))
        throw Error("'" + path + "': " + dtypeName(m_header.dtype) + " cannot be compared element by element");
    if (auto engine = m_header.attr(kEngineDTypeAttr))
        throw Error("'" + path + "': the engine's own type " + *engine +
                    " cannot be compared element by element; dump it dequantized");
    m_count = 1;
    for (int64_t d : m_header.dims)
        m_count *= uint64_t(d);
    const auto need = dtypeBytes(m_header.dtype, m_count);
    const uint64_t have = m_map ? uint64_t(m_mapSize) - uint64_t(m_data - static_cast<const uint8_t *>(m_map))
                                : m_whole.data.size();
    if (!need || *need > have)
        throw Error("'" + path + "': payload shorter than its dims " + joinDims(m_header.dims) + " need");
}

MappedTensor::~MappedTensor()
{
    if (m_map)
        ::munmap(m_map, m_mapSize);
}

void MappedTensor::decode(uint64_t first, uint64_t n, float *out) const
{
    decodeToFloat(m_header.dtype, m_data, first, n, out);
}

} // namespace llmscope
