#include "core/config/run_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/dump/token_record.h"
#include "core/ggml/ggml_library.h"
#include "core/util/atomic_file.h"
#include "core/util/content_digest.h"
#include "core/util/error.h"

namespace llmscope {
namespace {

const char *const kEnvironment = "environment", *const kLibraries = "libraries", *const kHardware = "hardware",
                  *const kRun = "run", *const kContext = "context", *const kSampling = "sampling",
                  *const kModels = "model files";

std::string baseName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string mib(uint64_t bytes)
{
    return std::to_string((bytes + (1u << 19)) >> 20) + " MiB";
}

// A command line as a shell would take it back: arguments with spaces or quotes in quotes.
std::string commandText(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args) {
        if (!out.empty())
            out += ' ';
        if (!a.empty() && a.find_first_of(" \t\"'$\\`") == std::string::npos) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

// The file's bytes digested as a tensor's are (util/content_digest.h), a chunk at a time; 0 when it
// cannot be read or changes while read.
uint64_t fileDigest(const std::string &path, uint64_t bytes)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return 0;
    ContentDigest digest(bytes);
    uint64_t h = 0, read = 0;
    std::vector<uint8_t> buf(uint64_t(1) << 20); // a multiple of 64: whole blocks until the last chunk
    for (;;) {
        in.read(reinterpret_cast<char *>(buf.data()), std::streamsize(buf.size()));
        const uint64_t n = uint64_t(in.gcount());
        read += n;
        if (n < buf.size()) { // the last chunk
            h = digest.finish(buf.data(), n);
            break;
        }
        digest.addBlocks(buf.data(), n);
    }
    return read == bytes ? h : 0;
}

// A model's digest is read once a process for each version of the file (its size and time):
// a hunt compares the same two runs several times, and models run to gigabytes.
uint64_t cachedDigest(const std::string &path, const struct stat &st)
{
    static std::mutex mutex;
    static std::map<std::string, std::tuple<int64_t, int64_t, int64_t, uint64_t>> cache;
    const auto version = std::make_tuple(int64_t(st.st_size), int64_t(st.st_mtim.tv_sec), int64_t(st.st_mtim.tv_nsec));
    {
        std::lock_guard lock(mutex);
        if (auto it = cache.find(path); it != cache.end() && std::get<0>(it->second) == std::get<0>(version) &&
            std::get<1>(it->second) == std::get<1>(version) && std::get<2>(it->second) == std::get<2>(version))
            return std::get<3>(it->second);
    }
    const uint64_t digest = fileDigest(path, uint64_t(st.st_size));
    std::lock_guard lock(mutex);
    cache[path] = std::make_tuple(std::get<0>(version), std::get<1>(version), std::get<2>(version), digest);
    return digest;
}

std::string hex(uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4)
        s[size_t(i)] = digits[v & 15];
    return s;
}

void addModel(std::vector<ConfigItem> &items, size_t n, const std::string &path)
{
    const std::string key = "model " + std::to_string(n);
    items.push_back({kModels, key, baseName(path), path});
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        items.push_back({kModels, key + " size", "(not there now)", path});
        return;
    }
    items.push_back({kModels, key + " size", std::to_string(st.st_size) + " bytes", path});
    const uint64_t digest = cachedDigest(path, st);
    items.push_back({kModels, key + " digest", digest ? hex(digest) : "(unreadable)", path});
    try {
        const auto file = ggml::Library::get().model(path);
        items.push_back(
            {kModels, key + " architecture", file->architecture.empty() ? "(not said)" : file->architecture, path});
        std::map<std::string, size_t> types;
        for (const auto &[name, t] : file->tensors)
            ++types[t.typeName];
        std::string text;
        for (const auto &[type, count] : types)
            text += (text.empty() ? "" : ", ") + type + " x" + std::to_string(count);
        items.push_back({kModels, key + " tensor types", text, path});
    } catch (const Error &e) {
        items.push_back({kModels, key + " architecture", "(not read)", e.what()}); // the why names the path
    }
}

} // namespace

const std::vector<std::string> &configGroups()
{
    static const std::vector<std::string> groups{kEnvironment, kLibraries, kHardware, kRun,
                                                 kContext,     kSampling,  kModels};
    return groups;
}

