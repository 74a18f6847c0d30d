// The probe's process-wide state: configuration, the current selection (replaced when the
// dynamic config file changes), the writer thread, per-scheduler state, counters for the
// status file, and a cache of weight statistics. Created on the first interposed call and
// never destroyed: late callbacks from other threads at exit stay safe.
#pragma once
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ggml-backend.h>

#include "core/dump/token_record.h"
#include "probe/capture_plan.h"
#include "probe/fusion_rules.h"
#include "probe/graph_topology.h"
#include "probe/live_channel.h"
#include "probe/probe_config.h"
#include "probe/round_capture.h"
#include "probe/writer_thread.h"

namespace llmscope::probe {

// How a round is read, decided once when its graph compute is set up (prepareRound).
enum class RoundRead : uint8_t {
    None, // the round is not dumped
    AfterGraph, // its wanted tensors were kept as graph outputs: read once the whole graph ran
    Inline, // as ggml's CPU backend computes each node (inline_reader.h)
    NodeByNode, // the scheduler asks the probe's eval callback about each selected node
};

// A round's mode: how it is read, and what else is done after every node. Both extras ask
// the scheduler about every node, so a round with either is read node by node when dumped.
struct RoundMode {
    RoundRead read = RoundRead::None;
    bool profile = false; // cpu_profiling: every node asked for and timed
    bool watch = false; // --watch: every node asked for, the watched outputs re-read after each
    bool dumping() const { return read != RoundRead::None; }
    bool everyNode() const { return profile || watch; }
    // Whether the probe's code touches the state on the computing thread during the graph.
    bool touchesDuringGraph() const { return dumping() || everyNode(); }
};

// One scheduler's state. Who touches it: under Probe::mutex, every interposed call that looks
// a scheduler up (a graph compute's set-up and end, allocation, free, the exit handler).
// Outside the lock, only the thread computing this scheduler's graph, between its compute's
// set-up and its end (`computing` names it): the eval callback, the inline reader's backend
// computes and the read after the graph all run on that thread, and ggml never computes one
// scheduler on two threads at once. The exit handler leaves a state alone while another
// thread is computing on it (a program that calls exit() from another thread mid-graph).
struct SchedState {
    ggml_backend_sched_eval_callback hostCb = nullptr;
    void *hostUd = nullptr;
    ggml_backend_sched_eval_callback installedCb = nullptr; // what the scheduler calls now
    std::shared_ptr<const GraphTopology> topo;
    uint64_t topoKey = 0;
    std::shared_ptr<const CapturePlan> plan;
    const Selection *planSelection = nullptr; // the selection the plan was built for
    uint64_t planAlloc = ~0ull; // the allocation it was built after (aliases use addresses)
    uint64_t allocs = 0; // graphs allocated through the scheduler so far
    uint64_t keptAlloc = ~0ull; // the allocation whose wanted tensors were marked as outputs
    const Selection *keptSelection = nullptr;
    CopySources copySources; // kept on several backends: the scheduler's copies of inputs, to their sources
    bool computeOpen = false; // inside the scheduler's compute (an allocation there is ggml's own)
    int64_t round = -1;
    RoundMode mode; // this round's, fixed from its set-up to its end
    // The thread between this round's set-up and end: set under mutex, cleared by that thread
    // (release) once it no longer touches the state; read by the exit handler (acquire).
    std::atomic<std::thread::id> computing{};
    int inlineNext = 0; // inline: the first node no backend compute has covered yet
    bool inlineFailed = false; // inline: the round cannot be read (nothing taken is valid)
    bool inlineStopped = false; // inline: the graph stopped early (host callback, failure)
    int cancelledAfter = -1; // post rounds: the host's callback stopped the graph after this node
    std::shared_ptr<const Selection> selection; // fixed for the round
    std::vector<char> hostAsked; // per node: the host asked for it too
    int asked = 0; // nodes the probe asks for this round (node by node)
    int lastAsked = -1; // the last of them: the round is handed over after it
    int cursor = -1; // the node the scheduler asked about or reported last
    std::vector<int> watched; // node indices of the watched ops
    std::vector<uint64_t> watchHash; // per watched: its output's hash once computed (0: not yet)
    std::vector<int> changedAfter; // per watched: the first node after which it changed, -1 none
    std::vector<int64_t> profAsked, profNs; // per node: when asked (steady ns), how long it ran
    RoundCapture capture; // this round's tensors
    DevicePrefetch prefetch; // after the whole graph: its device tensors, fetched in one go
    std::unordered_set<uint64_t> weightsSent; // weights the writer has had (statistics or payload)
    const GraphTopology *liveTopo = nullptr; // the topology last looked at for the live channel
    uint64_t liveKey = 0; // and its key there (the ops' ids, names, types and shapes)
    ggml_threadpool_t pool = nullptr;
    int poolThreads = 0;
    std::vector<FusedChain> chains; // --keep-fusion: the chains the plan leaves whole
    std::vector<CarriedResult> carried; // --keep-fusion: results a backend carries past memory
    std::vector<std::string> chainBackends; // their backends' names, by FusedChain::backend
    const GraphTopology *backendsNoted = nullptr; // the topology whose nodes' backends the status has
    std::string chainsJson; // their fusion record's chains, made once a plan: a round's record adds its number
};

class Probe;
// Takes the plan items [first, last) of the round; hands a long prefill's full batch over.
void takeItems(Probe &p, SchedState &s, std::pair<uint32_t, uint32_t> range);

// The thread counts llama.cpp set for the CPU backends, distinct, ascending (seen through
// ggml_backend_set_n_threads; ggml_interposer.cpp).
std::vector<int> cpuThreadCounts();

class Probe {
public:
    static Probe &get();

