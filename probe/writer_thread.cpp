#include "probe/writer_thread.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config/driver_version.h"
#include "core/dump/dump_layout.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "probe/buffer_pool.h"
#include "probe/kv_rows.h"
#include "probe/weight_reads.h"

namespace llmscope::probe {

WriterThread::WriterThread(const std::string &root, uint64_t queueCapBytes, Warn warn,
                           std::chrono::milliseconds gapWait, bool symlink)
    : m_writer([&] {
          DumpWriter::Options o;
          o.root = root;
          o.symlink = symlink;
          o.warn = [this](const std::string &m) {
              if (m_warn)
                  m_warn(m);
          };
          return o;
      }()),
      m_warn(std::move(warn)), m_cap(queueCapBytes), m_gapWait(gapWait), m_thread([this] { run(); })
{
}

WriterThread::~WriterThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_space.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void WriterThread::push(std::vector<Job> &&jobs)
{
    uint64_t bytes = 0;
    bool urgent = false;
    for (const Job &j : jobs) {
        bytes += j.bytes;
        urgent |= j.kind == 1 || j.kind == 2; // text and status; tensors and rounds wait for the poll
    }
    std::unique_lock lock(m_mutex);
    const auto refused = [&] {
        return m_stop || (m_onlyFrom != std::thread::id{} && m_onlyFrom != std::this_thread::get_id());
    };
    // A batch larger than the cap still goes through, alone.
    m_space.wait(lock, [&] { return refused() || m_queued == 0 || m_queued + bytes <= m_cap; });
    if (refused()) {
        for (const Job &j : jobs)
            j.round.forgetWeightReads();
        return;
    }
    for (const Job &j : jobs)
        if (j.kind == 3 && j.round.last) {
            m_wholeRounds.push_back(j.round.round);
            if (m_wholeRounds.size() > 256)
                m_wholeRounds.pop_front();
        }
    m_queued += bytes;
    for (Job &j : jobs)
        m_queue.push_back(std::move(j));
    // Waking the writer costs the target a system call and the other core an interrupt; a
    // writer that is polling picks the jobs up within its poll interval anyway.
    const bool wake = m_sleeping || urgent || m_queued > m_cap / 2;
    lock.unlock();
    if (wake)
        m_wake.notify_one();
}

void WriterThread::submit(std::vector<TensorJob> &&tensors)
{
    std::vector<Job> jobs(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
        jobs[i].kind = 0;
        jobs[i].bytes = tensors[i].tensor.data.size() + 256;
        jobs[i].tensor = std::move(tensors[i]);
    }
    tensors.clear();
    push(std::move(jobs));
}

void WriterThread::submitRound(CapturedRound &&round)
{
    std::vector<Job> v(1);
    v[0].kind = 3;
    v[0].bytes = round.bytes();
    v[0].round = std::move(round);
    push(std::move(v));
}

void WriterThread::submitText(std::string relativePath, std::string content)
{
    Job j;
    j.kind = 1;
    j.bytes = content.size();
    j.path = std::move(relativePath);
    j.text = std::move(content);
    std::vector<Job> v;
    v.push_back(std::move(j));
    push(std::move(v));
}

void WriterThread::submitOutput(int64_t round, OutputRecord record, Tensor data)
{
    Job j;
    j.kind = 4;
    j.bytes = data.data.size();
    j.tensor.round = round;
    j.tensor.tensor = std::move(data);
    j.output = std::move(record);
    std::vector<Job> v;
    v.push_back(std::move(j));
    push(std::move(v));
}

void WriterThread::submitStatus(ProbeStatus status)
{
    Job j;
    j.kind = 2;
    j.status = std::move(status);
    std::vector<Job> v;
    v.push_back(std::move(j));
    push(std::move(v));
}

void WriterThread::drain()
{
    // At the target's exit a graph may never end (exit called from another thread): the writer
    // stops holding back for good.
    m_draining.store(true);
    graphEnded();
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [&] { return m_queue.empty() && !m_busy; });
}

void WriterThread::acceptOnlyThisThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_onlyFrom = std::this_thread::get_id();
    }
    m_space.notify_all(); // a thread waiting for room gives up
}

