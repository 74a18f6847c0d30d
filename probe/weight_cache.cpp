#include "probe/weight_cache.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/tensor/sketch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope::probe {

namespace {

// The definitions whose results the cache holds: another sketch or digest, another file. 3: the
// statistics of dtypes other than float32 summed as float32's (core/tensor/stats.cpp), in other
// rounding than 2's.
const std::string &header()
{
    static const std::string h = std::string("llmscope weight statistics 3 ") + kSketchPrefix + " " + kDigestPrefix;
    return h;
}
constexpr size_t kLargestFile = size_t(64) << 20; // a model's entries are a few MB

// A number as its bits in hexadecimal: exact, and no locale's decimal point in the way (a
// program may set LC_NUMERIC; llama.cpp's console does).
std::string bitsOf(double v)
{
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, b);
    return buf;
}
std::string bitsOf(float v)
{
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08" PRIx32, b);
    return buf;
}

std::vector<std::string_view> split(std::string_view s, char by)
{
    std::vector<std::string_view> out;
    for (size_t at = 0;;) {
        const size_t next = s.find(by, at);
        out.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
        if (next == std::string_view::npos)
            return out;
        at = next + 1;
    }
}

bool unsignedOf(std::string_view s, uint64_t &v, int base = 10)
{
    if (s.empty() || s.size() > 20 || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return false;
    const std::string text(s);
    char *end = nullptr;
    errno = 0;
    v = std::strtoull(text.c_str(), &end, base);
    return errno == 0 && end == text.c_str() + text.size();
}

bool doubleOf(std::string_view s, double &v)
{
    uint64_t b;
    if (s.size() != 16 || !unsignedOf(s, b, 16))
        return false;
    std::memcpy(&v, &b, sizeof v);
    return true;
}

bool floatOf(std::string_view s, float &v)
{
    uint64_t b;
    if (s.size() != 8 || !unsignedOf(s, b, 16))
        return false;
    const auto b32 = uint32_t(b);
    std::memcpy(&v, &b32, sizeof v);
    return true;
}

} // namespace

std::string weightCacheText(const WeightCacheEntries &entries)
{
    std::string out = header() + '\n';
    char buf[256];
    for (const auto &[key, s] : entries) {
        const auto &[offset, bytes, elements, dtype, sketch] = key;
        std::snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId32 " %d %" PRIu64 " ", offset, bytes,
                      elements, dtype, sketch ? 1 : 0, s.count);
        out += buf;
        for (double v : {s.max, s.min, s.mean, s.l2norm})
            out += bitsOf(v) + ' ';
        std::snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " ", s.nanCount, s.infCount,
                      s.zeroCount, s.digest);
        out += buf;
        if (s.sketch.empty())
            out += '-';
        for (size_t i = 0; i < s.sketch.size(); ++i)
            out += (i ? "," : "") + bitsOf(s.sketch[i]);
        out += '\n';
    }
    return out;
}

std::optional<WeightCacheEntries> parseWeightCache(const std::string &text)
{
    const std::string &h = header();
    if (text.compare(0, h.size() + 1, h + '\n') != 0 || text.back() != '\n')
        return std::nullopt;
    WeightCacheEntries out;
    for (size_t at = h.size() + 1; at < text.size();) { // a line at a time: nothing built for all of them
        const size_t end = text.find('\n', at);
        const auto f = split(std::string_view(text).substr(at, end - at), ' ');
        at = end + 1;
        if (f.size() != 15)
            return std::nullopt;
        uint64_t offset, bytes, elements, dtype, sketch;
        TensorStats s;
        bool ok = unsignedOf(f[0], offset) && unsignedOf(f[1], bytes) && unsignedOf(f[2], elements) &&
            unsignedOf(f[3], dtype) && dtype <= 1000 && unsignedOf(f[4], sketch) && sketch <= 1 &&
            unsignedOf(f[5], s.count) && doubleOf(f[6], s.max) && doubleOf(f[7], s.min) && doubleOf(f[8], s.mean) &&
            doubleOf(f[9], s.l2norm) && unsignedOf(f[10], s.nanCount) && unsignedOf(f[11], s.infCount) &&
            unsignedOf(f[12], s.zeroCount) && f[13].size() == 16 && unsignedOf(f[13], s.digest, 16);
        if (!ok)
            return std::nullopt;
        if (f[14] != "-") {
            const auto sums = split(f[14], ',');
            if (sums.size() != size_t(kSketchBuckets))
                return std::nullopt;
            for (std::string_view v : sums) {
                float x;
                if (!floatOf(v, x))
                    return std::nullopt;
                s.sketch.push_back(x);
            }
        }
        if (!out.emplace(WeightCacheKey{offset, bytes, elements, int32_t(dtype), sketch == 1}, std::move(s)).second)
            return std::nullopt; // one weight twice: not a file this code wrote
    }
    return out;
}

WeightCache::WeightCache(std::string folder) : m_folder(std::move(folder)) {}

WeightCache &WeightCache::get()
{
    static WeightCache *c = [] {
        const char *v = std::getenv("LLMSCOPE_WEIGHT_CACHE");
        std::string folder = v && *v && std::strcmp(v, "off") != 0 && std::strcmp(v, "0") != 0 ? v : "";
        auto *w = new WeightCache(folder); // outlives static destructors run at exit
        pthread_atfork([] { WeightCache::get().m_mutex.lock(); }, [] { WeightCache::get().m_mutex.unlock(); },
                       [] { WeightCache::get().m_mutex.unlock(); });
        return w;
    }();
    return *c;
}