RunConfig runConfig(const ProbeStatus &s, const std::string &source)
{
    RunConfig c;
    c.source = source;
    c.pid = s.pid;
    auto &items = c.items;
    for (const std::string &var : s.environment) {
        const size_t eq = var.find('=');
        items.push_back({kEnvironment, var.substr(0, eq), eq == std::string::npos ? "" : var.substr(eq + 1), {}});
    }
    if (!s.objects.empty()) {
        for (const LoadedObject &o : s.objects)
            if (o.bytes || o.buildId != "-") // not the kernel's vdso
                items.push_back({kLibraries, baseName(o.path),
                                 "build id " + o.buildId + ", " + std::to_string(o.bytes) + " bytes", o.path});
    } else { // a probe before every object was recorded: ggml's own, "path build-id"
        for (const std::string &lib : s.libraries) {
            const size_t space = lib.rfind(' ');
            const std::string path = lib.substr(0, space);
            items.push_back({kLibraries, baseName(path),
                             "build id " + (space == std::string::npos ? std::string("-") : lib.substr(space + 1)),
                             path});
        }
    }
    if (!s.ggmlVersion.empty())
        items.push_back({kLibraries, "ggml version", s.ggmlVersion, "ggml_version(), ggml_commit()"});
    if (!s.host.empty())
        items.push_back({kHardware, "machine", s.host, "/etc/machine-id, else the host name"});
    for (const BackendDevice &d : s.devices)
        items.push_back({kHardware,
                         "device " + d.name,
                         d.description + (d.type.empty() ? "" : ", " + d.type) + (d.memory ? ", " + mib(d.memory) : ""),
                         {}});
    for (const LoadedObject &o : s.objects) // a device driver's version, as it states it
        if (!o.driver.empty())
            items.push_back({kHardware, "driver " + baseName(o.path), o.driver, o.path});
    if (!s.cpuFeatures.empty()) {
        std::string f;
        for (const std::string &x : s.cpuFeatures)
            f += (f.empty() ? "" : " ") + x;
        items.push_back({kHardware, "CPU backend features", f, "ggml_backend_get_features"});
    }
    if (!s.command.empty())
        items.push_back({kRun, "command", commandText(s.command), {}});
    if (!s.workingDirectory.empty())
        items.push_back({kRun, "working folder", s.workingDirectory, {}});
    if (!s.cpuThreads.empty()) {
        std::string t;
        for (int n : s.cpuThreads)
            t += (t.empty() ? "" : ", ") + std::to_string(n);
        items.push_back({kRun, "CPU threads", t, "as llama.cpp set them (ggml_backend_set_n_threads)"});
    }
    if (!s.backends.empty()) {
        std::string b;
        for (const std::string &x : s.backends)
            b += (b.empty() ? "" : ", ") + x;
        items.push_back({kRun, "backends that computed", b, {}});
    }
    items.push_back({kRun, "fusion kept (--keep-fusion)", s.keepFusion ? "yes" : "no", {}});
    for (const std::string &setting : s.context) {
        const size_t eq = setting.find('=');
        items.push_back({kContext, setting.substr(0, eq), eq == std::string::npos ? "" : setting.substr(eq + 1),
                         "read from the program's graphs"});
    }
    for (size_t i = 0; i < s.sampling.size(); ++i) // llama.cpp's samplers, where the program used them
        items.push_back({kSampling, "sampler " + std::to_string(i + 1), s.sampling[i], "llama_sampler_init_*"});
    for (size_t i = 0; i < s.models.size(); ++i)
        addModel(items, i + 1, s.models[i]);
    return c;
}

RunConfig readRunConfig(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
        const auto bytes = readWholeFile(path);
        return runConfig(parseProbeStatus(std::string(bytes.begin(), bytes.end())), path);
    }
    if (!fs::is_directory(path, ec))
        throw Error("'" + path + "' is neither a dump folder nor a probe status file (llmscope/PID.json)");
    return runConfig(readDumpStatuses(path));
}

RunConfig runConfig(const DumpStatuses &read)
{
    // the folder itself, or the first msit_dump_* folder an -o folder holds with statuses
    const auto withStatuses = std::find_if(read.folders.begin(), read.folders.end(),
                                           [](const DumpStatuses::Folder &f) { return !f.statuses.empty(); });
    if (withStatuses == read.folders.end())
        throw Error("'" + (read.folders.empty() ? std::string() : read.folders.front().path) +
                    "' holds no probe status (llmscope/PID.json): dump the run with llmscope dump" +
                    (read.problems.empty() ? std::string() : " (" + read.problems.front() + ")"));
    const std::vector<ProbeStatus> &statuses = withStatuses->statuses;
    const std::string &root = withStatuses->path;
    const auto most = std::max_element(statuses.begin(), statuses.end(),
                                       [](const ProbeStatus &x, const ProbeStatus &y) { return x.rounds < y.rounds; });
    RunConfig config = runConfig(*most, root);
    // the tokens it was given and took a round at most, from its token records
    try {
        const auto tokens = readTokenRecords(root);
        if (!tokens.empty()) {
            size_t largest = 0;
            for (const auto &[round, record] : tokens)
                largest = std::max(largest, record.tokens.size());
            const auto first = tokens.begin();
            config.items.push_back({kContext, "prompt tokens (round " + std::to_string(first->first) + ")",
                                    std::to_string(first->second.tokens.size()), "llmscope/tokens"});
            config.items.push_back({kContext, "most tokens in a round", std::to_string(largest), "llmscope/tokens"});
        }
    } catch (const Error &) { // a malformed record: the rest stands
    }
    return config;
}

