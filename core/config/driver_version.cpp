#include "core/config/driver_version.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <vector>

namespace llmscope {
namespace {

bool startsWith(const std::string &s, const char *p)
{
    return s.rfind(p, 0) == 0;
}

std::string baseOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "550.54.15" after ".so.": a version of at least three parts, digits and dots only
std::string versionInName(const std::string &base)
{
    const size_t so = base.find(".so.");
    if (so == std::string::npos)
        return {};
    const std::string v = base.substr(so + 4);
    const bool digits = !v.empty() &&
        std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit((unsigned char)c) || c == '.'; });
    return digits && std::count(v.begin(), v.end(), '.') >= 2 ? v : std::string();
}

// A character of a version as distributions write Mesa's: 23.2.1-1ubuntu3.1~22.04.2, 24.1.2-arch1.1
bool versionChar(char c)
{
    return std::isalnum((unsigned char)c) || c == '.' || c == '-' || c == '+' || c == '~';
}

// "22.3.6", "24.1" or "24.1.0-devel": two or three numbers, then a suffix after a dash
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
        return std::all_of(v.begin() + std::ptrdiff_t(i) + 1, v.end(), versionChar);
    return i == v.size();
}

// "Mesa 22.3.6" (or "Mesa 24.1.0-devel") where a regular file's bytes hold one. Opened without
// blocking (a path that is no longer the library may be a FIFO), read to its size or 512 MiB.
std::string mesaVersionIn(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return {};
    struct stat st {};
    std::string found;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        constexpr size_t kChunk = size_t(1) << 20, kKeep = 64;
        const uint64_t most = std::min<uint64_t>(uint64_t(st.st_size), uint64_t(512) << 20);
        static const std::string mark = "Mesa ";
        std::vector<char> buf;
        uint64_t read = 0;
        while (found.empty() && read < most) {
            const size_t kept = buf.size(), want = size_t(std::min<uint64_t>(kChunk, most - read));
            buf.resize(kept + want);
            const ssize_t got = ::read(fd, buf.data() + kept, want);
            if (got <= 0)
                break;
            buf.resize(kept + size_t(got));
            read += uint64_t(got);
            const bool more = read < most;
            for (auto it = std::search(buf.begin(), buf.end(), mark.begin(), mark.end()); it != buf.end();
                 it = std::search(it + 1, buf.end(), mark.begin(), mark.end())) {
                auto v = it + std::ptrdiff_t(mark.size());
                std::string version;
                while (v != buf.end() && versionChar(*v) && version.size() < 48)
                    version += *v++;
                if (v == buf.end() && more)
                    break; // cut by the chunk: the kept tail carries it into the next
                while (!version.empty() && version.back() == '.') // a sentence's full stop
                    version.pop_back();
                if (isVersion(version)) {
                    found = mark + version;
                    break;
                }
            }
            if (buf.size() > kKeep)
                buf.erase(buf.begin(), buf.end() - std::ptrdiff_t(kKeep));
        }
    }
    ::close(fd);
    return found;
}

} // namespace

bool isDriverLibrary(const std::string &base)
{
    return startsWith(base, "libvulkan_") || startsWith(base, "libcuda.so") || startsWith(base, "libnvidia-") ||
        startsWith(base, "libGLX_nvidia") || startsWith(base, "libamdhip64.so") ||
        startsWith(base, "libhsa-runtime64.so") || startsWith(base, "libze_intel");
}

std::string driverVersion(const std::string &path)
{
    // a link name (libcuda.so.1) leads to the file that carries the version (libcuda.so.550.54.15)
    char resolved[PATH_MAX];
    const std::string real = ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
    for (const std::string &p : {real, path})
        if (const std::string v = versionInName(baseOf(p)); !v.empty())
            return v;
    // Mesa's drivers state theirs in their text; the others' bytes are not searched
    return startsWith(baseOf(path), "libvulkan_") || startsWith(baseOf(real), "libvulkan_") ? mesaVersionIn(real)
                                                                                            : std::string();
}

} // namespace llmscope
