#include "core/dump/fusion_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/dump/record_folder.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace llmscope {
namespace {

std::string toHex(const std::string &bytes)
{
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (const unsigned char b : bytes) {
        hex += digits[b >> 4];
        hex += digits[b & 15];
    }
    return hex;
}

bool fromHex(const std::string &hex, std::string &bytes)
{
    if (hex.size() % 2)
        return false;
    auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        bytes += char(hi * 16 + lo);
    }
    return true;
}

} // namespace

std::string fusionRecordPath(int64_t pid, int64_t round)
{
    return "llmscope/fusion/" + std::to_string(pid) + "/" + std::to_string(round) + ".json";
}

std::string fusionRecordJson(int64_t round, const std::vector<FusedChainRecord> &chains)
{
    return fusionRecordJson(round, fusionChainsJson(chains));
}

std::string fusionRecordJson(int64_t round, const std::string &chainsJson)
{
    return "{\"round\":" + std::to_string(round) + ",\"chains\":" + chainsJson + "}\n";
}

std::string fusionChainsJson(const std::vector<FusedChainRecord> &chains)
{
    nlohmann::json list = nlohmann::json::array();
    for (const FusedChainRecord &c : chains) {
        nlohmann::json chain{{"ids", c.ids}, {"names", c.names}, {"types", c.types}, {"backend", c.backend}};
        if (!c.outputs.empty())
            chain["outputs"] = c.outputs;
        if (!c.sources.empty()) {
            nlohmann::json params = nlohmann::json::array(), raw = nlohmann::json::array();
            for (const std::string &p : c.params)
                params.push_back(nlohmann::json::parse(p, nullptr, false)); // the probe's own: never malformed
            for (const std::string &b : c.rawParams)
                raw.push_back(toHex(b));
            chain["sources"] = c.sources;
            chain["params"] = params;
            chain["raw_params"] = raw;
        }
        list.push_back(std::move(chain));
    }
    return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::map<int64_t, std::vector<FusedChainRecord>> readFusionRecords(const std::string &dumpRoot, bool firstOnly)
{
    std::map<int64_t, std::vector<FusedChainRecord>> out;
    readRecords(
        dumpRoot, "fusion", "fusion record",
        [&out](const nlohmann::json &j, const std::string &malformed) {
            std::vector<FusedChainRecord> chains;
            for (const auto &c : j.at("chains")) {
                FusedChainRecord r;
                r.ids = c.at("ids").get<std::vector<std::string>>();
                r.names = c.at("names").get<std::vector<std::string>>();
                r.types = c.at("types").get<std::string>();
                r.backend = c.value("backend", "");
                if (r.ids.size() < 2 || r.names.size() != r.ids.size())
                    throw Error(malformed + "a chain needs two ops or more, each named");
                if (c.contains("outputs")) {
                    r.outputs = c.at("outputs").get<std::vector<std::string>>();
                    for (const std::string &o : r.outputs)
                        if (std::find(r.ids.begin(), r.ids.end() - 1, o) == r.ids.end() - 1)
                            throw Error(malformed + "a chain's other output '" + o +
                                        "' is not one of its ops before its end");
                }
                if (c.contains("sources")) {
                    r.sources = c.at("sources").get<std::vector<std::vector<std::string>>>();
                    for (const auto &p : c.at("params"))
                        r.params.push_back(p.dump());
                    for (const auto &b : c.at("raw_params")) {
                        std::string bytes;
                        if (!fromHex(b.get<std::string>(), bytes))
                            throw Error(malformed + "raw_params is not hexadecimal");
                        r.rawParams.push_back(std::move(bytes));
                    }
                    if (r.sources.size() != r.ids.size() || r.params.size() != r.ids.size() ||
                        r.rawParams.size() != r.ids.size())
                        throw Error(malformed + "a chain's sources, params and raw_params need one entry per op");
                }
                chains.push_back(std::move(r));
            }
            out[jsonInteger<int64_t>(j.at("round"), malformed + "round")] = std::move(chains);
        },
        firstOnly);
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

const FusedChainRecord *chainWriting(const std::map<int64_t, std::vector<FusedChainRecord>> &records, int64_t round,
                                     const std::string &opId)
{
    if (const FusedChainRecord *c = chainEndingAt(records, round, opId))
        return c;
    const auto r = records.find(round);
    if (r == records.end())
        return nullptr;
    for (const FusedChainRecord &c : r->second)
        if (std::find(c.outputs.begin(), c.outputs.end(), opId) != c.outputs.end())
            return &c;
    return nullptr;
}

} // namespace llmscope
