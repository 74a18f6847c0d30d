// The probe's disk side: one thread that owns the dump writer, so the target hands over a
// copied tensor and goes on computing. The queue is bounded by bytes; when it is full the
// target waits (nothing is dropped). Statistics of copied payloads are computed here; a ggml
// round with statistics only arrives with them computed (see RoundCapture).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/dump/dump_writer.h"
#include "core/dump/output_record.h"
#include "core/dump/probe_status.h"
#include "core/dump/statistic_csv.h"
#include "core/live/live_protocol.h"
#include "core/tensor/stats.h"
#include "probe/round_capture.h"

namespace llmscope::probe {

struct TensorJob {
    int64_t round = 0;
    std::vector<std::string> folders;
    bool before = false, input = false;
    int index = 0;
    Tensor tensor;
    bool statsOnly = false; // compute statistics from the payload, then write the header only
    bool addStats = false; // payload kept, statistics added as attributes (tensor + stats)
    bool sketch = true; // the statistics with their error sketch
    bool csv = false; // statistics go to the round's statistic.csv instead of a file
    std::string opType; // for the CSV row
};

class WriterThread {
public:
    using Warn = std::function<void(const std::string &)>;
    // Throws Error when the writer cannot start (msit's free-space refusal, a bad folder).
    // gapWait: the longest the writer holds back for one crowded graph (see graphStarted).
    // symlink: -symlink (DumpWriter::Options::symlink).
    WriterThread(const std::string &root, uint64_t queueCapBytes, Warn warn,
                 std::chrono::milliseconds gapWait = std::chrono::milliseconds(20), bool symlink = false);
    ~WriterThread(); // drains the queue

    // One hand-over for many tensors: the target takes the lock once per graph, not per tensor.
    void submit(std::vector<TensorJob> &&jobs);
    // A round (or part of one) captured from a ggml graph.
    void submitRound(CapturedRound &&round);
    void submitText(std::string relativePath, std::string content);
    // A round's result (dump/output_record.h), its payload in data: its statistics, sketch and
    // digest are computed here, off the thread that computed the round.
    void submitOutput(int64_t round, OutputRecord record, Tensor data);
    // Writes the status file after everything queued before it; the writer's counters are
    // filled in on the way.
    void submitStatus(ProbeStatus status);
    void drain(); // waits until the queue is empty; from then on the writer never holds back
    // At the target's exit, first: from now on only this thread's submissions are taken; a
    // thread still inside a graph hands over nothing more (it is dropped, never half written).
    void acceptOnlyThisThread();
    // Whether the last part of `round` was taken (a recent round: the newest 256 are known).
    bool tookWholeRound(int64_t round) const;
    // At the target's exit, last: writes what is queued, then `status`, then stops; anything
    // submitted later is dropped.
    void close(ProbeStatus status);

    // Around each graph the target computes. crowded: the target's own threads fill every core,
    // so the writer's work would stall them (ggml's threads meet at a barrier after each node,
    // and one preempted thread holds up the rest). The writer then works in the gaps between
    // graphs, unless its queue passes half its cap.
    void graphStarted(bool crowded);
    void graphEnded();

    // Called on the writer thread after each ggml round (or part of one) is written, with the
    // statistics of its ops' outputs where the dump has them and the writer's totals (tensors
    // and bytes written, tensors skipped for want of disk space): what the live channel
    // streams. Set before the first round.
    using RoundWritten = std::function<void(int64_t round, std::vector<live::OpStats> &&stats, uint64_t tensors,
                                            uint64_t bytes, uint64_t skipped)>;
    void onRoundWritten(RoundWritten f) { m_roundWritten = std::move(f); }
    // --nan-inf-only: of each round, only the nodes whose outputs hold NaN or Inf are written,
    // with their inputs; the first such node of each round goes into the status. Set before
    // the first round.
    void setNanInfOnly(bool on) { m_nanInfOnly = on; }

private:
    struct Job {
        int kind = 0; // 0 tensor, 1 text, 2 status, 3 round, 4 a round's result
        OutputRecord output;
        TensorJob tensor;
        CapturedRound round;
        std::string path, text;
        ProbeStatus status;
        uint64_t bytes = 0;
    };
    void push(std::vector<Job> &&jobs);
    void run();
    void execute(Job &job);
    void executeRound(CapturedRound &r);
    // A round's statistics by payload offset: items sharing a payload share them.
    using PayloadStats = std::unordered_map<uint64_t, std::optional<TensorStats>>;
    // --nan-inf-only: the nodes whose outputs hold NaN or Inf (noted in the status).
    std::vector<char> nanInfNodes(const CapturedRound &r, PayloadStats &byPayload);
    std::optional<TensorStats> itemStats(const CapturedRound &r, size_t k, PayloadStats &byPayload);
    std::optional<TensorStats> readWeight(const CapturedRound &r, size_t k);
    void writeItem(const CapturedRound &r, size_t k, const std::optional<TensorStats> &st);
    void setCellAttrs(const CapturedRound &r, size_t k, Tensor &t) const;
    StatisticRow csvRow(int64_t round, const std::vector<std::string> &folders, const std::string &opType, bool before,
                        bool input, int index, const Tensor &header) const;
    void addCsvLine(int64_t round, const StatisticRowParts &parts, const std::optional<TensorStats> &stats);
    // Writes every pending round's statistic.csv and forgets it; keepNewest: not the newest.
    void flushCsv(bool keepNewest);
    std::string csvPath(int64_t round) const; // relative to the dump root
    void waitForGap(); // while a crowded graph runs (bounded)

    DumpWriter m_writer;
    Warn m_warn;
    uint64_t m_cap;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_space, m_idle;
    std::deque<Job> m_queue;
    uint64_t m_queued = 0;
    bool m_busy = false, m_stop = false, m_sleeping = false;
    std::thread::id m_onlyFrom; // set at exit: the one thread still heard
    std::deque<int64_t> m_wholeRounds; // the rounds whose last part was taken, newest last
    uint64_t m_csvRows = 0;
    std::map<int64_t, std::string> m_csv; // round -> rows not yet final (writer thread only)
    // A written round's text, kept for the next round: its memory is reused rather than given
    // back to the system and faulted in again every round.
    std::string m_csvSpare;
    int64_t m_lastCsvWritten = -1; // the newest round whose statistic.csv this process wrote
    // The fixed parts of each plan item's CSV row, for the plan they were built from.
    std::shared_ptr<const CapturePlan> m_rowsPlan;
    bool m_nanInfOnly = false; // set before the thread sees a round; then read there only
    uint64_t m_nanInfRounds = 0; // the writer thread's
    int64_t m_nanInfLastRound = -1;
    std::vector<std::string> m_nanInfFirst;
    std::map<std::string, std::string> m_drivers; // a driver library's path: its version (the writer's alone)
    std::vector<std::optional<StatisticRowParts>> m_rowParts;
    std::unordered_map<uint64_t, std::optional<TensorStats>> m_weightStats; // weights: computed once
    RoundWritten m_roundWritten;
    std::chrono::milliseconds m_gapWait;
    std::atomic<bool> m_crowded{false}, m_gapWaiting{false}, m_draining{false};
    std::mutex m_gapMutex;
    std::condition_variable m_gap;
    std::thread m_thread;
};

} // namespace llmscope::probe
