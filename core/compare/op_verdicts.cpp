#include "core/compare/op_verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/compare/report_text.h"
#include "core/dump/dump_layout.h"
#include "core/dump/fusion_record.h"
#include "core/select/op_id.h"
#include "core/tensor/sketch.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

std::vector<int64_t> idParts(const std::string &id)
{
    return OpId::lenient(id).parts();
}

// The KV cache is state a node wrote (SET_ROWS, CPY), not a weight: its difference is judged
// where it was written.
bool isState(const std::string &tensorName)
{
    return tensorName.rfind("cache_", 0) == 0;
}

// A leaf input that differs between the runs: by its error, a NaN or Inf at other places, or
// data on one side only.
bool leafDiffers(const CompareRow &r, double err)
{
    // Statistics and sketches two programs computed in their own orders agree to float32's
    // rounding, not exactly: a weight whose estimate stays below it is the same weight.
    constexpr double kStatsRounding = 1e-6;
    if (r.statsOnly)
        return !(err <= kStatsRounding);
    return err > 0 || std::isnan(err) || (r.computed && r.metrics.nonFiniteMismatch) ||
        (!r.computed && !r.statsOnly && !r.skipped && !r.failReason.empty());
}

// Which end of an estimated error a verdict takes: an op's output is charged the low end of
// its estimate and its inputs explain their high end, so that the estimates' spread never
// makes an op that only carries its inputs' error look as if it added some.
enum class End { Central, Low, High };

// The engine standard's error of a pair: its relative euclidean distance; from statistics,
// the sketches' estimate of it where both sides have one (never below the statistics' lower
// bound), else that bound; infinite where golden is all zeros and test is not.
double engineError(const CompareRow &r, End end = End::Central)
{
    if (r.computed)
        return r.metrics.goldenNorm <= std::numeric_limits<float>::epsilon() && r.metrics.maxAbsErr > 0
            ? INFINITY
            : r.metrics.relEuclidean;
    if (!r.statsOnly)
        return 0;
    if (std::isnan(r.statsEstimate))
        return r.statsBound;
    const double f = end == End::Low ? kSketchLow : end == End::High ? kSketchHigh : 1.0;
    return std::isnan(r.statsBound) ? r.statsBound : std::max(r.statsBound, r.statsEstimate * f);
}

double goldenNorm(const CompareRow &r)
{
    if (r.computed)
        return r.metrics.goldenNorm;
    if (r.statsOnly && r.golden.stats)
        return r.golden.stats->l2norm;
    return NAN;
}

std::string pct(double v)
{
    return report::percent(v);
}

// Groups rows by (round, op id), in execution order.
void groupOps(CompareResult &res)
{
    std::map<std::tuple<int64_t, std::vector<int64_t>, std::string>, size_t> opIndex;
    for (size_t i = 0; i < res.rows.size(); ++i) {
        const CompareRow &row = res.rows[i];
        const auto key = std::make_tuple(row.golden.exec, idParts(row.golden.opId), row.golden.opId);
        auto [it, added] = opIndex.emplace(key, 0);
        if (added) {
            OpResult op;
            op.round = row.golden.exec;
            op.opId = row.golden.opId;
            op.myOpId = row.my.opId;
            op.opPath = opPath(row.golden.opFolders);
            op.opType = row.golden.opName;
            op.name = row.nodeName;
            res.ops.push_back(op);
            it->second = res.ops.size() - 1;
        }
        if (!row.golden.input) // an input may come from another op (across frameworks): the output names it
            res.ops[it->second].myOpId = row.my.opId;
        res.ops[it->second].rows.push_back(i);
    }
    std::sort(res.ops.begin(), res.ops.end(), [](const OpResult &a, const OpResult &b) {
        return std::make_tuple(a.round, idParts(a.opId)) < std::make_tuple(b.round, idParts(b.opId));
    });
}

