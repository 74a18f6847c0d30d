// At load, before the program's main and its threads: the probe takes itself out of
// LD_PRELOAD so that processes the program starts run without it, unless llmscope asked for
// them too (LLMSCOPE_CHILDREN=1, --children) or this process is a shell or launcher, which
// runs no graph itself (bash script.sh, a script's #!/bin/sh, env, timeout). What the user
// preloaded stays.
#include <cstdlib>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

namespace {

std::string ownPath()
{
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void *>(&ownPath), &info) == 0 || !info.dli_fname)
        return {};
    return info.dli_fname;
}

std::string baseName(const std::string &p)
{
    const size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

bool isLauncher()
{
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    const std::string name = baseName(std::string(exe, size_t(n)));
    // Shells, and programs that run another one: wrappers, tracers and profilers.
    for (const char *l :
         {"sh",      "bash", "dash", "zsh",    "ksh",  "busybox", "env",     "nohup",    "timeout", "taskset",
          "numactl", "nice", "chrt", "stdbuf", "time", "setsid",  "xargs",   "valgrind", "gdb",     "strace",
          "ltrace",  "perf", "nsys", "ncu",    "rr",   "mpirun",  "mpiexec", "srun",     "xvfb-run"})
        if (name == l || name.rfind(std::string(l) + ".", 0) == 0) // valgrind runs valgrind.bin
            return true;
    return false;
}

__attribute__((constructor)) void keepProbeFromChildren()
{
    const char *children = std::getenv("LLMSCOPE_CHILDREN");
    const char *preload = std::getenv("LD_PRELOAD");
    if ((children && std::strcmp(children, "1") == 0) || !preload || isLauncher())
        return;
    const std::string self = ownPath(), selfName = baseName(self);
    std::string kept, entry;
    const std::string list = preload;
    for (size_t i = 0; i <= list.size(); ++i) {
        const char c = i < list.size() ? list[i] : ':';
        if (c != ':' && c != ' ') {
            entry += c;
            continue;
        }
        if (!entry.empty() && entry != self && baseName(entry) != selfName)
            kept += (kept.empty() ? "" : ":") + entry;
        entry.clear();
    }
    if (kept.empty())
        ::unsetenv("LD_PRELOAD");
    else
        ::setenv("LD_PRELOAD", kept.c_str(), 1);
}

} // namespace
