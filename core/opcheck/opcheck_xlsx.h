// msit's opcheck report as a workbook: opcheck_result_{UTC yyyymmdd_HHMMSS}.xlsx with one
// sheet, opcheck_result, in the columns of opcheckCsv (written by libxlsxwriter).
#pragma once
#include <string>
#include <vector>

#include "core/opcheck/opcheck_run.h"

namespace llmscope {

// Writes path; throws Error naming the file when it cannot.
void writeOpcheckXlsx(const std::string &path, const OpcheckResult &r, const std::vector<std::string> &metrics);

} // namespace llmscope