bool WriterThread::tookWholeRound(int64_t round) const
{
    std::lock_guard lock(m_mutex);
    return std::find(m_wholeRounds.begin(), m_wholeRounds.end(), round) != m_wholeRounds.end();
}

void WriterThread::close(ProbeStatus status)
{
    submitStatus(std::move(status));
    {
        std::lock_guard lock(m_mutex);
        m_stop = true; // the writer finishes its queue, the status last, then ends
    }
    m_wake.notify_all();
    m_space.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void WriterThread::graphStarted(bool crowded)
{
    m_crowded.store(crowded && !m_draining.load());
}

void WriterThread::graphEnded()
{
    m_crowded.store(false);
    if (m_gapWaiting.load()) {
        std::lock_guard lock(m_gapMutex); // the writer is waiting or about to: no lost wake-up
        m_gap.notify_one();
    }
}

void WriterThread::waitForGap()
{
    if (!m_crowded.load() || m_draining.load())
        return;
    {
        std::lock_guard lock(m_mutex);
        if (m_stop || m_queued > m_cap / 2)
            return; // falling behind: the target would soon wait for space instead
    }
    std::unique_lock lock(m_gapMutex);
    m_gapWaiting.store(true);
    // Bounded: a long prefill graph must not hold the dump back for its whole length.
    m_gap.wait_for(lock, m_gapWait, [&] { return !m_crowded.load(); });
    m_gapWaiting.store(false);
}

void WriterThread::run()
{
    pthread_setname_np(pthread_self(), "llmscope-writer"); // visible in top, perf and gdb
    // The target comes first: on a busy machine the dump falls behind (the queue holds it)
    // rather than the target slowing down.
    ::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 10);
    std::unique_lock lock(m_mutex);
    auto lastJob = std::chrono::steady_clock::now();
    for (;;) {
        if (m_queue.empty() && !m_stop) {
            // Poll while jobs keep coming, a few rounds at a time (each wake-up interrupts the
            // other core: a wake per round costs context switches on every decode token);
            // sleep until woken once the target has gone quiet.
            if (std::chrono::steady_clock::now() - lastJob < std::chrono::milliseconds(200)) {
                m_wake.wait_for(lock, std::chrono::milliseconds(20));
            } else {
                m_sleeping = true;
                m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
                m_sleeping = false;
            }
            continue;
        }
        if (m_queue.empty()) { // stopping: the last round's statistics too
            lock.unlock();
            try {
                flushCsv(false);
            } catch (const std::exception &e) {
                if (m_warn)
                    m_warn(std::string("write failed: ") + e.what());
            }
            return;
        }
        lastJob = std::chrono::steady_clock::now();
        std::deque<Job> batch;
        batch.swap(m_queue);
        m_busy = true;
        lock.unlock();
        uint64_t done = 0;
        for (Job &job : batch) {
            waitForGap();
            execute(job);
            done += job.bytes;
            giveBuffer(std::move(job.tensor.tensor.data)); // the target reuses it
            giveBuffer(std::move(job.round.arena));
            job = Job{};
            if (done > (8u << 20)) { // give the space back as it is written
                lock.lock();
                m_queued -= done;
                done = 0;
                lock.unlock();
                m_space.notify_all();
            }
        }
        lock.lock();
        m_busy = false;
        m_queued -= done;
        m_space.notify_all();
        if (m_queue.empty())
            m_idle.notify_all();
    }
}

