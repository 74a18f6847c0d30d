#include "core/dump/probe_status.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/dump/dump_layout.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace llmscope {

std::string stoppedRoundsText(const ProbeStatus &s)
{
    std::string text;
    for (int64_t r : s.stoppedRounds)
        text += (text.empty() ? "" : ", ") + std::to_string(r);
    if (s.roundsStopped > s.stoppedRounds.size())
        text += ", ...";
    return text;
}

std::string writeProbeStatus(const ProbeStatus &s)
{
    nlohmann::json copies = nlohmann::json::array();
    for (const StateCopy &c : s.stateCopies)
        copies.push_back({{"before_round", c.beforeRound},
                          {"cache", c.cache},
                          {"from_stream", c.fromStream},
                          {"to_stream", c.toStream},
                          {"bytes", c.bytes},
                          {"checked", c.checked},
                          {"rows", c.rows},
                          {"rows_differing", c.rowsDiffering},
                          {"first_differing", c.firstDiffering}});
    nlohmann::json objects = nlohmann::json::array(), devices = nlohmann::json::array();
    for (const LoadedObject &o : s.objects)
        objects.push_back({{"path", o.path}, {"bytes", o.bytes}, {"build_id", o.buildId}, {"driver", o.driver}});
    for (const BackendDevice &d : s.devices)
        devices.push_back({{"name", d.name}, {"description", d.description}, {"type", d.type}, {"memory", d.memory}});
    nlohmann::json j{{"version", 1},
                     {"pid", s.pid},
                     {"rounds", s.rounds},
                     {"rounds_dumped", s.roundsDumped},
                     {"rounds_whole_graph", s.roundsWholeGraph},
                     {"rounds_inline", s.roundsInline},
                     {"pieces", s.pieces},
                     {"first_dumped", s.firstDumped},
                     {"last_dumped", s.lastDumped},
                     {"rounds_stopped", s.roundsStopped},
                     {"stopped_rounds", s.stoppedRounds},
                     {"ops_seen", s.opsSeen},
                     {"ops_selected", s.opsSelected},
                     {"tensors", s.tensors},
                     {"bytes", s.bytes},
                     {"skipped", s.skipped},
                     {"finished", s.finished},
                     {"warnings", s.warnings},
                     {"nan_inf_rounds", s.nanInfRounds},
                     {"linked", s.linked},
                     {"weights_cached", s.weightsCached},
                     {"tokens_replaced", s.tokensReplaced},
                     {"watch_changes", s.watchChanges},
                     {"nan_inf_first", s.nanInfFirst},
                     {"models", s.models},
                     {"command", s.command},
                     {"host", s.host},
                     {"libraries", s.libraries},
                     {"backends", s.backends},
                     {"keep_fusion", s.keepFusion},
                     {"environment", s.environment},
                     {"state_copies", copies},
                     {"state_copies_dropped", s.stateCopiesDropped},
                     {"working_directory", s.workingDirectory},
                     {"objects", objects},
                     {"devices", devices},
                     {"cpu_features", s.cpuFeatures},
                     {"ggml_version", s.ggmlVersion},
                     {"cpu_threads", s.cpuThreads},
                     {"context", s.context},
                     {"sampling", s.sampling}};
    return j.dump(1) + "\n";
}

