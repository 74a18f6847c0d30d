// Tensor element types, keyed by Ascend's aclDataType codes as msit writes them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmscope {

enum class DType : int32_t {
    Float32 = 0,
    Float16 = 1,
    Int8 = 2,
    Int32 = 3,
    UInt8 = 4,
    Int16 = 6,
    UInt16 = 7,
    UInt32 = 8,
    Int64 = 9,
    UInt64 = 10,
    Double = 11,
    Bool = 12,
    String = 13,
    Complex64 = 16,
    Complex128 = 17,
    BFloat16 = 27,
    Int4 = 29,
    UInt1 = 30,
    Complex32 = 33,
    HiFloat8 = 34,
    Float8E5M2 = 35,
    Float8E4M3FN = 36,
    Float8E8M0 = 37,
    Float6E3M2 = 38,
    Float6E2M3 = 39,
    Float4E2M1 = 40,
    Float4E1M2 = 41,
};

// Facts about one dtype code. Codes this table does not know are valid: they are kept
// and shown as numbers ("dtype 99"), with no element size.
struct DTypeInfo {
    std::string_view name; // msit/torch-style name, e.g. "float16"
    int bits; // storage bits per element; 0 for unknown codes
    bool numeric; // has a real-valued float conversion (statistics apply)
};

std::optional<DTypeInfo> dtypeInfo(int32_t code);
std::string dtypeName(int32_t code); // "float16" or "dtype 99"
std::optional<int32_t> dtypeFromName(std::string_view name);
// Bytes needed for n elements; nullopt for codes of unknown size.
std::optional<uint64_t> dtypeBytes(int32_t code, uint64_t elements);

std::string formatName(int32_t code); // "ND" or "format 99"
// The integer types a graph's index inputs take (token ids, positions, rows to gather, cache
// cells): 16 to 64 bits, signed or not. Such tensors number a batch's or a cache's own places.
bool isIndexType(int32_t code);

} // namespace llmscope
