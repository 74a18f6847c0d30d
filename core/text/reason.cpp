#include "core/text/reason.h"

// Marks each pattern for the window's translation (lupdate reads this file; context "Reason")
// while core stays Qt-free: the macro leaves the English as it is.
#define QT_TRANSLATE_NOOP(context, text) text

namespace llmscope {

std::string Finding::english() const
{
    if (kind == Said::Text)
        return text;
    std::vector<std::string> words;
    for (const Finding &v : values)
        words.push_back(v.english());
    if (kind == Said::Joined) {
        std::string out;
        for (const std::string &w : words)
            out += (out.empty() ? "" : "; ") + w;
        return out;
    }
    return fillPattern(englishPattern(kind), words);
}

Reason &Reason::add(Finding f)
{
    m_parts.push_back(std::move(f));
    return *this;
}

Reason &Reason::operator+=(const Reason &more)
{
    m_parts.insert(m_parts.end(), more.m_parts.begin(), more.m_parts.end());
    return *this;
}

Finding joined(const Reason &r)
{
    return r.parts().size() == 1 ? r.parts().front() : Finding(Said::Joined, r.parts());
}

std::string Reason::english() const
{
    return Finding(Said::Joined, m_parts).english(); // the findings, "; " between them
}

std::string fillPattern(const std::string &pattern, const std::vector<std::string> &values)
{
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] >= '1' && pattern[i + 1] <= '9') {
            const size_t n = size_t(pattern[i + 1] - '1');
            if (n < values.size()) {
                out += values[n];
                ++i;
                continue;
            }
        }
        out += pattern[i];
    }
    return out;
}

