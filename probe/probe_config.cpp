#include "probe_config.h"

#include <cstdlib>

#include "util/error.h"
#include "util/text.h"

namespace llmscope::probe {
namespace {
std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
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
            if (t == "tensor") c.tensors = true;
            else if (t == "stats") c.stats = true;
            else if (t == "model" || t == "layer") c.topology = true;
            else throw Error("LLMSCOPE_TYPE: the probe does not write '" + t + "'");
        }
        c.descOnly = env("LLMSCOPE_SD") == "1";
        c.kvCache = env("LLMSCOPE_KV") == "1";
        c.statsCsv = env("LLMSCOPE_STATS_CSV") == "1";
        c.threadpool = env("LLMSCOPE_THREADPOOL") != "0";
        const std::string read = env("LLMSCOPE_READ");
        if (read == "graph") c.read = ReadMode::Graph;
        else if (read == "node") c.read = ReadMode::Node;
        else if (!read.empty() && read != "auto")
            throw Error("LLMSCOPE_READ must be auto, graph or node, not '" + read + "'");
        const std::string level = env("LLMSCOPE_LOG_LEVEL");
        c.quiet = level == "error" || level == "fatal" || level == "critical";
        c.configFile = env("LLMSCOPE_CONFIG");
        if (!env("LLMSCOPE_CONFIG_INTERVAL_MS").empty()) {
            const auto ms = parseInt(env("LLMSCOPE_CONFIG_INTERVAL_MS"));
            if (!ms || *ms < 0)
                throw Error("LLMSCOPE_CONFIG_INTERVAL_MS must be a number of milliseconds");
            c.configIntervalMs = static_cast<int>(*ms);
        }
        if (!env("LLMSCOPE_KEEP_MB").empty()) {
            const auto mb = parseInt(env("LLMSCOPE_KEEP_MB"));
            if (!mb || *mb < 0)
                throw Error("LLMSCOPE_KEEP_MB must be a number of MiB");
            c.keepBytes = uint64_t(*mb) << 20;
        }
        if (!env("LLMSCOPE_QUEUE_MB").empty()) {
            const auto mb = parseInt(env("LLMSCOPE_QUEUE_MB"));
            if (!mb || *mb < 1)
                throw Error("LLMSCOPE_QUEUE_MB must be a positive number of MiB");
            c.queueBytes = uint64_t(*mb) << 20;
        }
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
        c.active = true;
    } catch (const Error &e) {
        c.error = e.what();
    }
    return c;
}

} // namespace llmscope::probe