// The engine standard's verdict on one op, in words; empty when it passes.
Reason engineVerdict(const CompareResult &res, const OpResult &op, const Reason &weightDiffers)
{
    if (!op.unreadable.empty())
        return Reason(Said::NotCompared, {joined(op.unreadable)});
    for (size_t i : op.rows) {
        const CompareRow &row = res.rows[i];
        if (row.golden.input)
            continue;
        if (row.computed && row.metrics.nonFiniteMismatch)
            return row.failReason;
        if (!row.computed && !row.skipped && !(row.statsOnly && std::isfinite(row.statsBound)))
            return row.failReason.empty() ? Reason(Said::OutputNotCompared) : row.failReason;
    }
    if (!weightDiffers.empty())
        return weightDiffers;
    if (op.budgetShare > 1)
        return op.budget > 0                   ? Reason(Said::AddsError,
                                                        {report::num(op.ownNmse), report::num(op.budget),
                                       op.fusedChain.empty() ? op.opType : op.fusedChain})
            : op.budgetKind == Standard::Exact ? Reason(Said::AddsErrorSameRun, {report::num(op.ownNmse)})
                                               : Reason(Said::MovesDataAddsError, {report::num(op.ownNmse), op.opType});
    return {};
}

// Under the engine standard a row follows its op: an output its verdict, a leaf input that
// differs fails, a computed input is judged at the op that computed it.
void judgeRow(CompareRow &row, const OpResult &op, bool leaf)
{
    if (row.unreadable)
        return;
    const double err = engineError(row);
    if (!row.golden.input) {
        row.passed = op.passed;
        row.failReason = op.verdict;
    } else if (leaf && row.quantization) {
        row.passed = row.quantization->explained();
        row.failReason = row.passed ? Reason() : row.quantization->words(row.tensorName);
    } else if (leaf && leafDiffers(row, err)) {
        row.passed = false;
        if (row.failReason.empty() || row.computed || row.statsOnly)
            row.failReason = Reason(Said::LeafDiffers, {errorWords(row, err)});
    } else if (!(row.computed && row.metrics.nonFiniteMismatch)) {
        row.passed = true;
        row.failReason.clear();
    }
}

} // namespace

// A tensor no node computes, as a user knows it: a weight, or what the program feeds the graph
// (token ids, positions, the attention mask: different tokens make them differ).
double estimatedCosine(const CompareRow &r)
{
    if (!r.statsOnly || !r.golden.stats || !r.my.stats || std::isnan(r.statsEstimate))
        return NAN;
    // |t - g|^2 = |g|^2 + |t|^2 - 2 |g| |t| cos: the two norms from the statistics, the
    // distance as the error shown says it (the sketches' estimate, never below the bound).
    const double e = std::isfinite(r.statsBound) ? std::max(r.statsBound, r.statsEstimate) : r.statsEstimate;
    const double g = r.golden.stats->l2norm, t = r.my.stats->l2norm, d = e * g;
    if (!(g > 0) || !(t > 0))
        return NAN;
    return std::clamp((g * g + t * t - d * d) / (2 * g * t), -1.0, 1.0);
}

Finding errorWords(const CompareRow &r, double err)
{
    return !r.statsOnly ? Finding(pct(err))
                        : Finding(std::isnan(r.statsEstimate) ? Said::ErrorAtLeast : Said::ErrorAbout, {pct(err)});
}

double leafError(const CompareRow &r)
{
    return engineError(r);
}

bool weightDiffers(const CompareRow &r)
{
    return leafDiffers(r, engineError(r));
}

Finding leafLabel(const CompareRow &r)
{
    // A PyTorch golden's parameter (dump_weight's payload or register_hook's statistics):
    // named beside the GGUF tensor it was paired with.
    const std::string &parameter = r.parameter;
    if (r.tensorName.empty())
        return parameter.empty() ? Finding(Said::LabelWeightInput, {std::to_string(r.golden.index)})
                                 : Finding(Said::LabelParameter, {parameter});
    Finding label(r.tensorName.find("weight") != std::string::npos ? Said::LabelWeight : Said::LabelGraphInput,
                  {r.tensorName});
    return parameter.empty() ? label : Finding(Said::LabelFromPyTorch, {label, parameter});
}

