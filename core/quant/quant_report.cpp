#include "core/quant/quant_report.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "core/compare/report_text.h"
#include "core/compare/tensor_reader.h"
#include "core/ggml/ggml_library.h"
#include "core/tensor/tensor.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// "blk.3.ffn_down.weight" -> layer 3, "ffn_down"; "output.weight" -> -1, "output".
void parseName(const std::string &name, int &layer, std::string &kind)
{
    layer = -1;
    std::string base = name;
    if (base.size() > 7 && base.compare(base.size() - 7, 7, ".weight") == 0)
        base.resize(base.size() - 7);
    if (startsWith(base, "blk.")) {
        const auto parts = split(base, '.');
        if (parts.size() >= 3)
            if (const auto n = parseInt(parts[1])) {
                layer = int(*n);
                kind = base.substr(base.find('.', 4) + 1);
                return;
            }
    }
    kind = base;
}

// The weight whose matrix writes a block's output into the residual stream.
std::string writerOf(int layer, const std::string &kind)
{
    if (layer < 0)
        return {};
    if (startsWith(kind, "attn_"))
        return "blk." + std::to_string(layer) + ".attn_output.weight";
    if (startsWith(kind, "ffn_"))
        return "blk." + std::to_string(layer) + ".ffn_down.weight";
    return {};
}

// Mean square of an op's golden output, per element.
double meanSquare(const CompareResult &res, const OpResult &op)
{
    double best = NAN;
    for (size_t i : op.rows) {
        const CompareRow &r = res.rows[i];
        if (r.golden.input)
            continue;
        double norm = NAN;
        uint64_t n = 0;
        if (r.computed) {
            norm = r.metrics.goldenNorm;
            n = r.metrics.count;
        } else if (r.golden.stats) {
            norm = r.golden.stats->l2norm;
            n = r.golden.stats->count ? r.golden.stats->count : elementCount(r.golden.dims);
        }
        if (n > 0 && std::isfinite(norm))
            best = std::isnan(best) ? norm * norm / double(n) : std::max(best, norm * norm / double(n));
    }
    return best;
}

std::string defaultKeep(const std::string &myType)
{
    static const std::vector<std::string> high{"q8_0", "q8_1", "q8_K", "f16", "bf16", "f32"};
    return std::find(high.begin(), high.end(), myType) != high.end() ? "f16" : "q8_0";
}

// KL(golden || test) and top-1 agreement over the positions of one logits pair.
void logitsDivergence(CompareRow row, RoundDivergence &d)
{
    TensorReader g(row.golden), m(row.my);
    g.requireData();
    m.requireData();
    const std::vector<int64_t> &dims = g.header().dims;
    if (dims.empty() || g.count() != m.count())
        throw Error("the logits of round " + std::to_string(row.golden.exec) + " differ in shape");
    const uint64_t vocab = uint64_t(dims.back());
    if (vocab == 0 || g.count() % vocab)
        throw Error("the logits of round " + std::to_string(row.golden.exec) + " have no vocabulary dimension");
    std::vector<float> a(vocab), b(vocab);
    double klSum = 0, agree = 0, d2 = 0, gg = 0;
    const uint64_t positions = g.count() / vocab;
    for (uint64_t p = 0; p < positions; ++p) {
        g.read(p * vocab, vocab, a.data());
        m.read(p * vocab, vocab, b.data());
        const double ma = *std::max_element(a.begin(), a.end()), mb = *std::max_element(b.begin(), b.end());
        double sa = 0, sb = 0;
        for (uint64_t i = 0; i < vocab; ++i) {
            sa += std::exp(a[i] - ma);
            sb += std::exp(b[i] - mb);
            d2 += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
            gg += double(a[i]) * a[i];
        }
        const double la = ma + std::log(sa), lb = mb + std::log(sb);
        double kl = 0;
        for (uint64_t i = 0; i < vocab; ++i) {
            const double lpa = a[i] - la, lpb = b[i] - lb;
            kl += std::exp(lpa) * (lpa - lpb);
        }
        klSum += std::max(0.0, kl);
        agree += std::max_element(a.begin(), a.end()) - a.begin() == std::max_element(b.begin(), b.end()) - b.begin();
    }
    d.positions = positions;
    d.kl = positions ? klSum / double(positions) : 0;
    d.top1 = positions ? agree / double(positions) : 1;
    d.nmse = gg > 0 ? d2 / gg : 0;
}

