#include "core/select/dynamic_config.h"

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope {

DynamicConfig applyDynamicConfig(const std::string &jsonText, const Selection &base)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(jsonText);
    } catch (const nlohmann::json::exception &e) {
        throw Error(std::string("config: not valid JSON: ") + e.what());
    }
    if (!j.is_object())
        throw Error("config: the top level must be an object such as {\"ids\": \"3_1\"}");
    DynamicConfig out{base, {}};
    Selection &s = out.selection;
    for (const auto &[key, value] : j.items()) {
        if (!value.is_string())
            throw Error("config: '" + key + "' must be a string (msit's config uses string values)");
        const std::string v = value.get<std::string>();
        try {
            if (key == "dump_enable")
                s.enabled = parseBoolOption("dump_enable", v);
            else if (key == "er")
                s.rounds = Rounds::parse(v, true);
            else if (key == "ids")
                s.ids = OpIds::parse(v);
            else if (key == "child")
                s.child = parseBoolOption("child", v);
            else if (key == "device")
                s.devices = parseDevices(v);
            else if (key == "seq")
                s.sequences = parseSequences(v);
            else
                out.warnings.push_back("config: unknown key '" + key + "' ignored");
        } catch (const Error &e) {
            throw Error(std::string("config: ") + e.what());
        }
    }
    return out;
}

DynamicConfig loadDynamicConfig(const std::string &path, const Selection &base)
{
    const auto bytes = readWholeFile(path);
    try {
        return applyDynamicConfig(std::string(bytes.begin(), bytes.end()), base);
    } catch (const Error &e) {
        throw Error("'" + path + "': " + e.what());
    }
}

} // namespace llmscope
