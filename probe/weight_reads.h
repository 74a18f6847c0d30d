// Weights' statistics beside the program. A weight never changes, so the pass over its bytes
// at first sight (the whole model's, in the first dumped round: seconds for a few GB) is left
// to the writer's thread instead of made on the program's. Its memory is the model's, which
// the program may release before the writer comes to it: the interposed
// ggml_backend_buffer_free and munmap compute there what is still pending in that memory,
// on every core (the program waits then, at its end rather than in its first round), and wait
// for a read of it in progress. No weight is read after its memory is released, and none goes
// without statistics.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <ggml-backend.h>

#include "core/tensor/stats.h"

namespace llmscope::probe {

class WeightReads {
public:
    struct Read {
        ggml_backend_buffer_t buffer = nullptr;
        const uint8_t *data = nullptr;
        int32_t dtype = 0;
        uint64_t elements = 0;
        uint64_t bytes = 0; // the span of memory read
        bool sketch = true;
    };
    static WeightReads &get();
    // The program's thread: a weight to be read later. Returns its id.
    uint64_t add(const Read &r);
    // The writer: the weight's statistics, computed here unless a release computed them.
    std::optional<TensorStats> take(uint64_t id);
    // A read never to be taken (its round was dropped or refused).
    void forget(uint64_t id);
    // The program, about to free `buffer` (every buffer's weights when `all`: a buffer made of
    // others, whose parts' frees the probe may not see), or to unmap [begin, end): computes the
    // pending reads there, and returns once none of them is being read. Never throws.
    void freeing(ggml_backend_buffer_t buffer, bool all = false) noexcept;
    // Static: checks whether any read is pending before the registry is made or locked.
    static void unmapping(const void *begin, size_t length) noexcept;
    // Reads begun by the writer so far (a test's way to know one is in progress).
    uint64_t readsBegun() const { return m_begun.load(); }

private:
    struct Entry {
        Read read;
        bool claimed = false; // being read, by the writer (erased after) or by a release (done after)
        bool done = false;
        bool forgotten = false; // forgotten while a release read it: erased when it is done
        std::optional<TensorStats> stats;
    };
    template <class Pred>
    void release(Pred inside) noexcept;
    static std::optional<TensorStats> compute(const Read &r) noexcept;
    static std::vector<std::optional<TensorStats>> computeAll(const std::vector<Read> &reads) noexcept;
    std::mutex m_mutex;
    std::condition_variable m_read;
    std::unordered_map<uint64_t, Entry> m_pending;
    static inline std::atomic<size_t> s_count{0}; // entries in m_pending: unmapping's check without the lock
    std::atomic<uint64_t> m_begun{0};
    uint64_t m_next = 0;
};

} // namespace llmscope::probe