namespace {

// What one op's rows add up to: its inputs' errors (the weights' apart), its outputs'.
struct OpTally {
    double worstIn = 0, sumIn = 0, sumAbsIn = 0, outNorm = 0;
    bool normsKnown = true, anyInput = false, quantizedIn = false, statsBased = false;
    int32_t inDtype = -1, outDtype = -1;
    double cacheNmse = 0; // a write into a quantized KV cache: what its type's rounding allows
    // For the rounding standard: the longest input row (what a reduction sums), the coarsest
    // type values are rounded to inside the op, and whether the sides' types differ anywhere.
    int64_t rowLength = 1;
    double narrowUnit = 0;
    bool typesDiffer = false;
    bool inputsUnknown = false; // a computed input with neither data nor statistics (a KV cache view)
    void takeTypes(const CompareRow &row)
    {
        typesDiffer = typesDiffer || row.golden.dtype != row.my.dtype || row.golden.engineType != row.my.engineType ||
            row.golden.kvRowsType != row.my.kvRowsType;
        // An input stored in a block or half type is multiplied by values rounded to its dot
        // type (a q4_0 weight by q8_0 activations); an output is rounded to its own type, and
        // a cache write to the cache's.
        narrowUnit = std::max(
            {narrowUnit, dtypeUnit(row.golden.dtype),
             row.golden.input ? typeUnit(activationType(row.golden.engineType)) : typeUnit(row.golden.kvRowsType)});
        const std::vector<int64_t> &dims = row.golden.engineDims.empty() ? row.golden.dims : row.golden.engineDims;
        if (row.golden.input && !dims.empty()) // elements, not a block type's bytes
            rowLength = std::max(rowLength, dims.back());
    }
    Reason weightDiffers;
    double quantErr = -1;

    // A weight: stored in another type on purpose (what its quantization brings is explained,
    // as an input's error is; the op is judged on what it adds beyond it), or one that
    // differs, whose difference the op's own error counts.
    void takeWeight(OpResult &op, const CompareRow &row, double err)
    {
        if (row.quantization && err > quantErr) {
            quantErr = err;
            op.quantizedWeight = row.tensorName;
            op.weightError = err;
        }
        if (row.quantization && row.quantization->explained()) {
            quantizedIn = true;
            const double carried = err * kQuantCarry / kEngineCarry; // counted kQuantCarry times
            sumIn += carried;
            const double n = goldenNorm(row);
            normsKnown = normsKnown && std::isfinite(n);
            sumAbsIn += (std::isfinite(n) ? n : 0) * carried;
            return;
        }
        if (row.quantization && weightDiffers.empty())
            weightDiffers = row.quantization->words(row.tensorName);
        if (leafDiffers(row, err) && weightDiffers.empty())
            weightDiffers = Reason(Said::WeightDiffersBy, {leafLabel(row), errorWords(row, err)});
    }

    // Some input's error is a lower bound (statistics without sketches), or inherited from
    // producers: what the inputs explain may be more than it shows.
    bool inputsBelowOnly = false;
    void takeInput(OpResult &op, const CompareRow &row, double err)
    {
        inputsBelowOnly = inputsBelowOnly || (row.statsOnly && std::isnan(row.statsEstimate));
        op.inputError = std::max(op.inputError, err);
        sumIn += err;
        const double n = goldenNorm(row);
        normsKnown = normsKnown && std::isfinite(n);
        sumAbsIn += (std::isfinite(n) ? n : 0) * err;
    }

