#include "core/compare/report.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <future>
#include <type_traits>

#include "core/compare/report_text.h"
#include "core/dump/dump_layout.h"
#include "core/dump/op_names.h"
#include "core/tensor/dtype.h"
#include "core/util/atomic_file.h"
#include "core/util/text.h"

namespace llmscope {
namespace {
using report::num;
using report::shapeText;

std::string dataId(const TensorRecord &r)
{
    return opPath(r.opFolders) + (r.before ? "/before/" : "/after/") + (r.input ? "intensor" : "outtensor") +
        std::to_string(r.index);
}

std::string dtypeText(const TensorRecord &r)
{
    return r.engineType.empty() ? dtypeName(r.dtype) : r.engineType;
}

} // namespace

std::string msitReportCsv(const CompareResult &res)
{
    std::string out = "token_id,data_id,golden_data_path,golden_op_type,golden_dtype,golden_shape,golden_max_value,"
                      "golden_min_value,golden_mean_value,my_data_path,my_op_type,my_dtype,my_shape,my_max_value,"
                      "my_min_value,my_mean_value,cosine_similarity,max_relative_error,mean_relative_error,"
                      "max_absolute_error,mean_absolute_error,kl_divergence,relative_euclidean_distance,"
                      "cmp_fail_reason,op_label,nmse,note\n"; // llmscope's columns after msit's
    out.reserve(res.rows.size() * 512);
    // Fields appended in place: a report has a row per tensor pair.
    auto field = [&out](const std::string &s) {
        report::appendCsvField(out, s);
        out += ',';
    };
    auto number = [&out](double v) {
        out += num(v);
        out += ',';
    };
    for (const auto &r : res.rows) {
        const Metrics &m = r.metrics;
        auto side = [&](const TensorRecord &t, bool golden) {
            field(t.path);
            field(t.opName);
            field(dtypeText(t));
            field(shapeText(t.dims));
            if (r.computed) {
                number(golden ? m.goldenMax : m.myMax);
                number(golden ? m.goldenMin : m.myMin);
                number(golden ? m.goldenMean : m.myMean);
            } else if (t.stats) {
                number(t.stats->max);
                number(t.stats->min);
                number(t.stats->mean);
            } else {
                out += "N/A,N/A,N/A,";
            }
        };
        out += std::to_string(r.golden.exec);
        out += ',';
        field(dataId(r.golden));
        side(r.golden, true);
        side(r.my, false);
        if (r.computed)
            for (double v :
                 {m.cosine, m.maxRelErr, m.meanRelErr, m.maxAbsErr, m.meanAbsErr, m.klDivergence, m.relEuclidean})
                number(v);
        else
            out += "N/A,N/A,N/A,N/A,N/A,N/A,N/A,";
        report::appendCsvField(out,
                               r.skipped          ? std::string("not compared: description only on both sides")
                                   : r.unreadable ? "unreadable: " + r.failReason.english()
                                                  : r.failReason.english());
        out += ',';
        report::appendCsvField(out, opLabel(r.golden.opId, r.nodeName, r.golden.opName));
        out += ',';
        if (r.computed && m.count)
            out += num(m.relEuclidean * m.relEuclidean);
        else if (r.statsOnly && !std::isnan(r.statsEstimate)) // estimated from the sketches, never below the bound
            out += num(std::pow(std::max(r.statsBound, r.statsEstimate), 2));
        else if (r.statsOnly) // a lower bound, from the statistics
            out += num(r.statsBound * r.statsBound);
        else
            out += "N/A";
        out += ',';
        if (r.quantization && r.quantization->explained())
            report::appendCsvField(out, r.quantization->words(r.tensorName).english());
        out += '\n';
    }
    return out;
}

// Written by hand rather than through a JSON library: a report has one object per tensor
// pair, and building a document tree for them took longer than comparing the tensors.
class JsonOut {
public:
    std::string text;
    void key(const char *k)
    {
        comma();
        text += '"';
        text += k;
        text += "\":";
        m_first = true;
    }
    void str(const std::string &v)
    {
        comma();
        text += '"';
        // Runs of plain characters appended whole: paths are most of a report's text.
        size_t from = 0;
        for (size_t i = 0; i < v.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(v[i]);
            if (c != '"' && c != '\\' && c >= 0x20)
                continue;
            text.append(v, from, i - from);
            if (c == '"' || c == '\\') {
                text += '\\';
                text += char(c);
            } else {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                text += b;
            }
            from = i + 1;
        }
        text.append(v, from, std::string::npos);
        text += '"';
    }
    void num(double v)
    {
        comma();
        if (!std::isfinite(v)) {
            text += "null"; // JSON has no NaN or Inf
            return;
        }
        char b[32];
        const auto r = std::to_chars(b, b + sizeof b, v); // shortest text that reads back exactly
        text.append(b, r.ptr);
    }
    void integer(int64_t v)
    {
        comma();
        text += std::to_string(v);
    }
    void boolean(bool v)
    {
        comma();
        text += v ? "true" : "false";
    }
    void open(char c)
    {
        comma();
        text += c;
        m_first = true;
    }
    void close(char c)
    {
        text += c;
        m_first = false;
    }
    template <typename T>
    void field(const char *k, const T &v)
    {
        key(k);
        if constexpr (std::is_same_v<T, bool>)
            boolean(v);
        else if constexpr (std::is_integral_v<T>)
            integer(int64_t(v));
        else if constexpr (std::is_floating_point_v<T>)
            num(v);
        else if constexpr (std::is_same_v<T, Reason>)
            str(v.english());
        else
            str(v);
    }
    void dims(const char *k, const std::vector<int64_t> &v)
    {
        key(k);
        open('[');
        for (auto d : v)
            integer(d);
        close(']');
    }
    void strings(const char *k, const std::vector<std::string> &v)
    {
        key(k);
        open('[');
        for (const auto &x : v)
            str(x);
        close(']');
    }

private:
    void comma()
    {
        if (!m_first)
            text += ',';
        m_first = false;
    }
    bool m_first = true;
};

namespace {

void reportMetrics(JsonOut &j, const Metrics &m)
{
    j.key("metrics");
    j.open('{');
    j.field("count", m.count);
    j.field("cosine_similarity", m.cosine);
    j.field("max_relative_error", m.maxRelErr);
    j.field("mean_relative_error", m.meanRelErr);
    j.field("max_absolute_error", m.maxAbsErr);
    j.field("mean_absolute_error", m.meanAbsErr);
    j.field("kl_divergence", m.klDivergence);
    j.field("relative_euclidean_distance", m.relEuclidean);
    j.field("within_0.1%", m.within01);
    j.field("within_0.5%", m.within05);
    j.field("within_tolerance", m.withinTol);
    j.field("nan_golden", m.nanGolden);
    j.field("inf_golden", m.infGolden);
    j.field("nan_my", m.nanMy);
    j.field("inf_my", m.infMy);
    j.field("non_finite_mismatch", m.nonFiniteMismatch);
    j.field("golden_max", m.goldenMax);
    j.field("golden_min", m.goldenMin);
    j.field("golden_mean", m.goldenMean);
    j.field("my_max", m.myMax);
    j.field("my_min", m.myMin);
    j.field("my_mean", m.myMean);
    j.close('}');
}

// One compared file: its identity, verdict, metrics and what statistics alone said.
void reportRow(JsonOut &j, const CompareRow &r)
{
    j.open('{');
    j.field("round", r.golden.exec);
    j.field("op_id", r.golden.opId);
    j.field("op_type", r.golden.opName);
    j.field("node_name", r.nodeName);
    j.field("tensor_name", r.tensorName);
    j.field("data_id", dataId(r.golden));
    j.field("input", r.golden.input);
    j.field("before", r.golden.before);
    j.field("index", r.golden.index);
    j.field("golden_path", r.golden.path);
    j.field("my_path", r.my.path);
    j.field("my_op_id", r.my.opId);
    j.field("golden_dtype", dtypeText(r.golden));
    j.field("my_dtype", dtypeText(r.my));
    j.dims("golden_shape", r.golden.dims);
    j.dims("my_shape", r.my.dims);
    j.field("matched_by", r.key);
    j.field("passed", r.passed);
    j.field("skipped", r.skipped);
    j.field("unreadable", r.unreadable);
    j.field("fail_reason", r.failReason);
    j.field("rel_tol", r.tolerance.relTol);
    j.field("pass_rate", r.tolerance.passRate);
    if (r.computed)
        reportMetrics(j, r.metrics);
    if (r.statsOnly) {
        j.field("stats_relative_difference", r.statsRelDiff);
        j.field("stats_error_bound", r.statsBound);
        if (!std::isnan(r.statsEstimate))
            j.field("stats_error_estimate", r.statsEstimate);
    }
    if (r.computed && r.metrics.count)
        j.field("nmse", r.metrics.relEuclidean * r.metrics.relEuclidean);
    else if (r.statsOnly && !std::isnan(r.statsEstimate))
        j.field("nmse_estimate", std::pow(std::max(r.statsBound, r.statsEstimate), 2));
    else if (r.statsOnly)
        j.field("nmse_lower_bound", r.statsBound * r.statsBound);
    if (!r.weightSource.empty())
        j.field("read_from", r.weightSource);
    if (const auto &q = r.quantization) {
        j.key("quantization");
        j.open('{');
        j.field("golden_type", q->goldenType);
        j.field("my_type", q->myType);
        j.field("relative_error", q->error);
        j.field("expected", q->expected);
        j.field("beyond_requantization", q->beyond);
        j.field("explained", q->explained());
        j.field("words", q->words(r.tensorName));
        j.close('}');
    }
    j.close('}');
}

// One operation: its errors, budget and verdict, and its rows.
void reportOp(JsonOut &j, const OpResult &op)
{
    j.open('{');
    j.field("round", op.round);
    j.field("op_id", op.opId);
    j.field("op_path", op.opPath);
    j.field("op_type", op.opType);
    j.field("my_op_id", op.myOpId);
    j.field("node_name", op.name);
    j.field("label", op.label());
    j.field("unreadable", op.unreadable);
    j.field("worst_input", int64_t(op.worstInput));
    j.field("worst_input_is_weight", op.worstInputIsWeight);
    j.field("quantized_weight", op.quantizedWeight);
    j.field("weight_error", op.weightError);
    j.field("output_error", op.outputError);
    j.field("input_error", op.inputError);
    j.field("added_error", op.addedError);
    j.field("output_cosine", op.outputCosine); // null: statistics alone did not tell it
    j.field("from_statistics", op.fromStats); // its figures estimated or bounded from statistics
    j.field("nmse", op.nmse);
    j.field("explained_nmse", op.explainedNmse);
    j.field("own_nmse", op.ownNmse);
    j.field("budget", op.budget);
    j.field("budget_kind", std::string(standardName(op.budgetKind)));
    j.field("budget_share", op.budgetShare);
    j.field("passed", op.passed);
    j.field("verdict", op.verdict);
    j.key("rows");
    j.open('[');
    for (size_t i : op.rows)
        j.integer(int64_t(i));
    j.close(']');
    j.close('}');
}

// One weight both sides read: its types, sizes and error.
void reportWeight(JsonOut &j, const WeightComparison &w)
{
    j.open('{');
    j.field("name", w.name);
    j.dims("dims", w.dims);
    j.field("golden_type", w.goldenType);
    j.field("my_type", w.myType);
    j.field("elements", w.elements);
    j.field("golden_bytes", w.goldenBytes);
    j.field("my_bytes", w.myBytes);
    j.field("relative_error", w.row.computed ? w.row.metrics.relEuclidean : NAN);
    if (w.row.quantization)
        j.field("expected", w.row.quantization->expected);
    j.field("passed", w.row.passed);
    j.field("reason", w.row.failReason);
    j.close('}');
}

} // namespace

std::string compareReportJson(const CompareResult &res)
{
    JsonOut j;
    j.text.reserve(res.rows.size() * 1280 + res.ops.size() * 320 + 4096); // grown once, not copied on the way
    j.open('{');
    j.field("version", 1);
    j.field("golden", res.goldenRoot);
    j.field("my", res.myRoot);
    j.field("matched_by", res.method);
    j.field("all_passed", res.allPassed());
    j.field("standard", std::string(standardName(res.standard)));
    j.field("standard_why", res.standardWhy);
    if (res.config) { // the rest in .config_diff.json beside it
        j.field("configuration", configDiffSummary(*res.config));
        j.field("configuration_differences", uint64_t(res.config->differences.size()));
    }
    j.field("first_divergent", res.firstDivergent);
    j.field("most_added", res.mostAdded);
    j.key("rows");
    j.open('[');
    for (const auto &r : res.rows)
        reportRow(j, r);
    j.close(']');
    j.key("ops");
    j.open('[');
    for (const auto &op : res.ops)
        reportOp(j, op);
    j.close(']');
    auto paths = [](const std::vector<TensorRecord> &records) {
        std::vector<std::string> out;
        for (const auto &r : records)
            out.push_back(r.path);
        return out;
    };
    j.strings("only_golden", paths(res.onlyGolden));
    j.strings("only_my", paths(res.onlyMy));
    j.strings("notes", res.notes);
    j.key("weights");
    j.open('[');
    for (const auto &w : res.weights)
        reportWeight(j, w);
    j.close(']');
    j.strings("golden_models", res.goldenModels);
    j.strings("my_models", res.myModels);
    j.close('}');
    return j.text + "\n";
}

std::string writeCompareReports(const CompareResult &r, const std::string &dir, std::time_t when)
{
    makeDirs(dir);
    std::tm tm{};
    gmtime_r(&when, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
    const std::string base = dir + "/msit_cmp_report_" + stamp;
    if (r.config) // the runs' configurations, beside the report (llmscope config-diff's JSON)
        writeFileAtomic(dir + "/config_diff_" + stamp + ".json", configDiffJson(*r.config));
    // The two reports are independent: written side by side.
    auto json = std::async(std::launch::async, [&] { writeFileAtomic(base + ".json", compareReportJson(r)); });
    try {
        writeFileAtomic(base + ".csv", msitReportCsv(r));
    } catch (...) {
        json.wait();
        throw;
    }
    json.get();
    return base + ".csv";
}

} // namespace llmscope
