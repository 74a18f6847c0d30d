#include "core/opcheck/opcheck_run.h"

#include "core/dump/probe_status.h"

#include "core/ggml/ggml_library.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/compare/metrics.h"
#include "core/compare/precision_standard.h"
#include "core/compare/report_text.h"
#include "core/compare/tensor_reader.h"
#include "core/dump/dump_index.h"
#include "core/dump/fusion_record.h"
#include "core/dump/op_info_csv.h"
#include "core/opcheck/msprobe_standard.h"
#include "core/opcheck/ref_ops.h"
#include "core/select/op_id.h"
#include "core/select/op_ids.h"
#include "core/select/selection.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

using opcheck::Reference;
using opcheck::RefTensor;

// Ops whose reference needs the parameters op_param.json holds (-tiling).
bool needsParams(const std::string &op)
{
    static const std::vector<std::string> ops{"RMS_NORM",       "NORM",  "ROPE", "SOFT_MAX",
                                              "FLASH_ATTN_EXT", "SCALE", "VIEW", "PERMUTE"};
    return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Why an input file holds no data, in words: the probe's reason where it wrote one.
std::string withoutData(const std::string &path)
{
    std::string why;
    try {
        why = readBinFile(path, true).tensor.attr("llmscope_skipped").value_or("");
    } catch (const Error &) {
    }
    if (why == "kv_cache")
        return "is the KV cache, dumped only with --kv-cache";
    if (why == "unreadable_buffer")
        return "lies in memory the probe cannot read as stored (a weight in ggml's repacked CPU layout): replay "
               "the op where its weights are plain, on a device backend";
    if (why == "in_model_file")
        return "lies in its model file (--weights-in-model: described, not written), and no model file the program "
               "loaded holds it";
    return "was dumped without its data (--type stats writes none)";
}

// Whether the op's first input lay contiguously in memory, from op_param.json's inputs (their
// ne and byte strides): a VIEW's offset and strides address that memory, which the dense
// dump of the input reproduces directly only then. Noted in param as "_src_contiguous", its
// strides as "_src_nb".
void noteSourceLayout(const nlohmann::json &opParam, nlohmann::json &param)
{
    const auto in = opParam.find("inputs");
    if (in == opParam.end() || !in->is_array() || in->empty() || !(*in)[0].is_object())
        return;
    const nlohmann::json &src = (*in)[0];
    const auto ne = src.find("ne"), nb = src.find("nb"), type = src.find("type");
    if (ne == src.end() || nb == src.end() || type == src.end() || !ne->is_array() || !nb->is_array() ||
        ne->size() != 4 || nb->size() != 4 || !type->is_string())
        return;
    static const std::map<std::string, int64_t> sizes{{"f32", 4}, {"f16", 2}, {"bf16", 2}, {"i32", 4},
                                                      {"i16", 2}, {"i8", 1},  {"i64", 8},  {"f64", 8}};
    const auto size = sizes.find(type->get<std::string>());
    bool contiguous = size != sizes.end();
    int64_t expected = contiguous ? size->second : 0;
    for (size_t d = 0; d < 4 && contiguous; ++d) {
        if (!(*ne)[d].is_number_integer() || !(*nb)[d].is_number_integer())
            return;
        contiguous = (*nb)[d].get<int64_t>() == expected || (*ne)[d].get<int64_t>() == 1;
        if (__builtin_mul_overflow(expected, (*ne)[d].get<int64_t>(), &expected)) // no tensor holds that many
            return;
    }
    param["_src_contiguous"] = contiguous;
    param["_src_nb"] = *nb; // where a source that is itself a view lay
}

// What an op's op_param.json says (-tiling): its type as ggml names it, its decoded
// parameters (with its source's layout noted), and whether it was there and read.
struct OpParam {
    std::string type;
    nlohmann::json param = nlohmann::json::object();
    std::string text = "{}";
    bool have = false; // a "param" object was read
    bool unreadable = false; // the file is there but does not read
    std::vector<std::string> weights; // by input index: the weight's name, or "" for an input no weight
};

OpParam readOpParam(const std::string &opFolder, std::string type)
{
    OpParam p;
    p.type = std::move(type);
    std::ifstream in(opFolder + "/op_param.json");
    if (!in)
        return p;
    // The probe's files nest 4 deep. Values nested far deeper are left out and the file refused: copying and
    // printing a value recurses once a level, which a hostile file would take past the stack.
    bool deep = false;
    const auto shallow = [&deep](int depth, nlohmann::json::parse_event_t, nlohmann::json &) {
        deep = deep || depth > 32;
        return depth <= 32;
    };
    try {
        const nlohmann::json j = nlohmann::json::parse(in, shallow);
        if (deep) {
            p.unreadable = true;
            p.text = "(op_param.json nests too deep)";
            return p;
        }
        if (j.contains("op") && j["op"].is_string())
            p.type = j["op"].get<std::string>();
        if (j.contains("param") && j["param"].is_object()) {
            p.param = j["param"];
            p.have = true;
        }
        p.text = p.param.dump();
        noteSourceLayout(j, p.param);
        if (const auto in = j.find("inputs"); in != j.end() && in->is_array())
            for (const auto &x : *in) {
                const bool weight =
                    x.is_object() && x.value("weight", false) == true && x.contains("name") && x["name"].is_string();
                p.weights.push_back(weight ? x["name"].get<std::string>() : std::string());
            }
    } catch (const nlohmann::json::exception &) {
        p.unreadable = true;
        p.text = "(op_param.json does not read)";
    }
    return p;
}

// An op's files: its inputs before it ran (else after, as msit reads them) and its outputs.
struct OpFiles {
    std::vector<TensorRecord *> before, after, outputs;
    const std::vector<TensorRecord *> &inputs() const { return before.empty() ? after : before; }
};

std::string opFolderOf(const TensorRecord &t)
{
    const size_t moment = t.path.rfind('/', t.path.rfind('/') - 1); // .../{op}/before/intensor0.bin
    return t.path.substr(0, moment);
}

RefTensor readRef(TensorRecord &t)
{
    TensorReader reader(t);
    reader.requireData();
    RefTensor r;
    const std::vector<int64_t> &dims = t.engineDims.empty() ? reader.header().dims : t.engineDims;
    if (dims.size() > 4)
        throw Error(t.path + ": more than 4 dimensions");
    for (size_t d = 0; d < dims.size(); ++d)
        r.ne[d] = dims[dims.size() - 1 - d];
    if (r.count() != int64_t(reader.count()))
        throw Error(t.path + ": its dims do not hold its elements");
    std::vector<float> f(reader.count());
    reader.read(0, f.size(), f.data());
    r.v.assign(f.begin(), f.end());
    r.dtype = t.engineType.empty() ? reader.header().dtype : opcheck::kQuantizedDtype;
    r.blockType = t.engineType;
    return r;
}

// A weight the probe could not read as stored (ggml's repacked CPU layout), from the model
// files the dump's programs loaded, as the program's file holds it; nullopt when none has it
// with the dumped shape.
// A weight as a model file stores it: its values for the reference, and its bytes (ggml's
// blocks in their plain layout) for ggml's CPU kernel.
struct ModelWeight {
    RefTensor values;
    std::string path, typeName;
    std::shared_ptr<const std::vector<uint8_t>> stored;
};

std::shared_ptr<const std::vector<uint8_t>> storedBytes(const std::string &path, uint64_t offset, uint64_t bytes)
{
    std::ifstream f(path, std::ios::binary);
    auto out = std::make_shared<std::vector<uint8_t>>(bytes);
    if (!f.seekg(std::streamoff(offset)) || !f.read(reinterpret_cast<char *>(out->data()), std::streamsize(bytes)))
        return nullptr;
    return out;
}

std::optional<ModelWeight> weightFromModels(const std::vector<std::string> &models, const std::string &name,
                                            const TensorRecord &dumped)
{
    for (const auto &path : models) {
        try {
            const auto model = ggml::Library::get().model(path);
            const ggml::ModelTensor *t = model ? model->find(name) : nullptr;
            if (!t || t->dims.size() > 4 ||
                (!dumped.dims.empty() && t->dims != dumped.dims &&
                 (dumped.engineDims.empty() || t->dims != dumped.engineDims)))
                continue;
            TensorReader reader(path, *t);
            RefTensor r;
            for (size_t d = 0; d < t->dims.size(); ++d)
                r.ne[d] = t->dims[t->dims.size() - 1 - d];
            if (r.count() != int64_t(reader.count()))
                continue;
            std::vector<float> f(reader.count());
            reader.read(0, f.size(), f.data());
            r.v.assign(f.begin(), f.end());
            r.dtype = t->typeName == "f32" ? int32_t(DType::Float32)
                : t->typeName == "f16"     ? int32_t(DType::Float16)
                : t->typeName == "bf16"    ? int32_t(DType::BFloat16)
                                           : opcheck::kQuantizedDtype;
            if (r.dtype == opcheck::kQuantizedDtype)
                r.blockType = t->typeName;
            return ModelWeight{std::move(r), path, t->typeName, storedBytes(path, t->offset, t->bytes)};
        } catch (const Error &) {
        }
    }
    return std::nullopt;
}

// The output's tolerance in msit's opcheck code: 2^-20 float32, 2^-10 float16, 2^-8 bfloat16.
double absTolerance(int32_t dtype)
{
    switch (DType(dtype)) {
    case DType::Float16: return std::ldexp(1.0, -10);
    case DType::BFloat16: return std::ldexp(1.0, -8);
    default: return std::ldexp(1.0, -20);
    }
}

// A dot product beyond float32's bound: is it float16 operand rounding? Every element within 8
// standard deviations of that rounding, and no systematic error: the error's regression on the
// reference (a scaled or biased output) within 6 of its own standard deviations.
bool f16Rounding(OpcheckRow &row, const Reference &ref, const RefTensor &out)
{
    double worst = 0, ee = 0, rr = 0, var = 0;
    for (size_t i = 0; i < ref.out.v.size(); ++i) {
        const double g = ref.out.v[i], e = out.v[i] - g, sd = ref.f16Noise[i];
        const double allowed = 8 * sd + ref.bound[i];
        worst = std::max(worst, allowed > 0 ? std::fabs(e) / allowed : (e != 0 ? INFINITY : 0));
        ee += e * g;
        rr += g * g;
        var += sd * sd * g * g;
    }
    const double beta = rr > 0 ? ee / rr : 0, sdBeta = rr > 0 ? std::sqrt(var) / rr : 0;
    if (std::fabs(beta) > 6 * sdBeta + 1e-12) {
        row.reason = Reason(Said::Systematic,
                            {report::num(100 * beta), report::num(std::fabs(beta) / std::max(sdBeta, 1e-300))});
        return false;
    }
    if (worst > 1) {
        row.reason = Reason(Said::BeyondF16, {report::num(worst)});
        return false;
    }
    row.judgedRatio = worst;
    row.reason = Reason(Said::WithinF16, {report::num(worst)});
    return true;
}

// ggml's own CPU kernel on the same inputs beside the reference: its largest error over the
// bound, and the verdict reconsidered: an output beyond its bound is the kernel's only when it
// is clearly worse than ggml's CPU kernel (more than twice as far); else the bound is too
// tight for these inputs, and it warns.
void judgeAgainstCpu(OpcheckRow &row, const Reference &ref, const std::vector<double> &cpu, const RefTensor &out)
{
    double worst = 0, diff = 0, norm = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
        if (!ref.unchecked.empty() && ref.unchecked[i])
            continue;
        if (std::isfinite(cpu[i]) && std::isfinite(out.v[i])) { // test-backend-ops' measure, against ggml's CPU
            diff += (out.v[i] - cpu[i]) * (out.v[i] - cpu[i]);
            norm += cpu[i] * cpu[i];
        }
        const double e = std::fabs(cpu[i] - ref.out.v[i]), b = ref.bound[i];
        if (std::isnan(e) && std::isnan(ref.out.v[i]) && std::isnan(cpu[i]))
            continue;
        worst = std::max(worst, b > 0 ? e / b : (e > 0 ? INFINITY : 0));
    }
    row.cpuRatio = worst;
    row.nmseVsCpu = norm > 0 ? diff / norm : (diff > 0 ? INFINITY : 0);
    row.cpuBudget = engineBudget(row.opType, out.dtype, out.dtype, false).nmse;
    if (row.verdict != Verdict::Fail || !std::isfinite(row.worstRatio))
        return;
    if (worst > 1 && row.worstRatio <= 2 * worst) {
        row.verdict = Verdict::Warn;
        row.reason.add({Said::CpuAsFar, {report::num(worst)}});
    } else {
        row.reason.add({Said::CpuRatio, {report::num(worst)}});
    }
}

