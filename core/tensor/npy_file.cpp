#include "core/tensor/npy_file.h"

#include <cstring>

#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

struct NpyType {
    const char *descr;
    DType dtype;
};

constexpr NpyType kNpyTypes[] = {
    {"f4", DType::Float32},   {"f2", DType::Float16},     {"f8", DType::Double}, {"i1", DType::Int8},
    {"i2", DType::Int16},     {"i4", DType::Int32},       {"i8", DType::Int64},  {"u1", DType::UInt8},
    {"u2", DType::UInt16},    {"u4", DType::UInt32},      {"u8", DType::UInt64}, {"b1", DType::Bool},
    {"c8", DType::Complex64}, {"c16", DType::Complex128}, {"S1", DType::String},
};

// Value of 'key' in the header dict: the text up to the matching ',' or '}' at depth 0.
std::string dictValue(const std::string &header, const std::string &key)
{
    for (const char *q : {"'", "\""}) {
        const std::string needle = std::string(q) + key + q;
        size_t p = header.find(needle);
        if (p == std::string::npos)
            continue;
        p = header.find(':', p + needle.size());
        if (p == std::string::npos)
            break;
        int depth = 0;
        size_t e = p + 1;
        for (; e < header.size(); ++e) {
            const char c = header[e];
            if (c == '(' || c == '[')
                ++depth;
            else if (c == ')' || c == ']')
                --depth;
            else if ((c == ',' || c == '}') && depth == 0)
                break;
        }
        return trim(header.substr(p + 1, e - p - 1));
    }
    throw Error("npy header has no '" + key + "' entry");
}

std::string unquote(const std::string &s)
{
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
        return s.substr(1, s.size() - 2);
    throw Error("npy descr " + s + " is not a simple type string (structured arrays are not supported)");
}

} // namespace

