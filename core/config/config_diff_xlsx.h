// llmscope config-diff's workbook, as msProbe's config_check writes result.xlsx: a summary sheet
// (each group: settings compared, how many differ) and a sheet of the differences.
#pragma once
#include <string>

#include "core/config/run_config.h"

namespace llmscope {

// Writes path; throws Error naming the file when it cannot.
void writeConfigDiffXlsx(const std::string &path, const ConfigDiff &d);

} // namespace llmscope
