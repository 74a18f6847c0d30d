// Weights' statistics kept between runs. A weight in a model file's read-only mapping (ggml's
// CPU backend computes from llama.cpp's shared read-only mmap of the file) holds that file's bytes: its
// statistics, sketch and digest are those of the bytes at its offset, in every run of the
// file. They are kept, one cache file per model file, in the folder LLMSCOPE_WEIGHT_CACHE
// names (llmscope dump sets the user's cache folder; unset, empty or "off": nothing is kept;
// a folder other users may write is neither read nor written),
// and a later run that maps the same file (the same device, inode, size, modification and
// change times) takes them from there instead of reading gigabytes again, which is what a
// wide model's first round cost the program's cores. Anything else (copied or repacked
// weights, a writable mapping, a file changed since, a cache file that does not read) is read
// as before; a cache file is replaced whole (written aside, then renamed), never half written.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "core/tensor/stats.h"

namespace llmscope::probe {

// An entry's key within its model file: offset, bytes, elements, dtype, with a sketch or not.
using WeightCacheKey = std::tuple<uint64_t, uint64_t, uint64_t, int32_t, bool>;
using WeightCacheEntries = std::map<WeightCacheKey, TensorStats>;

class WeightCache {
public:
    // Where a weight's bytes lie: a model file's identity and the entry's own.
    struct Place {
        std::string file; // the cache file's name, made of the model file's identity
        uint64_t offset = 0, bytes = 0, elements = 0;
        int32_t dtype = 0;
        bool sketch = true;
        WeightCacheKey key() const { return {offset, bytes, elements, dtype, sketch}; }
    };

    static WeightCache &get(); // configured from LLMSCOPE_WEIGHT_CACHE at first use
    explicit WeightCache(std::string folder); // a test's own folder; "" keeps nothing
    bool enabled() const { return !m_folder.empty(); }

    // The model file whose read-only mapping holds [data, data + bytes), if any.
    std::optional<Place> locate(const uint8_t *data, uint64_t bytes, int32_t dtype, uint64_t elements,
                                bool sketch) const noexcept;
    std::optional<TensorStats> find(const Place &p) noexcept;
    void store(const Place &p, const TensorStats &s) noexcept;
    // Writes the cache files that gained entries. Never throws; a folder or disk that refuses
    // leaves the cache as it was.
    void flush() noexcept;

    uint64_t hits() const { return m_hits.load(); }

private:
    struct Table {
        WeightCacheEntries entries;
        bool dirty = false;
        uint64_t stores = 0; // a flush clears dirty only when none came while it wrote
    };
    Table &table(const std::string &file); // loaded at first use; under m_mutex
    std::optional<WeightCacheEntries> readEntries(const std::string &file) const;
    bool folderIsOurs() const;
    std::string m_folder;
    std::mutex m_mutex; // the tables
    std::mutex m_flushMutex; // the files: one flush at a time
    std::map<std::string, Table> m_tables;
    std::atomic<uint64_t> m_hits{0};
};

// The cache file's text, and back (exposed for tests): one line a weight, every number exact.
std::string weightCacheText(const WeightCacheEntries &entries);
// nullopt for text that is not wholly a cache file of this definition
std::optional<WeightCacheEntries> parseWeightCache(const std::string &text);

} // namespace llmscope::probe