void WriterThread::execute(Job &job)
{
    try {
        if (job.kind == 3) {
            executeRound(job.round);
        } else if (job.kind == 0 && job.tensor.csv) {
            const TensorJob &t = job.tensor;
            std::optional<TensorStats> st;
            if (t.statsOnly && t.tensor.hasData)
                st = computeStats(t.tensor, t.sketch);
            else if (!t.statsOnly)
                st = statsFromAttrs(t.tensor);
            addCsvLine(t.round,
                       statisticRowParts(csvRow(t.round, t.folders, t.opType, t.before, t.input, t.index, t.tensor)),
                       st);
        } else if (job.kind == 0) {
            TensorJob &t = job.tensor;
            if (t.addStats && t.tensor.hasData)
                setStatsAttrs(t.tensor, computeStats(t.tensor, t.sketch));
            if (t.statsOnly) {
                setStatsAttrs(t.tensor, t.tensor.hasData ? computeStats(t.tensor, t.sketch) : std::nullopt);
                t.tensor.hasData = false;
                t.tensor.data.clear();
            }
            m_writer.writeTensor(0, ::getpid(), t.round, t.folders, t.before, t.input, t.index, t.tensor);
        } else if (job.kind == 1) {
            m_writer.writeText(job.path, job.text);
        } else if (job.kind == 4) {
            if (const auto st = computeStats(job.tensor.tensor)) {
                job.output.stats = *st;
                m_writer.writeText(outputRecordPath(::getpid(), job.tensor.round),
                                   outputRecordJson(job.tensor.round, job.output));
            }
        } else {
            flushCsv(true);
            ProbeStatus &s = job.status;
            s.tensors = m_writer.tensorsWritten() + m_csvRows;
            s.bytes = m_writer.bytesWritten();
            s.skipped = m_writer.tensorsSkipped();
            s.linked = m_writer.tensorsLinked();
            s.nanInfRounds = m_nanInfRounds;
            s.nanInfFirst = m_nanInfFirst;
            // a device driver's version, read here once (Mesa states it in its library's bytes,
            // tens of MB): never on the program's thread
            for (LoadedObject &o : s.objects) {
                const size_t slash = o.path.rfind('/');
                if (!isDriverLibrary(slash == std::string::npos ? o.path : o.path.substr(slash + 1)))
                    continue;
                auto [at, added] = m_drivers.try_emplace(o.path);
                if (added)
                    at->second = driverVersion(o.path);
                o.driver = at->second;
            }
            // The tensor index is closed before the status says the run is finished: a reader
            // that sees the status finished finds the index whole.
            if (s.finished)
                m_writer.finishIndex();
            else
                m_writer.flushIndex();
            m_writer.writeText(std::string(ProbeStatus::kFolder) + "/" + std::to_string(s.pid) + ".json",
                               writeProbeStatus(s));
        }
    } catch (const std::exception &e) {
        if (m_warn)
            m_warn(std::string("write failed: ") + e.what());
    }
}

std::vector<char> WriterThread::nanInfNodes(const CapturedRound &r, PayloadStats &byPayload)
{
    const CapturePlan &plan = *r.plan;
    const GraphTopology &topo = *plan.topo;
    std::vector<char> keep(topo.nodes.size(), 0);
    int first = -1;
    for (size_t k = 0; k < plan.items.size(); ++k) {
        const PlanItem &it = plan.items[k];
        const uint64_t at = r.at[k];
        if (at == CapturedRound::kNotTaken || it.input || it.before || it.kind != ItemKind::Data)
            continue;
        std::optional<TensorStats> st;
        if (!r.stats.empty()) {
            st = r.stats[k];
        } else if (at != CapturedRound::kNoPayload && !it.header.attr(kEngineDTypeAttr).has_value()) {
            auto [known, added] = byPayload.try_emplace(at);
            if (added)
                known->second =
                    computeStats(it.header.dtype, r.arena.data() + at, it.header.elementCount(), r.plan->sketch);
            st = known->second;
        }
        if (st && st->nanCount + st->infCount > 0) {
            keep[size_t(it.node)] = 1;
            if (first < 0 || it.node < first)
                first = it.node;
        }
    }
    if (first >= 0 && r.round != m_nanInfLastRound) { // the first batch of a round that has one
        m_nanInfLastRound = r.round;
        ++m_nanInfRounds;
        const GraphNode &n = topo.nodes[size_t(first)];
        if (m_nanInfFirst.size() < ProbeStatus::kNanInfListed)
            m_nanInfFirst.push_back("round " + std::to_string(r.round) + ": " + n.id + " " + n.name + " (" + n.type +
                                    ")");
    }
    return keep;
}