// The logits' divergence round by round, and over every position.
void logitsFigures(const CompareResult &res, QuantReport &q)
{
    for (const auto &row : res.rows)
        if (!row.golden.input && row.nodeName == "result_output" && row.golden.hasData && row.my.hasData) {
            RoundDivergence d;
            d.round = row.golden.exec;
            logitsDivergence(row, d);
            q.rounds.push_back(d);
        }
    if (q.rounds.empty())
        throw Error("the dumps hold no logits (result_output) with data on both sides: dump them with --type tensor");
    uint64_t positions = 0;
    for (const auto &d : q.rounds) {
        q.meanKl += d.kl * double(d.positions);
        q.top1 += d.top1 * double(d.positions);
        q.logitsNmse += d.nmse;
        positions += d.positions;
    }
    q.meanKl /= double(std::max<uint64_t>(1, positions));
    q.top1 /= double(std::max<uint64_t>(1, positions));
    q.logitsNmse /= double(q.rounds.size());
}

// One round's figures by node name: each quantized weight's op (the NMSE it adds, the power
// of its output) and the residual stream's golden power and error power at each block boundary.
struct RoundFigures {
    std::map<std::string, double> added, power; // weight -> its op's added NMSE, output power
    std::map<std::string, double> atLogits; // weight -> NMSE its op adds to the logits (the output matrix's)
    std::map<std::string, double> ms, err; // residual point -> power, error power
    int layers = 0;
};

// The residual stream's start: the embedding's output ("embd", "inp_embd" in other builds).
bool isStart(const std::string &name)
{
    return name == "embd" || name == "inp_embd";
}

std::map<int64_t, RoundFigures> roundFigures(const CompareResult &res, std::map<std::string, std::string> &opOf)
{
    std::map<int64_t, RoundFigures> rounds;
    for (const auto &op : res.ops) {
        if (!op.unreadable.empty())
            continue;
        RoundFigures &r = rounds[op.round];
        if (!op.quantizedWeight.empty()) {
            const double added = std::max(0.0, op.nmse - op.inputError * op.inputError);
            // The logits' own matrix (output.weight, or token_embd where the two are tied).
            if (op.name == "result_output")
                r.atLogits[op.quantizedWeight] = added;
            else {
                r.added[op.quantizedWeight] = added;
                r.power[op.quantizedWeight] = meanSquare(res, op);
            }
            opOf.emplace(op.quantizedWeight, op.label());
        }
        if (isStart(op.name) || startsWith(op.name, "ffn_inp-") || startsWith(op.name, "l_out-")) {
            const double ms = meanSquare(res, op);
            r.ms[op.name] = ms;
            r.err[op.name] = op.nmse * ms;
            if (startsWith(op.name, "l_out-"))
                r.layers = std::max(r.layers, int(parseInt(op.name.substr(6)).value_or(0)) + 1);
        }
    }
    return rounds;
}

