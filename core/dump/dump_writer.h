// Writes msit's dump layout: every file through a temporary name and a rename, files
// 0640, folders 0750, sanitized names, and msit's free-space guard.
#pragma once
#include <atomic>
#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <cstdint>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor/tensor.h"

namespace llmscope {

inline constexpr uint64_t kMinFreeBytes = 2ull << 30; // msit's 2 GiB

// msit's wording, kept so scripts that grep for it still work.
std::string diskSpaceMessage(uint64_t freeBytes);
// Free bytes for an unprivileged writer on the file system holding path.
uint64_t freeBytesAt(const std::string &path);

class DumpWriter {
public:
    struct Options {
        std::string outDir = ".";
        std::string root; // when set, the msit_dump_* folder itself (shared by several writers)
        std::time_t timestamp = std::time(nullptr);
        uint64_t minFreeBytes = kMinFreeBytes;
        std::function<void(const std::string &)> warn; // where skipped-tensor messages go
        std::function<uint64_t(const std::string &)> freeBytes = freeBytesAt; // replaceable in tests
        // Free space is asked again after this many seconds, or once an eighth of the margin
        // above the minimum has been written; in between it is estimated from what was written.
        double recheckSeconds = 1.0;
        // msit's -symlink: a tensor whose file would be byte for byte one already written
        // (found by a hash of header and payload, then compared) becomes a relative symbolic
        // link to that file instead of a second copy.
        bool symlink = false;
    };

    // Refuses to start (throws Error with msit's message) below minFreeBytes free.
    explicit DumpWriter(Options options);
    ~DumpWriter();
    DumpWriter(const DumpWriter &) = delete;
    DumpWriter &operator=(const DumpWriter &) = delete;

    const std::string &root() const { return m_root; } // .../msit_dump_{ts}

    // tensors/{device}_{pid}/{exec}/{op folders}/{before|after}/{in|out}tensor{i}.bin
    std::string tensorPath(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                           bool before, bool input, int index) const;
    // Writes t at tensorPath(...). Returns false, after warning with msit's message, when
    // free space is under the minimum or under twice the file's size.
    bool writeTensor(int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders, bool before,
                     bool input, int index, const Tensor &t);
    // A tensor that never changes while the program runs (a weight), known by key: written
    // the first time (t with its data), a relative link to that file after (t's data is not
    // needed then; a copy of the file where no link can be made). False, warned and counted
    // as skipped, when its first copy was not written.
    bool writeTensorOnce(uint64_t key, int device, int64_t pid, int64_t exec, const std::vector<std::string> &opFolders,
                         bool before, bool input, int index, const Tensor &t);
    // Any other file of the dump (topology JSON, CSV), relative to root; parent folders made.
    void writeText(const std::string &relativePath, const std::string &content);
    // The file is the parts one after the other (no joined copy).
    void writeText(const std::string &relativePath, std::initializer_list<std::string_view> parts);

    // A file of the dump (an absolute path below the root) read whole, never through a link
    // planted inside the dump; throws Error.
    std::vector<uint8_t> readInside(const std::string &path);

    // The dump's tensor index (dump/tensor_index.h): lines are kept and appended to
    // llmscope/index/{device}_{pid}.tsv a block at a time; finishIndex writes what is left and
    // the end line (the destructor does too). A writer whose index could not be written
    // never closes it, and readers walk the folders instead.
    void flushIndex();
    void finishIndex();

    uint64_t tensorsWritten() const { return m_tensors; }
    uint64_t bytesWritten() const { return m_bytes; }
    uint64_t tensorsSkipped() const { return m_skipped; }
    uint64_t tensorsLinked() const { return m_linked; } // of those written, as links (-symlink, weights once a run)

private:
    uint64_t freeFor(uint64_t size);

    // An open folder of the dump. Files are made in it by name, so a link planted at its path
    // or above it once it is open changes nothing: nothing is ever written through a link.
    struct Folder {
        int fd = -1;
        explicit Folder(int f) : fd(f) {}
        ~Folder();
        Folder(const Folder &) = delete;
        Folder &operator=(const Folder &) = delete;
    };
    using FolderPtr = std::shared_ptr<const Folder>;
    // dir (absolute, below the root), opened from the nearest folder open already and made
    // where missing; throws Error when a part of it is a link or not a folder.
    FolderPtr openFolder(const std::string &dir);
    FolderPtr openFolderHeld(const std::string &dir); // m_mutex held
    FolderPtr cachedFolder(const std::string &dir, std::string &opened); // m_mutex held
    FolderPtr walkFolders(FolderPtr from, const std::string &opened, const std::string &dir); // m_mutex held
    static constexpr size_t kFoldersKept = 32;

    Options m_options;
    std::string m_root;
    FolderPtr m_rootFolder;
    // -symlink: links path to an earlier file of the same bytes, if there is one.
    bool linkToSame(const Folder &folder, const std::string &path, const std::string &header, const Tensor &t);
    // path (in folder) as a relative link to target, made under a temporary name and renamed.
    static bool makeLink(const std::string &target, const Folder &folder, const std::string &path);
    bool writeFile(int device, int64_t pid, const std::string &path, const Tensor &t, uint64_t *headerBytes);

    std::atomic<uint64_t> m_tensors{0}, m_bytes{0}, m_skipped{0}, m_linked{0};
    std::mutex m_mutex; // guards what follows
    std::list<std::pair<std::string, FolderPtr>> m_folders; // the folders used last, newest first
    uint64_t m_lastFree = 0, m_sinceCheck = 0;
    std::chrono::steady_clock::time_point m_lastCheck{};
    bool m_freeKnown = false;
    std::unordered_map<uint64_t, std::vector<std::string>> m_byHash; // -symlink: files written, by content hash
    struct OnceFile {
        std::string path;
        std::string indexTail; // its index line after the path
    };
    std::unordered_map<uint64_t, OnceFile> m_once; // writeTensorOnce: the first file of each key
    struct Index {
        std::string pending; // lines not yet appended
        uint64_t lines = 0;
        bool started = false, broken = false, finished = false;
    };
    std::map<std::string, Index> m_index; // by its path relative to the root
    void indexFile(int device, int64_t pid, const std::string &relativePath, const Tensor &t, uint64_t headerBytes);
    void indexLine(int device, int64_t pid, const std::optional<std::string> &line); // nullopt: not listable
    void appendIndex(const std::string &relativePath, Index &index, bool finish); // m_mutex held
    // All of it, or false; dir is the file's folder (made where missing), m_mutex held.
    bool appendToFile(const std::string &dir, const std::string &name, const std::string &text);
};

} // namespace llmscope