// A folder this user alone writes: statistics read from anywhere else could be anyone's.
bool WeightCache::folderIsOurs() const
{
    struct stat st {};
    return ::lstat(m_folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 022) == 0;
}

std::optional<WeightCache::Place> WeightCache::locate(const uint8_t *data, uint64_t bytes, int32_t dtype,
                                                      uint64_t elements, bool sketch) const noexcept
{
    if (!enabled() || !data)
        return std::nullopt;
    FILE *maps = std::fopen("/proc/self/maps", "re");
    if (!maps)
        return std::nullopt;
    const auto at = reinterpret_cast<uintptr_t>(data);
    std::optional<Place> found;
    char *line = nullptr;
    size_t capacity = 0;
    try {
        while (::getline(&line, &capacity, maps) > 0) {
            uintptr_t begin = 0, end = 0;
            unsigned long long offset = 0, inode = 0;
            unsigned major = 0, minor = 0;
            char perms[8] = {};
            int pathAt = 0;
            if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu %n", &begin, &end, perms, &offset,
                            &major, &minor, &inode, &pathAt) < 7)
                continue;
            if (at < begin || at >= end)
                continue;
            // A read-only shared mapping of a file (llama.cpp's): its bytes are the file's. A
            // private one may hold pages written before it was made read-only.
            if (at + bytes > end || std::strcmp(perms, "r--s") != 0 || inode == 0 || line[pathAt] != '/')
                break;
            // The mapped file itself, even where its path was replaced since; by its path where
            // /proc hides map_files, held to the mapping's device and inode.
            char mapped[64];
            std::snprintf(mapped, sizeof mapped, "/proc/self/map_files/%" PRIxPTR "-%" PRIxPTR, begin, end);
            struct stat st {};
            if (::stat(mapped, &st) != 0) {
                std::string path(line + pathAt);
                while (!path.empty() && path.back() == '\n')
                    path.pop_back();
                if (::stat(path.c_str(), &st) != 0 || st.st_ino != ino_t(inode) || ::major(st.st_dev) != major ||
                    ::minor(st.st_dev) != minor)
                    break; // replaced or removed since it was mapped
            }
            if (!S_ISREG(st.st_mode))
                break;
            char name[160];
            std::snprintf(name, sizeof name, "w-%llx-%llu-%lld-%lld.%09ld-%lld.%09ld.txt",
                          (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                          (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
                          st.st_ctim.tv_nsec);
            Place p;
            p.file = name;
            p.offset = uint64_t(offset) + (at - begin);
            p.bytes = bytes;
            p.elements = elements;
            p.dtype = dtype;
            p.sketch = sketch;
            found = std::move(p);
            break;
        }
    } catch (...) { // no memory: the weight is read as before
        found.reset();
    }
    std::free(line);
    std::fclose(maps);
    return found;
}

WeightCache::Table &WeightCache::table(const std::string &file)
{
    auto [it, added] = m_tables.try_emplace(file);
    if (added && folderIsOurs())
        if (auto entries = readEntries(file))
            it->second.entries = std::move(*entries);
    return it->second;
}

std::optional<WeightCacheEntries> WeightCache::readEntries(const std::string &file) const
{
    const std::string path = m_folder + "/" + file;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || size_t(st.st_size) > kLargestFile)
        return std::nullopt;
    try {
        const std::vector<uint8_t> bytes = readWholeFileAt(AT_FDCWD, path, path, true); // a link is refused
        return parseWeightCache(std::string(bytes.begin(), bytes.end()));
    } catch (const Error &) {
        return std::nullopt;
    }
}

std::optional<TensorStats> WeightCache::find(const Place &p) noexcept
{
    try {
        std::lock_guard lock(m_mutex);
        const Table &t = table(p.file);
        auto it = t.entries.find(p.key());
        if (it == t.entries.end())
            return std::nullopt;
        m_hits.fetch_add(1);
        return it->second;
    } catch (...) { // no memory: read the weight instead
        return std::nullopt;
    }
}

void WeightCache::store(const Place &p, const TensorStats &s) noexcept
{
    try {
        std::lock_guard lock(m_mutex);
        Table &t = table(p.file);
        if (t.entries.insert_or_assign(p.key(), s).second) {
            t.dirty = true;
            ++t.stores;
        }
    } catch (...) { // not kept: the next run reads it again
    }
}

void WeightCache::flush() noexcept
{
    try {
        std::lock_guard flushing(m_flushMutex); // one flush at a time: the atexit one and a buffer's free
        struct Dirty {
            std::string file;
            WeightCacheEntries entries;
            uint64_t stores;
        };
        std::vector<Dirty> files;
        {
            std::lock_guard lock(m_mutex);
            for (auto &[file, t] : m_tables)
                if (t.dirty)
                    files.push_back({file, t.entries, t.stores});
        }
        if (files.empty())
            return;
        try {
            makeDirs(m_folder, 0700);
        } catch (const Error &) {
            return;
        }
        if (!folderIsOurs())
            return;
        for (auto &[file, entries, stores] : files) {
            // What another run wrote since this one read the file stays, beside this run's.
            if (auto theirs = readEntries(file))
                entries.merge(*theirs);
            try { // written aside and renamed: never half written
                writeFileAtomic(m_folder + "/" + file, weightCacheText(entries), 0600);
            } catch (const Error &) { // a full disk: the cache stays as it was
                continue;
            }
            std::lock_guard lock(m_mutex);
            Table &t = m_tables[file];
            t.dirty = t.stores != stores; // what came while it wrote goes in the next flush
        }
    } catch (...) {
    }
}

} // namespace llmscope::probe
