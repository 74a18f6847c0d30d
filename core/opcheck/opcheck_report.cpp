#include "core/opcheck/opcheck_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/compare/report_text.h"

namespace llmscope {

std::string opcheckCsv(const OpcheckResult &r, const std::vector<std::string> &metrics)
{
    auto has = [&](const char *m) { return std::find(metrics.begin(), metrics.end(), m) != metrics.end(); };
    const auto cell = report::csvField;
    auto num = [](double v) { return std::isnan(v) ? std::string() : report::num(v); };
    std::ostringstream out;
    out << "op_id,op_name,op_param,tensor_path,out_tensor_id,precision_standard,precision_result,"
           "rel_precision_rate(%),max_rel_error";
    if (has("abs"))
        out << ",abs_precision_rate(%),max_abs_error";
    if (has("cos_sim"))
        out << ",cosine_similarity";
    if (has("kl"))
        out << ",kl_divergence";
    out << ",fail_reason,round,op_type,mean_ulp_error,ulp_error_proportion(%)\n";
    for (const auto &row : r.rows) {
        out << row.opId << ',' << cell(row.opName) << ',' << cell(row.opParam) << ',' << cell(row.tensorPath) << ','
            << row.outTensorId << ',' << cell(row.standard) << ',' << verdictName(row.verdict) << ','
            << num(row.withinRate) << ',' << num(row.maxRelError);
        if (has("abs"))
            out << ',' << num(row.absRate) << ',' << num(row.maxAbsError);
        if (has("cos_sim"))
            out << ',' << num(row.cosine);
        if (has("kl"))
            out << ',' << num(row.kl);
        out << ',' << cell(row.reason.english()) << ',' << row.round << ',' << row.opType << ','
            << num(row.meanUlpError) << ',' << num(row.ulpErrorProportion) << '\n';
    }
    return out.str();
}

std::string opcheckJson(const OpcheckResult &r)
{
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json j;
    j["version"] = 1;
    j["root"] = r.root;
    j["summary"] = {{"ops", r.ops},
                    {"views", r.viewOps},
                    {"views_checked", r.viewsChecked},
                    {"replayed", r.replayedOps},
                    {"coverage_percent", num(r.coverage())},
                    {"pass", r.pass},
                    {"warn", r.warn},
                    {"fail", r.fail},
                    {"skip", r.skip},
                    {"error", r.error}};
    j["rows"] = nlohmann::json::array();
    for (const auto &row : r.rows)
        j["rows"].push_back({{"op_id", row.opId},
                             {"op_name", row.opName},
                             {"op_type", row.opType},
                             {"op_param", row.opParam},
                             {"round", row.round},
                             {"tensor_path", row.tensorPath},
                             {"out_tensor_id", row.outTensorId},
                             {"precision_standard", row.standard},
                             {"precision_result", verdictName(row.verdict)},
                             {"rel_precision_rate", num(row.withinRate)},
                             {"max_rel_error", num(row.maxRelError)},
                             {"abs_precision_rate", num(row.absRate)},
                             {"max_abs_error", num(row.maxAbsError)},
                             {"cosine_similarity", num(row.cosine)},
                             {"kl_divergence", num(row.kl)},
                             {"worst_error_over_bound", num(row.worstRatio)},
                             {"error_over_judged_bound", num(row.judgedRatio)},
                             {"cpu_replay_error_over_bound", num(row.cpuRatio)},
                             {"nmse_vs_cpu_replay", num(row.nmseVsCpu)},
                             {"cpu_replay_nmse_budget", num(row.cpuBudget)},
                             {"cpu_replay_not_run", row.cpuNotRun},
                             {"weights_from_model", row.weightsFromModel},
                             {"mean_ulp_error", num(row.meanUlpError)},
                             {"ulp_error_proportion", num(row.ulpErrorProportion)},
                             {"cpu_replay_ulp_error_proportion", num(row.cpuUlpErrorProportion)},
                             {"fail_reason", row.reason.english()}});
    return j.dump(1);
}

} // namespace llmscope
