// The probe's process-wide state: configuration, the current selection (replaced when the
// dynamic config file changes), the writer thread, per-scheduler state, counters for the
// status file, and a cache of weight statistics. Created on the first interposed call and
// never destroyed: late callbacks from other threads at exit stay safe.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ggml-backend.h>

#include "graph_topology.h"
#include "probe_config.h"
#include "writer_thread.h"

namespace llmscope::probe {

struct SchedState {
    ggml_backend_sched_eval_callback hostCb = nullptr;
    void *hostUd = nullptr;
    GraphTopology topo;
    uint64_t topoKey = 0;
    const Selection *topoSelection = nullptr; // the selection `selected` was computed for
    int64_t round = -1;
    bool dumping = false;         // this round is selected
    std::shared_ptr<const Selection> selection; // fixed for the round
    std::vector<char> selected;   // per node
    std::vector<char> hostAsked;  // per node: the host asked for it too
    int asked = 0;                // nodes the probe asks for this round
    int lastAsked = -1;           // the last of them: the round's tensors are handed over after it
    std::vector<TensorJob> pending; // captured this round, not yet handed to the writer
    uint64_t pendingBytes = 0;
    ggml_threadpool_t pool = nullptr;
    int poolThreads = 0;
};

class Probe {
public:
    static Probe &get();

    bool active() const { return m_active.load(std::memory_order_relaxed); }
    void disable(const std::string &why);
    void warn(const std::string &msg); // to stderr, the first few only
    const ProbeConfig &config() const { return m_config; }
    WriterThread *writer() { return m_writer.get(); }

    // Call under mutex at each graph compute: re-reads the dynamic config when due and
    // returns the selection for this round.
    std::shared_ptr<const Selection> selectionForRound();
    // Call under mutex: counts the round and refreshes the status file now and then.
    void noteRound(int64_t round, bool dumping, uint64_t opsSeen, uint64_t opsSelected);
    void writeStatus(bool finished);
    void handOver(SchedState &s); // pending tensors to the writer thread
    void handOver(std::vector<TensorJob> &pending);

    // Statistics of a weight tensor, computed once (weights do not change while running).
    std::optional<Tensor> weightStats(const ggml_tensor *t);
    void rememberWeightStats(const ggml_tensor *t, const Tensor &header);

    std::mutex mutex; // guards scheds, topology and counters
    std::unordered_map<ggml_backend_sched_t, SchedState> scheds;
    std::atomic<int64_t> nextRound{0};
    bool topologyWritten = false;
    std::once_flag layoutOnce;
    std::atomic<bool> hostPool{false}; // the host attached its own CPU threadpool

private:
    Probe();
    void loadConfigFile();

    ProbeConfig m_config;
    std::atomic<bool> m_active{false};
    std::unique_ptr<WriterThread> m_writer;
    std::shared_ptr<const Selection> m_selection;
    std::chrono::steady_clock::time_point m_lastConfigCheck{}, m_lastStatus{};
    int64_t m_configMtime = -1;
    std::string m_configError;
    ProbeStatus m_status;
    bool m_statusDirty = false;
    std::atomic<int> m_warnings{0};
    std::unordered_set<std::string> m_warned;
    std::mutex m_noteMutex; // guards m_status and m_weights; taken last
    struct WeightEntry { const void *data; Tensor header; };
    std::unordered_map<const ggml_tensor *, WeightEntry> m_weights;
};

} // namespace llmscope::probe
