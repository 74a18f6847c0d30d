// One comparison of a golden dump with a test dump: match, then compute every pair's metrics
// in one pass over its data (memory-mapped, pairs spread over threads), then each
// operation's own error and the first divergent operation.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compare/matching.h"
#include "core/compare/metrics.h"
#include "core/compare/precision_standard.h"
#include "core/compare/quantization.h"
#include "core/config/run_config.h"

namespace llmscope {

struct CompareOptions {
    std::string goldenPath, myPath; // dump folders, plain folders of tensor files, or two files
    std::string mappingFile; // optional, see matching.h
    // Unset: engine when both sides are llmscope dumps and no msit threshold is given, else msit.
    std::optional<Standard> standard;
    std::optional<double> relTol; // overrides the dtype table's tolerance (msit's standard)
    std::optional<double> passRate; // overrides the dtype table's pass rate (msit's standard)
    unsigned threads = 0; // 0: one per core
    const std::atomic<bool> *cancel = nullptr; // set: the comparison stops soon, with Error "compare cancelled"
};

struct CompareRow {
    TensorRecord golden, my;
    std::string key;
    std::string nodeName; // the op's node name from golden's model topology, if any
    std::string tensorName; // this tensor's name there (an input's source, an output's node)
    std::string
        parameter; // a PyTorch golden's parameter paired with that weight ("model.layers.1.mlp.down_proj.weight")
    bool weight = false; // an input no node computes that names a tensor (a weight): its
        // storage types are compared (quantization) when they differ
    bool computed = false; // element metrics present
    bool unreadable = false; // a file could not be read or compared: failReason says why, no metrics
    bool statsOnly = false; // compared on max/min/mean/l2norm only
    bool skipped = false; // description-only on both sides: nothing to compare, not a failure
    Metrics metrics;
    double statsRelDiff = 0; // stats-only rows: largest relative difference of the four
    double statsBound = 0; // stats-only rows: the lower bound of the relative euclidean error
    // Stats-only rows whose sides both carry a sketch (tensor/sketch.h): the relative
    // euclidean error estimated from them (spread: kSketchNmseSpread of its square); NaN
    // without.
    double statsEstimate = NAN;
    Tolerance tolerance;
    bool passed = false;
    Reason failReason; // msit's cmp_fail_reason (english() in the files)
    // Stored in another type on each side (a quantized weight): what its quantization explains.
    std::optional<Quantization> quantization;
    std::string weightSource; // "model files" when both sides were read from the programs' models
    TensorView goldenView, myView; // another framework's layout (compare/framework_pairing.h)
};

// A weight of both programs' model files, compared once from the files themselves.
struct WeightComparison {
    std::string name; // "blk.3.ffn_down.weight"
    std::vector<int64_t> dims;
    std::string goldenType, myType; // storage types in the files ("f32", "q4_0")
    uint64_t elements = 0, goldenBytes = 0, myBytes = 0;
    CompareRow row; // its metrics, quantization and verdict (no dump paths)
};

struct OpResult {
    int64_t round = 0;
    std::string opId, opPath, opType;
    std::string myOpId; // the test side's id of the same op (graphs may differ in order)
    std::string name; // node name from the model topology ("ffn_out-2"), if any
    double outputError = 0; // worst relative euclidean distance of its outputs
    // The chain this op ends where either side computed it fused ("RMS_NORM+MUL"; --keep-fusion):
    // judged by the budget of all of the chain's ops, whose rounding it carries.
    std::string fusedChain;
    bool goldenFused = false, myFused = false; // which side computed it fused
    std::vector<std::string> fusedIds, fusedNames; // the chain's ops in order, its end last (the record's)
    double inputError = 0; // worst of its computed inputs (what it inherits from earlier ops)
    double addedError = 0; // max(0, output - input): the error it adds itself, its weights' included
    double outputCosine = 1; // lowest cosine of its outputs; from statistics estimated, or NaN: unknown
    bool passed = true; // every output row passed
    bool fromStats = false; // an output compared on statistics alone: its figures are estimates or bounds
    Reason unreadable; // why an output could not be compared; then the metrics above mean nothing
    int worstInput = -1; // row of the input with the largest error, -1 when none differs
    std::string quantizedWeight; // its weight stored in another type on the test side, if any
    double weightError = 0; // that weight's relative error
    bool worstInputIsWeight = false; // that input is a tensor no node computes (a weight)
    // The engine standard's figures (NMSE: the squared relative euclidean error). Computed
    // under either standard; the verdict follows them under the engine one.
    double nmse = 0; // of its worst output
    double explainedNmse = 0; // what its computed inputs' error explains
    double ownNmse = 0; // max(0, nmse - explained): what it adds itself
    double budget = 0; // NMSE it may add (engineBudget, roundingBudget); 0: exact
    Standard budgetKind = Standard::Engine; // whose budget that is: rounding or exact where the sides' types agree
    double budgetShare = 0; // ownNmse / budget (inf when an exact op adds any)
    Reason verdict; // why it failed; empty when it passed
    std::vector<size_t> rows;

    std::string label() const; // "3_29 ffn_out-2 (MUL_MAT)"
};

struct CompareResult {
    std::string goldenRoot, myRoot;
    Reason method; // how the pairs were made
    Standard standard = Standard::Msit;
    Reason standardWhy; // why that standard: what the two sides are (compare/pair_standard.h), or asked
    std::vector<CompareRow> rows; // golden execution order
    std::vector<OpResult> ops; // execution order
    int firstDivergent = -1; // index into ops, -1 when every op passed
    int mostAdded = -1; // the op with the largest budget share, -1 when none adds any
    std::vector<TensorRecord> onlyGolden, onlyMy; // tensors without a partner
    std::vector<std::string> notes; // where llmscope departs from msit, and why
    std::vector<std::string> warnings; // what may make the pairs themselves wrong (also in notes)
    // The model files the programs loaded, as their dumps name them (golden's, my's).
    std::vector<std::string> goldenModels, myModels;
    // Weights read from those files: the ones dumped rows could not give, and every weight
    // when the files store some weight in another type (a quantized test), in file order.
    std::vector<WeightComparison> weights;
    const WeightComparison *weight(const std::string &name) const;
    bool acrossFrameworks = false; // a PyTorch dump against an engine's (compare/framework_pairing.h)
    // What differs between the two runs' configurations, where both dumps record them (the
    // probe's status files; config/run_config.h); null otherwise.
    std::shared_ptr<const ConfigDiff> config;
    bool allPassed() const;
};

// A pair's relative euclidean distance (statistics only: the largest relative difference, msit's).
double inputOrOutputError(const CompareRow &row);
// One pair: metrics, pass or fail, and the reason; never throws (problems become the reason).
// With thresholds, the row's tolerance is msit's default for my's dtype with the user's
// thresholds over it, set once the files' headers are read.
void compareTensorPair(CompareRow &row, const CompareOptions *thresholds = nullptr);
// A record for a loose tensor file (.bin or .npy), for comparisons outside a dump layout.
TensorRecord recordForFile(const std::string &path, const std::string &id);

// Called now and then from a worker thread, with the label of an op just compared.
using CompareProgress = std::function<void(uint64_t done, uint64_t total, const std::string &op)>;
// Throws Error for unreadable inputs (naming the path); per-pair problems become fail reasons.
CompareResult runCompare(const CompareOptions &options, const CompareProgress &progress = {});

} // namespace llmscope