std::optional<TensorStats> WriterThread::itemStats(const CapturedRound &r, size_t k, PayloadStats &byPayload)
{
    const CapturePlan &plan = *r.plan;
    const PlanItem &it = plan.items[k];
    const uint64_t at = r.at[k];
    if (it.kind == ItemKind::Weight) {
        auto cached = m_weightStats.find(it.weightKey);
        if (cached == m_weightStats.end()) { // first sight: computed when taken, or from its payload
            std::optional<TensorStats> st = r.stats.empty() ? std::nullopt : r.stats[k];
            if (!st)
                st = readWeight(r, k);
            if (plan.addStats && at != CapturedRound::kNoPayload && !it.header.attr(kEngineDTypeAttr).has_value())
                st = computeStats(it.header.dtype, r.arena.data() + at, it.header.elementCount(), plan.sketch);
            cached = m_weightStats.emplace(it.weightKey, st).first;
        }
        return cached->second;
    }
    if (it.kind != ItemKind::Data)
        return std::nullopt;
    if (!r.stats.empty())
        return r.stats[k]; // computed when taken
    const bool numeric = !it.header.attr(kEngineDTypeAttr).has_value(); // ggml block types have no statistics
    if (at == CapturedRound::kNoPayload || !numeric || !(plan.addStats || (m_roundWritten && !it.input && !it.before)))
        return std::nullopt;
    // tensors and statistics; or tensors alone with an app listening, whose heatmap shows
    // outputs' statistics (computed here, off the program's threads)
    auto [known, added] = byPayload.try_emplace(at); // aliases share type and bytes
    if (added)
        known->second = computeStats(it.header.dtype, r.arena.data() + at, it.header.elementCount(), r.plan->sketch);
    return known->second;
}

// A weight the program left to the writer (RoundCapture, weight_reads.h).
std::optional<TensorStats> WriterThread::readWeight(const CapturedRound &r, size_t k)
{
    for (const auto &[item, id] : r.weightReads)
        if (item == k)
            return WeightReads::get().take(id);
    return std::nullopt;
}

// A write into the KV cache: the cells its rows went to and, where the round's positions are
// known and one row went per token, theirs.
void WriterThread::setCellAttrs(const CapturedRound &r, size_t k, Tensor &t) const
{
    for (const auto &[item, cells] : r.cells) {
        if (item != k)
            continue;
        t.setAttr(kKvCellsAttr, joinDims(cells));
        if (r.positions && r.positions->size() == cells.size())
            t.setAttr(kKvPositionsAttr, joinDims(std::vector<int64_t>(r.positions->begin(), r.positions->end())));
    }
}

// One item as a statistic.csv row, or as a tensor file: its header, its statistics or payload.
void WriterThread::writeItem(const CapturedRound &r, size_t k, const std::optional<TensorStats> &st)
{
    const CapturePlan &plan = *r.plan;
    const GraphTopology &topo = *plan.topo;
    const PlanItem &it = plan.items[k];
    const uint64_t at = r.at[k];
    const Tensor &h = it.header;
    const auto &folders = topo.folders(it.node);
    if (plan.csv) {
        if (r.plan != m_rowsPlan) {
            m_rowsPlan = r.plan;
            m_rowParts.assign(plan.items.size(), std::nullopt);
        }
        auto &parts = m_rowParts[k];
        if (!parts)
            parts = statisticRowParts(
                csvRow(r.round, folders, topo.nodes[size_t(it.node)].type, it.before, it.input, it.index, h));
        addCsvLine(r.round, *parts, st);
        return;
    }
    const uint8_t *data =
        it.kind != ItemKind::Header && at != CapturedRound::kNoPayload ? r.arena.data() + at : nullptr;
    Tensor t = h;
    if (it.kvSkipped) {
        t.setAttr("llmscope_skipped", "kv_cache");
    } else if (it.unreadable) {
        t.setAttr("llmscope_skipped", "unreadable_buffer");
    } else if (it.inModel) {
        t.setAttr("llmscope_skipped", "in_model_file");
    } else if (plan.statsOnly) {
        setStatsAttrs(t, st);
    } else if (plan.payload && data) {
        t.data.assign(data, data + it.bytes);
        if (plan.addStats && !h.attr(kEngineDTypeAttr).has_value())
            setStatsAttrs(t, st);
    }
    if (it.kvRows)
        setCellAttrs(r, k, t);
    if (plan.payload && it.kind == ItemKind::Weight)
        m_writer.writeTensorOnce(it.weightKey, 0, ::getpid(), r.round, folders, it.before, it.input, it.index, t);
    else
        m_writer.writeTensor(0, ::getpid(), r.round, folders, it.before, it.input, it.index, t);
    giveBuffer(std::move(t.data));
}

