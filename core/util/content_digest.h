// A tensor's content digest: the same bytes give the same digest, and any change of a bit gives
// another (a single bit always; more, but by chance of about one in 2^64). Written with a
// statistics dump, so runs can be told bit-identical without their tensors (msProbe's md5
// summary does the same). Never 0: 0 means none.
//
// Eight lanes of 64-bit words (word i into lane i % 8), each word w added to its lane with the
// product of the two halves of w ^ a key of its lane and its 64-byte block: integer arithmetic, so every vector width
// computes the same digest, and lanes a vector unit adds side by side (one serial multiply
// chain a word, the definition before, ran at a third of the speed). The lanes and the length
// are mixed at the end. Encoded with a "d2." prefix (tensor/stats.h): a digest of the earlier
// definition reads as none.
#pragma once
#include <cstdint>

namespace llmscope {

class ContentDigest {
public:
    explicit ContentDigest(uint64_t totalBytes);
    // Whole 64-byte blocks (bytes a multiple of 64), in order.
    void addBlocks(const uint8_t *data, uint64_t bytes);
    // The rest, of any length (the words into the next lanes, a tail under 8 bytes as one
    // more), then the mix: the digest.
    uint64_t finish(const uint8_t *data, uint64_t bytes);

private:
    uint64_t m_acc[8];
    uint64_t m_total;
    uint64_t m_blocks = 0; // added so far
};

uint64_t contentDigest(const uint8_t *data, uint64_t bytes);

} // namespace llmscope
