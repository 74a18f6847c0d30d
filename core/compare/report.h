// What a comparison writes: msit's CSV (msit_cmp_report_{UTC time}.csv, msit's columns) and
// llmscope's JSON with everything the GUI shows (every metric, operations, unmatched).
#pragma once
#include <ctime>
#include <string>

#include "core/compare/compare_run.h"

namespace llmscope {

std::string msitReportCsv(const CompareResult &r);
std::string compareReportJson(const CompareResult &r);
// Writes both into dir; returns the CSV's path (the JSON has the same name, .json).
std::string writeCompareReports(const CompareResult &r, const std::string &dir, std::time_t when = std::time(nullptr));

} // namespace llmscope
