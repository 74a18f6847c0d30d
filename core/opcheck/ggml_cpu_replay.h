// ggml's own CPU kernels as opcheck's second reference: a dumped op rebuilt alone in a graph of
// one node from its dumped inputs and raw op parameters, computed by the CPU backend of the
// ggml llmscope was built with. A library of its own, linked by the command line and the
// window only: the probe (in llmscope_core) never links ggml.
#pragma once
#include "core/opcheck/opcheck_run.h"

namespace llmscope::opcheck {

// An OpcheckOptions::cpuReplay, run only on ops whose float64 reference ran (which checked
// their shapes and indices). Ops that write into another tensor's memory (SET_ROWS, CPY,
// SET, ACC) and views are not replayed; neither is what the CPU backend does not support, nor
// an op whose raw parameters disagree with what was checked (ggml aborts on values it does
// not expect).
std::optional<std::vector<double>> ggmlCpuReplay(const std::string &op, const std::string &rawParams,
                                                 const std::vector<CpuReplayInput> &inputs,
                                                 const std::array<int64_t, 4> &outNe, int32_t outDtype,
                                                 std::string &why);

} // namespace llmscope::opcheck
