#include "compare/report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "tensor/dtype.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace llmscope {
namespace {

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string num(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shapeText(const std::vector<int64_t> &dims)
{
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string dataId(const TensorRecord &r)
{
    std::string s;
    for (const auto &f : r.opFolders)
        s += (s.empty() ? "" : "/") + f;
    return s + (r.before ? "/before/" : "/after/") + (r.input ? "intensor" : "outtensor") + std::to_string(r.index);
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
                      "cmp_fail_reason\n";
    for (const auto &r : res.rows) {
        const Metrics &m = r.metrics;
        auto side = [&](const TensorRecord &t, bool golden) {
            std::string s = csvField(t.path) + "," + csvField(t.opName) + "," + csvField(dtypeText(t)) + "," +
                            csvField(shapeText(t.dims)) + ",";
            if (r.computed)
                s += golden ? num(m.goldenMax) + "," + num(m.goldenMin) + "," + num(m.goldenMean)
                            : num(m.myMax) + "," + num(m.myMin) + "," + num(m.myMean);
            else if (t.stats)
                s += num(t.stats->max) + "," + num(t.stats->min) + "," + num(t.stats->mean);
            else
                s += "N/A,N/A,N/A";
            return s;
        };
        out += std::to_string(r.golden.exec) + "," + csvField(dataId(r.golden)) + "," + side(r.golden, true) + "," +
               side(r.my, false) + ",";
        if (r.computed)
            out += num(m.cosine) + "," + num(m.maxRelErr) + "," + num(m.meanRelErr) + "," + num(m.maxAbsErr) + "," +
                   num(m.meanAbsErr) + "," + num(m.klDivergence) + "," + num(m.relEuclidean) + ",";
        else
            out += "N/A,N/A,N/A,N/A,N/A,N/A,N/A,";
        out += csvField(r.skipped ? std::string("not compared: description only on both sides") : r.failReason) + "\n";
    }
    return out;
}

std::string compareReportJson(const CompareResult &res)
{
    using nlohmann::json;
    json rows = json::array();
    for (const auto &r : res.rows) {
        json j{{"round", r.golden.exec},
               {"op_id", r.golden.opId},
               {"op_type", r.golden.opName},
               {"data_id", dataId(r.golden)},
               {"input", r.golden.input},
               {"before", r.golden.before},
               {"index", r.golden.index},
               {"golden_path", r.golden.path},
               {"my_path", r.my.path},
               {"my_op_id", r.my.opId},
               {"golden_dtype", dtypeText(r.golden)},
               {"my_dtype", dtypeText(r.my)},
               {"golden_shape", r.golden.dims},
               {"my_shape", r.my.dims},
               {"matched_by", r.key},
               {"passed", r.passed},
               {"skipped", r.skipped},
               {"fail_reason", r.failReason},
               {"rel_tol", r.tolerance.relTol},
               {"pass_rate", r.tolerance.passRate}};
        if (r.computed) {
            const Metrics &m = r.metrics;
            j["metrics"] = {{"count", m.count},
                            {"cosine_similarity", m.cosine},
                            {"max_relative_error", m.maxRelErr},
                            {"mean_relative_error", m.meanRelErr},
                            {"max_absolute_error", m.maxAbsErr},
                            {"mean_absolute_error", m.meanAbsErr},
                            {"kl_divergence", m.klDivergence},
                            {"relative_euclidean_distance", m.relEuclidean},
                            {"within_0.1%", m.within01},
                            {"within_0.5%", m.within05},
                            {"within_tolerance", m.withinTol},
                            {"nan_golden", m.nanGolden},
                            {"inf_golden", m.infGolden},
                            {"nan_my", m.nanMy},
                            {"inf_my", m.infMy},
                            {"non_finite_mismatch", m.nonFiniteMismatch},
                            {"golden_max", m.goldenMax},
                            {"golden_min", m.goldenMin},
                            {"golden_mean", m.goldenMean},
                            {"my_max", m.myMax},
                            {"my_min", m.myMin},
                            {"my_mean", m.myMean}};
        }
        if (r.statsOnly)
            j["stats_relative_difference"] = r.statsRelDiff;
        rows.push_back(std::move(j));
    }
    json ops = json::array();
    for (const auto &op : res.ops)
        ops.push_back({{"round", op.round},
                       {"op_id", op.opId},
                       {"op_path", op.opPath},
                       {"op_type", op.opType},
                       {"output_error", op.outputError},
                       {"input_error", op.inputError},
                       {"added_error", op.addedError},
                       {"output_cosine", op.outputCosine},
                       {"passed", op.passed},
                       {"rows", op.rows}});
    json j{{"version", 1},
           {"golden", res.goldenRoot},
           {"my", res.myRoot},
           {"matched_by", res.method},
           {"all_passed", res.allPassed()},
           {"first_divergent", res.firstDivergent},
           {"rows", rows},
           {"ops", ops},
           {"only_golden", res.onlyGolden},
           {"only_my", res.onlyMy},
           {"notes", res.notes}};
    // NaN is not JSON: the dump writes it as null.
    return j.dump(1) + "\n";
}

std::string writeCompareReports(const CompareResult &r, const std::string &dir, std::time_t when)
{
    makeDirs(dir);
    std::tm tm {};
    gmtime_r(&when, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
    const std::string base = dir + "/msit_cmp_report_" + stamp;
    writeFileAtomic(base + ".csv", msitReportCsv(r));
    writeFileAtomic(base + ".json", compareReportJson(r));
    return base + ".csv";
}

} // namespace llmscope
