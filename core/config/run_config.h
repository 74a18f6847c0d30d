// A run's configuration, read from what the probe recorded beside its dump, and what differs
// between two runs (llmscope config-diff): "what is different between these two runs?" before
// any tensor. The groups follow msProbe's config_check (env, pip, weights, hyperparameters),
// with the hardware beside them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dump/probe_status.h"

namespace llmscope {

// One setting: its group ("environment", "libraries", "hardware", "run", "context", "model
// files"), its
// key within the group, its value (what two runs are compared by) and where it comes from.
struct ConfigItem {
    std::string group, key, value, detail;
};

struct RunConfig {
    std::string source; // the dump folder or status file read
    int64_t pid = -1; // the process it describes
    std::vector<ConfigItem> items;
};

// The groups in the order they are listed.
const std::vector<std::string> &configGroups();

// The configuration in one probe status. Model files still where the run read them add their
// size, a digest of their bytes, their GGUF architecture and their tensor types.
RunConfig runConfig(const ProbeStatus &s, const std::string &source);
// A dump folder's (its probe statuses: the process that computed the most rounds), or a probe
// status file's. Throws Error saying what is missing.
RunConfig readRunConfig(const std::string &path);
// The same from a dump's statuses read already: the root's, else the first inner dump's that has
// any. Throws Error saying what is missing.
RunConfig runConfig(const DumpStatuses &statuses);

struct ConfigDifference {
    enum class Kind { Differs, OnlyA, OnlyB };
    Kind kind = Kind::Differs;
    std::string group, key, a, b, detailA, detailB;
};

struct ConfigDiff {
    RunConfig a, b;
    size_t compared = 0; // settings in either
    std::vector<ConfigDifference> differences; // in group order, then as a lists them
};

ConfigDiff diffConfigs(RunConfig a, RunConfig b);
// "no setting differs among 57", or "4 of 57 settings differ: environment 1 (GGML_VK_VISIBLE_DEVICES),
// run 2 (command, CPU threads), hardware 1 (device Vulkan0)".
std::string configDiffSummary(const ConfigDiff &d);
std::string configDiffText(const ConfigDiff &d, const std::string &nameA = "golden", const std::string &nameB = "test");
std::string configDiffJson(const ConfigDiff &d);

} // namespace llmscope