// Each half block (attention, FFN) writes its weights' added errors into the residual and
// passes on the error already there with a gain, measured from the error powers before
// and after it: E_after = gain * E_before + what its weights add. A weight's part of the
// logits' NMSE is what it adds, times the gains of every later half block, over the
// residual's power at the end; output.weight's is what it adds to the logits itself.
// Adds one round's parts to part (weight -> (sum over rounds, rounds)); false when the
// residual's figures were not all found (then each weight counts its own op's added NMSE).
bool roundParts(const RoundFigures &r, std::map<std::string, std::pair<double, int>> &part)
{
    auto point = [&](const std::string &name, double &ms, double &err) {
        const auto a = r.ms.find(name), b = r.err.find(name);
        if (a == r.ms.end() || !(a->second > 0) || !std::isfinite(b->second))
            return false;
        ms = a->second;
        err = b->second;
        return true;
    };
    struct Half {
        std::string before, after;
        int layer;
        bool attn;
        double gain = 1;
    };
    std::vector<Half> halves;
    std::string start = "embd";
    for (const auto &[name, ms] : r.ms)
        if (isStart(name))
            start = name;
    for (int n = 0; n < r.layers; ++n) {
        halves.push_back({n == 0 ? start : "l_out-" + std::to_string(n - 1), "ffn_inp-" + std::to_string(n), n, true});
        halves.push_back({"ffn_inp-" + std::to_string(n), "l_out-" + std::to_string(n), n, false});
    }
    auto inHalf = [](const Half &h, const std::string &weight) {
        int layer;
        std::string kind;
        parseName(weight, layer, kind);
        return layer == h.layer && startsWith(kind, h.attn ? "attn_" : "ffn_");
    };
    auto writes = [&](const Half &h, const std::string &weight) { // its added error, as power in the residual
        const auto w = r.power.find(writerOf(h.layer, h.attn ? "attn_" : "ffn_"));
        const double power = w != r.power.end() && std::isfinite(w->second) ? w->second : 0;
        return r.added.at(weight) * power;
    };
    bool known = !halves.empty();
    for (auto &h : halves) {
        double msB, errB, msA, errA;
        if (!point(h.before, msB, errB) || !point(h.after, msA, errA)) {
            known = false;
            break;
        }
        double added = 0;
        for (const auto &[weight, a] : r.added)
            if (inHalf(h, weight))
                added += writes(h, weight);
        h.gain = errB > 0 ? std::max(0.0, errA - added) / errB : 1;
    }
    double msFinal = 0, errFinal = 0;
    known = known && point("l_out-" + std::to_string(r.layers - 1), msFinal, errFinal);
    for (const auto &[weight, a] : r.added) {
        int layer;
        std::string kind;
        parseName(weight, layer, kind);
        double v = a; // without the residual's figures: its own added NMSE
        if (kind != "output" && known) {
            double gain = 1, power = 0;
            bool found = false;
            for (size_t i = halves.size(); i-- > 0;) {
                if (inHalf(halves[i], weight)) {
                    power = writes(halves[i], weight);
                    found = true;
                    break;
                }
                gain *= halves[i].gain;
            }
            if (!found && weight.rfind("token_embd", 0) == 0) { // the residual's start
                double ms = 0, err = 0;
                found = point(start, ms, err);
                power = a * ms;
            }
            if (found)
                v = power * gain / msFinal;
        }
        auto &p = part[weight];
        p.first += v;
        ++p.second;
    }
    for (const auto &[weight, a] : r.atLogits) { // added to the logits directly
        auto &p = part[weight];
        if (r.added.count(weight))
            p.first += a; // tied: the same round counted once, both paths summed
        else {
            p.first += a;
            ++p.second;
        }
    }
    return known;
}

