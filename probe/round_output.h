// The program's own result of each round, recorded in every dump whatever it selects
// (dump/output_record.h): the graph's last node, read where that makes nothing wait.
#pragma once
#include <cstdint>

#include <ggml-backend.h>

namespace llmscope::probe {

class Probe;

// The round's graph has been computed and its memory is still the graph's: copies its last
// node for the writer thread, which records its digest, statistics and sketch. False (nothing
// recorded) for a tensor ggml cannot read back or over 64 MiB.
bool recordRoundOutput(Probe &p, int64_t round, const ggml_tensor *last);

// Whether the scheduler's compute has ended when its compute call returns: its only backend
// is ggml's CPU backend, which computes synchronously. Device backends finish later.
bool computesSynchronously(ggml_backend_sched_t sched);

} // namespace llmscope::probe
