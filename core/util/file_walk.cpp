#include "core/util/file_walk.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/error.h"

namespace llmscope {
namespace {

// Whether the link at path resolves to a file inside the walked tree (rootReal: its real path).
bool linkStaysInside(const std::string &path, const std::string &rootReal)
{
    char *real = ::realpath(path.c_str(), nullptr);
    if (!real)
        return false;
    const std::string r(real);
    std::free(real);
    return r.size() > rootReal.size() && r.compare(0, rootReal.size(), rootReal) == 0 && r[rootReal.size()] == '/';
}

void walkDir(int fd, std::string &path, const std::function<void(const std::string &)> &file,
             const std::function<void(const std::string &, const std::string &)> &problem,
             const std::function<bool(const std::string &)> &enter, int depth, const std::string &rootReal)
{
    DIR *dir = ::fdopendir(fd); // owns fd from here
    if (!dir) {
        ::close(fd);
        problem(path, std::strerror(errno));
        return;
    }
    const size_t base = path.size();
    while (dirent *e = ::readdir(dir)) {
        const char *name = e->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
            continue;
        unsigned char type = e->d_type;
        bool link = type == DT_LNK;
        if (type == DT_UNKNOWN) {
            struct stat st {};
            if (::fstatat(::dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue; // gone meanwhile
            link = S_ISLNK(st.st_mode);
            type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
        }
        if (link) { // followed to a file inside the tree only (-symlink's links); never to folders
            struct stat st {};
            if (::fstatat(::dirfd(dir), name, &st, 0) != 0)
                continue; // dangling
            type = S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        }
        path.resize(base);
        path += '/';
        path += name;
        if (link && type == DT_REG && !linkStaysInside(path, rootReal)) {
            problem(path, "a symbolic link that leads outside the dump; not read");
            continue;
        }
        if (type == DT_REG) {
            file(path);
        } else if (type == DT_DIR) {
            if (enter && !enter(path))
                continue;
            if (depth > 64) {
                problem(path, "folders nested too deep");
                continue;
            }
            const int sub = ::openat(::dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            if (sub < 0) {
                if (errno != EACCES) // unreadable folders are skipped quietly, like other tools do
                    problem(path, std::strerror(errno));
                continue;
            }
            walkDir(sub, path, file, problem, enter, depth + 1, rootReal);
        }
    }
    path.resize(base);
    ::closedir(dir);
}

} // namespace

void walkFiles(const std::string &root, const std::function<void(const std::string &)> &file,
               const std::function<void(const std::string &, const std::string &)> &problem)
{
    walkFiles(root, file, problem, {}, root);
}

void walkFiles(const std::string &root, const std::function<void(const std::string &)> &file,
               const std::function<void(const std::string &, const std::string &)> &problem,
               const std::function<bool(const std::string &)> &enter, const std::string &boundary)
{
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw Error("cannot open folder '" + root + "': " + std::strerror(errno));
    std::string path = root;
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    char *real = ::realpath(boundary.c_str(), nullptr);
    const std::string rootReal = real ? real : boundary;
    std::free(real);
    walkDir(fd, path, file, problem, enter, 0, rootReal);
}

} // namespace llmscope
