#include "util/file_walk.h"

#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

namespace llmscope {
namespace {

void walkDir(int fd, std::string &path, const std::function<void(const std::string &)> &file,
             const std::function<void(const std::string &, const std::string &)> &problem, int depth)
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
        if (type == DT_UNKNOWN || type == DT_LNK) {
            struct stat st {};
            const int flags = type == DT_LNK ? 0 : AT_SYMLINK_NOFOLLOW;
            if (::fstatat(::dirfd(dir), name, &st, flags) != 0)
                continue; // a dangling link, or gone meanwhile
            type = S_ISREG(st.st_mode) ? DT_REG : (S_ISDIR(st.st_mode) && e->d_type != DT_LNK ? DT_DIR : DT_UNKNOWN);
        }
        path.resize(base);
        path += '/';
        path += name;
        if (type == DT_REG) {
            file(path);
        } else if (type == DT_DIR) {
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
            walkDir(sub, path, file, problem, depth + 1);
        }
    }
    path.resize(base);
    ::closedir(dir);
}

} // namespace

void walkFiles(const std::string &root, const std::function<void(const std::string &)> &file,
               const std::function<void(const std::string &, const std::string &)> &problem)
{
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw Error("cannot open folder '" + root + "': " + std::strerror(errno));
    std::string path = root;
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    walkDir(fd, path, file, problem, 0);
}

} // namespace llmscope