Tensor readNpy(const std::string &path)
{
    const auto bytes = readWholeFile(path);
    auto fail = [&](const std::string &why) -> Error { return Error("'" + path + "': " + why); };
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        throw fail("not a .npy file (magic missing)");
    const int major = bytes[6];
    size_t headerLen, headerStart;
    if (major == 1) {
        headerLen = bytes[8] | (bytes[9] << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12)
            throw fail("truncated .npy preamble");
        headerLen = bytes[8] | (bytes[9] << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
        headerStart = 12;
    } else {
        throw fail("unsupported .npy version " + std::to_string(major));
    }
    if (headerStart + headerLen > bytes.size())
        throw fail("truncated .npy header");
    const std::string header(reinterpret_cast<const char *>(bytes.data() + headerStart), headerLen);
    Tensor t;
    try {
        std::string descr = unquote(dictValue(header, "descr"));
        const std::string fortran = dictValue(header, "fortran_order");
        std::string shape = dictValue(header, "shape");
        if (fortran != "False")
            throw Error("Fortran-order arrays are not supported; save with C order");
        if (descr.empty())
            throw Error("empty descr");
        const char order = descr[0];
        if (order == '>')
            throw Error("big-endian arrays are not supported; save as little-endian");
        if (order == '<' || order == '|' || order == '=')
            descr = descr.substr(1);
        bool found = false;
        for (const auto &nt : kNpyTypes)
            if (descr == nt.descr) {
                t.dtype = static_cast<int32_t>(nt.dtype);
                found = true;
            }
        if (!found)
            throw Error("unsupported descr '" + descr + "'");
        if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
            throw Error("bad shape " + shape);
        shape = shape.substr(1, shape.size() - 2);
        for (auto &part : split(shape, ',')) {
            const std::string p = trim(part);
            if (p.empty())
                continue; // trailing comma of 1-tuples
            auto v = parseInt(p);
            if (!v || *v < 0)
                throw Error("bad dimension '" + p + "' in shape");
            t.dims.push_back(*v);
        }
    } catch (const Error &e) {
        throw fail(e.what());
    }
    const size_t dataStart = headerStart + headerLen;
    const uint64_t need = *dtypeBytes(t.dtype, t.elementCount());
    if (bytes.size() - dataStart < need)
        throw fail("truncated: shape needs " + std::to_string(need) + " data bytes, file holds " +
                   std::to_string(bytes.size() - dataStart));
    t.hasData = true;
    t.data.assign(bytes.begin() + static_cast<ptrdiff_t>(dataStart),
                  bytes.begin() + static_cast<ptrdiff_t>(dataStart + need));
    return t;
}

void writeNpy(const std::string &path, const Tensor &src)
{
    if (!src.hasData)
        throw Error("cannot write '" + path + "' as .npy: the tensor has no data");
    const uint64_t n = src.elementCount();
    auto need = dtypeBytes(src.dtype, n);
    if (!need)
        throw Error("cannot write dtype " + dtypeName(src.dtype) + " as .npy: unknown element size");
    if (*need != src.data.size())
        throw Error("cannot write '" + path + "': payload size does not match dims and dtype");

    const Tensor *t = &src;
    Tensor widened;
    const char *descr = nullptr;
    for (const auto &nt : kNpyTypes)
        if (static_cast<int32_t>(nt.dtype) == src.dtype)
            descr = nt.descr;
    if (!descr) {
        widened.dims = src.dims;
        widened.hasData = true;
        switch (static_cast<DType>(src.dtype)) {
        case DType::Int4:
        case DType::UInt1: {
            widened.dtype = static_cast<int32_t>(src.dtype == int32_t(DType::Int4) ? DType::Int8 : DType::Bool);
            std::vector<double> v(n);
            decodeElements(src.dtype, src.data.data(), 0, n, v.data());
            for (double x : v)
                widened.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(x)));
            descr = src.dtype == int32_t(DType::Int4) ? "i1" : "b1";
            break;
        }
        case DType::Complex32: {
            widened.dtype = static_cast<int32_t>(DType::Complex64);
            widened.data.resize(n * 8);
            for (uint64_t i = 0; i < 2 * n; ++i) {
                uint16_t h;
                std::memcpy(&h, src.data.data() + 2 * i, 2);
                const float f = halfToFloat(h);
                std::memcpy(widened.data.data() + 4 * i, &f, 4);
            }
            descr = "c8";
            break;
        }
        default:
            if (!isNumeric(src.dtype))
                throw Error("cannot write dtype " + dtypeName(src.dtype) +
                            " as .npy: NumPy has no such type and it has no float conversion; keep it as .bin");
            widened.dtype = static_cast<int32_t>(DType::Float32);
            {
                auto f = toFloat(src);
                widened.data.resize(n * 4);
                std::memcpy(widened.data.data(), f.data(), n * 4);
            }
            descr = "f4";
        }
        t = &widened;
    }
    const bool oneByte = descr[1] == '1' && descr[2] == '\0';
    // Python tuple syntax: "()", "(3,)", "(2, 3)".
    std::string shape = "(" + joinDims(t->dims, ',') + (t->dims.size() == 1 ? ",)" : ")");
    std::string dict = std::string("{'descr': '") + (oneByte ? "|" : "<") + descr +
        "', 'fortran_order': False, 'shape': " + shape + ", }";
    const bool v2 = dict.size() + 12 > 65535;
    const size_t pre = v2 ? 12 : 10;
    const size_t total = (pre + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - pre - dict.size() - 1, ' ');
    dict += '\n';
    std::string preamble("\x93NUMPY", 6);
    preamble += static_cast<char>(v2 ? 2 : 1);
    preamble += '\0';
    const size_t hl = dict.size();
    preamble += static_cast<char>(hl & 0xFF);
    preamble += static_cast<char>((hl >> 8) & 0xFF);
    if (v2) {
        preamble += static_cast<char>((hl >> 16) & 0xFF);
        preamble += static_cast<char>((hl >> 24) & 0xFF);
    }
    preamble += dict;
    writeFileAtomic(path,
                    {std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(preamble.data()), preamble.size()),
                     std::span<const uint8_t>(t->data.data(), t->data.size())});
}

} // namespace llmscope
