// Why core judged as it did, kept as what it found (a kind of finding and its values), not as a
// sentence: the files and the command line word it in English (english()); the window words it
// in the user's language from the same English patterns, translated (document/reason_words.h).
// So core's verdicts read in Chinese without core knowing Qt. A reason is a list of findings,
// worded one after another with "; " between them. Text from elsewhere (an exception's
// message, a file error) is kept as it came (Said::Text).
#pragma once
#include <string>
#include <vector>

namespace llmscope {

enum class Said {
    Text, // as it came
    Joined, // its values one after another, "; " between them (a reason inside a finding)
    // compare: one tensor pair
    NanGolden,
    InfGolden,
    NanMy,
    InfMy,
    WithinTolerance,
    ShapesDiffer,
    ShapeMismatch,
    StatsOverDifferentElements,
    StatsNan,
    StatsDiffer,
    ExpertStats,
    OneSideOnly,
    OnlyInGoldenMetadata,
    OnlyInMyMetadata,
    // a tensor no op computes, as a user knows it (compare's leafLabel)
    LabelWeight,
    LabelGraphInput,
    LabelWeightInput,
    LabelParameter,
    LabelFromPyTorch,
    // compare: an op under the engine's standard, a weight and its quantization
    NotCompared,
    OutputNotCompared,
    AddsError,
    MovesDataAddsError,
    LeafDiffers,
    WeightDiffers,
    WeightDiffersBy,
    ErrorAtLeast,
    ErrorAbout,
    // compare: where the first divergent op's error comes from (divergence_cause.h)
    CauseWeight,
    CauseInput,
    CauseItself,
    QuantExplained,
    QuantExplainedTypes,
    QuantNoExpected,
    QuantBeyond,
    // compare: how the pairs were made
    SameTopology,
    ByLayerNameOp,
    MappingSameTopology,
    MappingByLayerNameOp,
    AcrossFrameworks,
    FileAgainstFile,
    // opcheck: a replayed output (ggml's bound, msit's rule, msProbe's standards)
    Systematic,
    BeyondF16,
    WithinF16,
    CpuAsFar,
    CpuRatio,
    MsitShare,
    BeyondBound,
    NonFiniteMismatch,
    UlpNoCpu,
    UlpWithCpu,
    UlpTwiceCpu,
    ElementsDiffer,
    BeyondAbsolute,
    BeyondAbsoluteNonFinite,
    BenchSmallErrors,
    BenchRmse,
    BenchLargestRel,
    BenchMeanRel,
    BenchBalance,
    // spread: the first pair of runs that part
    SpreadNotIdentical,
    SpreadBeyondBudget,
    // compare: the standard a pair is held to, and why (compare/pair_standard.h)
    AddsErrorSameRun,
    StandardExact,
    StandardRounding,
    StandardEngine,
    StandardEngineUnknown,
    StandardAsked,
    StandardMsit,
    StandardEngineTypes,
    StandardEngineMachines,
    StandardEngineGraphs,
    StandardEngineFramework,
    SideGolden,
    SideTest,
    // what a user gave cannot be read (a ReasonError's)
    NeitherDumpNorFile,
    FileAgainstFolder,
    HoldsNoTensors,
    NotAFolder,
    CannotOpen,
    NotARegularFile,
    // the observer check (compare/observer_check.h)
    ObserverChanged,
    ObserverChangedBy,
    ObserverChangedRounding,
    ObserverChoices,
    ObserverChoicesAfter,
    ObserverComparedNothing,
    ObserverNothing,
    ObserverNothingBatched,
    ObserverChoicesBatched,
    // new kinds before this line, and kLastSaid moved
};
constexpr Said kLastSaid = Said::ObserverChoicesBatched; // the translation test walks every kind

// One thing found: its kind and the values its pattern names. A value is a finding itself: a
// plain one is text (Said::Text: a name, a number), or a phrase worded in turn ("the weight %1").
struct Finding {
    Said kind = Said::Text;
    std::string text; // Said::Text's
    std::vector<Finding> values; // %1, %2, ... in the pattern
    Finding() = default;
    Finding(std::string t) : text(std::move(t)) {}
    Finding(const char *t) : text(t) {}
    Finding(Said k, std::vector<Finding> v = {}) : kind(k), values(std::move(v)) {}
    std::string english() const;
    bool operator==(const Finding &) const = default;
};

class Reason {
public:
    Reason() = default;
    Reason(Said kind, std::vector<Finding> values = {}) { add(Finding(kind, std::move(values))); }
    Reason(Finding f)
    {
        if (f.kind != Said::Text || !f.text.empty())
            add(std::move(f));
    }
    Reason(std::string text) : Reason(Finding(std::move(text))) {} // as it came; empty: none
    Reason(const char *text) : Reason(std::string(text)) {}

    Reason &add(Finding f);
    Reason &add(Said kind, std::vector<Finding> values = {}) { return add(Finding(kind, std::move(values))); }
    Reason &operator+=(const Reason &more); // findings after these
    bool empty() const { return m_parts.empty(); }
    void clear() { m_parts.clear(); }
    const std::vector<Finding> &parts() const { return m_parts; }
    std::string english() const;
    bool operator==(const Reason &) const = default;

private:
    std::vector<Finding> m_parts;
};

// A whole reason as one finding, to be a value of another.
Finding joined(const Reason &r);

// The English pattern of a kind, with %1, %2, ... where its values go.
const char *englishPattern(Said kind);
// A pattern with %n replaced by values[n-1] (once each, in one pass: a value's own "%1" stays).
std::string fillPattern(const std::string &pattern, const std::vector<std::string> &values);

} // namespace llmscope
