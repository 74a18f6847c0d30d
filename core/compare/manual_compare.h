// The compare of two manual-mapping metadata.json files (see manual/dump_data.h): pairs by
// data id and token id and writes msit's cmp_report.csv.
#pragma once
#include <string>
#include <vector>

#include "core/compare/compare_run.h"

namespace llmscope {

struct ManualRow {
    std::string dataId, tokenId;
    CompareRow pair;
    bool compared = false; // msit's cmp_flag: both sides had the data id and token id
};

// True when path is a manual-mapping metadata file (metadata.json).
bool isManualMetadata(const std::string &path);
// Throws Error for unreadable or malformed metadata, naming the file.
std::vector<ManualRow> compareManual(const std::string &goldenMeta, const std::string &myMeta);
std::string manualReportCsv(const std::vector<ManualRow> &rows);

} // namespace llmscope
