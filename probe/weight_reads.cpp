#include "probe/weight_reads.h"

#include "probe/weight_cache.h"

#include <algorithm>
#include <thread>

#include <pthread.h>
#include <sched.h>

namespace llmscope::probe {

WeightReads &WeightReads::get()
{
    static WeightReads *r = [] {
        auto *w = new WeightReads; // outlives static destructors run at exit
        // A forked child has none of the parent's threads: what they had claimed is never done.
        pthread_atfork([] { WeightReads::get().m_mutex.lock(); }, [] { WeightReads::get().m_mutex.unlock(); },
                       [] {
                           WeightReads &r = WeightReads::get();
                           r.m_pending.clear();
                           r.s_count.store(0);
                           r.m_mutex.unlock();
                       });
        return w;
    }();
    return *r;
}

std::optional<TensorStats> WeightReads::compute(const Read &r) noexcept
{
    // A model file's bytes read in an earlier run: taken from the cache (weight_cache.h).
    WeightCache &cache = WeightCache::get();
    const auto place = cache.locate(r.data, r.bytes, r.dtype, r.elements, r.sketch);
    if (place)
        if (auto kept = cache.find(*place))
            return kept;
    std::optional<TensorStats> st;
    try {
        st = computeStats(r.dtype, r.data, r.elements, r.sketch);
    } catch (...) { // no memory for the sketch: the weight goes without statistics
        return std::nullopt;
    }
    // Kept only when the file is still the one it was: one rewritten in place while it was read
    // has other times, and its bytes here may be either's.
    if (place && st)
        if (const auto after = cache.locate(r.data, r.bytes, r.dtype, r.elements, r.sketch);
            after && after->file == place->file)
            cache.store(*place, *st);
    return st;
}

// The program waits for these (its memory is being released) and its own threads are done
// with it: every core it may use shares them.
std::vector<std::optional<TensorStats>> WeightReads::computeAll(const std::vector<Read> &reads) noexcept
{
    std::vector<std::optional<TensorStats>> out(reads.size());
    std::atomic<size_t> next{0};
    auto work = [&]() noexcept {
        for (size_t i; (i = next.fetch_add(1)) < reads.size();)
            out[i] = compute(reads[i]);
    };
    cpu_set_t cpus;
    const size_t cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? size_t(CPU_COUNT(&cpus)) : 1;
    std::vector<std::thread> helpers;
    for (size_t i = 1; i < std::min(reads.size(), cores); ++i) {
        try {
            helpers.emplace_back(work);
        } catch (...) { // no thread to be had: fewer helpers
            break;
        }
    }
    work();
    for (std::thread &t : helpers)
        t.join();
    return out;
}

uint64_t WeightReads::add(const Read &r)
{
    std::lock_guard lock(m_mutex);
    Entry e;
    e.read = r;
    m_pending.emplace(++m_next, std::move(e));
    s_count.store(m_pending.size());
    return m_next;
}

std::optional<TensorStats> WeightReads::take(uint64_t id)
{
    std::unique_lock lock(m_mutex);
    // Claimed by a release in progress: its result comes with done.
    m_read.wait(lock, [&] {
        auto it = m_pending.find(id);
        return it == m_pending.end() || !it->second.claimed || it->second.done;
    });
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return std::nullopt;
    if (it->second.done) {
        std::optional<TensorStats> st = std::move(m_pending.extract(it).mapped().stats);
        s_count.store(m_pending.size());
        return st;
    }
    it->second.claimed = true;
    const Read r = it->second.read;
    m_begun.fetch_add(1);
    lock.unlock();
    std::optional<TensorStats> st = compute(r);
    lock.lock();
    m_pending.erase(id);
    s_count.store(m_pending.size());
    lock.unlock();
    m_read.notify_all();
    return st;
}

void WeightReads::forget(uint64_t id)
{
    std::lock_guard lock(m_mutex);
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    if (it->second.claimed && !it->second.done) {
        it->second.forgotten = true; // a release reads it now: erased when done
        return;
    }
    m_pending.erase(it);
    s_count.store(m_pending.size());
}

template <class Pred>
void WeightReads::release(Pred inside) noexcept
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        std::vector<uint64_t> mine;
        std::vector<Read> reads;
        bool readElsewhere = false;
        for (const auto &[id, e] : m_pending)
            if (!e.done && inside(e.read)) {
                if (e.claimed) {
                    readElsewhere = true;
                } else {
                    mine.push_back(id);
                    reads.push_back(e.read);
                }
            }
        if (mine.empty() && !readElsewhere)
            return;
        if (mine.empty()) { // being read: the memory stays until that read is done
            m_read.wait(lock);
            continue;
        }
        for (uint64_t id : mine)
            m_pending.at(id).claimed = true;
        lock.unlock();
        auto stats = computeAll(reads);
        lock.lock();
        for (size_t i = 0; i < mine.size(); ++i) {
            auto it = m_pending.find(mine[i]); // claimed entries stay in place
            if (it->second.forgotten) {
                m_pending.erase(it);
                continue;
            }
            it->second.stats = std::move(stats[i]);
            it->second.done = true;
        }
        s_count.store(m_pending.size());
        m_read.notify_all();
    }
}

void WeightReads::freeing(ggml_backend_buffer_t buffer, bool all) noexcept
{
    release([&](const Read &r) { return all || r.buffer == buffer; });
    WeightCache::get().flush(); // a model's weights are done when its buffer goes
}

void WeightReads::unmapping(const void *begin, size_t length) noexcept
{
    if (s_count.load() == 0) // every munmap of the program passes here
        return;
    const auto *b = static_cast<const uint8_t *>(begin);
    get().release([&](const Read &r) { return r.data < b + length && b < r.data + r.bytes; });
}

} // namespace llmscope::probe
