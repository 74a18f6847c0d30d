// 64-bit FNV-1a: msit's -symlink finds identical tensors by it (then compares their bytes).
#pragma once
#include <cstdint>
#include <string_view>

namespace llmscope {

inline constexpr uint64_t kFnvOffset = 1469598103934665603ull;

inline uint64_t fnv1a(std::string_view bytes, uint64_t h = kFnvOffset)
{
    for (unsigned char c : bytes)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

} // namespace llmscope
