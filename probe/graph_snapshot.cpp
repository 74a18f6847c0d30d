#include "probe/graph_snapshot.h"

#include <unordered_set>

#pragma GCC diagnostic push // ggml's internal header defines helpers the probe does not call
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h" // struct ggml_cgraph: its leafs (no function returns them)
#pragma GCC diagnostic pop
#include "probe/ggml_api.h"

namespace llmscope::probe {

GraphSnapshot::GraphSnapshot(ggml_backend_sched_t sched, ggml_cgraph *graph) : m_sched(sched), m_graph(graph)
{
    const GgmlApi &api = ggml();
    const int n = api.graphNNodes(graph);
    m_order.reserve(size_t(n));
    m_srcs.reserve(size_t(n));
    std::unordered_set<ggml_tensor *> seen;
    auto note = [&](ggml_tensor *t) {
        for (; t && seen.insert(t).second; t = t->view_src) {
            m_memory.push_back({t, t->data, t->buffer, t->extra});
            if (ggml_backend_t b = api.schedTensorBackend(sched, t))
                m_assigned.emplace_back(t, b);
        }
    };
    for (int i = 0; i < n; ++i) {
        ggml_tensor *t = api.graphNode(graph, i);
        m_order.push_back(t);
        std::array<ggml_tensor *, GGML_MAX_SRC> srcs{};
        for (int k = 0; k < GGML_MAX_SRC; ++k)
            srcs[size_t(k)] = t->src[k];
        m_srcs.push_back(srcs);
        note(t);
        for (ggml_tensor *s : srcs)
            note(s);
    }
    // Leafs no node reads (llama.cpp's input embeddings when it decodes tokens) are allocated too.
    m_usable = api.graphNodes && api.graphNodes(graph) == graph->nodes && graph->n_nodes == n;
    for (int i = 0; m_usable && i < graph->n_leafs; ++i)
        note(graph->leafs[i]);
}

void GraphSnapshot::restore() const
{
    const GgmlApi &api = ggml();
    ggml_tensor **nodes = api.graphNodes(m_graph);
    for (size_t i = 0; i < m_order.size(); ++i) {
        nodes[i] = m_order[i];
        for (int k = 0; k < GGML_MAX_SRC; ++k)
            m_order[i]->src[k] = m_srcs[i][size_t(k)];
    }
    for (const Memory &m : m_memory) {
        m.tensor->data = m.data;
        m.tensor->buffer = m.buffer;
        m.tensor->extra = m.extra;
    }
    api.schedReset(m_sched);
    for (const auto &[t, b] : m_assigned)
        api.schedSetTensorBackend(m_sched, t, b);
}

CopySources GraphSnapshot::copySources() const
{
    CopySources out;
    for (size_t i = 0; i < m_order.size(); ++i)
        for (int k = 0; k < GGML_MAX_SRC; ++k) {
            const ggml_tensor *now = m_order[i]->src[k], *then = m_srcs[i][size_t(k)];
            if (now && then && now != then)
                out.emplace(now, then);
        }
    return out;
}

} // namespace llmscope::probe
