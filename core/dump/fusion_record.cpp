#include "dump/fusion_record.h"

#include <nlohmann/json.hpp>

#include "dump/record_folder.h"
#include "util/error.h"
#include "util/json_integer.h"

namespace llmscope {

std::string fusionRecordPath(int64_t pid, int64_t round)
{
    return "llmscope/fusion/" + std::to_string(pid) + "/" + std::to_string(round) + ".json";
}

std::string fusionRecordJson(int64_t round, const std::vector<FusedChainRecord> &chains)
{
    nlohmann::json list = nlohmann::json::array();
    for (const FusedChainRecord &c : chains)
        list.push_back({{"ids", c.ids}, {"names", c.names}, {"types", c.types}, {"backend", c.backend}});
    return nlohmann::json{{"round", round}, {"chains", list}}.dump(-1, ' ', false,
                                                                   nlohmann::json::error_handler_t::replace) +
           "\n";
}

std::map<int64_t, std::vector<FusedChainRecord>> readFusionRecords(const std::string &dumpRoot)
{
    std::map<int64_t, std::vector<FusedChainRecord>> out;
    readRecords(dumpRoot, "fusion", "fusion record", [&out](const nlohmann::json &j, const std::string &malformed) {
        std::vector<FusedChainRecord> chains;
        for (const auto &c : j.at("chains")) {
            FusedChainRecord r;
            r.ids = c.at("ids").get<std::vector<std::string>>();
            r.names = c.at("names").get<std::vector<std::string>>();
            r.types = c.at("types").get<std::string>();
            r.backend = c.value("backend", "");
            if (r.ids.size() < 2 || r.names.size() != r.ids.size())
                throw Error(malformed + "a chain needs two ops or more, each named");
            chains.push_back(std::move(r));
        }
        out[jsonInteger<int64_t>(j.at("round"), malformed + "round")] = std::move(chains);
    });
    return out;
}

const FusedChainRecord *chainEndingAt(const std::map<int64_t, std::vector<FusedChainRecord>> &records, int64_t round,
                                      const std::string &opId)
{
    const auto r = records.find(round);
    if (r == records.end())
        return nullptr;
    for (const FusedChainRecord &c : r->second)
        if (!c.ids.empty() && c.ids.back() == opId)
            return &c;
    return nullptr;
}

} // namespace llmscope