void WriterThread::executeRound(CapturedRound &r)
{
    const CapturePlan &plan = *r.plan;
    const GraphTopology &topo = *plan.topo;
    PayloadStats byPayload;
    std::vector<live::OpStats> opStats;
    struct Forget { // reads not taken (a round of --nan-inf-only without NaN or Inf, a failure)
        const CapturedRound &r;
        ~Forget() { r.forgetWeightReads(); }
    } forget{r};
    const std::vector<char> keep = m_nanInfOnly ? nanInfNodes(r, byPayload) : std::vector<char>();
    for (size_t k = 0; k < plan.items.size(); ++k) {
        if (r.at[k] == CapturedRound::kNotTaken)
            continue;
        const PlanItem &it = plan.items[k];
        if (m_nanInfOnly && !keep[size_t(it.node)])
            continue;
        waitForGap(); // an atomic load unless a crowded graph runs
        try {
            const std::optional<TensorStats> st = itemStats(r, k, byPayload);
            if (st && m_roundWritten && !it.input && !it.before)
                opStats.push_back({topo.nodes[size_t(it.node)].id, st->max, st->min, st->mean, st->l2norm, st->nanCount,
                                   st->infCount});
            writeItem(r, k, st);
        } catch (const std::exception &e) {
            if (m_warn)
                m_warn(std::string("write failed: ") + e.what());
        }
    }
    if (m_roundWritten)
        m_roundWritten(r.round, std::move(opStats), m_writer.tensorsWritten() + m_csvRows, m_writer.bytesWritten(),
                       m_writer.tensorsSkipped());
}

StatisticRow WriterThread::csvRow(int64_t round, const std::vector<std::string> &folders, const std::string &opType,
                                  bool before, bool input, int index, const Tensor &header) const
{
    StatisticRow r;
    r.pid = ::getpid();
    r.exec = round;
    r.opFolders = folders;
    r.opType = opType;
    r.before = before;
    r.input = input;
    r.index = index;
    r.dtype = header.dtype;
    r.format = header.format;
    r.engineType = header.attr(kEngineDTypeAttr).value_or("");
    r.dims = header.dims;
    r.tensorPath = m_writer.tensorPath(0, r.pid, round, folders, before, input, index);
    return r;
}

void WriterThread::addCsvLine(int64_t round, const StatisticRowParts &parts, const std::optional<TensorStats> &stats)
{
    auto it = m_csv.find(round);
    if (it == m_csv.end()) {
        flushCsv(false); // a new round: the earlier ones are complete
        it = m_csv.emplace(round, std::move(m_csvSpare)).first;
        it->second.clear();
        // Rows of a round written already (another scheduler's graph ran in between): the
        // file is rewritten whole with them. Rounds come in order, so a round newer than any
        // written has no file yet (and a file left by an earlier process is not merged).
        std::error_code ec;
        const std::string path = m_writer.root() + "/" + csvPath(round);
        if (round <= m_lastCsvWritten && std::filesystem::exists(path, ec)) {
            const std::vector<uint8_t> old = m_writer.readInside(path);
            const std::string text(old.begin(), old.end());
            const size_t body = text.find('\n');
            if (body != std::string::npos)
                it->second = text.substr(body + 1);
        }
    }
    appendStatisticCsvLine(it->second, parts, round, stats);
    ++m_csvRows;
}

std::string WriterThread::csvPath(int64_t round) const
{
    return roundFolder(0, ::getpid(), round) + "/statistic.csv";
}

void WriterThread::flushCsv(bool keepNewest)
{
    const std::string header = statisticCsvHeader();
    for (auto it = m_csv.begin(); it != m_csv.end();) {
        m_writer.writeText(csvPath(it->first), {header, it->second});
        m_lastCsvWritten = std::max(m_lastCsvWritten, it->first);
        // Written once when complete; a status written mid-round keeps the newest round,
        // which may still grow, to rewrite it whole later.
        if (keepNewest && std::next(it) == m_csv.end()) {
            ++it;
            continue;
        }
        if (it->second.capacity() > m_csvSpare.capacity())
            m_csvSpare = std::move(it->second);
        it = m_csv.erase(it);
    }
}

} // namespace llmscope::probe
