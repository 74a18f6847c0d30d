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

// A tensor's content by 8 bytes at a time (FNV-1a's step on words, then a final mix): the
// same bytes give the same digest, and any change of a bit gives another but by chance of one
// in 2^64. Written with a statistics dump, so runs can be told bit-identical without their
// tensors (msProbe's md5 summary does the same). Never 0: 0 means none.
inline uint64_t contentDigest(const uint8_t *data, uint64_t bytes)
{
    uint64_t h = kFnvOffset ^ bytes;
    uint64_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, data + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    uint64_t tail = 0;
    for (uint64_t k = 0; i + k < bytes; ++k)
        tail |= uint64_t(data[i + k]) << (8 * k);
    h = (h ^ tail) * 1099511628211ull;
    h ^= h >> 33; // every input bit reaches the low bits too
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h | 1;
}

} // namespace llmscope
