// A host's graph as it stood before a scheduler with several backends split and allocated it,
// so that the probe can split and plan it again as if for the first time. A split changes the
// graph in place: a backend's graph_optimize reorders its nodes (Vulkan, CUDA, Metal), nodes'
// sources are pointed at the scheduler's copies of inputs from other backends, and allocating
// sets each tensor's memory, which a later allocation then leaves where it is. Resetting the
// scheduler forgets the backends the host assigned by hand (llama.cpp's "norm" nodes); they
// are assigned again.
#pragma once
#include <ggml-backend.h>
#include <ggml.h>

#include <array>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmscope::probe {

// Each copy a split made of an input from another backend, to the host's tensor it copies.
using CopySources = std::unordered_map<const ggml_tensor *, const ggml_tensor *>;

class GraphSnapshot {
public:
    // Taken before the scheduler first splits the graph (the host has reset it and assigned).
    GraphSnapshot(ggml_backend_sched_t sched, ggml_cgraph *graph);
    // Puts the graph and its tensors back, resets the scheduler and assigns the host's
    // backends again: the next split or reserve starts as the first did.
    void restore() const;
    // Whether the graph is laid out as the probe was built to read it (its leafs are found).
    bool usable() const { return m_usable; }
    // After a split: the sources it pointed at its copies, read back from the graph.
    CopySources copySources() const;

private:
    struct Memory {
        ggml_tensor *tensor;
        void *data;
        ggml_backend_buffer_t buffer;
        void *extra;
    };
    ggml_backend_sched_t m_sched;
    ggml_cgraph *m_graph;
    std::vector<ggml_tensor *> m_order; // the nodes as the host built them
    std::vector<std::array<ggml_tensor *, GGML_MAX_SRC>> m_srcs; // each node's, by m_order
    std::vector<Memory> m_memory; // nodes, their sources, views' roots
    std::vector<std::pair<ggml_tensor *, ggml_backend_t>> m_assigned;
    bool m_usable = false;
};

} // namespace llmscope::probe