    // err: the output's error as shown; low: the low end of its estimate, which it is charged
    double outLow = 0;
    void takeOutput(OpResult &op, const CompareRow &row, double err, double low)
    {
        outLow = std::isnan(low) || std::isnan(outLow) ? NAN : std::max(outLow, low);
        statsBased = statsBased || row.statsOnly;
        op.fromStats = statsBased;
        outDtype = row.golden.dtype;
        takeTypes(row);
        cacheNmse = std::max({cacheNmse, cacheTypeNmse(row.golden.kvRowsType), cacheTypeNmse(row.my.kvRowsType)});
        op.outputError = std::max(op.outputError, err);
        const double n = goldenNorm(row);
        if (std::isfinite(n))
            outNorm = std::max(outNorm, n);
        if (row.computed) {
            op.outputCosine = std::min(op.outputCosine, row.metrics.cosine);
        } else if (row.statsOnly) { // estimated, or unknown: statistics alone do not tell it
            const double c = estimatedCosine(row);
            op.outputCosine = std::isnan(c) || std::isnan(op.outputCosine) ? NAN : std::min(op.outputCosine, c);
        }
        if (row.unreadable && op.unreadable.empty())
            op.unreadable = row.failReason;
        op.passed = op.passed && row.passed;
    }
};

bool productOfHalves(const std::string &opType, double narrowUnit)
{
    static const std::set<std::string> products{"MUL_MAT", "MUL_MAT_ID", "OUT_PROD", "FLASH_ATTN_EXT"};
    return products.count(opType) && (narrowUnit == typeUnit("f16") || narrowUnit == typeUnit("bf16"));
}

// The engine standard's figures: a sum's absolute errors add (and a data mover's carry over),
// other ops' relative ones; what the op adds beyond that, as a share of its op type's budget.
void applyBudget(OpResult &op, const OpTally &t, Standard standard)
{
    const std::vector<std::string> types =
        op.fusedChain.empty() ? std::vector<std::string>{op.opType} : split(op.fusedChain, '+');
    OpBudget budget = engineBudget(op.opType, t.inDtype, t.outDtype, t.quantizedIn);
    if (op.opType == "SET_ROWS")
        budget.nmse = std::max(budget.nmse, t.cacheNmse);
    if (!op.fusedChain.empty()) { // every op of the chain rounds: their budgets add up
        budget.nmse = 0;
        for (const auto &type : types)
            budget.nmse += engineBudget(type, t.inDtype, t.outDtype, t.quantizedIn).nmse;
    }
    // One backend and the same types on both sides: held to rounding in another order (an op
    // that moves data still to none), the same run to nothing. Ops whose types differ between
    // the sides (a quantized test) keep the cross-backend budgets.
    double carry = kEngineCarry;
    // What rounding allows depends on what the inputs bring where the op rounds to a narrower
    // type: where that is not known (an input not compared, or bounded from below only), the
    // op keeps the cross-backend budget.
    const bool inputsTold = !t.inputsUnknown && !(t.inputsBelowOnly && t.narrowUnit > 0);
    // Products of half-precision operands (a float16 weight, a float16 KV cache) are summed in
    // half precision by some builds of one backend (ggml-cpu's AVX512-FP16 and ARM FP16 paths,
    // Vulkan's float16 accumulators) and in float32 by others: rounding in another order does
    // not bound their difference.
    const bool halfProduct = productOfHalves(op.opType, t.narrowUnit);
    const bool sameFamily = (standard == Standard::Exact && !t.typesDiffer) ||
        (standard == Standard::Rounding && !t.typesDiffer && inputsTold && !halfProduct);
    if (sameFamily && standard == Standard::Exact) {
        budget.nmse = 0;
    } else if (sameFamily && budget.nmse > 0) {
        const RoundingFacts facts{t.rowLength, t.narrowUnit, op.inputError};
        budget.nmse = 0;
        for (const auto &type : types) {
            budget.nmse += roundingBudget(type, facts);
            carry = std::max(carry, roundingCarry(type));
        }
    }
    op.budgetKind = sameFamily ? standard : Standard::Engine;
    double explained = budget.absolute && t.normsKnown && t.outNorm > 0 ? t.sumAbsIn / t.outNorm : carry * t.sumIn;
    if (std::isnan(explained))
        explained = 0; // what cannot be told is not explained
    op.nmse = op.outputError * op.outputError;
    const double charged = std::isnan(t.outLow) ? op.nmse : t.outLow * t.outLow;
    op.explainedNmse = explained * explained;
    op.budget = budget.nmse;
    op.ownNmse = std::max(0.0, charged - op.explainedNmse);
    if (op.ownNmse <= 1e-9 * charged) // the sums' own rounding: the same elements, summed in another order
        op.ownNmse = 0;
    // Statistics without sketches bound errors from below only, and an op that moves data
    // cannot add error unless its inputs agree: from such figures, one whose inputs differ is
    // not charged. Where the inputs' errors are estimated (sketches, elements), what they
    // cannot explain is charged: a budget of 0 passes no more than they bring.
    if (budget.nmse == 0 && t.statsBased && t.sumIn > 0 && t.inputsBelowOnly)
        op.ownNmse = 0;
    if (std::isnan(op.ownNmse))
        op.ownNmse = INFINITY;
    op.budgetShare = op.budget > 0 ? op.ownNmse / op.budget : op.ownNmse > 0 ? INFINITY : 0;
}

// Judges a comparison's weights and ops in turn, by the standard it is under.
class OpJudge {
public:
    OpJudge(CompareResult &res, const OpNames &names) : m_res(res), m_names(names), m_engine(judgesOps(res.standard))
    {
        // Each node's worst output error per round, for ops whose inputs were not dumped (-stp 1,
        // or their producers only): what they inherit is read from their producers' outputs.
        for (const auto &row : res.rows)
            if (!row.golden.input && !row.tensorName.empty()) {
                double &e = m_produced[{row.golden.exec, row.tensorName}];
                e = std::max(e, error(row, End::High)); // what it explains downstream
            }
        for (const auto &[path, node] : names.byPath)
            m_producers[node.name].push_back({idOfPath(path), &node});
    }

