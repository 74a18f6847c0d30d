#include "core/tensor/dtype.h"

#include <array>
#include <utility>

#include "core/util/error.h"

namespace llmscope {
namespace {

struct Entry {
    int32_t code;
    DTypeInfo info;
};

// fp6 types are stored one element per byte (the low six bits), as unpacked host tensors are.
constexpr std::array kTypes = {
    Entry{0, {"float32", 32, true}},       Entry{1, {"float16", 16, true}},     Entry{2, {"int8", 8, true}},
    Entry{3, {"int32", 32, true}},         Entry{4, {"uint8", 8, true}},        Entry{6, {"int16", 16, true}},
    Entry{7, {"uint16", 16, true}},        Entry{8, {"uint32", 32, true}},      Entry{9, {"int64", 64, true}},
    Entry{10, {"uint64", 64, true}},       Entry{11, {"double", 64, true}},     Entry{12, {"bool", 8, true}},
    Entry{13, {"string", 8, false}},       Entry{16, {"complex64", 64, false}}, Entry{17, {"complex128", 128, false}},
    Entry{27, {"bfloat16", 16, true}},     Entry{29, {"int4", 4, true}},        Entry{30, {"uint1", 1, true}},
    Entry{33, {"complex32", 32, false}},   Entry{34, {"hifloat8", 8, false}},   Entry{35, {"float8_e5m2", 8, true}},
    Entry{36, {"float8_e4m3fn", 8, true}}, Entry{37, {"float8_e8m0", 8, true}}, Entry{38, {"float6_e3m2", 8, true}},
    Entry{39, {"float6_e2m3", 8, true}},   Entry{40, {"float4_e2m1", 4, true}}, Entry{41, {"float4_e1m2", 4, true}},
};

constexpr std::pair<int32_t, std::string_view> kFormats[] = {
    {-1, "UNDEFINED"}, {0, "NCHW"},         {1, "NHWC"},          {2, "ND"},     {3, "NC1HWC0"},
    {4, "FRACTAL_Z"},  {12, "NC1HWC0_C04"}, {16, "HWCN"},         {27, "NDHWC"}, {29, "FRACTAL_NZ"},
    {30, "NCDHW"},     {32, "NDC1HWC0"},    {33, "FRACTAL_Z_3D"}, {35, "NC"},    {47, "NCL"},
};

} // namespace

std::optional<DTypeInfo> dtypeInfo(int32_t code)
{
    for (const auto &e : kTypes)
        if (e.code == code)
            return e.info;
    return std::nullopt;
}

std::string dtypeName(int32_t code)
{
    if (auto info = dtypeInfo(code))
        return std::string(info->name);
    return "dtype " + std::to_string(code);
}

std::optional<int32_t> dtypeFromName(std::string_view name)
{
    for (const auto &e : kTypes)
        if (e.info.name == name)
            return e.code;
    return std::nullopt;
}

std::optional<uint64_t> dtypeBytes(int32_t code, uint64_t elements)
{
    auto info = dtypeInfo(code);
    if (!info)
        return std::nullopt;
    uint64_t bits = 0;
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(info->bits), &bits) || bits > UINT64_MAX - 7)
        throw Error(std::to_string(elements) + " elements of " + std::string(info->name) + " take more than 2^64 bits");
    return (bits + 7) / 8;
}

std::string formatName(int32_t code)
{
    for (const auto &[c, n] : kFormats)
        if (c == code)
            return std::string(n);
    return "format " + std::to_string(code);
}

bool isIndexType(int32_t code)
{
    switch (DType(code)) {
    case DType::Int32:
    case DType::Int64:
    case DType::UInt32:
    case DType::UInt64:
    case DType::Int16:
    case DType::UInt16: return true;
    default: return false;
    }
}

} // namespace llmscope