    bool active() const { return m_active.load(std::memory_order_relaxed); }
    void disable(const std::string &why);
    void warn(const std::string &msg); // to stderr, the first few only
    const ProbeConfig &config() const { return m_config; }
    WriterThread *writer() { return m_writer.get(); }

    // The probe's lock: held by every interposed call that touches a scheduler's state, and
    // by the C ABI's calls. The members marked "under mutex" are reached only with it held.
    std::mutex mutex;
    // Under mutex: each scheduler's state.
    std::unordered_map<ggml_backend_sched_t, SchedState> &scheds() { return m_scheds; }
    // Under mutex, at each graph compute: takes a selection the app sent over the live
    // channel (acknowledged as applying from `round`), re-reads the dynamic config when due,
    // and returns the selection for this round.
    std::shared_ptr<const Selection> selectionForRound(int64_t round);
    // Under mutex: connects to the app when LLMSCOPE_LIVE names its socket (once).
    bool liveWanted() const { return !m_config.liveSocket.empty() && !m_liveStarted; }
    void startLive(const std::string &engine, const std::string &device);
    // The live channel, or null: none asked for, or not started yet.
    LiveChannel *live() const { return m_live.load(std::memory_order_acquire); }

    // Rounds count graph computes across the process's schedulers.
    int64_t takeRound() { return m_nextRound.fetch_add(1, std::memory_order_relaxed); }
    int64_t upcomingRound() const { return m_nextRound.load(std::memory_order_relaxed); }
    // True for exactly one caller, who writes the topology files.
    bool claimTopology() { return !m_topologyWritten.exchange(true); }
    bool topologyWritten() const { return m_topologyWritten.load(); }
    // ggml_tensor's layout, checked on the first tensor seen.
    bool layoutChecked() const { return m_layoutChecked.load(std::memory_order_acquire); }
    void setLayoutChecked() { m_layoutChecked.store(true, std::memory_order_release); }
    // The host attached its own CPU threadpool: the probe leaves pools alone.
    bool hostPool() const { return m_hostPool.load(); }
    void setHostPool() { m_hostPool.store(true); }

    // From any thread: counters for the status file, which is refreshed now and then.
    void noteStopped(int64_t round); // a dumped round's graph ended early
    void noteRound(int64_t round, bool dumping, uint64_t opsSeen, uint64_t opsSelected, bool wholeGraph = false,
                   bool inlineRead = false, uint64_t topoKey = 0, uint64_t pieces = 0);
    void writeStatus(bool finished);
    ProbeStatus status(bool finished); // the counters so far
    void handOver(SchedState &s); // the round captured so far, to the writer thread
    void dropRound(SchedState &s); // the round captured so far, discarded
    void handOver(std::vector<TensorJob> &pending);
    // Under mutex, before each ggml round computes: records the token ids it consumes, their
    // positions and sequences (sequences: set, empty where unknown) and, with
    // --follow-tokens, replaces them by golden's for that round.
    std::shared_ptr<const std::vector<int32_t>> followTokens(int64_t round, ggml_cgraph *graph,
                                                             std::vector<int32_t> &sequences);
    void noteTokensReplaced(); // from any thread
    void noteWatchChange(const std::string &what); // from any thread
    void noteModel(const std::string &path); // from any thread: a model file the program loaded
    void noteBackends(const std::vector<std::string> &names); // from any thread: backends that computed a dumped round
    void noteStateCopy(StateCopy copy); // from any thread: a copy into the KV cache outside any graph
    void noteContext(std::vector<std::string> settings); // from any thread: what a new graph says of its context
    void noteSampler(std::string setting); // from any thread: a sampler the program made (sampling.cpp)

private:
    Probe();
    void loadConfigFile();

    ProbeConfig m_config; // set once, before the first interposed call returns
    std::atomic<bool> m_active{false};
    std::unique_ptr<WriterThread> m_writer;
    std::atomic<int64_t> m_nextRound{0};
    std::atomic<bool> m_topologyWritten{false}, m_layoutChecked{false}, m_hostPool{false};
    std::atomic<bool> m_librariesRead{false};
    std::atomic<int> m_warnings{0};
    static constexpr int kLiveWarnings = 50; // sent to the app; stderr has the first 10
    std::atomic<LiveChannel *> m_live{nullptr}; // created once, never destroyed (as the probe)

    // Under mutex.
    std::unordered_map<ggml_backend_sched_t, SchedState> m_scheds;
    std::shared_ptr<const Selection> m_selection;
    std::chrono::steady_clock::time_point m_lastConfigCheck{};
    int64_t m_configMtime = -1;
    std::string m_configError;
    bool m_liveStarted = false;
    std::map<int64_t, TokenRecord> m_goldenTokens; // --follow-tokens
    bool m_following = false; // until a round's token count differs

    // Under m_statusMutex, which is taken last (never while waiting for another lock).
    std::mutex m_statusMutex;
    ProbeStatus m_status;
    bool m_statusDirty = false;
    std::chrono::steady_clock::time_point m_lastStatus{};
    std::unordered_set<std::string> m_warned;
};

} // namespace llmscope::probe