    void judgeWeights()
    {
        for (auto &w : m_res.weights) {
            CompareRow &row = w.row;
            if (row.unreadable || !row.computed)
                continue;
            if (row.quantization) {
                row.passed = row.quantization->explained();
                row.failReason = row.passed ? Reason() : row.quantization->words(w.name);
            } else {
                row.passed = !leafDiffers(row, engineError(row));
                row.failReason = row.passed ? Reason() : Reason(Said::WeightDiffers, {leafLabel(row)});
            }
        }
    }

    void judgeOp(OpResult &op)
    {
        OpTally t;
        // A chain's end computed fused on one side only: its dumped inputs are the chain's there and
        // the op's own on the other, so pairs by place mean nothing; what its inputs carry is read
        // through their producers, as for inputs not dumped.
        const bool fusedOnOneSide = op.goldenFused != op.myFused;
        tallyRows(op, t, fusedOnOneSide);
        tallyProducers(op, t, t.anyInput);
        op.addedError = std::max(0.0, op.outputError - op.inputError);
        applyBudget(op, t, m_res.standard);
        if (m_engine) {
            op.verdict = engineVerdict(m_res, op, t.weightDiffers);
            op.passed = op.verdict.empty();
            for (size_t i : op.rows)
                judgeRow(m_res.rows[i], op, leaf(m_res.rows[i]));
        } else if (!op.passed) {
            for (size_t i : op.rows)
                if (!m_res.rows[i].golden.input && !m_res.rows[i].passed) {
                    op.verdict = m_res.rows[i].failReason;
                    break;
                }
        }
    }

private:
    double error(const CompareRow &row, End end = End::Central) const
    {
        return m_engine ? engineError(row, end) : inputOrOutputError(row);
    }
    // A tensor no node computes: a weight or the graph's input (the KV cache is state some
    // node wrote: under the engine standard it is judged where it was written).
    bool leaf(const CompareRow &row) const
    {
        return m_names.isLeaf(row.tensorName) && !(m_engine && isState(row.tensorName));
    }

    void tallyRows(OpResult &op, OpTally &t, bool outputsOnly) const
    {
        for (size_t i : op.rows) {
            const CompareRow &row = m_res.rows[i];
            if (!row.golden.input) {
                t.takeOutput(op, row, error(row), error(row, End::Low));
                continue;
            }
            if (outputsOnly)
                continue;
            const bool weight = leaf(row);
            const double err = error(row, weight ? End::Central : End::High);
            t.anyInput = true;
            if (t.inDtype < 0) {
                t.inDtype = row.golden.dtype;
                t.quantizedIn = !row.golden.engineType.empty();
            }
            if (err > t.worstIn || std::isnan(err)) {
                t.worstIn = std::isnan(err) ? INFINITY : err;
                op.worstInput = int(i);
                op.worstInputIsWeight = weight;
            }
            t.quantizedIn = t.quantizedIn || row.quantization || !row.my.engineType.empty();
            t.takeTypes(row);
            if (op.opType == "SET_ROWS" && row.golden.index == 2) // the cache it writes into, by its type
                t.cacheNmse =
                    std::max({t.cacheNmse, cacheTypeNmse(row.golden.engineType), cacheTypeNmse(row.my.engineType)});
            if (weight) {
                t.takeWeight(op, row, err);
            } else {
                t.inputsUnknown = t.inputsUnknown || (!row.computed && !row.statsOnly);
                t.takeInput(op, row, err);
            }
        }
    }

    // "3_DecoderLayer/29_MUL_MAT" -> 3_29: the graph order of an op path.
    static OpId idOfPath(const std::string &path)
    {
        std::string id;
        for (size_t from = 0; from <= path.size();) {
            const size_t slash = std::min(path.find('/', from), path.size());
            const std::string folder = path.substr(from, slash - from);
            id += (id.empty() ? "" : "_") + folder.substr(0, folder.find('_'));
            from = slash + 1;
        }
        return OpId::lenient(id);
    }

