// llmscope opcheck: each dumped op replayed on its dumped inputs by a float64 reference
// (opcheck/ref_ops.h), its dumped outputs held against the reference and the error a correct
// kernel may make. msit's llm opcheck did this for Ascend's ATB ops; here for ggml's nodes.
#pragma once
#include <cmath>
#include <cstdint>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/opcheck/verdict.h"
#include "core/tensor/tensor.h"
#include "core/text/reason.h"

namespace llmscope {

// One input of an op as its dump holds it, for a replay on ggml's own CPU kernels.
struct CpuReplayInput {
    std::string path; // its tensor file (raw payload: ggml blocks stay raw)
    std::array<int64_t, 4> ne{}; // ggml's order
    int32_t dtype = 0; // the dump's dtype code
    std::string engineType; // ggml's block type (q4_0, ...) where the dump names one
    // Float32 values in place of the file's: a fused chain's inner result, computed just before
    std::shared_ptr<const std::vector<float>> values;
    // Its bytes as the model file stores them (ggml blocks, not repacked), in place of the
    // file's: a weight the backend holds in a layout of its own, read from the model.
    std::shared_ptr<const std::vector<uint8_t>> stored;
};
// The op rebuilt alone from its inputs and raw op parameters (the 64 bytes of -tiling's
// tiling/{pid}/{round}/{id}_{OP}.bin) and computed by ggml's CPU backend: its output as double,
// or nullopt with why set when it cannot be.
using CpuReplay = std::function<std::optional<std::vector<double>>(
    const std::string &op, const std::string &rawParams, const std::vector<CpuReplayInput> &inputs,
    const std::array<int64_t, 4> &outNe, int32_t outDtype, std::string &why)>;

struct OpcheckOptions {
    std::string input; // -i: a dump folder (msit_dump_* or the -o folder above it)
    std::string ids; // -ids: msit's op ids, children included
    std::string opNames; // -opname: op types, case-insensitive prefixes
    std::vector<std::string> metrics; // -metric: abs cos_sim kl (rel always)
    // bounds: each element within the error a correct kernel may make (the default);
    // msit: msit's per-dtype rule, the share of elements within a relative error (float32
    // 2^-20 for 99.99 %, float16 2^-10 and bfloat16 2^-8 for 99.9 %), computed in float64;
    // msprobe: msProbe's rule for each kind of op (opcheck/msprobe_standard.h)
    enum class Standard { Bounds, Msit, Msprobe } standard = Standard::Bounds;
    // Where set, each replayed op also runs on ggml's CPU kernels (llmscope_ggml_replay's
    // ggmlCpuReplay): an output beyond its bound is charged to its kernel only when it is
    // clearly worse than ggml's own CPU kernel on the same inputs.
    CpuReplay cpuReplay;
};

struct OpcheckRow {
    std::string opId, opName, opType, opParam, tensorPath;
    int64_t round = 0;
    int outTensorId = 0;
    Verdict verdict = Verdict::Skip;
    std::string standard; // the rule the output is held to
    double withinRate = NAN; // % of elements within the reference's bound
    double maxRelError = NAN; // over elements whose reference exceeds float32's epsilon
    double absRate = NAN; // % of elements within the output type's absolute tolerance
    double maxAbsError = NAN;
    double cosine = NAN, kl = NAN;
    double worstRatio = NAN; // the largest |error| / bound
    double judgedRatio = NAN; // the same over the bound the verdict was judged by (float16 rounding's for its WARN)
    double cpuRatio = NAN; // ggml's CPU kernel on the same inputs: its largest |error| / bound
    double nmseVsCpu = NAN; // the output against ggml's CPU kernel: sum (t - c)^2 / sum c^2
    double cpuBudget = NAN; // ggml's budget for that NMSE (test-backend-ops) for this op
    std::string cpuNotRun; // why ggml's CPU kernel was not run on it, where it was not
    std::string weightsFromModel; // inputs read from the model file (held by the backend in a layout of its own)
    // Matrix products, msProbe's ULP measure: the mean |ULP error| and the % of elements beyond
    // its threshold (32 ULP float32, 1 float16/bfloat16), and that % of ggml's CPU kernel
    double meanUlpError = NAN, ulpErrorProportion = NAN, cpuUlpErrorProportion = NAN;
    Reason reason; // why it warns, fails, is skipped or could not be replayed
};

struct OpcheckResult {
    std::string root;
    std::vector<OpcheckRow> rows; // by round, then op id, then output
    int ops = 0, viewOps = 0, replayedOps = 0; // ops dumped, views among them, non-views replayed
    int viewsChecked = 0; // views whose output was checked as data movement
    int pass = 0, warn = 0, fail = 0, skip = 0, error = 0; // rows
    double coverage() const { return ops > viewOps ? 100.0 * replayedOps / double(ops - viewOps) : 0; }

    // Each op's worst output in a round, and over every round (the earliest of equals): what
    // the window shows on an op. Null where the op was not replayed. After indexWorst().
    const OpcheckRow *worstOf(const std::string &op, int64_t round) const;
    const OpcheckRow *worstOf(const std::string &op) const;
    std::vector<int64_t> rounds() const; // the rounds replayed, ascending
    void indexWorst(); // runOpcheck calls it; again after rows change

private:
    std::map<std::string, std::map<int64_t, size_t>> m_worst; // op -> round -> row
};

// The first output that fails: the earliest round, then the op first in the graph (ids by
// number, 2_9 before 2_10): where the window opens a replay. Null when none fails.
const OpcheckRow *firstFailing(const OpcheckResult &r);

// progress(done, total) after each op; returning false cancels (Error "opcheck cancelled").
// Throws Error when the dump cannot be read or holds no op with inputs and outputs.
OpcheckResult runOpcheck(const OpcheckOptions &o, const std::function<bool(uint64_t, uint64_t)> &progress = {});

// The reference of one output a report lists (row.tensorPath), computed again from the files
// beside it: a float32 tensor of the output's dims, to show beside the output element by
// element. Throws Error saying why when the op cannot be replayed.
Tensor replayReference(const OpcheckRow &row);

} // namespace llmscope
