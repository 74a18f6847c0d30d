#include "probe/device_prefetch.h"

#include <algorithm>

#include "probe/capture.h"
#include "probe/capture_plan.h"
#include "probe/ggml_api.h"

namespace llmscope::probe {

void DevicePrefetch::fetch(ggml_backend_sched_t sched, const CapturePlan &plan, size_t nodes,
                           const std::unordered_set<uint64_t> &weightsSent)
{
    const GgmlApi &api = ggml();
    if (!api.tensorGetAsync || !api.backendSynchronize || !api.backendDefaultBuft || !api.bufferBuft ||
        !api.schedNBackends || !api.schedBackend || !api.bufferIsHost)
        return;
    std::vector<std::pair<ggml_backend_t, ggml_backend_buffer_type_t>> backends;
    for (int b = 0; b < api.schedNBackends(sched); ++b)
        if (ggml_backend_t backend = api.schedBackend(sched, b))
            backends.emplace_back(backend, api.backendDefaultBuft(backend));
    // what to fetch, and from which backend
    struct Read {
        const ggml_tensor *t;
        ggml_backend_t backend;
        size_t span;
    };
    std::vector<Read> reads;
    uint64_t total = m_used;
    for (size_t i = 0; i < nodes && i < plan.atEval.size(); ++i)
        for (const auto &range : {plan.atAsk[i], plan.atEval[i]})
            for (uint32_t k = range.first; k < range.second; ++k) {
                const PlanItem &it = plan.items[k];
                const ggml_tensor *t = it.tensor;
                if (it.kind == ItemKind::Header || it.kvRows || it.direct || it.inGraph || it.alias >= 0 || !t->data ||
                    !t->buffer || (it.kind == ItemKind::Weight && weightsSent.count(it.weightKey)) || m_at.count(t) ||
                    api.bufferIsHost(t->buffer) || !isReadable(t))
                    continue;
                const auto buft = api.bufferBuft(t->buffer);
                const auto owner =
                    std::find_if(backends.begin(), backends.end(), [&](const auto &b) { return b.second == buft; });
                const size_t span = api.nbytes(t);
                if (owner == backends.end() || span == 0 || total + span > kMaxBytes)
                    continue;
                m_at.emplace(t, size_t(total));
                reads.push_back({t, owner->first, span});
                total += span;
            }
    if (reads.empty())
        return;
    m_used = size_t(total);
    if (m_bytes.size() < total)
        m_bytes.resize(size_t(total));
    std::vector<ggml_backend_t> used;
    for (const Read &r : reads) {
        api.tensorGetAsync(r.backend, r.t, m_bytes.data() + m_at[r.t], 0, r.span);
        if (std::find(used.begin(), used.end(), r.backend) == used.end())
            used.push_back(r.backend);
    }
    for (ggml_backend_t b : used)
        api.backendSynchronize(b);
}

void DevicePrefetch::hold(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    const size_t span = t->data && isReadable(t) ? api.nbytes(t) : 0;
    if (!span || m_at.count(t))
        return;
    if (m_bytes.size() < m_used + span)
        m_bytes.resize(m_used + span);
    api.tensorGet(t, m_bytes.data() + m_used, 0, span);
    m_at.emplace(t, m_used);
    m_used += span;
}

const uint8_t *DevicePrefetch::bytes(const ggml_tensor *t) const
{
    const auto at = m_at.find(t);
    return at == m_at.end() ? nullptr : m_bytes.data() + at->second;
}

} // namespace llmscope::probe
