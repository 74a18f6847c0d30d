// Reading a round as ggml's CPU backend computes it, on one thread. ggml-cpu calls its
// backend's abort callback on the computing thread after every node it computes; the probe
// installs its own there (chaining the host's) and takes each wanted tensor right after its
// node ran, while it is still in cache and before the allocator hands its memory to a later
// node. Nothing is kept past its node and the graph is not split: reading after the whole
// graph keeps every wanted tensor (cache misses on the bigger compute buffer), and asking the
// scheduler for each node splits the graph into one compute per node.
//
// The callback does not say which node ran, so the probe walks the backend's graph the way
// ggml-cpu does (skipping views and nodes not flagged for compute) and keeps ggml from fusing
// nodes while it runs (each computed node is flagged as a graph output for the call, which
// fusion respects; memory was planned before, so nothing else changes). A call whose node
// count does not match drops its round and turns this way of reading off, with a warning.
// With --keep-fusion the chains ggml-cpu fuses (fusion_rules.h) are left whole: their inner
// nodes are not flagged, and one callback comes after each chain.
#pragma once
#include <ggml-backend.h>

namespace llmscope::probe {

struct SchedState;
class Probe;

// The function handed to the host for "ggml_backend_set_abort_callback"; real is ggml-cpu's.
void *wrapSetAbortCallback(void *real);

// Whether a round of this scheduler can be read inline: its only backend is ggml's CPU
// backend, with the probe's abort callback installed and one thread (threads: the count
// llama.cpp set last, 0 when not known yet).
bool inlineUsable(ggml_backend_sched_t sched, int threads);

// Around the scheduler's compute of a round read inline: the backend computes this thread
// makes in between belong to that round.
void inlineRoundBegin(SchedState &s);
// After it: false when the round could not be read (warned; nothing taken is valid).
bool inlineRoundEnd(Probe &p, SchedState &s);

// The interposed ggml_backend_graph_compute_async: one backend compute of (part of) the graph.
ggml_status inlineBackendCompute(ggml_backend_t backend, ggml_cgraph *graph,
                                 ggml_status (*real)(ggml_backend_t, ggml_cgraph *));

} // namespace llmscope::probe
