// An in-memory tensor as msit's .bin format describes it: dtype and format codes, dims,
// ordered user attributes and the raw little-endian payload.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmscope {

// Attributes an engine type without an ACL code is recorded under: the payload is then raw
// bytes (dtype uint8, dims = byte count) and these keep the engine's own view of it.
inline constexpr const char *kEngineDTypeAttr = "engine_dtype"; // e.g. "q8_0"
inline constexpr const char *kEngineDimsAttr = "engine_dims"; // logical dims, "4096,32000"

struct Tensor {
    int32_t dtype = 0; // aclDataType code (see dtype.h); unknown codes are kept
    int32_t format = 2; // aclFormat code; 2 = ND
    std::vector<int64_t> dims;
    // User attributes other than format/dtype/dims, in file order (max=, data=, ...).
    std::vector<std::pair<std::string, std::string>> attrs;
    bool hasData = false; // false for statistics-only and description-only files
    std::vector<uint8_t> data;

    uint64_t elementCount() const;
    std::optional<std::string> attr(const std::string &key) const;
    void setAttr(const std::string &key, const std::string &value);
};

std::string joinDims(const std::vector<int64_t> &dims, char sep = ',');
// The product of dims; throws Error when a dimension is negative or the product overflows 64 bits.
uint64_t elementCount(const std::vector<int64_t> &dims);
// Parses "2,3" (or "" for a scalar); throws Error naming the bad part.
std::vector<int64_t> parseDims(const std::string &text);

} // namespace llmscope
