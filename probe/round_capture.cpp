#include "probe/round_capture.h"

#include <algorithm>
#include <cstring>

#include "core/tensor/convert.h"
#include "probe/buffer_pool.h"
#include "probe/capture.h"
#include "probe/kv_rows.h"
#include "probe/weight_reads.h"

namespace llmscope::probe {
namespace {
constexpr uint64_t kBatchBytes = 64ull << 20; // a long prefill is handed over in pieces

} // namespace

void CapturedRound::forgetWeightReads() const
{
    for (const auto &read : weightReads)
        WeightReads::get().forget(read.second);
}

uint64_t CapturedRound::bytes() const
{
    return arena.size() + 64 * at.size() + sizeof(TensorStats) * stats.size();
}

void RoundCapture::start(int64_t round, std::shared_ptr<const CapturePlan> plan, bool post, bool shareLive,
                         std::shared_ptr<const std::vector<int32_t>> positions)
{
    m_post = post;
    m_prefetch = nullptr;
    m_shareLive = shareLive && !post;
    m_stats = plan->statsOnly;
    m_left = m_stats ? 0 : post ? plan->postBytes : plan->dataBytes;
    m_round = CapturedRound{};
    m_round.round = round;
    m_round.positions = std::move(positions);
    m_round.at.assign(plan->items.size(), CapturedRound::kNotTaken);
    if (m_stats)
        m_round.stats.assign(plan->items.size(), std::nullopt);
    m_round.plan = std::move(plan);
    m_taken = 0;
    newArena();
}

void RoundCapture::newArena()
{
    m_used = 0;
    m_round.arena = takeBuffer(size_t(std::min(m_left, kBatchBytes)));
}

bool RoundCapture::take(uint32_t first, uint32_t last, std::unordered_set<uint64_t> &weightsSent)
{
    const CapturePlan &plan = *m_round.plan;
    for (uint32_t k = first; k < last; ++k) {
        const PlanItem &it = plan.items[k];
        uint64_t &at = m_round.at[k];
        if (at != CapturedRound::kNotTaken)
            continue; // taken early (before its node ran)
        if (m_prefetch && it.inGraph && !fetched(it.tensor))
            continue; // after the graph its memory is not kept: read when its chain had run, or not at all
        ++m_taken;
        if (it.kind == ItemKind::Header) {
            at = CapturedRound::kNoPayload;
            continue;
        }
        if (it.kind == ItemKind::Weight) { // its contents never change: taken at first sight only
            if (!weightsSent.insert(it.weightKey).second) {
                at = CapturedRound::kNoPayload;
                continue;
            }
            m_round.firstWeights.push_back(it.weightKey);
        }
        if (m_stats) {
            at = CapturedRound::kNoPayload;
            takeStats(k);
        } else if (const int s = sameBytes(it); s >= 0 && m_round.at[size_t(s)] != CapturedRound::kNoPayload) {
            at = m_round.at[size_t(s)]; // an offset into this arena
        } else {
            if (m_used + it.bytes > m_round.arena.size()) // only a batch's worth of room left
                m_round.arena.resize(size_t(m_used + it.bytes));
            if (it.kvRows)
                takeCacheWrite(k, m_round.arena.data() + m_used);
            else if (it.direct && it.tensor->data && !fetched(it.tensor))
                std::memcpy(m_round.arena.data() + m_used, it.tensor->data, size_t(it.bytes));
            else
                copyDense(it.tensor, m_round.arena.data() + m_used, fetched(it.tensor));
            at = m_used;
            m_used += it.bytes;
            m_left -= std::min(m_left, it.bytes);
        }
    }
    return m_used >= kBatchBytes;
}

void RoundCapture::takeStats(uint32_t k)
{
    const PlanItem &it = m_round.plan->items[k];
    if (m_round.stats.empty()) // a plan with payloads: the writer computes them
        return;
    if (const int s = sameBytes(it); s >= 0 && it.kind == ItemKind::Data) {
        m_round.stats[k] = m_round.stats[size_t(s)];
        return;
    }
    if (!it.tensor->data)
        return;
    // A weight a program trains (ggml's PARAM flag) changes: read now, as other tensors are.
    const ggml_tensor *root = it.tensor->view_src ? it.tensor->view_src : it.tensor;
    if (it.kind == ItemKind::Weight && it.direct && it.tensor->buffer && !(root->flags & GGML_TENSOR_FLAG_PARAM)) {
        const WeightReads::Read r{it.tensor->buffer, static_cast<const uint8_t *>(it.tensor->data),
                                  it.header.dtype,   it.elements,
                                  it.bytes,          m_round.plan->sketch};
        m_round.weightReads.emplace_back(k, WeightReads::get().add(r));
        return;
    }
    if (it.kvRows) {
        m_scratch.resize(size_t(it.bytes));
        takeCacheWrite(k, m_scratch.data());
        if (it.header.dtype == 0) {
            m_round.stats[k] = computeStats(0, m_scratch.data(), it.elements, m_round.plan->sketch);
            return;
        }
        // float16 or bfloat16 rows, widened exactly: their statistics on float32's fast path
        m_floats.resize(size_t(it.elements));
        decodeToFloat(it.header.dtype, m_scratch.data(), 0, it.elements, m_floats.data());
        m_round.stats[k] =
            computeStats(0, reinterpret_cast<const uint8_t *>(m_floats.data()), it.elements, m_round.plan->sketch);
        return;
    }
    const uint8_t *data = static_cast<const uint8_t *>(it.tensor->data);
    if (!it.direct || fetched(it.tensor)) {
        m_scratch.resize(size_t(it.bytes));
        copyDense(it.tensor, m_scratch.data(), fetched(it.tensor));
        data = m_scratch.data();
    }
    m_round.stats[k] = computeStats(it.header.dtype, data, it.elements, m_round.plan->sketch);
}

void RoundCapture::takeCacheWrite(uint32_t k, uint8_t *dst)
{
    std::vector<int64_t> cells;
    gatherCacheWrite(m_round.plan->items[k].tensor, m_round.plan->items[k].cells, dst, cells);
    m_round.cells.emplace_back(k, std::move(cells));
}

int RoundCapture::sameBytes(const PlanItem &it) const
{
    if (m_post)
        return it.alias;
    if (!m_shareLive || it.same < 0)
        return -1;
    const uint64_t at = m_round.at[size_t(it.same)];
    return at == CapturedRound::kNotTaken || at == kHandedOver ? -1 : it.same;
}

CapturedRound RoundCapture::takeBatch()
{
    CapturedRound out;
    out.round = m_round.round;
    out.plan = m_round.plan;
    out.arena = std::move(m_round.arena);
    out.arena.resize(size_t(m_used));
    out.stats = m_round.stats; // per item, like `at`
    out.firstWeights = std::move(m_round.firstWeights);
    m_round.firstWeights.clear();
    out.cells = std::move(m_round.cells);
    m_round.cells.clear();
    out.weightReads = std::move(m_round.weightReads);
    m_round.weightReads.clear();
    out.positions = m_round.positions;
    out.at.assign(m_round.at.size(), CapturedRound::kNotTaken);
    // Items of this batch go with it; later aliases of them can no longer share (new arena).
    for (size_t k = 0; k < m_round.at.size(); ++k) {
        if (m_round.at[k] != CapturedRound::kNotTaken && m_round.at[k] != kHandedOver) {
            out.at[k] = m_round.at[k];
            m_round.at[k] = kHandedOver;
        }
    }
    m_batches = true;
    m_post = false;
    newArena();
    return out;
}

CapturedRound RoundCapture::finish()
{
    CapturedRound out = std::move(m_round);
    out.last = true;
    out.arena.resize(size_t(m_used));
    if (m_batches)
        for (uint64_t &at : out.at)
            if (at == kHandedOver)
                at = CapturedRound::kNotTaken;
    m_round = CapturedRound{};
    m_taken = 0;
    m_used = 0;
    m_batches = false;
    return out;
}

} // namespace llmscope::probe
