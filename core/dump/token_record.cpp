#include "core/dump/token_record.h"

#include <nlohmann/json.hpp>

#include "core/dump/record_folder.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace llmscope {

std::string tokenRecordPath(int64_t pid, int64_t round)
{
    return "llmscope/tokens/" + std::to_string(pid) + "/" + std::to_string(round) + ".json";
}

std::string tokenRecordJson(int64_t round, const std::vector<int32_t> &tokens, bool replaced,
                            const std::vector<int32_t> &positions, const std::vector<int32_t> &sequences,
                            const std::vector<int32_t> &outputs)
{
    nlohmann::json j{{"round", round}, {"tokens", tokens}, {"replaced", replaced}};
    if (!positions.empty())
        j["positions"] = positions;
    if (!sequences.empty())
        j["sequences"] = sequences;
    if (!outputs.empty())
        j["outputs"] = outputs;
    return j.dump() + "\n";
}

std::map<int64_t, TokenRecord> readTokenRecords(const std::string &dumpRoot)
{
    std::map<int64_t, TokenRecord> out;
    readRecords(dumpRoot, "tokens", "token record", [&out](const nlohmann::json &j, const std::string &malformed) {
        TokenRecord r;
        r.tokens = jsonIntegers<int32_t>(j.at("tokens"), malformed + "tokens");
        r.replaced = j.value("replaced", false);
        if (j.contains("positions"))
            r.positions = jsonIntegers<int32_t>(j.at("positions"), malformed + "positions");
        if (j.contains("sequences"))
            r.sequences = jsonIntegers<int32_t>(j.at("sequences"), malformed + "sequences");
        if (j.contains("outputs"))
            r.outputs = jsonIntegers<int32_t>(j.at("outputs"), malformed + "outputs");
        for (int32_t o : r.outputs)
            if (o < 0 || size_t(o) >= r.tokens.size())
                throw Error(malformed + "outputs must be indices of its tokens");
        if ((!r.positions.empty() && r.positions.size() != r.tokens.size()) ||
            (!r.sequences.empty() && r.sequences.size() != r.tokens.size()))
            throw Error(malformed + "positions and sequences must have one entry a token");
        out[jsonInteger<int64_t>(j.at("round"), malformed + "round")] = std::move(r);
    });
    return out;
}

} // namespace llmscope