    // What the output of tensor `name` carries in a round, read by the op `consumer`: its
    // producer's output error where that was compared, else (an output never dumped: a fused
    // chain's inner result, kept in registers) what that producer's own inputs carry, looked
    // through a few nodes deep; -1 when unknown. Names repeat in a graph ("norm-0" twice a
    // layer): the producer is the last one of that name before the consumer.
    double inherited(int64_t round, const std::string &name, const OpId &consumer, int depth) const
    {
        if (const auto it = m_produced.find({round, name}); it != m_produced.end())
            return it->second;
        const auto producers = m_producers.find(name);
        if (depth == 0 || producers == m_producers.end())
            return -1;
        const std::pair<OpId, const OpNames::Node *> *producer = nullptr;
        for (const auto &p : producers->second)
            if (p.first < consumer && (!producer || producer->first < p.first))
                producer = &p;
        if (!producer)
            return -1;
        double worst = -1;
        for (const std::string &in : producer->second->inputs)
            if (!m_names.isLeaf(in))
                worst = std::max(worst, inherited(round, in, producer->first, depth - 1));
        return worst;
    }

    // Inputs that were not dumped (all of them with -stp 1; a fused chain's inner result,
    // which never reached memory, with --keep-fusion; missingOnly: those only): what their
    // producers' outputs carry, and its weights as read from the model files.
    void tallyProducers(OpResult &op, OpTally &t, bool missingOnly) const
    {
        const OpNames::Node *node = m_names.find(op.opPath);
        if (!node)
            return;
        std::unordered_set<std::string> dumped;
        if (missingOnly)
            for (size_t i : op.rows)
                if (m_res.rows[i].golden.input)
                    dumped.insert(m_res.rows[i].tensorName);
        for (const std::string &in : node->inputs) {
            if (missingOnly && dumped.count(in))
                continue;
            if (const WeightComparison *w = m_res.weight(in); w && m_names.isLeaf(in)) {
                if (!missingOnly)
                    t.takeWeight(op, w->row, error(w->row));
                continue;
            }
            const double e = inherited(op.round, in, OpId::lenient(op.opId), 3);
            if (e < 0)
                continue;
            op.inputError = std::max(op.inputError, e);
            t.sumIn += e;
            t.normsKnown = false;
            t.inputsBelowOnly = true;
        }
    }

    CompareResult &m_res;
    const OpNames &m_names;
    const bool m_engine;
    std::map<std::pair<int64_t, std::string>, double> m_produced;
    std::unordered_map<std::string, std::vector<std::pair<OpId, const OpNames::Node *>>> m_producers; // by output name
};

} // namespace

FusedEnds fusedEnds(const std::string &dumpRoot)
{
    FusedEnds ends;
    for (const auto &[round, chains] : readFusionRecords(dumpRoot))
        for (const FusedChainRecord &c : chains)
            ends[{round, c.ids.back()}] = c; // its other outputs are compared as ops of their own
    return ends;
}

void judgeOps(CompareResult &res, const OpNames &names, const FusedEnds &goldenChains, const FusedEnds &myChains)
{
    groupOps(res);
    OpJudge judge(res, names);
    judge.judgeWeights();
    for (OpResult &op : res.ops) {
        const auto g = goldenChains.find({op.round, op.opId});
        const auto m = myChains.find({op.round, op.myOpId.empty() ? op.opId : op.myOpId});
        op.goldenFused = g != goldenChains.end();
        op.myFused = m != myChains.end();
        if (const FusedChainRecord *c = op.goldenFused ? &g->second : op.myFused ? &m->second : nullptr) {
            op.fusedChain = c->types;
            op.fusedIds = c->ids;
            op.fusedNames = c->names; // one per id: the record's reader checks it
        }
        judge.judgeOp(op);
    }
    markFirstDivergent(res);
}

void markFirstDivergent(CompareResult &res)
{
    res.firstDivergent = res.mostAdded = -1;
    double most = 0;
    for (size_t k = 0; k < res.ops.size(); ++k) {
        const OpResult &op = res.ops[k];
        if (!op.passed && res.firstDivergent < 0)
            res.firstDivergent = int(k);
        if (op.budgetShare > most && op.unreadable.empty()) {
            most = op.budgetShare;
            res.mostAdded = int(k);
        }
    }
}

} // namespace llmscope
