#include "core/tensor/bin_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tensor/dtype.h"
#include "core/text/reason_error.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

constexpr size_t kMaxHeader = 1 << 20;

struct Fd {
    int fd;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

size_t preadFull(int fd, uint8_t *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = ::pread(fd, buf + got, len - got, static_cast<off_t>(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            throw Error(std::string("read failed: ") + std::strerror(errno));
        if (r == 0)
            break;
        got += static_cast<size_t>(r);
    }
    return got;
}

uint64_t needUInt(const std::string &key, const std::string &value)
{
    auto v = parseUInt(value);
    if (!v)
        throw Error("header line '" + key + "=" + value + "': not a non-negative integer");
    return *v;
}

int32_t needInt32(const std::string &key, const std::string &value)
{
    auto v = parseInt(value);
    if (!v || *v < INT32_MIN || *v > INT32_MAX)
        throw Error("header line '" + key + "=" + value + "': not an integer");
    return static_cast<int32_t>(*v);
}

} // namespace

BinFileInfo readBinFile(const std::string &path, bool headerOnly)
{
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) {
        const std::string why = std::strerror(errno);
        throw ReasonError(Reason(Said::CannotOpen, {path, why}));
    }
    std::vector<uint8_t> head;
    return readBinFileAt(f.fd, path, headerOnly, 4096, head);
}

BinFileInfo readBinFileAt(int fd, const std::string &path, bool headerOnly, size_t firstRead,
                          std::vector<uint8_t> &head)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw ReasonError(Reason(Said::NotARegularFile, {path}));
    BinFileInfo info;
    info.fileSize = static_cast<uint64_t>(st.st_size);

    // Headers are a few hundred bytes: read a little first, the rest of the allowance only
    // when the end marker is not in it (scanning a dump reads thousands of headers).
    head.resize(std::min<uint64_t>(info.fileSize, std::max<size_t>(firstRead, 64)));
    head.resize(preadFull(fd, head.data(), head.size(), 0));
    static const char kEnd[] = "$End=1\n";
    if (info.fileSize > head.size() && !memmem(head.data(), head.size(), kEnd, sizeof kEnd - 1)) {
        head.resize(std::min<uint64_t>(info.fileSize, kMaxHeader));
        head.resize(preadFull(fd, head.data(), head.size(), 0));
    }

    auto fail = [&](const std::string &why) { throw Error("'" + path + "': " + why); };
    bool sawVersion = false, sawEnd = false, sawDtype = false, sawDims = false;
    uint64_t count = 0;
    size_t pos = 0;
    try {
        while (pos < head.size()) {
            const uint8_t *nl = static_cast<const uint8_t *>(std::memchr(head.data() + pos, '\n', head.size() - pos));
            if (!nl)
                break;
            std::string line(reinterpret_cast<const char *>(head.data() + pos), nl - (head.data() + pos));
            pos = static_cast<size_t>(nl - head.data()) + 1;
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            const size_t eq = line.find('=');
            if (eq == std::string::npos || line.find('=', eq + 1) != std::string::npos)
                throw Error("header line '" + line.substr(0, 80) + "' must have exactly one '='");
            for (unsigned char c : line)
                if (c < 0x20 || c == 0x7F)
                    throw Error("header line has a control character (is this a msit .bin file?)");
            const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
            if (key == "$Version") {
                sawVersion = true;
            } else if (key == "$Object.Count") {
                count = needUInt(key, value);
            } else if (key == "$Object.Length") {
                info.objectLength = needUInt(key, value);
            } else if (key == "$Object.data") {
                auto parts = split(value, ',');
                if (parts.size() != 2)
                    throw Error("header line '$Object.data=" + value + "' must be offset,length");
                info.objects.push_back({needUInt(key, parts[0]), needUInt(key, parts[1])});
            } else if (key == "$End") {
                sawEnd = true;
                break;
            } else if (key == "dtype") {
                info.tensor.dtype = needInt32(key, value);
                sawDtype = true;
            } else if (key == "format") {
                info.tensor.format = needInt32(key, value);
            } else if (key == "dims") {
                info.tensor.dims = parseDims(value);
                sawDims = true;
            } else if (!key.empty() && key[0] == '$') {
                // Other system keys are kept out of the user attributes and ignored.
            } else {
                info.tensor.attrs.emplace_back(key, value);
            }
        }
    } catch (const Error &e) {
        fail(e.what());
    }
    if (!sawEnd)
        fail(info.fileSize > kMaxHeader ? "no '$End=1' line in the first 1 MiB"
                                        : "truncated or not a msit .bin file: no '$End=1' header line");
    if (!sawVersion)
        fail("no '$Version' header line: not a msit .bin file");
    if (!sawDtype || !sawDims)
        fail("header lacks 'dtype' or 'dims'");
    info.dataStart = pos;
    if (info.objects.size() < count)
        fail("header announces " + std::to_string(count) + " objects but describes " +
             std::to_string(info.objects.size()));
    for (const auto &o : info.objects)
        if (o.offset > info.objectLength || o.length > info.objectLength - o.offset)
            fail("object " + std::to_string(o.offset) + "," + std::to_string(o.length) +
                 " lies outside $Object.Length=" + std::to_string(info.objectLength));
    if (info.dataStart + info.objectLength > info.fileSize)
        fail("truncated: header promises " + std::to_string(info.objectLength) + " data bytes, file holds " +
             std::to_string(info.fileSize - info.dataStart));

    Tensor &t = info.tensor;
    t.hasData = count > 0;
    std::optional<uint64_t> need;
    try {
        need = dtypeBytes(t.dtype, t.elementCount());
    } catch (const Error &e) {
        fail(e.what()); // dims whose element count or byte size overflows 64 bits
    }
    if (t.hasData) {
        const BinObject &obj = info.objects.front();
        if (need && *need != obj.length)
            fail("payload has " + std::to_string(obj.length) + " bytes but dims " + joinDims(t.dims) + " of " +
                 dtypeName(t.dtype) + " need " + std::to_string(*need));
        if (!headerOnly) {
            t.data.resize(obj.length);
            if (preadFull(fd, t.data.data(), obj.length, info.dataStart + obj.offset) != obj.length)
                fail("truncated while reading the payload");
        }
    }
    return info;
}

