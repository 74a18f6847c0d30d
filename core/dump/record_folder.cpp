#include "core/dump/record_folder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/dump/dump_layout.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace fs = std::filesystem;

namespace llmscope {

std::string firstRecordFolder(const std::string &dumpRoot, const std::string &kind)
{
    fs::path root(dumpRoot);
    std::error_code ec;
    if (!fs::exists(root / "llmscope" / kind, ec)) // an -o folder: its first dump
        if (const auto dumps = dumpsInside(dumpRoot); !dumps.empty())
            root = dumps.front();
    std::vector<fs::path> pids;
    for (auto it = fs::directory_iterator(root / "llmscope" / kind, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
        pids.push_back(it->path());
    std::sort(pids.begin(), pids.end());
    return pids.empty() ? std::string() : pids.front().string();
}

void readRecords(const std::string &dumpRoot, const std::string &kind, const std::string &what,
                 const std::function<void(const nlohmann::json &record, const std::string &malformed)> &read,
                 bool firstOnly)
{
    const std::string folder = firstRecordFolder(dumpRoot, kind);
    if (folder.empty())
        return;
    std::error_code ec;
    std::vector<fs::path> files;
    for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        files.push_back(it->path());
    if (firstOnly && !files.empty()) { // "{round}.json": the lowest round, by number
        const auto round = [](const fs::path &p) { return parseInt(p.stem().string()).value_or(INT64_MAX); };
        files = {*std::min_element(files.begin(), files.end(),
                                   [&round](const fs::path &a, const fs::path &b) { return round(a) < round(b); })};
    }
    for (const fs::path &path : files) {
        std::ifstream f(path);
        std::stringstream text;
        text << f.rdbuf();
        const std::string malformed = what + " '" + path.string() + "' is malformed: ";
        try {
            read(nlohmann::json::parse(text.str()), malformed);
        } catch (const nlohmann::json::exception &e) {
            throw Error(malformed + e.what());
        } catch (const Error &e) {
            const std::string message = e.what();
            throw Error(message.rfind(malformed, 0) == 0 ? message : malformed + message);
        }
    }
}

} // namespace llmscope