// What one weight costs and what keeping it in a wider type would bring; none when it is
// stored as golden's, or no op of the dumped rounds reads it.
std::optional<WeightCost> weightCost(const WeightComparison &w,
                                     const std::map<std::string, std::pair<double, int>> &part,
                                     const std::map<int64_t, RoundFigures> &rounds,
                                     std::map<std::string, std::string> &opOf, const QuantReportOptions &o,
                                     std::vector<std::string> &notes)
{
    if (w.goldenType == w.myType || !w.row.computed)
        return std::nullopt;
    const auto p = part.find(w.name);
    if (p == part.end())
        return std::nullopt; // no op of the dumped rounds reads it
    WeightCost c;
    c.name = w.name;
    parseName(w.name, c.layer, c.kind);
    c.goldenType = w.goldenType;
    c.myType = w.myType;
    c.elements = w.elements;
    c.myBytes = w.myBytes;
    c.f32Bytes = w.elements * 4;
    c.f16Bytes = w.elements * 2;
    c.quantError = w.row.metrics.relEuclidean;
    c.op = opOf[w.name];
    double added = 0;
    int n = 0;
    for (const auto &[round, r] : rounds) {
        const auto a = r.added.find(w.name), l = r.atLogits.find(w.name);
        if (a != r.added.end() || l != r.atLogits.end()) {
            added += std::max(a != r.added.end() ? a->second : 0.0, l != r.atLogits.end() ? l->second : 0.0);
            ++n;
        }
    }
    c.addedNmse = n ? added / n : 0;
    c.logitsNmse = p->second.first / std::max(1, p->second.second);
    c.keepType = o.keepType.empty() ? defaultKeep(c.myType) : o.keepType;
    const ggml::BlockType *keep = ggml::Library::get().type(c.keepType);
    if (!keep)
        throw Error("--keep-type: ggml has no type '" + c.keepType + "'");
    c.keepType = keep->name;
    try {
        c.keepBytes = keep->bytes(c.elements);
    } catch (const Error &e) {
        notes.push_back(w.name + " cannot be kept as " + c.keepType + ": " + e.what());
        return std::nullopt;
    }
    if (!w.row.passed && !w.row.failReason.empty())
        notes.push_back(w.row.failReason.english() + ": ranked all the same, but check that file");
    try {
        const auto model = ggml::Library::get().model(w.row.golden.path);
        if (const ggml::ModelTensor *t = model->find(w.name)) {
            TensorReader golden(w.row.golden.path, *t);
            c.keepError = requantizationError(golden, c.keepType);
        }
    } catch (const Error &e) {
        notes.push_back(std::string("no ") + c.keepType + " figure for " + w.name + ": " + e.what());
    }
    // Kept higher, its error shrinks by the square of the error ratio.
    const double left = std::isfinite(c.keepError) && c.quantError > 0
        ? std::min(1.0, (c.keepError * c.keepError) / (c.quantError * c.quantError))
        : 0;
    const double extra = c.keepBytes > c.myBytes ? double(c.keepBytes - c.myBytes) : 0;
    c.gainPerMiB = extra > 0 ? c.logitsNmse * (1 - left) / (extra / kMiB) : 0;
    return c;
}

// A weight's --tensor-type pattern: its name, anchored where it is part of another's.
void anchorPatterns(QuantReport &q, const CompareResult &res)
{
    for (auto &c : q.weights) {
        c.pattern = c.name;
        for (const auto &w : res.weights)
            if (w.name != c.name && w.name.find(c.name) != std::string::npos) {
                c.pattern = "^";
                for (char ch : c.name)
                    c.pattern += std::string(std::strchr(".^$|()[]{}*+?\\", ch) ? "\\" : "") + ch;
                c.pattern += "$";
                break;
            }
    }
}

} // namespace

QuantReport buildQuantReport(const CompareResult &res, const QuantReportOptions &o)
{
    QuantReport q;
    logitsFigures(res, q);
    std::map<std::string, std::string> opOf;
    const std::map<int64_t, RoundFigures> rounds = roundFigures(res, opOf);
    std::map<std::string, std::pair<double, int>> part; // weight -> (sum over rounds, rounds)
    std::vector<int64_t> unknownRounds;
    for (const auto &[round, r] : rounds)
        if (!roundParts(r, part))
            unknownRounds.push_back(round);
    if (!unknownRounds.empty())
        q.notes.push_back("the residual stream's nodes (embd or inp_embd, ffn_inp-N, l_out-N) were not all found in " +
                          std::to_string(unknownRounds.size()) +
                          " rounds: there each weight counts with the NMSE its own op adds, not carried to the logits");

    uint64_t testBytes = 0;
    for (const auto &w : res.weights) {
        testBytes += w.myBytes;
        if (auto c = weightCost(w, part, rounds, opOf, o, q.notes))
            q.weights.push_back(std::move(*c));
    }
    anchorPatterns(q, res);
    if (q.weights.empty())
        throw Error("no weight is stored in another type on the test side: nothing to report (is the test model "
                    "quantized, and do both dumps name their model files?)");
    for (const auto &c : q.weights)
        q.estimatedNmse += c.logitsNmse;
    for (auto &c : q.weights)
        c.share = q.estimatedNmse > 0 ? c.logitsNmse / q.estimatedNmse : 0;
    std::stable_sort(q.weights.begin(), q.weights.end(),
                     [](const WeightCost &a, const WeightCost &b) { return a.gainPerMiB > b.gainPerMiB; });
    q.testBytes = testBytes;
    q.budgetBytes = uint64_t(o.budget * double(testBytes));
    q.chosenBytes = chooseWithinBudget(q.weights, q.budgetBytes);
    return q;
}

