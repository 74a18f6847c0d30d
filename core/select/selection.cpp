#include "core/select/selection.h"

#include <algorithm>

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {

bool Selection::selectsOp(std::string_view opId, std::string_view opType) const
{
    if (ids.empty() && opNames.empty())
        return true;
    if (ids.matches(opId, child))
        return true;
    const std::string type = toLower(opType);
    return std::any_of(opNames.begin(), opNames.end(), [&](const std::string &p) { return startsWith(type, p); });
}

bool Selection::selectsOpPath(std::span<const OpRef> path) const
{
    if (path.empty())
        return false;
    if (selectsOp(path.back().id, path.back().type))
        return true;
    if (!child || opNames.empty())
        return false;
    return std::any_of(path.begin(), path.end() - 1, [&](const OpRef &a) { return selectsOp(a.id, a.type); });
}

bool Selection::selectsDevice(int device) const
{
    return devices.empty() || std::find(devices.begin(), devices.end(), device) != devices.end();
}

bool Selection::wantsTensor(bool before, bool input) const
{
    const bool partOk = part == TensorPart::Both || (part == TensorPart::Inputs) == input;
    switch (time) {
    case DumpTime::Before: return partOk && before;
    case DumpTime::After: return partOk && !before;
    case DumpTime::Both: return partOk;
    case DumpTime::InputsBeforeOutputsAfter: return partOk && before == input;
    }
    return false;
}

std::vector<std::string> parseOpNames(std::string_view text)
{
    std::vector<std::string> out;
    for (const auto &raw : split(text, ',')) {
        const std::string name = toLower(trim(raw));
        if (!name.empty())
            out.push_back(name);
    }
    return out;
}

bool parseBoolOption(std::string_view option, std::string_view text)
{
    const std::string t = toLower(trim(text));
    if (t == "true" || t == "1")
        return true;
    if (t == "false" || t == "0")
        return false;
    throw Error(std::string(option) + ": '" + std::string(text) + "' is not true or false");
}

DumpTime parseDumpTime(std::string_view text)
{
    auto v = parseInt(trim(text));
    if (!v || *v < 0 || *v > 3)
        throw Error("time: '" + std::string(text) +
                    "' must be 0 (before), 1 (after), 2 (both) or 3 (inputs before, outputs after)");
    return static_cast<DumpTime>(*v);
}

TensorPart parseTensorPart(std::string_view text)
{
    auto v = parseInt(trim(text));
    if (!v || *v < 0 || *v > 2)
        throw Error("stp: '" + std::string(text) + "' must be 0 (inputs), 1 (outputs) or 2 (both)");
    return static_cast<TensorPart>(*v);
}

std::vector<int> parseDevices(std::string_view text)
{
    std::vector<int> out;
    const std::string t = trim(text);
    if (t.empty())
        return out;
    for (const auto &raw : split(t, ',')) {
        auto v = parseInt(trim(raw));
        if (!v || *v < 0 || *v > 65535)
            throw Error("device: '" + trim(raw) + "' is not a device number");
        out.push_back(static_cast<int>(*v));
    }
    return out;
}

std::vector<int> parseSequences(std::string_view text)
{
    std::vector<int> out;
    for (const auto &raw : split(trim(text), ',')) {
        if (trim(raw).empty() && trim(text).empty())
            continue;
        auto v = parseInt(trim(raw));
        if (!v || *v < 0 || *v > 1000000)
            throw Error("-seq: '" + trim(raw) +
                        "' is not a sequence id (llama.cpp's seq_id: llama-server's slot, "
                        "0 for a program that decodes one sequence)");
        out.push_back(static_cast<int>(*v));
    }
    return out;
}

bool Selection::selectsSequences(const std::vector<int32_t> &roundSequences) const
{
    if (sequences.empty())
        return true;
    for (int32_t s : roundSequences)
        if (std::find(sequences.begin(), sequences.end(), s) != sequences.end())
            return true;
    return false;
}

} // namespace llmscope
