// msit's dynamic dump config (-config file.json): string values for dump_enable, er, ids,
// child and device that override the command line while the target runs.
#pragma once
#include <string>
#include <vector>

#include "core/select/selection.h"

namespace llmscope {

struct DynamicConfig {
    Selection selection; // the base selection with the file's keys applied
    std::vector<std::string> warnings; // unknown keys, kept out of the result
};

// Applies the config text to base. Malformed JSON, a non-object, a non-string value or a
// bad value throws Error naming the key.
DynamicConfig applyDynamicConfig(const std::string &jsonText, const Selection &base);
DynamicConfig loadDynamicConfig(const std::string &path, const Selection &base);

} // namespace llmscope
