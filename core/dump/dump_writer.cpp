#include "core/dump/dump_writer.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "core/dump/dump_layout.h"
#include "core/dump/tensor_index.h"
#include "core/tensor/bin_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hash.h"
#include "core/util/text.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <filesystem>

namespace fs = std::filesystem;

namespace llmscope {

std::string diskSpaceMessage(uint64_t freeBytes)
{
    return "Disk space is not enough, it's must more than 2G, free size(MB) is: " + std::to_string(freeBytes >> 20);
}

uint64_t freeBytesAt(const std::string &path)
{
    struct statvfs st {};
    if (::statvfs(path.c_str(), &st) != 0)
        return 0;
    return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

DumpWriter::DumpWriter(Options options) : m_options(std::move(options))
{
    const std::string &dir = m_options.root.empty() ? m_options.outDir : m_options.root;
    makeDirs(dir);
    const uint64_t free = m_options.freeBytes(dir);
    if (free < m_options.minFreeBytes)
        throw Error(diskSpaceMessage(free) + " (output folder '" + dir + "')");
    m_root = m_options.root.empty() ? m_options.outDir + "/" + dumpFolderName(m_options.timestamp) : m_options.root;
    makeDirs(m_root);
    // The root itself may be a link the user chose; below it, nothing is.
    const int fd = ::open(m_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw Error("cannot open folder '" + m_root + "': " + std::strerror(errno));
    m_rootFolder = std::make_shared<const Folder>(fd);
}

DumpWriter::Folder::~Folder()
{
    if (fd >= 0)
        ::close(fd);
}

DumpWriter::~DumpWriter()
{
    try {
        finishIndex();
    } catch (...) {
        // an index not closed is one readers do not use
    }
}

std::string DumpWriter::tensorPath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                                   bool before, bool input, int index) const
{
    return m_root + "/" + tensorRelativePath(device, pid, exec, opFolders, before, input, index);
}

bool DumpWriter::writeTensor(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                             bool before, bool input, int index, const Tensor &t)
{
    const std::string path = tensorPath(device, pid, exec, opFolders, before, input, index);
    std::string header;
    if (m_options.symlink) {
        header = encodeBinHeader(t);
        const FolderPtr folder = openFolder(path.substr(0, path.rfind('/')));
        if (linkToSame(*folder, path, header, t)) {
            ++m_tensors;
            ++m_linked;
            indexFile(device, pid, path.substr(m_root.size() + 1), t, header.size());
            return true;
        }
    }
    if (!writeFile(device, pid, path, t, nullptr))
        return false;
    if (m_options.symlink) {
        uint64_t h = fnv1a(header);
        if (t.hasData)
            h = fnv1a(std::string_view(reinterpret_cast<const char *>(t.data.data()), t.data.size()), h);
        std::lock_guard lock(m_mutex);
        m_byHash[h].push_back(path);
    }
    return true;
}

bool DumpWriter::writeFile(int device, int64_t pid, const std::string &path, const Tensor &t, uint64_t *headerBytes)
{
    const uint64_t size = t.hasData ? t.data.size() : 0;
    const uint64_t free = freeFor(size);
    if (free < m_options.minFreeBytes || free < 2 * size) {
        ++m_skipped;
        if (m_options.warn)
            m_options.warn(diskSpaceMessage(free) + "; skipped " + path);
        return false;
    }
    const size_t slash = path.rfind('/');
    const FolderPtr folder = openFolder(path.substr(0, slash));
    const uint64_t written = writeBinAt(folder->fd, path.substr(slash + 1), path, t);
    ++m_tensors;
    m_bytes += size;
    indexFile(device, pid, path.substr(m_root.size() + 1), t, written);
    if (headerBytes)
        *headerBytes = written;
    return true;
}

bool DumpWriter::writeTensorOnce(uint64_t key, int device, int64_t pid, int64_t exec,
                                 const std::vector<std::string> &opFolders, bool before, bool input, int index,
                                 const Tensor &t)
{
    const std::string path = tensorPath(device, pid, exec, opFolders, before, input, index);
    std::optional<OnceFile> first;
    {
        std::lock_guard lock(m_mutex);
        if (const auto it = m_once.find(key); it != m_once.end())
            first = it->second;
    }
    if (!first) {
        uint64_t headerBytes = 0;
        if (!t.hasData) {
            ++m_skipped;
            if (m_options.warn)
                m_options.warn("the first copy of this weight was not written; skipped " + path);
            return false;
        }
        if (!writeFile(device, pid, path, t, &headerBytes))
            return false;
        // The links' index lines: this file's, but for the path.
        const std::string relative = path.substr(m_root.size() + 1);
        std::string tail = tensorIndexLine(relative, t, headerBytes).value_or(std::string());
        tail.erase(0, std::min(tail.size(), relative.size()));
        std::lock_guard lock(m_mutex);
        m_once.try_emplace(key, OnceFile{path, std::move(tail)});
        return true;
    }
    const FolderPtr folder = openFolder(path.substr(0, path.rfind('/')));
    if (makeLink(first->path, *folder, path)) {
        ++m_linked;
    } else {
        try { // a copy where no link can be made
            const std::vector<uint8_t> bytes = readInside(first->path);
            writeFileAtomicAt(folder->fd, path.substr(path.rfind('/') + 1), path, {std::span<const uint8_t>(bytes)});
        } catch (const Error &e) {
            ++m_skipped;
            if (m_options.warn)
                m_options.warn("could not link or copy " + first->path + " (" + e.what() + "); skipped " + path);
            return false;
        }
    }
    ++m_tensors;
    const std::string relative = path.substr(m_root.size() + 1);
    const bool listable = !first->indexTail.empty() && relative.find_first_of("\t\n\r") == std::string::npos;
    indexLine(device, pid, listable ? std::optional(relative + first->indexTail) : std::nullopt);
    return true;
}

bool DumpWriter::makeLink(const std::string &target, const Folder &folder, const std::string &path)
{
    const fs::path relative = fs::path(target).lexically_relative(fs::path(path).parent_path());
    if (relative.empty())
        return false;
    // Made under a temporary name and renamed: a reader never sees a half-made link.
    const std::string name = path.substr(path.rfind('/') + 1);
    const std::string tmp = name + ".link.tmp";
    ::unlinkat(folder.fd, tmp.c_str(), 0);
    if (::symlinkat(relative.c_str(), folder.fd, tmp.c_str()) != 0)
        return false;
    if (::renameat(folder.fd, tmp.c_str(), folder.fd, name.c_str()) != 0) {
        ::unlinkat(folder.fd, tmp.c_str(), 0);
        return false;
    }
    return true;
}

bool DumpWriter::linkToSame(const Folder &folder, const std::string &path, const std::string &header, const Tensor &t)
{
    uint64_t h = fnv1a(header);
    if (t.hasData)
        h = fnv1a(std::string_view(reinterpret_cast<const char *>(t.data.data()), t.data.size()), h);
    std::vector<std::string> candidates;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_byHash.find(h);
        if (it != m_byHash.end())
            candidates = it->second;
    }
    const uint64_t size = header.size() + (t.hasData ? t.data.size() : 0);
    for (const std::string &c : candidates) { // the hash finds them; the bytes decide
        std::vector<uint8_t> bytes;
        try {
            bytes = readInside(c);
        } catch (const Error &) {
            continue; // gone, or swapped for a link
        }
        if (bytes.size() != size || std::memcmp(bytes.data(), header.data(), header.size()) != 0 ||
            (t.hasData && std::memcmp(bytes.data() + header.size(), t.data.data(), t.data.size()) != 0))
            continue;
        return makeLink(c, folder, path);
    }
    return false;
}

// statvfs for every small file costs more than writing it: ask again only after a while or
// after a good part of the margin has been used, and estimate from our own writes in between.
uint64_t DumpWriter::freeFor(uint64_t size)
{
    std::lock_guard lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    const uint64_t margin = m_lastFree > m_options.minFreeBytes ? m_lastFree - m_options.minFreeBytes : 0;
    const bool stale = !m_freeKnown || m_sinceCheck + 2 * size + 4096 > margin / 8 ||
        std::chrono::duration<double>(now - m_lastCheck).count() >= m_options.recheckSeconds;
    if (stale) {
        m_lastFree = m_options.freeBytes(m_root);
        m_sinceCheck = 0;
        m_lastCheck = now;
        m_freeKnown = true;
    }
    const uint64_t estimate = m_lastFree > m_sinceCheck ? m_lastFree - m_sinceCheck : 0;
    m_sinceCheck += size + 4096; // a block for the header and the folder entry
    return estimate;
}

std::vector<uint8_t> DumpWriter::readInside(const std::string &path)
{
    const size_t slash = path.rfind('/');
    const FolderPtr folder = openFolder(path.substr(0, slash));
    return readWholeFileAt(folder->fd, path.substr(slash + 1), path, true);
}

DumpWriter::FolderPtr DumpWriter::openFolder(const std::string &dir)
{
    std::lock_guard lock(m_mutex);
    return openFolderHeld(dir);
}

DumpWriter::FolderPtr DumpWriter::openFolderHeld(const std::string &dir)
{
    if (dir.size() <= m_root.size() || dir.compare(0, m_root.size() + 1, m_root + "/") != 0) {
        if (dir == m_root)
            return m_rootFolder;
        throw Error("refusing to write in '" + dir + "', outside the dump folder '" + m_root + "'");
    }
    std::string opened;
    FolderPtr from = cachedFolder(dir, opened);
    if (opened == dir)
        return from;
    return walkFolders(std::move(from), opened, dir);
}

DumpWriter::FolderPtr DumpWriter::cachedFolder(const std::string &dir, std::string &opened)
{
    // dir itself, or the nearest folder above it that is open
    for (std::string d = dir; d.size() > m_root.size(); d.resize(d.rfind('/')))
        for (auto it = m_folders.begin(); it != m_folders.end(); ++it)
            if (it->first == d) {
                m_folders.splice(m_folders.begin(), m_folders, it); // newest first
                opened = d;
                return it->second;
            }
    opened = m_root;
    return m_rootFolder;
}

DumpWriter::FolderPtr DumpWriter::walkFolders(FolderPtr from, const std::string &opened, const std::string &dir)
{
    std::string d = opened;
    for (const std::string &part : split(dir.substr(opened.size() + 1), '/')) {
        if (part.empty() || part == ".")
            continue;
        d += "/" + part;
        if (part == "..")
            throw Error("refusing to write in '" + dir + "': '..' in a dump's folder");
        // O_NOFOLLOW: a link planted here (before the run or during it) is never entered.
        const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        int fd = ::openat(from->fd, part.c_str(), flags);
        if (fd < 0 && errno == ENOENT && (::mkdirat(from->fd, part.c_str(), 0750) == 0 || errno == EEXIST)) {
            fd = ::openat(from->fd, part.c_str(), flags);
            if (fd >= 0)
                ::fchmod(fd, 0750); // exact mode whatever the umask
        }
        if (fd < 0) {
            const int saved = errno;
            struct stat st {};
            if (::fstatat(from->fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                throw Error("'" + d + "' is a symbolic link: nothing is written through a link inside a dump");
            if (::fstatat(from->fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
                throw Error("'" + d + "' exists and is not a folder");
            throw Error("cannot create folder '" + d + "': " + std::strerror(saved));
        }
        from = std::make_shared<const Folder>(fd);
        m_folders.emplace_front(d, from);
        if (m_folders.size() > kFoldersKept)
            m_folders.pop_back();
    }
    return from;
}

void DumpWriter::indexFile(int device, int64_t pid, const std::string &relativePath, const Tensor &t,
                           uint64_t headerBytes)
{
    indexLine(device, pid, tensorIndexLine(relativePath, t, headerBytes));
}

void DumpWriter::indexLine(int device, int64_t pid, const std::optional<std::string> &line)
{
    std::lock_guard lock(m_mutex);
    const std::string file = tensorIndexPath(device, pid);
    Index &index = m_index[file];
    if (index.finished && !index.broken) { // a line after the end line: readers no longer trust it
        const std::string path = m_root + "/" + file;
        appendToFile(path.substr(0, path.rfind('/')), path.substr(path.rfind('/') + 1), "# written after its end\n");
    }
    if (!line || index.finished) // a file the index cannot list: the index must not claim to be whole
        index.broken = true;
    if (index.broken)
        return;
    index.pending += *line;
    ++index.lines;
    if (index.pending.size() >= (1u << 20))
        appendIndex(file, index, false);
}

bool DumpWriter::appendToFile(const std::string &dir, const std::string &name, const std::string &text)
{
    FolderPtr folder;
    try {
        folder = openFolderHeld(dir); // a link planted at llmscope/index is refused too
    } catch (const Error &) {
        return false;
    }
    const int fd = ::openat(folder->fd, name.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? size_t(n) : 0;
    }
    if (fd >= 0)
        ::close(fd);
    return ok;
}

void DumpWriter::appendIndex(const std::string &relativePath, Index &index, bool finish)
{
    if (index.broken || index.finished)
        return;
    std::string text = index.started ? std::string() : tensorIndexFirstLine();
    text += index.pending;
    if (finish)
        text += tensorIndexEndLine(index.lines);
    index.pending.clear();
    const std::string path = m_root + "/" + relativePath;
    const bool ok = appendToFile(path.substr(0, path.rfind('/')), path.substr(path.rfind('/') + 1), text);
    index.started = true;
    index.broken = !ok; // a torn block is never followed by an end line
    index.finished = ok && finish;
}

void DumpWriter::flushIndex()
{
    std::lock_guard lock(m_mutex);
    for (auto &[file, index] : m_index)
        if (!index.pending.empty())
            appendIndex(file, index, false);
}

void DumpWriter::finishIndex()
{
    std::lock_guard lock(m_mutex);
    for (auto &[file, index] : m_index)
        appendIndex(file, index, true);
}

void DumpWriter::writeText(const std::string &relativePath, const std::string &content)
{
    writeText(relativePath, {std::string_view(content)});
}

void DumpWriter::writeText(const std::string &relativePath, std::initializer_list<std::string_view> parts)
{
    if (relativePath.find("..") != std::string::npos || relativePath.empty() || relativePath[0] == '/')
        throw Error("refusing to write '" + relativePath + "' outside the dump folder");
    const std::string path = m_root + "/" + relativePath;
    const size_t slash = path.rfind('/');
    const FolderPtr folder = openFolder(path.substr(0, slash));
    std::vector<std::span<const uint8_t>> spans;
    for (std::string_view p : parts)
        spans.emplace_back(reinterpret_cast<const uint8_t *>(p.data()), p.size());
    writeFileAtomicAt(folder->fd, path.substr(slash + 1), path, spans);
}

} // namespace llmscope
