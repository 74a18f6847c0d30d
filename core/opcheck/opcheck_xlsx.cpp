#include "core/opcheck/opcheck_xlsx.h"

#include <algorithm>
#include <cmath>

#include <xlsxwriter.h>

#include "core/util/error.h"

namespace llmscope {

void writeOpcheckXlsx(const std::string &path, const OpcheckResult &r, const std::vector<std::string> &metrics)
{
    auto has = [&](const char *m) { return std::find(metrics.begin(), metrics.end(), m) != metrics.end(); };
    lxw_workbook *book = workbook_new(path.c_str());
    if (!book)
        throw Error(path + ": cannot be created");
    lxw_worksheet *sheet = workbook_add_worksheet(book, "opcheck_result");
    std::vector<std::string> head{"op_id",
                                  "op_name",
                                  "op_param",
                                  "tensor_path",
                                  "out_tensor_id",
                                  "precision_standard",
                                  "precision_result",
                                  "rel_precision_rate(%)",
                                  "max_rel_error"};
    if (has("abs")) {
        head.push_back("abs_precision_rate(%)");
        head.push_back("max_abs_error");
    }
    if (has("cos_sim"))
        head.push_back("cosine_similarity");
    if (has("kl"))
        head.push_back("kl_divergence");
    for (const char *c : {"fail_reason", "round", "op_type", "mean_ulp_error", "ulp_error_proportion(%)"})
        head.push_back(c);
    for (size_t c = 0; c < head.size(); ++c)
        worksheet_write_string(sheet, 0, lxw_col_t(c), head[c].c_str(), nullptr);
    lxw_row_t y = 1;
    for (const auto &row : r.rows) {
        lxw_col_t x = 0;
        auto text = [&](const std::string &s) { worksheet_write_string(sheet, y, x++, s.c_str(), nullptr); };
        auto num = [&](double v) {
            if (std::isfinite(v))
                worksheet_write_number(sheet, y, x, v, nullptr);
            ++x;
        };
        text(row.opId);
        text(row.opName);
        text(row.opParam);
        text(row.tensorPath);
        num(row.outTensorId);
        text(row.standard);
        text(verdictName(row.verdict));
        num(row.withinRate);
        num(row.maxRelError);
        if (has("abs")) {
            num(row.absRate);
            num(row.maxAbsError);
        }
        if (has("cos_sim"))
            num(row.cosine);
        if (has("kl"))
            num(row.kl);
        text(row.reason.english());
        num(double(row.round));
        text(row.opType);
        num(row.meanUlpError);
        num(row.ulpErrorProportion);
        ++y;
    }
    if (workbook_close(book) != LXW_NO_ERROR)
        throw Error(path + ": could not be written");
}

} // namespace llmscope