ProbeStatus parseProbeStatus(const std::string &text)
{
    try {
        const auto j = nlohmann::json::parse(text);
        const std::string where = "probe status: ";
        const auto num = [&](const char *key) { return jsonInteger<uint64_t>(j.at(key), where + key); };
        const auto numOr = [&](const char *key, auto fallback) { // where the field may be left out
            return j.contains(key) ? jsonInteger<decltype(fallback)>(j.at(key), where + key) : fallback;
        };
        ProbeStatus s;
        s.pid = jsonInteger<int64_t>(j.at("pid"), where + "pid");
        s.rounds = num("rounds");
        s.roundsDumped = num("rounds_dumped");
        s.roundsWholeGraph = numOr("rounds_whole_graph", uint64_t(0));
        s.roundsInline = numOr("rounds_inline", uint64_t(0));
        s.pieces = numOr("pieces", uint64_t(0));
        s.firstDumped = numOr("first_dumped", int64_t(-1));
        s.lastDumped = numOr("last_dumped", int64_t(-1));
        s.roundsStopped = numOr("rounds_stopped", uint64_t(0));
        if (j.contains("stopped_rounds"))
            s.stoppedRounds = jsonIntegers<int64_t>(j.at("stopped_rounds"), where + "stopped_rounds");
        s.opsSeen = num("ops_seen");
        s.opsSelected = num("ops_selected");
        s.tensors = num("tensors");
        s.bytes = num("bytes");
        s.skipped = numOr("skipped", uint64_t(0));
        s.finished = j.at("finished").get<bool>();
        s.warnings = j.value("warnings", std::vector<std::string>{});
        s.nanInfRounds = numOr("nan_inf_rounds", uint64_t(0));
        s.linked = numOr("linked", uint64_t(0));
        s.weightsCached = numOr("weights_cached", uint64_t(0));
        s.tokensReplaced = numOr("tokens_replaced", uint64_t(0));
        s.watchChanges = j.value("watch_changes", std::vector<std::string>{});
        s.nanInfFirst = j.value("nan_inf_first", std::vector<std::string>{});
        s.models = j.value("models", std::vector<std::string>{});
        s.command = j.value("command", std::vector<std::string>{});
        s.host = j.value("host", std::string());
        s.libraries = j.value("libraries", std::vector<std::string>{});
        s.backends = j.value("backends", std::vector<std::string>{});
        s.keepFusion = j.value("keep_fusion", false);
        s.environment = j.value("environment", std::vector<std::string>{});
        if (j.contains("state_copies"))
            for (const auto &c : j.at("state_copies")) {
                const std::string at = where + "state_copies: ";
                StateCopy copy;
                copy.beforeRound = jsonInteger<int64_t>(c.at("before_round"), at + "before_round");
                copy.cache = c.at("cache").get<std::string>();
                copy.fromStream = jsonInteger<int64_t>(c.at("from_stream"), at + "from_stream");
                copy.toStream = jsonInteger<int64_t>(c.at("to_stream"), at + "to_stream");
                copy.bytes = jsonInteger<uint64_t>(c.at("bytes"), at + "bytes");
                copy.checked = c.at("checked").get<bool>();
                copy.rows = jsonInteger<uint64_t>(c.at("rows"), at + "rows");
                copy.rowsDiffering = jsonInteger<uint64_t>(c.at("rows_differing"), at + "rows_differing");
                copy.firstDiffering = jsonInteger<int64_t>(c.at("first_differing"), at + "first_differing");
                s.stateCopies.push_back(std::move(copy));
            }
        s.stateCopiesDropped = numOr("state_copies_dropped", uint64_t(0));
        s.workingDirectory = j.value("working_directory", std::string());
        if (j.contains("objects"))
            for (const auto &o : j.at("objects"))
                s.objects.push_back({o.at("path").get<std::string>(),
                                     jsonInteger<uint64_t>(o.at("bytes"), where + "objects: bytes"),
                                     o.at("build_id").get<std::string>(), o.value("driver", std::string())});
        if (j.contains("devices"))
            for (const auto &d : j.at("devices"))
                s.devices.push_back({d.at("name").get<std::string>(), d.at("description").get<std::string>(),
                                     d.at("type").get<std::string>(),
                                     jsonInteger<uint64_t>(d.at("memory"), where + "devices: memory")});
        s.cpuFeatures = j.value("cpu_features", std::vector<std::string>{});
        s.ggmlVersion = j.value("ggml_version", std::string());
        s.context = j.value("context", std::vector<std::string>{});
        s.sampling = j.value("sampling", std::vector<std::string>{});
        if (j.contains("cpu_threads"))
            s.cpuThreads = jsonIntegers<int>(j.at("cpu_threads"), where + "cpu_threads");
        return s;
    } catch (const nlohmann::json::exception &e) {
        throw Error(std::string("probe status: ") + e.what());
    }
}

std::vector<ProbeStatus> readProbeStatuses(const std::string &root, std::vector<std::string> *problems)
{
    namespace fs = std::filesystem;
    std::vector<ProbeStatus> out;
    std::error_code ec;
    const fs::path dir = fs::path(root) / ProbeStatus::kFolder;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (it->path().extension() != ".json")
            continue;
        try {
            const auto bytes = readWholeFile(it->path().string());
            out.push_back(parseProbeStatus(std::string(bytes.begin(), bytes.end())));
        } catch (const Error &e) {
            if (problems)
                problems->push_back(it->path().string() + ": " + e.what());
        }
    }
    return out;
}

DumpStatuses readDumpStatuses(const std::string &root)
{
    DumpStatuses out;
    out.folders.push_back({root, readProbeStatuses(root, &out.problems)});
    for (std::string &inner : dumpsInside(root)) {
        std::vector<ProbeStatus> statuses = readProbeStatuses(inner, &out.problems);
        out.folders.push_back({std::move(inner), std::move(statuses)});
    }
    return out;
}

std::vector<StateCopy> stateCopiesInto(const std::string &root, const std::string &cache, int64_t first, int64_t last,
                                       bool *incomplete)
{
    std::vector<StateCopy> out;
    for (const DumpStatuses::Folder &f : readDumpStatuses(root).folders)
        for (const ProbeStatus &s : f.statuses) {
            if (incomplete && s.stateCopiesDropped > 0)
                *incomplete = true;
            for (const StateCopy &c : s.stateCopies)
                if (c.cache == cache && c.beforeRound >= first && c.beforeRound <= last)
                    out.push_back(c);
        }
    return out;
}

} // namespace llmscope
