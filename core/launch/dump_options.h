// `llmscope dump`'s command line: msit llm dump's options and defaults, parsed without a
// shell, validated up front, and turned into the probe's environment.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/launch/command_line.h"
#include "core/select/selection.h"

namespace llmscope {

struct DumpOptions {
    std::vector<std::string> command; // --exec, split like a shell would, never run by one
    Environment environment; // --exec's leading NAME=value settings, for the program
    std::vector<std::string> types{"tensor", "model"}; // --type (msit's default)
    bool descOnly = false; // -sd
    std::string ids; // -ids
    std::string rounds = "0,0"; // -er
    bool child = true; // -child
    int time = 3; // -time
    std::string opNames; // -opname
    int part = 2; // -stp
    bool tiling = false; // -tiling: each node's op parameters (ggml's op_params)
    bool symlink = false; // -symlink: identical tensors as links to the first copy
    std::string output = "./"; // -o
    std::string devices; // -device
    std::string sequences; // -seq: the rounds that computed these sequences (slots)
    std::string configFile; // -config
    std::string logLevel = "info"; // -l
    // llmscope's own
    bool kvCache = false; // --kv-cache
    bool weightsInModel = false; // --weights-in-model
    bool keepFusion = false; // --keep-fusion: fused chains read at their last op only
    bool noFusion = false; // --no-fusion: the backends' own fusion switches off
    bool checkObserver = false; // --check-observer: a second run observing nothing, compared
    bool statsCsv = false; // --stats-csv
    bool statsWithData = false; // --stats-with-data: payload and statistics in one file
    std::string watch; // --watch IDS: when the chosen ops' outputs change after they ran
    std::string followTokens; // --follow-tokens GOLDEN_DUMP: the program consumes golden's tokens
    bool nanInfOnly = false; // --nan-inf-only: only ops whose outputs hold NaN or Inf, with their inputs
    std::string readMode = "auto"; // --read: auto, inline, graph or node
    int timeoutSeconds = 0; // --timeout
    std::string liveSocket; // --live: the app's socket (core/live/live_protocol.h)
    std::string recordEnv; // --record-env NAMES: more variables in the run's configuration
    bool children = false; // --children: every child process is probed too (shells and
        // launchers such as env pass the probe on by themselves)
};

// --timeout's value, as `llmscope dump` and the commands that run dumps (hunt, quant-report,
// spread) read it: whole seconds, 1 to a week; throws Error saying so.
int parseTimeout(const std::string &value);

// Throws Error with a message that names the option and says what to do.
DumpOptions parseDumpOptions(const std::vector<std::string> &args);
// The arguments that parseDumpOptions reads back as o: options left at their defaults are
// left out (the app shows this as the command line to copy).
std::vector<std::string> dumpArguments(const DumpOptions &o);
// Whether the dump writes payloads. msit: `stats` means statistics only, with or without
// `tensor` (`tensor stats` is its documented way to save disk); --stats-with-data is
// llmscope's extension that keeps the payload and adds the statistics to its header.
bool writesPayload(const DumpOptions &o);
// Where weights' statistics are kept between runs (probe/weight_cache.h) when the program's
// environment names no LLMSCOPE_WEIGHT_CACHE: the user's cache folder ("" when none is known).
std::string defaultWeightCache();
// The probe's environment for a dump into root (the msit_dump_* folder).
std::map<std::string, std::string> probeEnvironment(const DumpOptions &o, const std::string &root);
// LD_PRELOAD with the probe after whatever the user already preloads (ASan must stay first).
std::string preloadWith(const std::string &existing, const std::string &probePath);
std::string dumpUsage();

} // namespace llmscope
