#include "config/driver_version.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <vector>

namespace llmscope {
namespace {

bool startsWith(const std::string &s, const char *p)
{
    return s.rfind(p, 0) == 0;
}

// "550.54.15" after ".so.": a version of at least three parts, digits and dots only
std::string versionInName(const std::string &base)
{
    const size_t so = base.find(".so.");
    if (so == std::string::npos)
        return {};
    const std::string v = base.substr(so + 4);
    const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit((unsigned char)c) || c == '.'; });
    return digits && std::count(v.begin(), v.end(), '.') >= 2 ? v : std::string();
}

// "22.3.6", "24.1" or "24.1.0-devel": two or three numbers, and a suffix of letters and digits
bool isVersion(const std::string &v)
{
    size_t i = 0, parts = 0;
    while (parts < 3) {
        const size_t start = i;
        while (i < v.size() && std::isdigit((unsigned char)v[i]))
            ++i;
        if (i == start)
            return false;
        ++parts;
        if (i < v.size() && v[i] == '.' && parts < 3)
            ++i;
        else
            break;
    }
    if (parts < 2)
        return false;
    if (i < v.size() && v[i] == '-' && i + 1 < v.size())
        return std::all_of(v.begin() + std::ptrdiff_t(i) + 1, v.end(), [](char c) { return std::isalnum((unsigned char)c); });
    return i == v.size();
}

// "Mesa 22.3.6" (or "Mesa 24.1.0-devel") where the bytes hold one
std::string mesaVersionIn(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    constexpr size_t kChunk = size_t(1) << 20, kKeep = 64;
    constexpr uint64_t kMost = uint64_t(512) << 20;
    static const std::string mark = "Mesa ";
    std::vector<char> buf;
    uint64_t read = 0;
    while (in && read < kMost) {
        const size_t kept = buf.size();
        buf.resize(kept + kChunk);
        in.read(buf.data() + kept, std::streamsize(kChunk));
        const size_t got = size_t(in.gcount());
        buf.resize(kept + got);
        read += got;
        for (auto it = std::search(buf.begin(), buf.end(), mark.begin(), mark.end()); it != buf.end();
             it = std::search(it + 1, buf.end(), mark.begin(), mark.end())) {
            auto v = it + std::ptrdiff_t(mark.size());
            std::string version;
            while (v != buf.end() && (std::isalnum((unsigned char)*v) || *v == '.' || *v == '-') && version.size() < 32)
                version += *v++;
            if (v == buf.end() && got == kChunk)
                break; // cut by the chunk: read on
            if (isVersion(version))
                return mark + version;
        }
        if (got == 0)
            break;
        if (buf.size() > kKeep) // the tail carries a mark cut by the chunk into the next
            buf.erase(buf.begin(), buf.end() - std::ptrdiff_t(kKeep));
    }
    return {};
}

} // namespace

bool isDriverLibrary(const std::string &base)
{
    return startsWith(base, "libvulkan_") || startsWith(base, "libcuda.so") || startsWith(base, "libnvidia-") ||
           startsWith(base, "libamdhip64.so") || startsWith(base, "libhsa-runtime64.so") || startsWith(base, "libze_intel");
}

std::string driverVersion(const std::string &path)
{
    const size_t slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (const std::string v = versionInName(base); !v.empty())
        return v;
    return mesaVersionIn(path);
}

} // namespace llmscope
