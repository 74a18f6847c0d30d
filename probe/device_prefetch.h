// A round read after the whole graph fetches its tensors from device memory in one go: each read
// is handed to its backend's asynchronous get (ggml_backend_tensor_get_async), then each backend
// is waited for once. ggml's RPC client pipelines such reads: one round trip to the server for
// all of them instead of one each (docs/performance.md). A backend without asynchronous gets,
// or one that waits inside each (Vulkan into unpinned memory), reads as ggml_backend_tensor_get
// would. Only the thread computing the scheduler's graph uses it (SchedState's rule).
#pragma once
#include <ggml-backend.h>

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace llmscope::probe {

struct CapturePlan;

class DevicePrefetch {
public:
    // At most this many bytes a round; what is left is read one tensor at a time.
    static constexpr uint64_t kMaxBytes = uint64_t(256) << 20;
    // Kept between rounds up to this many bytes (a decoded token's reads), released beyond.
    static constexpr size_t kKeptBytes = size_t(16) << 20;
    // Fetches the whole span of each item the read of nodes [0, nodes) copies from a device
    // (beside those held already):
    // not in host memory, not the same bytes as an earlier item, not a weight the writer has
    // had, and on a buffer of the default type of one of the scheduler's backends.
    void fetch(ggml_backend_sched_t sched, const CapturePlan &plan, size_t nodes,
               const std::unordered_set<uint64_t> &weightsSent);
    // Reads t's bytes now (during the graph: a tensor whose memory is not kept to its end).
    void hold(const ggml_tensor *t);
    // t's bytes as ggml_backend_tensor_get(t, dst, 0, ggml_nbytes(t)) gives them, or null.
    const uint8_t *bytes(const ggml_tensor *t) const;
    void clear()
    {
        m_at.clear();
        m_used = 0;
        if (m_bytes.size() > kKeptBytes) // a long prompt's: not held for the rest of the run
            std::vector<uint8_t>().swap(m_bytes);
    }

private:
    std::vector<uint8_t> m_bytes; // kept between rounds
    std::unordered_map<const ggml_tensor *, size_t> m_at;
    size_t m_used = 0;
};

} // namespace llmscope::probe