uint64_t chooseWithinBudget(std::vector<WeightCost> &ranked, uint64_t budgetBytes)
{
    uint64_t spent = 0;
    for (auto &c : ranked) {
        const uint64_t extra = c.keepBytes > c.myBytes ? c.keepBytes - c.myBytes : 0;
        c.chosen = extra > 0 && c.gainPerMiB > 0 && spent + extra <= budgetBytes;
        if (c.chosen)
            spent += extra;
    }
    return spent;
}

std::string quantReportJson(const QuantReport &r)
{
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json j;
    j["version"] = 1;
    j["logits"] = {{"mean_kl_divergence", num(r.meanKl)},
                   {"top1_agreement", num(r.top1)},
                   {"nmse", num(r.logitsNmse)},
                   {"estimated_nmse", num(r.estimatedNmse)}};
    j["rounds"] = nlohmann::json::array();
    for (const auto &d : r.rounds)
        j["rounds"].push_back({{"round", d.round},
                               {"positions", d.positions},
                               {"kl_divergence", num(d.kl)},
                               {"top1_agreement", num(d.top1)},
                               {"nmse", num(d.nmse)}});
    j["budget"] = {{"test_weight_bytes", r.testBytes},
                   {"extra_bytes_allowed", r.budgetBytes},
                   {"extra_bytes_chosen", r.chosenBytes}};
    j["weights"] = nlohmann::json::array();
    int rank = 0;
    for (const auto &c : r.weights)
        j["weights"].push_back({{"rank", ++rank},
                                {"name", c.name},
                                {"pattern", c.pattern},
                                {"layer", c.layer},
                                {"kind", c.kind},
                                {"golden_type", c.goldenType},
                                {"type", c.myType},
                                {"keep_type", c.keepType},
                                {"elements", c.elements},
                                {"bytes", c.myBytes},
                                {"keep_bytes", c.keepBytes},
                                {"f16_bytes", c.f16Bytes},
                                {"f32_bytes", c.f32Bytes},
                                {"quantization_error", num(c.quantError)},
                                {"keep_error", num(c.keepError)},
                                {"op", c.op},
                                {"added_nmse", num(c.addedNmse)},
                                {"logits_nmse", num(c.logitsNmse)},
                                {"share", num(c.share)},
                                {"gain_per_mib", num(c.gainPerMiB)},
                                {"chosen", c.chosen}});
    j["notes"] = r.notes;
    return j.dump(1) + "\n";
}

QuantReport parseQuantReport(const std::string &text)
{
    auto num = [](const nlohmann::json &j, const char *k) {
        const auto it = j.find(k);
        return it == j.end() || it->is_null() ? NAN : it->get<double>();
    };
    try {
        const auto j = nlohmann::json::parse(text);
        if (j.at("version").get<int>() != 1)
            throw Error("quantization report: version " + j.at("version").dump() + " is not one this llmscope reads");
        QuantReport r;
        const auto &l = j.at("logits");
        r.meanKl = num(l, "mean_kl_divergence");
        r.top1 = num(l, "top1_agreement");
        r.logitsNmse = num(l, "nmse");
        r.estimatedNmse = num(l, "estimated_nmse");
        for (const auto &d : j.at("rounds"))
            r.rounds.push_back({d.at("round").get<int64_t>(), d.at("positions").get<uint64_t>(),
                                num(d, "kl_divergence"), num(d, "top1_agreement"), num(d, "nmse")});
        const auto &b = j.at("budget");
        r.testBytes = b.at("test_weight_bytes").get<uint64_t>();
        r.budgetBytes = b.at("extra_bytes_allowed").get<uint64_t>();
        r.chosenBytes = b.at("extra_bytes_chosen").get<uint64_t>();
        for (const auto &w : j.at("weights")) {
            WeightCost c;
            c.name = w.at("name").get<std::string>();
            c.pattern = w.value("pattern", c.name);
            c.layer = w.at("layer").get<int>();
            c.kind = w.at("kind").get<std::string>();
            c.goldenType = w.at("golden_type").get<std::string>();
            c.myType = w.at("type").get<std::string>();
            c.keepType = w.at("keep_type").get<std::string>();
            c.elements = w.at("elements").get<uint64_t>();
            c.myBytes = w.at("bytes").get<uint64_t>();
            c.keepBytes = w.at("keep_bytes").get<uint64_t>();
            c.f16Bytes = w.at("f16_bytes").get<uint64_t>();
            c.f32Bytes = w.at("f32_bytes").get<uint64_t>();
            c.quantError = num(w, "quantization_error");
            c.keepError = num(w, "keep_error");
            c.op = w.at("op").get<std::string>();
            c.addedNmse = num(w, "added_nmse");
            c.logitsNmse = num(w, "logits_nmse");
            c.share = num(w, "share");
            c.gainPerMiB = num(w, "gain_per_mib");
            c.chosen = w.at("chosen").get<bool>();
            r.weights.push_back(c);
        }
        r.notes = j.value("notes", std::vector<std::string>{});
        return r;
    } catch (const nlohmann::json::exception &e) {
        throw Error(std::string("quantization report: ") + e.what());
    }
}

