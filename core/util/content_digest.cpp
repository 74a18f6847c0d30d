#include "core/util/content_digest.h"

#include <cstring>

#include "core/util/simd_clones.h"

namespace llmscope {

namespace {

// The lanes' keys: odd multiples of the golden ratio's 64-bit fraction.
constexpr uint64_t kKey[8] = {0x9E3779B97F4A7C15ull * 1,  0x9E3779B97F4A7C15ull * 3, 0x9E3779B97F4A7C15ull * 5,
                              0x9E3779B97F4A7C15ull * 7,  0x9E3779B97F4A7C15ull * 9, 0x9E3779B97F4A7C15ull * 11,
                              0x9E3779B97F4A7C15ull * 13, 0x9E3779B97F4A7C15ull * 15};

inline uint64_t step(uint64_t acc, uint64_t w, uint64_t key)
{
    const uint64_t x = w ^ key;
    return acc + w + uint64_t(uint32_t(x)) * uint64_t(uint32_t(x >> 32)); // a widening 32-bit multiply
}

// murmur3's 64-bit finalizer: every input bit reaches every output bit
inline uint64_t avalanche(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

// A block's key for lane j: the lane's, changed with the block's place, so that words moved
// from one block to another (rows of a tensor swapped) change the digest too.
constexpr uint64_t kPlace = 0xD6E8FEB86659FD93ull;
inline uint64_t keyOf(int j, uint64_t block)
{
    return kKey[j] ^ (block * kPlace);
}

// The step on a block's eight words. Each word read whole and xored with its key: its halves'
// product where each lane stays in place (read as 32-bit halves, the vectorizer shuffled the
// lanes, a quarter slower).
LLMSCOPE_CLONES
void addBlocksTo(uint64_t *__restrict acc, const uint8_t *__restrict data, uint64_t first, uint64_t blocks)
{
    uint64_t a[8];
    std::memcpy(a, acc, sizeof a);
    // read in place (a copy to the stack first stalls each load on the copy's stores)
    uint64_t place = first * kPlace; // the block's part of the keys, a step a block
    for (uint64_t b = 0; b < blocks; ++b, place += kPlace) {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            uint64_t w;
            std::memcpy(&w, data + b * 64 + 8 * j, 8);
            const uint64_t x = w ^ (kKey[j] ^ place);
            a[j] += w + uint64_t(uint32_t(x)) * uint64_t(uint32_t(x >> 32)); // one widening multiply
        }
    }
    std::memcpy(acc, a, sizeof a);
}

} // namespace

ContentDigest::ContentDigest(uint64_t totalBytes) : m_total(totalBytes)
{
    for (int j = 0; j < 8; ++j)
        m_acc[j] = avalanche(totalBytes + kKey[j]);
}

void ContentDigest::addBlocks(const uint8_t *data, uint64_t bytes)
{
    addBlocksTo(m_acc, data, m_blocks, bytes / 64);
    m_blocks += bytes / 64;
}

uint64_t ContentDigest::finish(const uint8_t *data, uint64_t bytes)
{
    addBlocks(data, bytes);
    const uint64_t done = bytes & ~uint64_t(63);
    int lane = 0;
    for (uint64_t i = done; i + 8 <= bytes; i += 8, ++lane) {
        uint64_t w;
        std::memcpy(&w, data + i, 8);
        m_acc[lane] = step(m_acc[lane], w, keyOf(lane, m_blocks));
    }
    if (const uint64_t tail = bytes & 7) {
        uint64_t w = 0;
        std::memcpy(&w, data + (bytes - tail), tail);
        m_acc[lane] = step(m_acc[lane], w, keyOf(lane, m_blocks));
    }
    uint64_t h = m_total;
    for (int j = 0; j < 8; ++j)
        h = avalanche(h ^ avalanche(m_acc[j] + uint64_t(j)));
    return h ? h : 1; // 0 means none
}

uint64_t contentDigest(const uint8_t *data, uint64_t bytes)
{
    return ContentDigest(bytes).finish(data, bytes);
}

} // namespace llmscope