// msit's rule for an output of this dtype: the relative error and the share within it.
std::pair<double, double> msitRule(int32_t dtype)
{
    switch (DType(dtype)) {
    case DType::Float16: return {std::ldexp(1.0, -10), 99.9};
    case DType::BFloat16: return {std::ldexp(1.0, -8), 99.9};
    default: return {std::ldexp(1.0, -20), 99.99};
    }
}

// msit's metrics of the output against the reference over the elements the op wrote, by
// compare's implementation (compare/metrics.h): one definition of cosine, KL divergence,
// relative and absolute error and the share within a tolerance, in float32 as compare reads
// dumps.
Metrics msitMetrics(const Reference &ref, const RefTensor &out, double relTol, uint64_t *checked = nullptr)
{
    std::vector<float> g, t;
    g.reserve(ref.out.v.size());
    t.reserve(ref.out.v.size());
    for (size_t i = 0; i < ref.out.v.size(); ++i)
        if (ref.unchecked.empty() || !ref.unchecked[i]) {
            g.push_back(float(ref.out.v[i]));
            t.push_back(float(out.v[i]));
        }
    if (checked)
        *checked = g.size();
    return computeMetrics(g.data(), t.data(), g.size(), relTol);
}

// msit's standard over the judged row's elements: PASS when the share within its relative
// error reaches its rate. An element NaN or Inf on one side only is never within it.
void judgeMsit(OpcheckRow &row, const Reference &ref, const RefTensor &out)
{
    const auto [etol, rate] = msitRule(out.dtype);
    uint64_t n = 0;
    const Metrics m = msitMetrics(ref, out, etol, &n);
    // the finite pairs within it, and the same Inf on both sides (every other non-finite pair is not)
    const double within = m.withinTol * double(m.count) + double(n - m.count - m.nonFiniteMismatch);
    const double share = n ? 100.0 * within / double(n) : 100;
    row.withinRate = share;
    row.standard = report::num(rate) + "%(error<" + report::num(etol) + ")";
    row.reason.clear();
    if (share >= rate) {
        row.verdict = Verdict::Pass;
    } else {
        row.verdict = Verdict::Fail;
        row.reason =
            Reason(Said::MsitShare, {report::num(share), report::num(etol), report::num(rate), dtypeName(out.dtype)});
    }
}

