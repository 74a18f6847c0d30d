#include "core/util/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/error.h"

namespace llmscope {
namespace {

std::string sysError(const std::string &what, const std::string &path)
{
    return what + " '" + path + "': " + std::strerror(errno);
}

} // namespace

void writeFileAtomicAt(int dirFd, const std::string &name, const std::string &shownPath,
                       const std::vector<std::span<const uint8_t>> &parts, mode_t mode)
{
    static std::atomic<unsigned> counter{0};
    const std::string tmp = name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    int fd = ::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        throw Error(sysError("cannot create", shownPath + ".tmp"));
    auto fail = [&](const std::string &msg) {
        const int saved = errno;
        ::close(fd);
        ::unlinkat(dirFd, tmp.c_str(), 0);
        errno = saved;
        throw Error(sysError(msg, shownPath));
    };
    ::fchmod(fd, mode); // exact mode whatever the umask
    for (const auto &part : parts) {
        const uint8_t *p = part.data();
        size_t left = part.size();
        while (left) {
            ssize_t w = ::write(fd, p, left);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                fail("cannot write");
            }
            p += w;
            left -= static_cast<size_t>(w);
        }
    }
    if (::close(fd) != 0) {
        fd = -1;
        const int saved = errno;
        ::unlinkat(dirFd, tmp.c_str(), 0);
        errno = saved;
        throw Error(sysError("cannot write", shownPath));
    }
    if (::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) != 0) {
        const int saved = errno;
        ::unlinkat(dirFd, tmp.c_str(), 0);
        errno = saved;
        throw Error(sysError("cannot rename into", shownPath));
    }
}

void writeFileAtomic(const std::string &path, const std::vector<std::span<const uint8_t>> &parts, mode_t mode)
{
    writeFileAtomicAt(AT_FDCWD, path, path, parts, mode);
}

void writeFileAtomic(const std::string &path, const std::string &content, mode_t mode)
{
    writeFileAtomic(path, {std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(content.data()), content.size())},
                    mode);
}

void makeDirs(const std::string &path, mode_t mode)
{
    std::string dir = path;
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    if (dir.empty())
        return;
    auto made = [&] {
        if (::mkdir(dir.c_str(), mode) != 0)
            return false;
        ::chmod(dir.c_str(), mode); // exact mode whatever the umask
        return true;
    };
    // The folder itself first: a dump makes one per round under folders that exist already,
    // and each mkdir of an existing parent is a system call.
    if (made())
        return;
    if (errno == ENOENT) {
        const size_t slash = dir.rfind('/');
        if (slash != std::string::npos && slash > 0)
            makeDirs(dir.substr(0, slash), mode);
        if (made())
            return;
    }
    if (errno != EEXIST)
        throw Error(sysError("cannot create folder", dir));
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error("'" + dir + "' exists and is not a folder");
}

std::vector<uint8_t> readWholeFile(const std::string &path)
{
    return readWholeFileAt(AT_FDCWD, path, path, false);
}

std::vector<uint8_t> readWholeFileAt(int dirFd, const std::string &name, const std::string &shownPath, bool noFollow)
{
    const std::string &path = shownPath;
    int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        throw Error(sysError("cannot open", path));
    std::vector<uint8_t> out;
    uint8_t buf[65536];
    for (;;) {
        ssize_t r = ::read(fd, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            const int saved = errno;
            ::close(fd);
            errno = saved;
            throw Error(sysError("cannot read", path));
        }
        if (r == 0)
            break;
        out.insert(out.end(), buf, buf + r);
    }
    ::close(fd);
    return out;
}

} // namespace llmscope
