// opcheck's report files, as compare's are core/compare/report.h: msit's CSV and the JSON.
#pragma once
#include <string>
#include <vector>

#include "core/opcheck/opcheck_run.h"

namespace llmscope {

// msit's columns, then llmscope's round and op type; one row per output.
std::string opcheckCsv(const OpcheckResult &r, const std::vector<std::string> &metrics);
std::string opcheckJson(const OpcheckResult &r);

} // namespace llmscope
