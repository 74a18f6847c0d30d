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
// In pieces, for bytes read a chunk at a time: contentDigestStart(total), then whole words with
// contentDigestWords (a multiple of 8 bytes each), then contentDigestEnd with the last piece.
inline uint64_t contentDigestStart(uint64_t bytes)
{
    return kFnvOffset ^ bytes;
}

inline uint64_t contentDigestWords(uint64_t h, const uint8_t *data, uint64_t bytes)
{
    for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, data + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    return h;
}

// The last piece (its whole words, then a tail of under 8 bytes), and the final mix.
inline uint64_t contentDigestEnd(uint64_t h, const uint8_t *data, uint64_t bytes)
{
    const uint64_t words = bytes & ~uint64_t(7);
    h = contentDigestWords(h, data, words);
    uint64_t tail = 0;
    for (uint64_t k = 0; words + k < bytes; ++k)
        tail |= uint64_t(data[words + k]) << (8 * k);
    h = (h ^ tail) * 1099511628211ull;
    h ^= h >> 33; // every input bit reaches the low bits too
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h | 1;
}

inline uint64_t contentDigest(const uint8_t *data, uint64_t bytes)
{
    return contentDigestEnd(contentDigestStart(bytes), data, bytes);
}

} // namespace llmscope
