#include "core/dump/dump_layout.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/util/text.h"

namespace llmscope {

std::string dumpFolderName(std::time_t when)
{
    std::tm tm{};
    localtime_r(&when, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d_%H%M%S", &tm);
    return std::string("msit_dump_") + buf;
}

std::vector<std::string> dumpsInside(const std::string &folder)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(folder, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
        if (it->path().filename().string().rfind("msit_dump_", 0) == 0 && it->is_directory(ec))
            out.push_back(it->path().string());
    std::sort(out.begin(), out.end()); // the timestamp in the name sorts by time
    return out;
}

bool isTensorFile(std::string_view path)
{
    // a name before the extension, as std::filesystem's extension() asks (".bin" alone has none)
    if (path.size() < 5 || path[path.size() - 4] != '.' || path[path.size() - 5] == '/')
        return false;
    char ext[3];
    for (size_t i = 0; i < 3; ++i)
        ext[i] = char(std::tolower(static_cast<unsigned char>(path[path.size() - 3 + i])));
    return std::string_view(ext, 3) == "bin" || std::string_view(ext, 3) == "npy";
}

std::string sanitizeName(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (unsigned char c : name)
        out += (c < 0x20 || c == 0x7F || c == '/' || c == '\\') ? '_' : static_cast<char>(c);
    for (size_t i = 0; i < out.size() && out[i] == '.'; ++i)
        out[i] = '_'; // no ".", "..", or hidden names
    if (out.size() > 200)
        out.resize(200);
    if (out.empty())
        out = "_";
    return out;
}

std::string roundFolder(int device, int64_t pid, int64_t exec)
{
    return "tensors/" + std::to_string(device) + "_" + std::to_string(pid) + "/" + std::to_string(exec);
}

std::string opPath(const std::vector<std::string> &folders)
{
    std::string s;
    for (const auto &f : folders)
        s += (s.empty() ? "" : "/") + f;
    return s;
}

std::string opFolderName(int index, std::string_view name)
{
    return std::to_string(index) + "_" + sanitizeName(name);
}

std::string opRelativePath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders)
{
    std::string p = roundFolder(device, pid, exec);
    for (const auto &f : opFolders)
        p += "/" + sanitizeName(f);
    return p;
}

std::string tensorRelativePath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                               bool before, bool input, int index)
{
    return opRelativePath(device, pid, exec, opFolders) + (before ? "/before/" : "/after/") +
        tensorFileName(input, index);
}

std::string tensorFileName(bool input, int index)
{
    return std::string(input ? "intensor" : "outtensor") + std::to_string(index) + ".bin";
}

std::optional<DevicePid> parseDevicePid(std::string_view folder)
{
    const size_t us = folder.rfind('_');
    if (us == std::string_view::npos) {
        auto pid = parseInt(folder);
        if (!pid)
            return std::nullopt;
        return DevicePid{-1, *pid};
    }
    auto dev = parseInt(folder.substr(0, us));
    auto pid = parseInt(folder.substr(us + 1));
    if (!dev || !pid)
        return std::nullopt;
    return DevicePid{static_cast<int>(*dev), *pid};
}

std::optional<OpFolder> parseOpFolder(std::string_view folder)
{
    const size_t us = folder.find('_');
    if (us == std::string_view::npos || us == 0)
        return std::nullopt;
    auto idx = parseInt(folder.substr(0, us));
    if (!idx || *idx < 0)
        return std::nullopt;
    return OpFolder{static_cast<int>(*idx), std::string(folder.substr(us + 1))};
}

std::optional<TensorFileName> parseTensorFileName(std::string_view file)
{
    const std::string lower = toLower(file);
    if (lower.size() < 5 || lower.substr(lower.size() - 4) != ".bin")
        return std::nullopt;
    std::string_view rest(lower);
    rest.remove_suffix(4);
    TensorFileName out;
    if (startsWith(rest, "intensor"))
        rest.remove_prefix(8);
    else if (startsWith(rest, "outtensor")) {
        out.input = false;
        rest.remove_prefix(9);
    } else
        return std::nullopt;
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
        ++digits;
    auto idx = parseInt(rest.substr(0, digits));
    if (!idx)
        return std::nullopt;
    out.index = static_cast<int>(*idx);
    rest.remove_prefix(digits);
    if (!rest.empty()) {
        if (rest[0] != '_')
            return std::nullopt;
        // Keep the parameter name's original casing.
        out.param = std::string(file.substr(file.size() - 4 - (rest.size() - 1), rest.size() - 1));
    }
    return out;
}

} // namespace llmscope