const char *englishPattern(Said kind)
{
    switch (kind) {
    case Said::Text: return "%1";
    case Said::Joined: return "%1";
    case Said::NanGolden: return QT_TRANSLATE_NOOP("Reason", "%1 NaN in golden");
    case Said::InfGolden: return QT_TRANSLATE_NOOP("Reason", "%1 Inf in golden");
    case Said::NanMy: return QT_TRANSLATE_NOOP("Reason", "%1 NaN in my");
    case Said::InfMy: return QT_TRANSLATE_NOOP("Reason", "%1 Inf in my");
    case Said::WithinTolerance:
        return QT_TRANSLATE_NOOP("Reason", "only %1 % of elements within relative error %2 (needs %3 %)");
    case Said::ShapesDiffer: return QT_TRANSLATE_NOOP("Reason", "same element count, different shapes %1 vs %2");
    case Said::ShapeMismatch: return QT_TRANSLATE_NOOP("Reason", "shape mismatch: golden %1 vs my %2");
    case Said::StatsOverDifferentElements:
        return QT_TRANSLATE_NOOP("Reason", "statistics over different elements (%1 vs %2): compare the tensors");
    case Said::StatsNan: return QT_TRANSLATE_NOOP("Reason", "NaN in the statistics");
    case Said::StatsDiffer: return QT_TRANSLATE_NOOP("Reason", "statistics differ by %1 % (relative)");
    case Said::ExpertStats:
        return QT_TRANSLATE_NOOP(
            "Reason", "statistics of every expert's weights against one expert's: dump the tensors to compare");
    case Said::OneSideOnly: return QT_TRANSLATE_NOOP("Reason", "only one side has data or statistics to compare");
    case Said::OnlyInGoldenMetadata:
        return QT_TRANSLATE_NOOP("Reason", "data id %1, token %2 is only in the golden metadata");
    case Said::OnlyInMyMetadata: return QT_TRANSLATE_NOOP("Reason", "data id %1, token %2 is only in my metadata");
    case Said::LabelWeight: return QT_TRANSLATE_NOOP("Reason", "the weight %1");
    case Said::LabelGraphInput: return QT_TRANSLATE_NOOP("Reason", "the graph input %1");
    case Said::LabelWeightInput: return QT_TRANSLATE_NOOP("Reason", "the weight input %1");
    case Said::LabelParameter: return QT_TRANSLATE_NOOP("Reason", "the parameter %1");
    case Said::LabelFromPyTorch: return QT_TRANSLATE_NOOP("Reason", "%1 (PyTorch's %2)");
    case Said::NotCompared: return QT_TRANSLATE_NOOP("Reason", "could not be compared: %1");
    case Said::OutputNotCompared: return QT_TRANSLATE_NOOP("Reason", "its output could not be compared");
    case Said::AddsError:
        return QT_TRANSLATE_NOOP("Reason", "adds NMSE %1 beyond what its inputs explain (budget %2 for %3)");
    case Said::MovesDataAddsError:
        return QT_TRANSLATE_NOOP("Reason",
                                 "adds NMSE %1 beyond what its inputs explain: %2 moves data and must add none");
    case Said::LeafDiffers: return QT_TRANSLATE_NOOP("Reason", "differs from golden's (relative error %1)");
    case Said::WeightDiffers: return QT_TRANSLATE_NOOP("Reason", "%1 differs between golden and test");
    case Said::WeightDiffersBy:
        return QT_TRANSLATE_NOOP("Reason", "%1 differs between golden and test (relative error %2)");
    case Said::ErrorAtLeast: return QT_TRANSLATE_NOOP("Reason", "at least %1");
    case Said::ErrorAbout: return QT_TRANSLATE_NOOP("Reason", "about %1");
    case Said::CauseWeight:
        return QT_TRANSLATE_NOOP(
            "Reason", "%1 differs between golden and test (relative error %2): the op's error comes in through it");
    case Said::CauseInput:
        return QT_TRANSLATE_NOOP(
            "Reason", "its input %1 already differs (relative error %2): the op that computes it was not compared");
    case Said::CauseItself:
        return QT_TRANSLATE_NOOP("Reason", "its inputs agree more than its output: the op itself adds the error");
    case Said::QuantExplained: return QT_TRANSLATE_NOOP("Reason", "quantization of %1 (%2): relative error %3");
    case Said::QuantExplainedTypes:
        return QT_TRANSLATE_NOOP("Reason", "quantization of %1 (%2): relative error %3 (%4 against %2)");
    case Said::QuantNoExpected:
        return QT_TRANSLATE_NOOP("Reason",
                                 "%1 (%2) differs from golden's (%3) by %4, more than any quantization of it should");
    case Said::QuantBeyond:
        return QT_TRANSLATE_NOOP("Reason",
                                 "%1 (%2) differs from golden's by %3, more than its quantization explains (%4)");
    case Said::SameTopology: return QT_TRANSLATE_NOOP("Reason", "same topology");
    case Said::ByLayerNameOp: return QT_TRANSLATE_NOOP("Reason", "by layer, node name and op");
    case Said::MappingSameTopology: return QT_TRANSLATE_NOOP("Reason", "mapping file, then same topology");
    case Said::MappingByLayerNameOp:
        return QT_TRANSLATE_NOOP("Reason", "mapping file, then by layer, node name and op");
    case Said::AcrossFrameworks:
        return QT_TRANSLATE_NOOP(
            "Reason", "across frameworks: modules by their weights' GGUF names, decoder layers by their residual adds");
    case Said::FileAgainstFile: return QT_TRANSLATE_NOOP("Reason", "file against file");
    case Said::Systematic:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "a systematic error of %1 % of the output (%2 standard deviations of rounding): scaled or biased, not rounded");
    case Said::BeyondF16:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "beyond what float16 operands explain too (the largest error %1 times 8 standard deviations of that rounding)");
    case Said::WithinF16:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "beyond float32's bound but within float16 operand rounding (the largest error %1 times 8 standard deviations of it, no systematic error): what a correct kernel gives when it rounds its float32 operands to float16, as device matrix kernels may; neither this kernel nor its inputs are at fault");
    case Said::CpuAsFar:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "ggml's own CPU kernel is as far from float64 on these inputs (%1 times the bound): the bound is too tight here, not this kernel wrong");
    case Said::CpuRatio: return QT_TRANSLATE_NOOP("Reason", "ggml's CPU kernel on the same inputs: %1 times the bound");
    case Said::MsitShare:
        return QT_TRANSLATE_NOOP("Reason",
                                 "%1 % of the elements within relative error %2, below the %3 % msit asks of %4");
    case Said::BeyondBound:
        return QT_TRANSLATE_NOOP("Reason", "%1 of %2 elements beyond the bound, the largest %3 times it");
    case Said::NonFiniteMismatch:
        return QT_TRANSLATE_NOOP("Reason", "%1 elements NaN or Inf where the reference is not (or the other way)");
    case Said::UlpNoCpu:
        return QT_TRANSLATE_NOOP("Reason", "mean |ULP error| %1, %2 % beyond %3 ULP (ggml's CPU kernel did not run)");
    case Said::UlpWithCpu:
        return QT_TRANSLATE_NOOP("Reason", "mean |ULP error| %1, %2 % beyond %3 ULP; ggml's CPU kernel %4 %");
    case Said::UlpTwiceCpu:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "mean |ULP error| %1, %2 % beyond %3 ULP; ggml's CPU kernel %4 %: beyond msProbe's share, but at most twice ggml's own CPU kernel's");
    case Said::ElementsDiffer: return QT_TRANSLATE_NOOP("Reason", "%1 of %2 elements differ");
    case Said::BeyondAbsolute:
        return QT_TRANSLATE_NOOP(
            "Reason", "%1 of %2 normal values beyond the relative error, %3 of %4 small values beyond the absolute");
    case Said::BeyondAbsoluteNonFinite:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "%1 of %2 normal values beyond the relative error, %3 of %4 small values beyond the absolute, %5 NaN or Inf where the reference is not");
    case Said::BenchSmallErrors:
        return QT_TRANSLATE_NOOP("Reason", "small-value error rate %1 times ggml's CPU kernel's");
    case Said::BenchRmse: return QT_TRANSLATE_NOOP("Reason", "RMSE %1 times ggml's CPU kernel's");
    case Said::BenchLargestRel:
        return QT_TRANSLATE_NOOP("Reason", "largest relative error %1 times ggml's CPU kernel's");
    case Said::BenchMeanRel: return QT_TRANSLATE_NOOP("Reason", "mean relative error %1 times ggml's CPU kernel's");
    case Said::BenchBalance: return QT_TRANSLATE_NOOP("Reason", "error balance %1 times ggml's CPU kernel's");
    case Said::SpreadNotIdentical:
        return QT_TRANSLATE_NOOP("Reason", "runs %1 and %2 (one configuration) are not bit-identical");
    case Said::SpreadBeyondBudget: return QT_TRANSLATE_NOOP("Reason", "runs %1 and %2 part beyond ggml's budget: %3");
    case Said::AddsErrorSameRun:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "adds NMSE %1 beyond what its inputs explain: the same command on the same machine must agree bit for bit");
    case Said::StandardExact:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "exact: both sides ran the same command with the same libraries on the same machine, so every operation must agree bit for bit");
    case Said::StandardRounding:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "rounding: both sides ran on %1 with the same types (differing in %2), so each operation is held to what float rounding in another order may change");
    case Said::StandardEngine:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: golden ran on %1, test on %2, so each operation is held to ggml's cross-backend budgets");
    case Said::StandardEngineUnknown:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: a dump does not say which backends ran it (%1), so each operation is held to ggml's cross-backend budgets");
    case Said::SideGolden: return QT_TRANSLATE_NOOP("Reason", "golden's");
    case Said::SideTest: return QT_TRANSLATE_NOOP("Reason", "test's");
    case Said::NeitherDumpNorFile:
        return QT_TRANSLATE_NOOP("Reason", "'%1' is neither a dump folder nor a tensor file");
    case Said::FileAgainstFolder:
        return QT_TRANSLATE_NOOP("Reason", "compare a file with a file, or a folder with a folder ('%1' and '%2')");
    case Said::HoldsNoTensors: return QT_TRANSLATE_NOOP("Reason", "'%1' holds no tensors");
    case Said::NotAFolder:
        return QT_TRANSLATE_NOOP("Reason", "'%1' is not a folder; give a dump folder (msit_dump_*, or one holding it)");
    case Said::CannotOpen: return QT_TRANSLATE_NOOP("Reason", "cannot open '%1': %2");
    case Said::NotARegularFile: return QT_TRANSLATE_NOOP("Reason", "'%1' is not a regular file");
    case Said::ObserverChanged:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed the program's results: round %1's %2 differs from the run the probe only watched, from the same tokens; what the dump shows is the observed program, not the one that runs unobserved (try --keep-fusion)");
    case Said::ObserverChangedBy:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed the program's results: round %1's %2 differs from the run the probe only watched (relative error about %3), from the same tokens; what the dump shows is the observed program, not the one that runs unobserved (try --keep-fusion)");
    case Said::ObserverChangedRounding:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed the program's results only in their last bits: round %1's %2 differs from the run the probe only watched by a relative %3 from the same tokens, as summing in another order does (the probe splits the backend's graph where it reads); what the dump shows is the program within float rounding");
    case Said::ObserverChoices:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed the program's choices: from round %1 it consumed other tokens than the run the probe only watched");
    case Said::ObserverChoicesAfter:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed the program's choices: from round %1 it consumed other tokens than the run the probe only watched (the %2 round(s) before agree bit for bit)");
    case Said::ObserverComparedNothing:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "the observer check compared nothing: the two runs recorded no result of the same round (a dump from an older probe, or a program whose rounds the probe cannot read)");
    case Said::ObserverNothing:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed nothing: %1 round(s) computed the same results bit for bit as the run the probe only watched (%2)");
    case Said::ObserverChoicesBatched:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "the program's choices differ from the run the probe only watched: from round %1 its requests consumed other tokens, and %2 round(s) before it the program batched otherwise (a server decodes its requests together as they come); a result that depends on how requests are batched (as a kernel's fault can) differs from run to run, observed or not, so observing is not shown to be the cause");
    case Said::ObserverNothingBatched:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "observing changed nothing: every request consumed the same tokens as in the run the probe only watched, and %1 round(s) batched alike computed the same results bit for bit (%2); %3 round(s) the program batched otherwise (a server decodes its requests together as they come) are not held against each other");
    case Said::StandardAsked: return QT_TRANSLATE_NOOP("Reason", "%1: as asked (--standard)");
    case Said::StandardEngineTypes:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: both sides ran on %1, but with other types (%2), so each operation is held to ggml's cross-backend budgets and to what the quantization explains");
    case Said::StandardEngineMachines:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: both sides ran on %1, but on other machines, whose devices may run other kernels, so each operation is held to ggml's cross-backend budgets");
    case Said::StandardEngineGraphs:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: both sides ran on %1, but their graphs differ (other kernels: flash attention, fusion, batch), so each operation is held to ggml's cross-backend budgets");
    case Said::StandardEngineFramework:
        return QT_TRANSLATE_NOOP(
            "Reason",
            "engine: a PyTorch dump against an engine's, other kernels throughout, so each operation is held to ggml's cross-backend budgets");
    case Said::StandardMsit:
        return QT_TRANSLATE_NOOP(
            "Reason", "msit: a side is not an llmscope dump, so each tensor pair is held to msit's per-element rule");
    }
    return "%1";
}

} // namespace llmscope
