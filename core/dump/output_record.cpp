#include "core/dump/output_record.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "core/dump/record_folder.h"
#include "core/tensor/sketch.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace llmscope {

std::string outputRecordPath(int64_t pid, int64_t round)
{
    return "llmscope/outputs/" + std::to_string(pid) + "/" + std::to_string(round) + ".json";
}

namespace {
// JSON has no NaN or infinity: those are written as strings, as msit writes them.
nlohmann::json number(double v)
{
    if (std::isfinite(v))
        return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}
double fromNumber(const nlohmann::json &j)
{
    if (j.is_number())
        return j.get<double>();
    const std::string s = j.get<std::string>();
    if (s == "nan")
        return std::nan("");
    if (s == "inf" || s == "-inf")
        return s == "inf" ? HUGE_VAL : -HUGE_VAL;
    throw Error("'" + s + "' is no number");
}
} // namespace

std::string outputRecordJson(int64_t round, const OutputRecord &r)
{
    const TensorStats &s = r.stats;
    nlohmann::json j{{"round", round},
                     {"name", r.name},
                     {"dtype", r.dtype},
                     {"shape", r.dims},
                     {"digest", encodeDigest(s.digest)},
                     {"count", s.count},
                     {"max", number(s.max)},
                     {"min", number(s.min)},
                     {"mean", number(s.mean)},
                     {"l2norm", number(s.l2norm)},
                     {"nan", s.nanCount},
                     {"inf", s.infCount}};
    if (!s.sketch.empty())
        j["sketch"] = encodeSketch(s.sketch);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::map<int64_t, OutputRecord> readOutputRecords(const std::string &dumpRoot)
{
    std::map<int64_t, OutputRecord> out;
    readRecords(dumpRoot, "outputs", "output record", [&out](const nlohmann::json &j, const std::string &malformed) {
        OutputRecord r;
        r.name = j.at("name").get<std::string>();
        r.dtype = j.at("dtype").get<std::string>();
        r.dims = jsonIntegers<int64_t>(j.at("shape"), malformed + "shape");
        TensorStats &s = r.stats;
        s.digest = decodeDigest(j.at("digest").get<std::string>());
        s.count = jsonInteger<uint64_t>(j.at("count"), malformed + "count");
        s.max = fromNumber(j.at("max"));
        s.min = fromNumber(j.at("min"));
        s.mean = fromNumber(j.at("mean"));
        s.l2norm = fromNumber(j.at("l2norm"));
        s.nanCount = jsonInteger<uint64_t>(j.at("nan"), malformed + "nan");
        s.infCount = jsonInteger<uint64_t>(j.at("inf"), malformed + "inf");
        if (j.contains("sketch"))
            if (auto sk = decodeSketch(j.at("sketch").get<std::string>()))
                s.sketch = std::move(*sk);
        out[jsonInteger<int64_t>(j.at("round"), malformed + "round")] = std::move(r);
    });
    return out;
}

} // namespace llmscope
