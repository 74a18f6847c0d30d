// The per-round files about operations rather than their data: msit's op info
// (operation_io_tensors), kernel info (kernel_io_tensors: the backend that ran each node) and,
// with -tiling, each node's decoded parameters as op_param.json beside its tensors and its raw
// op_params bytes under tiling/. Built on the program's thread while the graph is valid,
// written by the writer thread.
#pragma once
#include <ggml-backend.h>

#include "core/dump/op_info_csv.h"
#include "probe/capture_plan.h"

namespace llmscope::probe {

class Probe;

struct OpInfoWanted {
    bool op = false, kernel = false, tiling = false;
    bool any() const { return op || kernel || tiling; }
};

// For the plan's selected nodes in this round.
void writeOpInfo(Probe &p, ggml_backend_sched_t sched, const CapturePlan &plan, int64_t round, OpInfoWanted what);
// -tiling: an op's decoded parameters as op_param.json beside its tensors; the ggml path and
// the C ABI both write it here.
// inputsJson: the op's inputs as the kernel got them ("[...]", or empty when unknown).
void submitOpParam(Probe &p, int64_t round, const std::vector<std::string> &folders, const std::string &id,
                   const std::string &type, const std::string &paramsJson, const std::string &inputsJson = {});
// A round's rows as msit's op and/or kernel CSVs (at most kOpInfoRowsPerFile rows a file); the
// ggml path and the C ABI both end here.
void submitOpInfoRows(Probe &p, int64_t round, std::vector<OpInfoRow> rows, OpInfoWanted what);

} // namespace llmscope::probe