// A few elements (0.1 % at most) a little beyond their bound warn; one far beyond it (a value
// never written, a row taken from elsewhere) fails however few there are.
constexpr double kRareOutlierRatio = 16;

// The test's output held against the reference: the rates, errors and verdict of one row.
void judge(OpcheckRow &row, const Reference &ref, const RefTensor &out)
{
    const size_t n = ref.out.v.size();
    size_t within = 0, withinAbs = 0, nonFinite = 0;
    double worst = 0;
    size_t unchecked = 0;
    for (size_t i = 0; i < n; ++i) {
        const double g = ref.out.v[i], t = out.v[i];
        if (!ref.unchecked.empty() && ref.unchecked[i]) {
            ++within;
            ++withinAbs;
            ++unchecked;
            continue;
        }
        if (!std::isfinite(t) || !std::isfinite(g)) {
            const bool same = (std::isnan(g) && std::isnan(t)) || g == t;
            within += same;
            withinAbs += same;
            nonFinite += !same;
            if (!same)
                worst = INFINITY;
            continue;
        }
        const double e = std::fabs(t - g), b = ref.bound[i];
        within += e <= b;
        withinAbs += e <= absTolerance(out.dtype);
        worst = std::max(worst, b > 0 ? e / b : (e > 0 ? INFINITY : 0));
    }
    // rates over the elements the op wrote
    const double checked = double(n - unchecked);
    row.withinRate = checked > 0 ? 100.0 * double(within - unchecked) / checked : 100;
    row.absRate = checked > 0 ? 100.0 * double(withinAbs - unchecked) / checked : 100;
    row.worstRatio = worst;
    row.judgedRatio = worst;
    const Metrics m = msitMetrics(ref, out, absTolerance(out.dtype));
    row.maxRelError = m.maxRelErr;
    row.maxAbsError = m.maxAbsErr;
    row.cosine = m.cosine;
    row.kl = m.klDivergence;
    row.standard = "100% within " + ref.standard;
    const size_t beyond = n - within;
    if (beyond == 0) {
        row.verdict = Verdict::Pass;
    } else if (nonFinite == 0 && !ref.f16Noise.empty() && f16Rounding(row, ref, out)) {
        row.verdict = Verdict::Warn;
    } else if (nonFinite == 0 && double(beyond) <= 0.001 * checked && worst <= kRareOutlierRatio) {
        row.verdict = Verdict::Warn;
        row.reason =
            Reason(Said::BeyondBound, {std::to_string(beyond), std::to_string(n - unchecked), report::num(worst)});
    } else {
        row.verdict = Verdict::Fail;
        const Reason f16 = row.reason; // why float16 rounding does not explain it, where asked
        row.reason = nonFinite
            ? Reason(Said::NonFiniteMismatch, {std::to_string(nonFinite)})
            : Reason(Said::BeyondBound, {std::to_string(beyond), std::to_string(n - unchecked), report::num(worst)});
        row.reason += f16;
    }
}