ConfigDiff diffConfigs(RunConfig a, RunConfig b)
{
    ConfigDiff d;
    using Key = std::pair<std::string, std::string>;
    std::map<Key, const ConfigItem *> inB;
    for (const ConfigItem &i : b.items)
        inB.emplace(Key{i.group, i.key}, &i);
    std::set<Key> seen;
    for (const std::string &group : configGroups()) {
        for (const ConfigItem &i : a.items) {
            if (i.group != group || !seen.insert({i.group, i.key}).second)
                continue;
            const auto other = inB.find({i.group, i.key});
            if (other == inB.end())
                d.differences.push_back({ConfigDifference::Kind::OnlyA, i.group, i.key, i.value, {}, i.detail, {}});
            else if (other->second->value != i.value)
                d.differences.push_back({ConfigDifference::Kind::Differs, i.group, i.key, i.value, other->second->value,
                                         i.detail, other->second->detail});
        }
        for (const ConfigItem &i : b.items)
            if (i.group == group && seen.insert({i.group, i.key}).second)
                d.differences.push_back({ConfigDifference::Kind::OnlyB, i.group, i.key, {}, i.value, {}, i.detail});
    }
    d.compared = seen.size();
    d.a = std::move(a);
    d.b = std::move(b);
    return d;
}

std::string configDiffSummary(const ConfigDiff &d)
{
    if (d.differences.empty())
        return "no setting differs among " + std::to_string(d.compared);
    std::string text = std::to_string(d.differences.size()) + " of " + std::to_string(d.compared) + " settings differ:";
    for (const std::string &group : configGroups()) {
        std::vector<std::string> keys;
        for (const ConfigDifference &x : d.differences)
            if (x.group == group)
                keys.push_back(x.key);
        if (keys.empty())
            continue;
        text += (text.back() == ':' ? " " : "; ") + group + " " + std::to_string(keys.size()) + " (";
        for (size_t i = 0; i < keys.size() && i < 4; ++i)
            text += (i ? ", " : "") + keys[i];
        text += keys.size() > 4 ? ", ...)" : ")";
    }
    return text;
}

std::string configDiffText(const ConfigDiff &d, const std::string &nameA, const std::string &nameB)
{
    const size_t width = std::max(nameA.size(), nameB.size()) + 1;
    auto pad = [width](const std::string &name) { return name + ":" + std::string(width - name.size(), ' '); };
    std::string out = "configuration: " + pad(nameA) + d.a.source + " (pid " + std::to_string(d.a.pid) + ")\n" +
        "               " + pad(nameB) + d.b.source + " (pid " + std::to_string(d.b.pid) + ")\n" +
        configDiffSummary(d) + "\n";
    std::string group;
    // Libraries one run loaded and the other did not come in dozens (a driver brings its own):
    // named on one line a side, each in the JSON and the workbook.
    auto onlyLine = [&](const std::string &g, ConfigDifference::Kind kind, const std::string &name) {
        std::string names;
        size_t n = 0;
        for (const ConfigDifference &x : d.differences)
            if (x.group == g && x.kind == kind)
                names += (n++ ? ", " : "") + x.key;
        return n ? "  only " + name + "'s (" + std::to_string(n) + "): " + names + "\n" : std::string();
    };
    for (const ConfigDifference &x : d.differences) {
        if (x.group != group) {
            out += (group = x.group) + "\n";
            if (group == kLibraries)
                out += onlyLine(group, ConfigDifference::Kind::OnlyA, nameA) +
                    onlyLine(group, ConfigDifference::Kind::OnlyB, nameB);
        }
        if (group == kLibraries && x.kind != ConfigDifference::Kind::Differs)
            continue;
        out += "  " + x.key + "\n";
        out += "    " + pad(nameA) + (x.kind == ConfigDifference::Kind::OnlyB ? "(none)" : x.a) + "\n";
        out += "    " + pad(nameB) + (x.kind == ConfigDifference::Kind::OnlyA ? "(none)" : x.b) + "\n";
    }
    return out;
}

std::string configDiffJson(const ConfigDiff &d)
{
    auto side = [](const RunConfig &c) {
        nlohmann::json items = nlohmann::json::array();
        for (const ConfigItem &i : c.items)
            items.push_back({{"group", i.group}, {"key", i.key}, {"value", i.value}, {"detail", i.detail}});
        return nlohmann::json{{"source", c.source}, {"pid", c.pid}, {"items", items}};
    };
    nlohmann::json diffs = nlohmann::json::array();
    for (const ConfigDifference &x : d.differences) {
        const char *kind = x.kind == ConfigDifference::Kind::Differs ? "differs"
            : x.kind == ConfigDifference::Kind::OnlyA                ? "only_golden"
                                                                     : "only_test";
        diffs.push_back({{"group", x.group}, {"key", x.key}, {"kind", kind}, {"golden", x.a}, {"test", x.b}});
    }
    nlohmann::json groups = nlohmann::json::object();
    for (const std::string &g : configGroups())
        groups[g] = size_t(std::count_if(d.differences.begin(), d.differences.end(),
                                         [&g](const ConfigDifference &x) { return x.group == g; }));
    const nlohmann::json j{{"summary", configDiffSummary(d)},
                           {"compared", d.compared},
                           {"differences_by_group", groups},
                           {"differences", diffs},
                           {"golden", side(d.a)},
                           {"test", side(d.b)}};
    return j.dump(1) + "\n";
}

} // namespace llmscope
