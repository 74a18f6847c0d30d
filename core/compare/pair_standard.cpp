#include "core/compare/pair_standard.h"

#include <algorithm>
#include <filesystem>

#include "core/dump/dump_layout.h"
#include "core/dump/probe_status.h"

namespace llmscope {
namespace {

std::string baseName(const std::string &library) // "path build-id" -> "libggml-cpu.so"
{
    const std::string path = library.substr(0, library.find(' '));
    return std::filesystem::path(path).filename().string();
}

std::vector<std::string> sorted(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

std::string backendWords(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? "no backend" : s;
}

bool RunFacts::sameRunAs(const RunFacts &o) const
{
    return known && o.known && !command.empty() && command == o.command && !host.empty() && host == o.host &&
        !libraries.empty() && sorted(libraries) == sorted(o.libraries) && backends == o.backends &&
        environment == o.environment && keepFusion == o.keepFusion;
}

RunFacts runFacts(const std::string &dumpRoot)
{
    return runFacts(readDumpStatuses(dumpRoot));
}

RunFacts runFacts(const DumpStatuses &read)
{
    std::vector<const ProbeStatus *> statuses; // the root's, then each inner dump's (an -o folder)
    for (const DumpStatuses::Folder &folder : read.folders)
        for (const ProbeStatus &s : folder.statuses)
            statuses.push_back(&s);
    RunFacts f;
    for (const ProbeStatus *each : statuses) {
        const ProbeStatus &s = *each;
        if (s.backends.empty())
            continue;
        if (!f.known) {
            f.known = true;
            f.command = s.command;
            f.host = s.host;
            f.libraries = s.libraries;
            f.keepFusion = s.keepFusion;
            f.environment = s.environment;
        } else if (s.command != f.command || s.host != f.host || sorted(s.libraries) != sorted(f.libraries) ||
                   s.environment != f.environment) {
            f.command.clear(); // processes of several runs: not one run to repeat bit for bit
        }
        for (const std::string &b : s.backends)
            if (std::find(f.backends.begin(), f.backends.end(), b) == f.backends.end())
                f.backends.push_back(b);
    }
    return f;
}

std::string runDifferences(const RunFacts &g, const RunFacts &t)
{
    std::vector<std::string> what;
    // A library of the same name with another build id, or one only one side loaded.
    std::vector<std::string> libs;
    for (const auto *side : {&g.libraries, &t.libraries})
        for (const std::string &l : *side) {
            const auto &other = side == &g.libraries ? t.libraries : g.libraries;
            const std::string name = baseName(l);
            if (std::find(other.begin(), other.end(), l) == other.end() &&
                std::find(libs.begin(), libs.end(), name) == libs.end())
                libs.push_back(name);
        }
    constexpr size_t kNamed = 3; // a whole other build: a few names and how many more
    what.insert(what.end(), libs.begin(), libs.begin() + long(std::min(libs.size(), kNamed)));
    if (libs.size() > kNamed)
        what.push_back(std::to_string(libs.size() - kNamed) + " more libraries");
    if (g.command != t.command)
        what.push_back("the command");
    // a steering variable set on one side, or to another value: its name
    std::vector<std::string> vars;
    for (const auto *side : {&g.environment, &t.environment})
        for (const std::string &v : *side) {
            const auto &other = side == &g.environment ? t.environment : g.environment;
            const std::string name = v.substr(0, v.find('='));
            if (std::find(other.begin(), other.end(), v) == other.end() &&
                std::find(vars.begin(), vars.end(), name) == vars.end())
                vars.push_back(name);
        }
    what.insert(what.end(), vars.begin(), vars.end());
    if (g.host != t.host)
        what.push_back("the machine");
    if (g.keepFusion != t.keepFusion)
        what.push_back("fusion");
    std::string s;
    for (const auto &w : what)
        s += (s.empty() ? "" : ", ") + w;
    return s.empty() ? "nothing recorded" : s;
}

StandardChoice choosePairStandard(const RunFacts &g, const RunFacts &t)
{
    if (!g.known || !t.known)
        return {Standard::Engine,
                Reason(Said::StandardEngineUnknown, {Finding(!g.known ? Said::SideGolden : Said::SideTest)})};
    if (sorted(g.backends) != sorted(t.backends))
        return {Standard::Engine, Reason(Said::StandardEngine, {backendWords(g.backends), backendWords(t.backends)})};
    if (g.sameRunAs(t))
        return {Standard::Exact, Reason(Said::StandardExact)};
    // A device backend picks its kernels by the device (cooperative matrices, float16
    // accumulators): on other machines "Vulkan0" may be another device, and its kernels others.
    const bool deviceOnly =
        std::any_of(g.backends.begin(), g.backends.end(), [](const std::string &b) { return b != "CPU"; });
    if (deviceOnly && (g.host.empty() || g.host != t.host))
        return {Standard::Engine, Reason(Said::StandardEngineMachines, {backendWords(g.backends)})};
    return {Standard::Rounding, Reason(Said::StandardRounding, {backendWords(g.backends), runDifferences(g, t)})};
}

} // namespace llmscope