// A source slot's word in a fusion record: "in0" (the end's dumped input 0) or "op1" (the
// chain's op 1's result); throws Error for any other.
struct ChainSource {
    bool inner = false;
    size_t index = 0;
};
ChainSource chainSource(const std::string &word)
{
    const bool external = word.rfind("in", 0) == 0, inner = word.rfind("op", 0) == 0;
    const std::string digits = word.size() > 2 ? word.substr(2) : std::string();
    if ((!external && !inner) || digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 6)
        throw Error("the fusion record names a source '" + word + "' the chain cannot have");
    return {inner, size_t(std::stoul(digits))};
}

// A fused chain's op k's inputs, each a dumped input or an earlier op's result.
template <class T>
std::vector<T> chainOpInputs(const FusedChainRecord &c, size_t k, const std::vector<T> &inputs,
                             const std::function<T(size_t)> &result)
{
    std::vector<T> in;
    for (const std::string &word : c.sources[k]) {
        const ChainSource s = chainSource(word);
        if (s.inner ? s.index >= k : s.index >= inputs.size())
            throw Error("the fusion record's source '" + word + "' of " + c.ids[k] + " is not among the chain's " +
                        (s.inner ? "earlier ops" : "dumped inputs"));
        in.push_back(s.inner ? result(s.index) : inputs[s.index]);
    }
    return in;
}

// The float64 reference of a chain computed fused: each op's reference on the one before, and
// each element's bound the end's own plus what its elementwise op carries of the inner
// result's (a product scales it by the other factor). nullopt with skip set when a chain's
// inner result feeds another kind of op, or an op of it is not replayed.
std::optional<Reference> chainReferenceOnPath(const FusedChainRecord &c, const std::vector<RefTensor> &inputs,
                                              const std::array<int64_t, 4> &outNe, int32_t outDtype, size_t path,
                                              size_t &paths, std::string &skip, const std::string &backend = {})
{
    const std::vector<std::string> types = split(c.types, '+');
    if (types.size() != c.ids.size())
        throw Error("the fusion record's chain " + c.types + " does not list one type per op");
    std::vector<Reference> done;
    std::string along; // the path each product of the chain is judged along
    for (size_t k = 0; k < types.size(); ++k) {
        const std::vector<RefTensor> in =
            chainOpInputs<RefTensor>(c, k, inputs, [&done](size_t i) { return done[i].out; });
        nlohmann::json param = nlohmann::json::parse(c.params[k], nullptr, false);
        const std::string &by = backend.empty() ? c.backend : backend; // whose kernel: the product's paths
        if ((types[k] == "MUL_MAT" || types[k] == "MUL_MAT_ID") && !by.empty() &&
            (param.is_object() || param.is_null()))
            param["backend"] = by;
        std::optional<Reference> r = opcheck::reference(types[k], param, in, outNe, outDtype, skip);
        if (!r) {
            skip = "the chain's " + types[k] + ": " + skip;
            return std::nullopt;
        }
        if (!r->paths.empty()) { // the chain along one of the product's paths
            paths = std::max(paths, r->paths.size());
            Reference one = std::move(r->paths[std::min(path, r->paths.size() - 1)]);
            *r = std::move(one);
            along += (along.empty() ? "; its " : ", its ") + types[k] + " " + r->standard;
        }
        for (size_t s = 0; s < c.sources[k].size(); ++s) {
            const ChainSource from = chainSource(c.sources[k][s]); // checked by chainOpInputs above
            if (!from.inner)
                continue;
            const Reference &inner = done[from.index];
            const bool elementwise = types[k] == "MUL" || types[k] == "ADD" || types[k] == "SUB";
            if (!elementwise || in.size() != 2 || inner.out.ne != r->out.ne) {
                skip = "a fused chain whose inner result feeds " + types[k] + " is not replayed";
                return std::nullopt;
            }
            const RefTensor &other = in[1 - s];
            const std::array<int64_t, 4> &ne = r->out.ne;
            const size_t n = size_t(r->out.count());
            if (r->bound.size() != n || inner.bound.size() != n ||
                std::any_of(other.ne.begin(), other.ne.end(), [](int64_t d) { return d <= 0; })) {
                skip = "a fused chain whose " + types[k] + " has no bound per element is not replayed";
                return std::nullopt;
            }
            size_t e = 0;
            for (int64_t i3 = 0; i3 < ne[3]; ++i3)
                for (int64_t i2 = 0; i2 < ne[2]; ++i2)
                    for (int64_t i1 = 0; i1 < ne[1]; ++i1)
                        for (int64_t i0 = 0; i0 < ne[0]; ++i0, ++e) {
                            const double scale = types[k] == "MUL"
                                ? std::fabs(
                                      other.at(i0 % other.ne[0], i1 % other.ne[1], i2 % other.ne[2], i3 % other.ne[3]))
                                : 1.0;
                            r->bound[e] += inner.bound[e] * scale;
                        }
        }
        done.push_back(std::move(*r));
    }
    Reference out = std::move(done.back());
    out.standard = "the fused chain " + c.types + " in float64, the inner results' bounds carried through; " +
        out.standard + along;
    return out;
}

