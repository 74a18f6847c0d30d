#include "dump/token_record.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dump/dump_layout.h"
#include "util/error.h"
#include "util/json_integer.h"

namespace fs = std::filesystem;

namespace llmscope {

std::string tokenRecordPath(int64_t pid, int64_t round)
{
    return "llmscope/tokens/" + std::to_string(pid) + "/" + std::to_string(round) + ".json";
}

std::string tokenRecordJson(int64_t round, const std::vector<int32_t> &tokens, bool replaced,
                            const std::vector<int32_t> &positions)
{
    nlohmann::json j{{"round", round}, {"tokens", tokens}, {"replaced", replaced}};
    if (!positions.empty())
        j["positions"] = positions;
    return j.dump() + "\n";
}

std::map<int64_t, TokenRecord> readTokenRecords(const std::string &dumpRoot)
{
    fs::path root(dumpRoot);
    std::error_code ec;
    if (!fs::exists(root / "llmscope" / "tokens", ec)) // an -o folder: its first dump
        if (const auto dumps = dumpsInside(dumpRoot); !dumps.empty())
            root = dumps.front();
    std::vector<fs::path> pids;
    for (auto it = fs::directory_iterator(root / "llmscope" / "tokens", ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
        pids.push_back(it->path());
    std::sort(pids.begin(), pids.end());
    std::map<int64_t, TokenRecord> out;
    if (pids.empty())
        return out;
    for (auto it = fs::directory_iterator(pids.front(), ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        std::ifstream f(it->path());
        std::stringstream text;
        text << f.rdbuf();
        const std::string malformed = "token record '" + it->path().string() + "' is malformed: ";
        try {
            const auto j = nlohmann::json::parse(text.str());
            TokenRecord r;
            r.tokens = jsonIntegers<int32_t>(j.at("tokens"), malformed + "tokens");
            r.replaced = j.value("replaced", false);
            if (j.contains("positions"))
                r.positions = jsonIntegers<int32_t>(j.at("positions"), malformed + "positions");
            out[jsonInteger<int64_t>(j.at("round"), malformed + "round")] = std::move(r);
        } catch (const nlohmann::json::exception &e) {
            throw Error(malformed + e.what());
        }
    }
    return out;
}

} // namespace llmscope
