#include "probe/run_identity.h"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

extern char **environ;

namespace llmscope::probe {
namespace {

// The NT_GNU_BUILD_ID note of a loaded object, read from its mapped program headers.
std::string buildId(const dl_phdr_info *info)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE)
            continue;
        const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
        const char *end = p + ph.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) n;
            std::memcpy(&n, p, sizeof n);
            const char *name = p + sizeof n;
            const char *desc = name + ((n.n_namesz + 3) & ~3u);
            const char *next = desc + ((n.n_descsz + 3) & ~3u);
            if (next > end)
                break;
            if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                std::string id;
                for (unsigned k = 0; k < n.n_descsz; ++k) {
                    const auto b = static_cast<unsigned char>(desc[k]);
                    id += hex[b >> 4];
                    id += hex[b & 15];
                }
                return id;
            }
            p = next;
        }
    }
    return "-";
}

} // namespace

std::vector<std::string> commandLine()
{
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t from = 0; from < all.size();) {
        const size_t nul = all.find('\0', from);
        args.push_back(all.substr(from, nul == std::string::npos ? std::string::npos : nul - from));
        if (nul == std::string::npos)
            break;
        from = nul + 1;
    }
    return args;
}

std::string hostId()
{
    std::ifstream f("/etc/machine-id");
    std::string id;
    if (std::getline(f, id) && !id.empty())
        return id;
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

std::vector<std::string> steeringEnvironment()
{
    static const char *const prefixes[] = {"GGML_", "LLAMA_", "OMP_",  "GOMP_",     "KMP_", "VK_",  "MESA_", "RADV_",
                                           "CUDA_", "HIP_",   "ROCR_", "OPENBLAS_", "MKL_", "ZES_", "SYCL_"};
    // and the ones the user named (llmscope dump --record-env A,B)
    std::vector<std::string> named;
    if (const char *list = std::getenv("LLMSCOPE_RECORD_ENV"))
        for (const char *p = list; *p;) {
            const char *comma = std::strchr(p, ',');
            const size_t n = comma ? size_t(comma - p) : std::strlen(p);
            if (n)
                named.emplace_back(p, n);
            p += comma ? n + 1 : n;
        }
    std::vector<std::string> vars;
    for (char **e = environ; e && *e; ++e) {
        const char *eq = std::strchr(*e, '=');
        const std::string name(*e, eq ? size_t(eq - *e) : std::strlen(*e));
        bool wanted = std::find(named.begin(), named.end(), name) != named.end();
        for (const char *p : prefixes)
            wanted |= std::strncmp(*e, p, std::strlen(p)) == 0;
        if (wanted)
            vars.emplace_back(*e);
    }
    std::sort(vars.begin(), vars.end());
    return vars;
}

std::vector<std::string> ggmlLibraries(const std::vector<LoadedObject> &objects)
{
    std::vector<std::string> libs;
    for (const LoadedObject &o : objects) {
        const size_t slash = o.path.rfind('/');
        const std::string_view base = std::string_view(o.path).substr(slash == std::string::npos ? 0 : slash + 1);
        if (base.substr(0, 7) == "libggml" || base.substr(0, 8) == "libllama")
            libs.push_back(o.path + " " + o.buildId);
    }
    return libs;
}

std::vector<LoadedObject> loadedObjects()
{
    std::vector<LoadedObject> objects;
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *out) {
            const char *path = info->dlpi_name;
            if (!path || !*path) // the program itself
                return 0;
            LoadedObject o;
            o.path = path;
            struct stat st {};
            o.bytes = ::stat(path, &st) == 0 ? uint64_t(st.st_size) : 0;
            o.buildId = buildId(info);
            static_cast<std::vector<LoadedObject> *>(out)->push_back(std::move(o));
            return 0;
        },
        &objects);
    return objects;
}

std::string workingDirectory()
{
    char buf[4096];
    return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string();
}

} // namespace llmscope::probe