// The chain's reference; a chain with a product that may take several paths, one along each.
std::optional<Reference> chainReference(const FusedChainRecord &c, const std::vector<RefTensor> &inputs,
                                        const std::array<int64_t, 4> &outNe, int32_t outDtype, std::string &skip)
{
    size_t paths = 0;
    std::optional<Reference> first = chainReferenceOnPath(c, inputs, outNe, outDtype, 0, paths, skip);
    if (!first || paths < 2)
        return first;
    first->paths.push_back(*first);
    for (size_t p = 1; p < paths; ++p) {
        size_t ignored = 0;
        std::optional<Reference> r = chainReferenceOnPath(c, inputs, outNe, outDtype, p, ignored, skip);
        if (!r)
            return std::nullopt;
        first->paths.push_back(std::move(*r));
    }
    return first;
}

// ggml's CPU kernels on the chain's dumped inputs, one op at a time (unfused), each result fed to
// the next: the chain as the backend computes it unfused.
std::optional<std::vector<double>> chainCpu(const CpuReplay &replay, const FusedChainRecord &c,
                                            const std::vector<CpuReplayInput> &inputs,
                                            const std::array<int64_t, 4> &outNe, int32_t outDtype, std::string &why)
{
    const std::vector<std::string> types = split(c.types, '+');
    std::vector<std::shared_ptr<const std::vector<float>>> results;
    std::optional<std::vector<double>> last;
    for (size_t k = 0; k < types.size(); ++k) {
        const std::vector<CpuReplayInput> in = chainOpInputs<CpuReplayInput>(c, k, inputs, [&](size_t i) {
            CpuReplayInput r;
            r.path = "(the chain's " + c.ids[i] + ")";
            r.ne = outNe;
            r.dtype = 0; // float32
            r.values = results[i];
            return r;
        });
        last = replay(types[k], c.rawParams[k], in, outNe, k + 1 == types.size() ? outDtype : 0, why);
        if (!last) {
            why = "the chain's " + types[k] + ": " + why;
            return std::nullopt;
        }
        results.push_back(std::make_shared<const std::vector<float>>(last->begin(), last->end()));
    }
    return last;
}

// What one op's outputs are judged against: its inputs as read (a weight ggml repacked, from
// the model file), and the float64 reference; or why there is none.
struct OpReference {
    std::string skip, error;
    std::optional<Reference> ref;
    std::vector<RefTensor> inputs;
    std::optional<RefTensor> firstOut; // the first output, read: the reference's shape and type
    std::vector<std::optional<ModelWeight>> fromModel;
};