Tensor readBin(const std::string &path)
{
    return readBinFile(path, false).tensor;
}

std::string encodeBinHeader(const Tensor &t)
{
    const uint64_t len = t.hasData ? t.data.size() : 0;
    std::string h = "$Version=1.0\n";
    h += "$Object.Count=" + std::string(t.hasData ? "1" : "0") + "\n";
    h += "$Object.Length=" + std::to_string(len) + "\n";
    h += "format=" + std::to_string(t.format) + "\n";
    h += "dtype=" + std::to_string(t.dtype) + "\n";
    h += "dims=" + joinDims(t.dims) + "\n";
    for (const auto &[k, v] : t.attrs) {
        for (const std::string *s : {&k, &v})
            for (unsigned char c : *s)
                if (c < 0x20 || c == '=' || c == 0x7F)
                    throw Error("attribute '" + k + "' cannot be written: '=' or control character");
        h += k + "=" + v + "\n";
    }
    if (t.hasData)
        h += "$Object.data=0," + std::to_string(len) + "\n";
    h += "$End=1\n";
    return h;
}

uint64_t writeBinAt(int dirFd, const std::string &name, const std::string &shownPath, const Tensor &t)
{
    if (t.hasData)
        if (auto need = dtypeBytes(t.dtype, t.elementCount()); need && *need != t.data.size())
            throw Error("refusing to write '" + shownPath + "': payload size does not match dims and dtype");
    const std::string header = encodeBinHeader(t);
    std::vector<std::span<const uint8_t>> parts{
        std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(header.data()), header.size())};
    if (t.hasData)
        parts.emplace_back(t.data.data(), t.data.size());
    writeFileAtomicAt(dirFd, name, shownPath, parts);
    return header.size();
}

uint64_t writeBin(const std::string &path, const Tensor &t)
{
    return writeBinAt(AT_FDCWD, path, path, t);
}

} // namespace llmscope
