// One round's tensors on their way from the target's thread to the writer: the plan says
// what each item is, the arena holds the copied payloads, `at` where each one is. The target
// copies each payload once into a pooled buffer and does nothing else with it; statistics
// only, it computes them from the tensor's memory instead and hands over only the numbers
// (one pass over the data either way, and the writer's core never touches it). A weight in
// host memory is the exception: it never changes, so the writer reads it (weight_reads.h).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/tensor/stats.h"
#include "probe/capture_plan.h"
#include "probe/device_prefetch.h"

namespace llmscope::probe {

struct CapturedRound {
    static constexpr uint64_t kNotTaken = ~0ull; // not reached (a graph stopped early)
    static constexpr uint64_t kNoPayload = ~1ull; // taken without a payload: a header, statistics
    int64_t round = 0;
    std::shared_ptr<const CapturePlan> plan;
    std::vector<uint8_t> arena;
    std::vector<uint64_t> at; // per plan item: offset into arena, or one of the above
    // Statistics-only plans: per item taken, its statistics (a weight's only at first sight).
    std::vector<std::optional<TensorStats>> stats;
    std::vector<uint64_t> firstWeights; // weights taken for the first time (PlanItem::weightKey)
    // Statistics-only plans: weights at first sight whose statistics the writer takes from
    // WeightReads (item, id there).
    std::vector<std::pair<uint32_t, uint64_t>> weightReads;
    // Its weight reads never to be taken (the round dropped, refused or written without them).
    void forgetWeightReads() const;
    bool last = false; // the round's last part (RoundCapture::finish), not a batch of a long one
    // Writes into the KV cache taken in this part: item -> the cells its rows went to.
    std::vector<std::pair<uint32_t, std::vector<int64_t>>> cells;
    // The round's tokens' positions (llama.cpp's inp_pos), where known: a write's cells hold
    // them in order.
    std::shared_ptr<const std::vector<int32_t>> positions;
    uint64_t bytes() const;
};

class RoundCapture {
public:
    // post: read after the whole graph, so aliases share their payload. shareLive: read during
    // the graph where only the graph's nodes write, so items of the same bytes share
    // (PlanItem::same).
    void start(int64_t round, std::shared_ptr<const CapturePlan> plan, bool post, bool shareLive,
               std::shared_ptr<const std::vector<int32_t>> positions = {});
    bool active() const { return m_round.plan != nullptr; }
    const CapturePlan &plan() const { return *m_round.plan; }
    // Copies items [first, last) not taken yet. Returns true when the round has filled a batch worth
    // handing over before it ends (see takeBatch).
    bool take(uint32_t first, uint32_t last, std::unordered_set<uint64_t> &weightsSent);
    // What is taken so far, for the writer; the capture goes on with a fresh arena.
    CapturedRound takeBatch();
    // Everything left; the capture ends.
    CapturedRound finish();
    bool empty() const { return m_taken == 0; }
    // Device tensors fetched already (a round read after the whole graph), or null.
    void setPrefetch(const DevicePrefetch *prefetch) { m_prefetch = prefetch; }

private:
    static constexpr uint64_t kHandedOver = ~2ull; // went with an earlier batch
    void newArena();
    void takeStats(uint32_t k);
    // A write into the KV cache: its rows gathered into dst, its cells kept for the writer.
    void takeCacheWrite(uint32_t k, uint8_t *dst);
    // The item already taken from the same bytes (after the graph: its alias; during it: its
    // same, where sharing is on), or -1.
    int sameBytes(const PlanItem &it) const;
    CapturedRound m_round;
    std::vector<uint8_t> m_scratch; // a tensor outside host memory, for its statistics
    std::vector<float> m_floats; // a cache write's float16 rows, widened for theirs
    bool m_post = false, m_batches = false, m_stats = false, m_shareLive = false;
    uint64_t m_used = 0, m_left = 0, m_taken = 0;
    const DevicePrefetch *m_prefetch = nullptr;
    const uint8_t *fetched(const ggml_tensor *t) const { return m_prefetch ? m_prefetch->bytes(t) : nullptr; }
};

} // namespace llmscope::probe