OpReference opReference(OpFiles &files, const std::string &opType, const nlohmann::json &param, bool haveParams,
                        const std::vector<std::string> &weightNames, const std::vector<std::string> &models,
                        const FusedChainRecord *chain, std::string &weightsFromModel)
{
    OpReference out;
    std::string &skip = out.skip;
    std::vector<RefTensor> &inputs = out.inputs;
    std::optional<RefTensor> &firstOut = out.firstOut;
    const TensorRecord &first = *files.outputs.front();
    if (chain && chain->sources.empty())
        skip = "the end of a fused chain recorded without how to compute it again: dump it again with this llmscope";
    else if (!chain && needsParams(opType) && !haveParams)
        skip = "no op_param.json beside it: dump with -tiling so its parameters are written";
    // Weights held in ggml's repacked CPU layout, which the probe cannot read as stored: read
    // from the model file the program loaded, for the float64 reference and, as the file
    // stores them, for ggml's CPU kernel.
    // A write into the KV cache dumped as the rows it wrote (no --kv-cache): checked against its
    // rows given, without the cache itself (input 2), as stored in the cache's type.
    const bool rowsOnly = !chain && opType == "SET_ROWS" && !first.kvRowsType.empty();
    nlohmann::json rowsParam = param;
    if (rowsOnly)
        rowsParam["kv_rows"] = first.kvRowsType;
    // A write into a quantized cache dumped whole (--kv-cache): the rows it wrote judged as
    // that type stores them.
    const bool intoQuantized = !chain && opType == "SET_ROWS" && !first.engineType.empty();
    if (intoQuantized && rowsParam.is_object())
        rowsParam["kv_type"] = first.engineType;
    const size_t used = rowsOnly ? std::min<size_t>(files.inputs().size(), 2) : files.inputs().size();
    std::vector<std::optional<ModelWeight>> &fromModel = out.fromModel;
    fromModel.resize(used);
    for (size_t i = 0; i < used && skip.empty(); ++i) {
        const TensorRecord &t = *files.inputs()[i];
        if (t.hasData)
            continue;
        const std::string why = withoutData(t.path);
        const bool inFile = why.rfind("lies in memory", 0) == 0 || why.rfind("lies in its model file", 0) == 0;
        if (!chain && inFile && i < weightNames.size() && !weightNames[i].empty()) {
            try {
                fromModel[i] = weightFromModels(models, weightNames[i], t);
            } catch (const Error &) {
            }
        }
        if (!fromModel[i])
            skip = "input " + std::to_string(i) + " " + why;
    }
    if (skip.empty()) {
        try {
            for (size_t i = 0; i < used; ++i)
                inputs.push_back(fromModel[i] ? fromModel[i]->values : readRef(*files.inputs()[i]));
            for (size_t i = 0; i < used; ++i)
                if (fromModel[i])
                    weightsFromModel += (weightsFromModel.empty() ? "" : ", ") + weightNames[i];
            firstOut = readRef(*files.outputs.front()); // its shape and type: the reference's
            out.ref = chain ? chainReference(*chain, inputs, firstOut->ne, firstOut->dtype, skip)
                            : opcheck::reference(opType, rowsOnly || intoQuantized ? rowsParam : param, inputs,
                                                 firstOut->ne, firstOut->dtype, skip);
        } catch (const Error &e) {
            out.error = e.what();
        }
    }
    return out;
}

