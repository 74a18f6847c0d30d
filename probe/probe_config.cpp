#include "probe/probe_config.h"

#include <cstdlib>
#include <optional>

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope::probe {
namespace {
std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

// A whole number of at least min from the environment, or nothing when it is unset.
std::optional<int64_t> envNumber(const char *name, int64_t min, const std::string &what)
{
    const std::string v = env(name);
    if (v.empty())
        return std::nullopt;
    const auto n = parseInt(v);
    if (!n || *n < min)
        throw Error(std::string(name) + " must be " + what);
    return *n;
}
} // namespace

ProbeConfig readProbeConfig()
{
    ProbeConfig c;
    c.root = env("LLMSCOPE_DUMP_ROOT");
    if (c.root.empty())
        return c;
    try {
        for (const auto &t : split(env("LLMSCOPE_TYPE").empty() ? "tensor" : env("LLMSCOPE_TYPE"), ',')) {
            if (t == "tensor")
                c.tensors = true;
            else if (t == "stats")
                c.stats = true;
            else if (t == "model" || t == "layer" || t == "onnx")
                c.topology = true; // onnx: made from it
            else if (t == "op")
                c.opInfo = true;
            else if (t == "kernel")
                c.kernelInfo = true;
            else if (t == "cpu_profiling")
                c.cpuProfiling = true;
            else
                throw Error("LLMSCOPE_TYPE: the probe does not write '" + t + "'");
        }
        // msit: "stats" means the statistics only, with or without "tensor"; llmscope's
        // extension keeps the payload and adds the statistics to its header.
        if (c.stats && env("LLMSCOPE_STATS_WITH_DATA") != "1")
            c.tensors = false;
        c.descOnly = env("LLMSCOPE_SD") == "1";
        c.kvCache = env("LLMSCOPE_KV") == "1";
        c.weightsInModel = env("LLMSCOPE_WEIGHTS_IN_MODEL") == "1";
        c.keepFusion = env("LLMSCOPE_KEEP_FUSION") == "1";
        c.statsCsv = env("LLMSCOPE_STATS_CSV") == "1";
        c.tiling = env("LLMSCOPE_TILING") == "1";
        c.nanInfOnly = env("LLMSCOPE_NAN_INF_ONLY") == "1";
        c.symlink = env("LLMSCOPE_SYMLINK") == "1";
        c.followTokens = env("LLMSCOPE_FOLLOW_TOKENS");
        c.watch = OpIds::parse(env("LLMSCOPE_WATCH"));
        c.threadpool = env("LLMSCOPE_THREADPOOL") != "0";
        c.sketch = env("LLMSCOPE_SKETCH") != "0";
        const std::string read = env("LLMSCOPE_READ");
        if (read == "graph")
            c.read = ReadMode::Graph;
        else if (read == "node")
            c.read = ReadMode::Node;
        else if (read == "inline")
            c.read = ReadMode::Inline;
        else if (!read.empty() && read != "auto")
            throw Error("LLMSCOPE_READ must be auto, inline, graph or node, not '" + read + "'");
        const std::string level = env("LLMSCOPE_LOG_LEVEL");
        c.quiet = level == "error" || level == "fatal" || level == "critical";
        c.configFile = env("LLMSCOPE_CONFIG");
        c.liveSocket = env("LLMSCOPE_LIVE");
        if (const auto ms = envNumber("LLMSCOPE_CONFIG_INTERVAL_MS", 0, "a number of milliseconds"))
            c.configIntervalMs = static_cast<int>(*ms);
        if (const auto mb = envNumber("LLMSCOPE_KEEP_MB", 0, "a number of MiB"))
            c.keepBytes = uint64_t(*mb) << 20;
        if (const auto mb = envNumber("LLMSCOPE_QUEUE_MB", 1, "a positive number of MiB"))
            c.queueBytes = uint64_t(*mb) << 20;
        Selection &s = c.selection;
        s.ids = OpIds::parse(env("LLMSCOPE_IDS"));
        s.opNames = parseOpNames(env("LLMSCOPE_OPNAME"));
        if (!env("LLMSCOPE_ER").empty())
            s.rounds = Rounds::parse(env("LLMSCOPE_ER"), true);
        if (!env("LLMSCOPE_CHILD").empty())
            s.child = parseBoolOption("child", env("LLMSCOPE_CHILD"));
        if (!env("LLMSCOPE_TIME").empty())
            s.time = parseDumpTime(env("LLMSCOPE_TIME"));
        if (!env("LLMSCOPE_STP").empty())
            s.part = parseTensorPart(env("LLMSCOPE_STP"));
        s.devices = parseDevices(env("LLMSCOPE_DEVICE"));
        s.sequences = parseSequences(env("LLMSCOPE_SEQ"));
        c.active = true;
    } catch (const Error &e) {
        c.error = e.what();
    }
    return c;
}

} // namespace llmscope::probe
