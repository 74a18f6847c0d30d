// Which standard a pair of dumps is held to, chosen from what each dump says its run was
// (its probe's status: the command, the machine, ggml's libraries, the backends that computed
// its rounds; dump/probe_status.h): the same run must agree bit for bit, one backend with the
// same types differs by float rounding only, other backends by ggml's cross-backend budgets
// (precision_standard.h). Said first in every report, with why.
#pragma once
#include "core/compare/precision_standard.h"
#include "core/text/reason.h"

#include <string>
#include <vector>

namespace llmscope {

struct DumpStatuses;

struct RunFacts {
    bool known = false; // its status names the backends (probes before that do not)
    std::vector<std::string> command, libraries, backends, environment;
    std::string host;
    bool keepFusion = false;
    bool sameRunAs(const RunFacts &o) const;
};
// From the statuses of a dump folder or an -o folder of msit_dump_* folders; unknown when none.
RunFacts runFacts(const DumpStatuses &statuses);
RunFacts runFacts(const std::string &dumpRoot); // read there

struct StandardChoice {
    Standard standard = Standard::Engine;
    Reason why;
};
StandardChoice choosePairStandard(const RunFacts &golden, const RunFacts &test);
// "CPU", "Vulkan0, CPU": a run's backends in words.
std::string backendWords(const std::vector<std::string> &backends);
// What differs between two runs of one backend, in a few words ("libggml-cpu.so, the command").
std::string runDifferences(const RunFacts &golden, const RunFacts &test);

} // namespace llmscope