// ggml's own CPU kernel on the same inputs, where asked: one output, the op's first. A weight
// read from the model file goes to ggml's kernel as the file stores it.
std::optional<std::vector<double>> cpuReplayed(OpFiles &files, const std::string &opType, const OpcheckOptions &options,
                                               const OpReference &r, const FusedChainRecord *chain, std::string &cpuWhy)
{
    const std::optional<Reference> &ref = r.ref;
    const std::vector<RefTensor> &inputs = r.inputs;
    const std::vector<std::optional<ModelWeight>> &fromModel = r.fromModel;
    std::optional<std::vector<double>> cpu;
    // a weight read from the model file goes to ggml's kernel as the file stores it
    bool unreadable = false;
    for (size_t i = 0; i < files.inputs().size(); ++i)
        unreadable = unreadable ||
            (!files.inputs()[i]->hasData && !(i < fromModel.size() && fromModel[i] && fromModel[i]->stored));
    if (ref && unreadable)
        cpuWhy = "an input neither dumped nor read from the model file";
    if (ref && options.cpuReplay && !files.outputs.empty() && !unreadable) {
        std::vector<CpuReplayInput> in;
        for (size_t i = 0; i < files.inputs().size(); ++i) {
            if (i < fromModel.size() && fromModel[i] && !files.inputs()[i]->hasData)
                in.push_back({fromModel[i]->path,
                              inputs[i].ne,
                              inputs[i].dtype,
                              fromModel[i]->typeName,
                              {},
                              fromModel[i]->stored});
            else
                in.push_back({files.inputs()[i]->path,
                              inputs[i].ne,
                              files.inputs()[i]->dtype,
                              files.inputs()[i]->engineType,
                              {},
                              {}});
        }
        const TensorRecord &o = *files.outputs.front();
        // a lone op's raw parameters from -tiling's file; a chain's are in its fusion record
        const auto rawParams = [&] {
            const std::string tiling = o.path.substr(0, o.path.find("/tensors/")) + "/tiling/" + std::to_string(o.pid) +
                "/" + std::to_string(o.exec) + "/" + o.opId + "_" + opType + ".bin";
            std::ifstream raw(tiling, std::ios::binary);
            return std::string((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
        };
        try {
            cpu = chain ? chainCpu(options.cpuReplay, *chain, in, ref->out.ne, o.dtype, cpuWhy)
                        : options.cpuReplay(opType, rawParams(), in, ref->out.ne, o.dtype, cpuWhy);
        } catch (const std::exception &e) {
            cpuWhy = e.what();
        }
        if (cpu && cpu->size() != ref->out.v.size()) {
            cpu.reset();
            cpuWhy = "ggml's CPU output is not the reference's size";
        }
    }
    return cpu;
}

// One op: its reference once, then each output against it. A fused chain's end (chain set) is
// replayed as the chain: its dumped inputs are the chain's.
void checkOp(OpcheckResult &res, OpFiles &files, const std::string &opType, const nlohmann::json &param,
             const std::string &paramText, bool haveParams, const OpcheckOptions &options,
             const std::vector<std::string> &weightNames, const std::vector<std::string> &models,
             const FusedChainRecord *chain)
{
    const TensorRecord &first = *files.outputs.front();
    OpcheckRow base;
    base.opId = first.opId;
    base.opName = first.opName;
    base.opType = chain ? chain->types : opType;
    base.opParam = paramText;
    base.round = first.exec;
    ++res.ops;
    auto add = [&](OpcheckRow row, const TensorRecord &out) {
        row.tensorPath = out.path;
        row.outTensorId = out.index;
        res.rows.push_back(std::move(row));
    };
    if (opcheck::isView(opType) && !chain) // a chain is one kernel, whatever op ends it (a routing's RESHAPE)
        ++res.viewOps;
    OpReference prepared =
        opReference(files, opType, param, haveParams, weightNames, models, chain, base.weightsFromModel);
    const std::string &skip = prepared.skip, &error = prepared.error;
    std::optional<Reference> &ref = prepared.ref;
    const std::vector<RefTensor> &inputs = prepared.inputs;
    std::optional<RefTensor> &firstOut = prepared.firstOut;
    if (ref)
        ++(opcheck::isView(opType) ? res.viewsChecked : res.replayedOps);
    std::string cpuWhy;
    const std::optional<std::vector<double>> cpu = cpuReplayed(files, opType, options, prepared, chain, cpuWhy);
    // ggml's CPU kernel held to what it computes, not to a device product's paths
    std::optional<Reference> cpuRef;
    if (cpu && ref && !ref->paths.empty() && firstOut) {
        std::string ignored;
        if (chain) {
            size_t paths = 0;
            cpuRef = chainReferenceOnPath(*chain, inputs, firstOut->ne, firstOut->dtype, 0, paths, ignored, "CPU");
        } else {
            nlohmann::json cpuParam = param.is_object() ? param : nlohmann::json::object();
            cpuParam["backend"] = "CPU";
            cpuRef = opcheck::reference(opType, cpuParam, inputs, firstOut->ne, firstOut->dtype, ignored);
        }
    }
    for (TensorRecord *out : files.outputs) {
        OpcheckRow row = base;
        if (!error.empty()) {
            row.verdict = Verdict::Error;
            row.reason = error;
        } else if (!ref) {
            row.verdict = Verdict::Skip;
            row.reason = skip;
        } else {
            try {
                const RefTensor o = out == files.outputs.front() ? std::move(*firstOut) : readRef(*out);
                if (o.ne != ref->out.ne)
                    throw Error(out->path + ": its shape is not the reference's");
                const Reference &fitted = opcheck::fittedPath(*ref, o); // a product's path: the one it took
                judge(row, fitted, o);
                if (cpu)
                    judgeAgainstCpu(row, cpuRef ? *cpuRef : fitted, *cpu, o);
                else
                    row.cpuNotRun = cpuWhy;
                if (opType == "MUL_MAT" || opType == "MUL_MAT_ID")
                    opcheck::addUlpMetrics(row, fitted, o, cpu ? &*cpu : nullptr);
                if (options.standard == OpcheckOptions::Standard::Msit)
                    judgeMsit(row, fitted, o);
                else if (options.standard == OpcheckOptions::Standard::Msprobe)
                    opcheck::judgeMsprobe(row, fitted, o, cpu ? &*cpu : nullptr);
            } catch (const Error &e) {
                row.verdict = Verdict::Error;
                row.reason = e.what();
            }
        }
        add(std::move(row), *out);
    }
}

bool nameMatches(const std::vector<std::string> &names, const std::string &opType)
{
    if (names.empty())
        return true;
    const std::string type = toLower(opType);
    for (const auto &n : names)
        if (type.rfind(toLower(n), 0) == 0)
            return true;
    return false;
}

} // namespace

void OpcheckResult::indexWorst()
{
    m_worst.clear();
    for (size_t i = 0; i < rows.size(); ++i) {
        auto [at, added] = m_worst[rows[i].opId].try_emplace(rows[i].round, i);
        if (!added && rows[i].verdict > rows[at->second].verdict)
            at->second = i;
    }
}

const OpcheckRow *OpcheckResult::worstOf(const std::string &op, int64_t round) const
{
    const auto o = m_worst.find(op);
    if (o == m_worst.end())
        return nullptr;
    const auto r = o->second.find(round);
    return r == o->second.end() ? nullptr : &rows[r->second];
}

const OpcheckRow *OpcheckResult::worstOf(const std::string &op) const
{
    const auto o = m_worst.find(op);
    if (o == m_worst.end())
        return nullptr;
    const OpcheckRow *worst = nullptr;
    for (const auto &[round, i] : o->second) // ascending rounds: the earliest of equals stays
        if (!worst || rows[i].verdict > worst->verdict)
            worst = &rows[i];
    return worst;
}

std::vector<int64_t> OpcheckResult::rounds() const
{
    std::vector<int64_t> out;
    for (const auto &[op, byRound] : m_worst)
        for (const auto &[round, i] : byRound)
            out.push_back(round);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

const OpcheckRow *firstFailing(const OpcheckResult &r)
{
    // By round, then by the op's place in the graph: ids compare part by part as numbers
    // (2_9 before 2_10), which the rows' order by folder name does not.
    const OpcheckRow *first = nullptr;
    std::optional<OpId> firstId;
    for (const auto &row : r.rows) {
        if (row.verdict != Verdict::Fail)
            continue;
        const std::optional<OpId> id = OpId::parse(row.opId);
        if (!first || row.round < first->round || (row.round == first->round && id && (!firstId || *id < *firstId))) {
            first = &row;
            firstId = id;
        }
    }
    return first;
}

OpcheckResult runOpcheck(const OpcheckOptions &o, const std::function<bool(uint64_t, uint64_t)> &progress)
{
    const OpIds ids = OpIds::parse(o.ids);
    const std::vector<std::string> names = o.opNames.empty() ? std::vector<std::string>() : parseOpNames(o.opNames);
    DumpIndex index = scanDump(o.input);
    OpcheckResult res;
    res.root = index.root;
    std::vector<std::string> models; // what the dump's programs loaded: weights the probe could not read
    for (const auto &st : readProbeStatuses(index.root))
        for (const auto &m : st.models)
            if (std::find(models.begin(), models.end(), m) == models.end())
                models.push_back(m);
    const auto chains = readFusionRecords(index.root); // chains computed fused: replayed whole
    // Each op's backend (the kernel CSVs, --type kernel): ggml's CPU kernels are held to what
    // they specify (a quantized product's activations quantized as they quantize them).
    const auto backends = readOpBackends(index.root);
    // By process, round and op path (the index's order).
    std::map<std::tuple<int64_t, int, int64_t, std::vector<std::string>>, OpFiles> ops;
    for (TensorRecord &t : index.tensors) {
        if (t.opFolders.empty() || (!ids.empty() && !ids.matches(t.opId, true)))
            continue;
        OpFiles &f = ops[{t.pid, t.device, t.exec, t.opFolders}];
        if (!t.input) {
            if (!t.before) // an output before its op ran holds nothing of it
                f.outputs.push_back(&t);
        } else {
            (t.before ? f.before : f.after).push_back(&t);
        }
    }
    uint64_t done = 0;
    for (auto &[key, files] : ops) {
        if (progress && !progress(done++, ops.size()))
            throw Error("opcheck cancelled");
        if (files.outputs.empty())
            continue; // a group's folder, or an op whose outputs were not dumped (-stp 1)
        const OpParam p = readOpParam(opFolderOf(*files.outputs.front()), files.outputs.front()->opName);
        const FusedChainRecord *chain = chainEndingAt(chains, files.outputs.front()->exec, files.outputs.front()->opId);
        bool named = nameMatches(names, p.type);
        for (const std::string &type : chain ? split(chain->types, '+') : std::vector<std::string>())
            named = named || nameMatches(names, type); // -opname rms_norm: the chain that holds one
        if (!named)
            continue;
        nlohmann::json param = p.param;
        if (const auto b = backends.find(files.outputs.front()->opId);
            b != backends.end() && (p.type == "MUL_MAT" || p.type == "MUL_MAT_ID")) {
            if (!param.is_object())
                param = nlohmann::json::object();
            param["backend"] = b->second;
        }
        checkOp(res, files, p.type, param, p.text, p.have, o, p.weights, models, chain);
    }
    if (progress)
        progress(done, ops.size());
    if (res.rows.empty())
        throw Error(o.input + ": no dumped op with outputs" +
                    (o.ids.empty() && o.opNames.empty() ? std::string() : " matches -ids/-opname") +
                    " (dump with --type tensor, inputs and outputs: -stp 0)");
    for (const auto &r : res.rows) {
        res.pass += r.verdict == Verdict::Pass;
        res.warn += r.verdict == Verdict::Warn;
        res.fail += r.verdict == Verdict::Fail;
        res.skip += r.verdict == Verdict::Skip;
        res.error += r.verdict == Verdict::Error;
    }
    res.indexWorst();
    return res;
}

Tensor replayReference(const OpcheckRow &row)
{
    const std::string &out = row.tensorPath;
    const size_t after = out.rfind("/after/");
    if (after == std::string::npos)
        throw Error(out + ": not an output of an op's after/ folder");
    const std::string op = out.substr(0, after);
    auto record = [](const std::string &path) {
        TensorRecord r;
        r.path = path;
        r.headerRead = false;
        TensorReader reader(r); // reads the header into the record
        return r;
    };
    std::vector<RefTensor> inputs;
    for (const char *moment : {"/before/", "/after/"}) {
        for (int i = 0;; ++i) {
            const std::string path = op + moment + "intensor" + std::to_string(i) + ".bin";
            if (!std::ifstream(path))
                break;
            TensorRecord r = record(path);
            inputs.push_back(readRef(r));
        }
        if (!inputs.empty())
            break;
    }
    const OpParam p = readOpParam(op, row.opType);
    if (p.unreadable)
        throw Error(op + "/op_param.json does not read");
    TensorRecord outRecord = record(out);
    const RefTensor o = readRef(outRecord);
    std::string skip;
    const auto ref = opcheck::reference(p.type, p.param, inputs, o.ne, o.dtype, skip);
    if (!ref)
        throw Error(p.type + " not replayed: " + skip);
    const Reference &use = opcheck::fittedPath(*ref, o); // a product: along the path its output took
    Tensor t;
    t.dtype = int32_t(DType::Float32);
    t.dims = outRecord.engineDims.empty() ? outRecord.dims : outRecord.engineDims;
    t.hasData = true;
    t.data.resize(use.out.v.size() * 4);
    auto *f = reinterpret_cast<float *>(t.data.data());
    for (size_t i = 0; i < use.out.v.size(); ++i) // where the op leaves the output as it was: the output's
        f[i] = float(!use.unchecked.empty() && use.unchecked[i] ? o.v[i] : use.out.v[i]);
    return t;
}

} // namespace llmscope