std::string quantReportCsv(const QuantReport &r)
{
    std::string out = "rank,name,layer,kind,type,keep_type,bytes,keep_bytes,saved_vs_f16,saved_vs_f32,"
                      "quantization_error,keep_error,op,added_nmse,logits_nmse,share,gain_per_mib,chosen\n";
    int rank = 0;
    for (const auto &c : r.weights) {
        auto f = [&](const std::string &s) {
            report::appendCsvField(out, s);
            out += ',';
        };
        auto n = [&](double v) {
            out += report::num(v);
            out += ',';
        };
        out += std::to_string(++rank) + ",";
        f(c.name);
        out += std::to_string(c.layer) + ",";
        f(c.kind);
        f(c.myType);
        f(c.keepType);
        out += std::to_string(c.myBytes) + "," + std::to_string(c.keepBytes) + "," +
            std::to_string(int64_t(c.f16Bytes) - int64_t(c.myBytes)) + "," +
            std::to_string(int64_t(c.f32Bytes) - int64_t(c.myBytes)) + ",";
        n(c.quantError);
        n(c.keepError);
        f(c.op);
        n(c.addedNmse);
        n(c.logitsNmse);
        n(c.share);
        n(c.gainPerMiB);
        out += c.chosen ? "yes\n" : "no\n";
    }
    return out;
}

std::string tensorTypesText(const QuantReport &r)
{
    std::string out;
    for (const auto &c : r.weights)
        if (c.chosen)
            out += c.pattern + "=" + c.keepType + "\n";
    return out;
}

void writeQuantReport(const QuantReport &r, const std::string &dir)
{
    makeDirs(dir);
    writeFileAtomic(dir + "/quant_report.json", quantReportJson(r));
    writeFileAtomic(dir + "/quant_report.csv", quantReportCsv(r));
    writeFileAtomic(dir + "/tensor-types.txt", tensorTypesText(r));
}

std::string quantReportSummary(const QuantReport &r, size_t top)
{
    std::string s = "logits against golden: KL divergence " + report::sig3(r.meanKl) + " (mean over " +
        std::to_string(r.rounds.size()) + " rounds), top-1 agreement " + report::percent(r.top1) + ", NMSE " +
        report::sig3(r.logitsNmse) + " (the weights' estimates add up to " + report::sig3(r.estimatedNmse) + ")\n";
    s += "weights to keep higher, best first (share of the logits' error, its cost):\n";
    for (size_t i = 0; i < r.weights.size() && i < top; ++i) {
        const WeightCost &c = r.weights[i];
        s += "  " + std::to_string(i + 1) + ". " + c.name + " (" + c.myType + ", error " +
            report::percent(c.quantError) + "): " + report::percent(c.share) + " of the logits' error, " +
            report::sig3(double(c.keepBytes - std::min(c.keepBytes, c.myBytes)) / 1024) + " KiB more as " + c.keepType +
            (c.chosen ? "  [chosen]" : "") + "\n";
    }
    s += "chosen for a budget of " + report::sig3(double(r.budgetBytes) / 1024) +
        " KiB: " + report::sig3(double(r.chosenBytes) / 1024) + " KiB more";
    return s + "\n";
}

} // namespace llmscope
