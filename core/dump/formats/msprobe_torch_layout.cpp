// msProbe's PyTorch dump: tensor files' places and dump.json's statistics.
#include "core/dump/formats/dump_formats.h"

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/dump/dump_layout.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope::formats {
namespace fs = std::filesystem;

// msProbe's PyTorch dump: dump_tensor_data/Module.{module}.{Class}.forward.{call}.{input|output}.{i}.pt
// (also Functional.linear.5.forward.input.0.pt, ...). A module runs once a token in inference,
// so its call count is the round; the rank folder (rank{R}) is the device.
bool placeMsprobeTorch(const std::string &file, const std::string &tensorsRoot, TensorRecord &rec)
{
    static const std::regex name(
        R"(^((Module|Functional|Tensor|Torch|Distributed|NPU|Aten)\.(.+))\.(forward|backward)\.(\d+)\.(input|output)\.(\d+)(\.\d+)*\.pt$)");
    std::smatch m;
    if (file.size() > 1024 || !std::regex_match(file, m, name) || m[4].str() != "forward")
        return false; // (std::regex recurses once a character: no name is that long)
    std::string module = m[3].str();
    if (m[2].str() == "Module") { // Module.{name}.{Class}: the class goes
        const size_t dot = module.rfind('.');
        if (dot == std::string::npos)
            return false;
        module.erase(dot);
    }
    const auto call = parseInt(m[5].str()), index = parseInt(m[7].str());
    if (!call || !index || *index > 1000000)
        return false;
    const size_t rank = tensorsRoot.rfind("/rank");
    rec.device = rank == std::string::npos
        ? 0
        : int(parseInt(tensorsRoot.substr(rank + 5, tensorsRoot.find('/', rank + 1) - rank - 5)).value_or(0));
    rec.pid = 0;
    rec.exec = *call;
    rec.input = m[6].str() == "input";
    rec.index = int(*index);
    rec.before = false;
    rec.opFolders = {module};
    rec.opId = module;
    rec.opName = module;
    return true;
}

namespace {

// msProbe's PyTorch dump.json: {"data": {"Module.{name}.{Class}.forward.{call}": {"input_args":
// [{"dtype", "shape", "Max", "Min", "Mean", "Norm", "data_name"}], "output": [...]}}}. Each
// tensor's statistics as a record without payload, unless its data_name file is there (then
// the .pt is the record).
// Python's json writes NaN, Infinity and -Infinity (a mask's minimum), which JSON has not:
// outside strings they read as null (that statistic unknown).
std::string withoutNonFinite(const std::vector<uint8_t> &bytes)
{
    std::string out;
    out.reserve(bytes.size());
    bool inString = false, escaped = false;
    for (size_t i = 0; i < bytes.size(); ++i) {
        const char c = char(bytes[i]);
        if (inString) {
            escaped = !escaped && c == '\\';
            inString = escaped || c != '"';
            out += c;
            continue;
        }
        inString = c == '"';
        bool replaced = false;
        for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
            if (!replaced && bytes.size() - i >= word.size() &&
                std::memcmp(bytes.data() + i, word.data(), word.size()) == 0) {
                out += "null";
                i += word.size() - 1;
                replaced = true;
            }
        if (!replaced)
            out += c;
    }
    return out;
}

} // namespace

void readMsprobeDumpJson(const std::string &file, DumpIndex &index)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(withoutNonFinite(readWholeFile(file)));
    } catch (const std::exception &e) {
        index.problems.push_back({file, std::string("dump.json does not read: ") + e.what()});
        return;
    }
    const auto data = j.is_object() ? j.find("data") : j.end();
    if (!j.is_object() || data == j.end() || !data->is_object()) {
        index.problems.push_back({file, "dump.json without msProbe's \"data\" object"});
        return;
    }
    const fs::path folder = fs::path(file).parent_path();
    std::error_code ec;
    for (auto it = data->begin(); it != data->end(); ++it) {
        if (!it.value().is_object())
            continue;
        for (const char *side : {"input_args", "output"}) {
            const auto list = it.value().find(side);
            if (list == it.value().end() || !list->is_array())
                continue;
            for (size_t i = 0; i < list->size() && i < 100000; ++i) {
                const nlohmann::json &t = (*list)[i];
                if (!t.is_object())
                    continue;
                const auto dataName = t.find("data_name");
                if (dataName != t.end() && dataName->is_string() &&
                    fs::exists(folder / "dump_tensor_data" / fs::path(dataName->get<std::string>()).filename(), ec))
                    continue;
                TensorRecord r;
                // named as its file would be: Module.{name}.{Class}.forward.{call}.{input|output}.{i}.pt
                const std::string as =
                    it.key() + "." + (side[0] == 'i' ? "input" : "output") + "." + std::to_string(i) + ".pt";
                if (!placeMsprobeTorch(as, folder.string() + "/dump_tensor_data", r))
                    continue;
                r.path = file;
                r.hasData = false;
                auto number = [&](const char *k) -> std::optional<double> {
                    const auto v = t.find(k);
                    return v != t.end() && v->is_number() ? std::optional(v->get<double>()) : std::nullopt;
                };
                if (const auto type = t.find("dtype"); type != t.end() && type->is_string()) {
                    const std::string d = type->get<std::string>();
                    r.dtype = dtypeFromName(d.rfind("torch.", 0) == 0 ? d.substr(6) : d).value_or(0);
                }
                if (const auto shape = t.find("shape"); shape != t.end() && shape->is_array())
                    for (const auto &d : *shape)
                        if (d.is_number_integer() && d.get<int64_t>() >= 0 && r.dims.size() < 16)
                            r.dims.push_back(d.get<int64_t>());
                r.stats = statsOf(number("Max"), number("Min"), number("Mean"), number("Norm"));
                addTorchRecord(index, std::move(r));
            }
        }
    }
}

} // namespace llmscope::formats
