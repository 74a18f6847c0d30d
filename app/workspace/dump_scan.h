// The worker side of the workspace's scan of a dump: what runs on the thread pool (the
// topology read before the tensors, the round-by-round scan) and the handover of each round
// to the GUI thread. No Qt objects: the workspace posts and emits.
#pragma once
#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/dump/fusion_record.h"
#include "core/dump/topology.h"
#include "core/live/live_protocol.h"
#include "document/dump_rounds.h"

namespace dumpscan {

// The statistics of every op output in a dump, round by round (the heatmap's): from the
// files' headers or statistic.csv, else computed from their data (a dump of tensors alone).
// Stops computing once cancelled.
std::vector<llmscope::live::RoundStats> statsOf(const llmscope::DumpIndex &index, const std::atomic<bool> &cancelled);

// The model topology file and the kernel CSV's backends, found without walking the tensors.
struct EarlyTopology {
    std::optional<llmscope::TopoNode> topology;
    std::map<std::string, std::string> backends;
    std::vector<llmscope::FusedChainRecord> fused; // the first recorded round's chains (--keep-fusion)
};
EarlyTopology readEarlyTopology(const std::string &root);

// Rounds read and not yet shown. push() is called on the scan's thread, takeOne() on the GUI
// thread; the lock guards the list alone.
class RoundHandover {
public:
    using Round = DumpRounds::Chunk; // a round's files, and its statistics when the heatmap takes them
    // Rounds queued at most: a scan faster than the views (a dump with its writer's index)
    // waits for them instead of racing ahead, whose allocations starve the GUI thread.
    static constexpr size_t kMaxQueued = 2;

    // Queues round, first waiting while kMaxQueued are queued, unless cancelled (looked at
    // every 20 ms while waiting). True when no take is asked for yet: the caller asks the GUI
    // thread to take what is queued. One take is asked for at a time: many in one pass of the
    // event loop would stall it however short each is.
    bool push(Round round, const std::atomic<bool> &cancelled);
    // The oldest round queued; none when the list is empty, and the next push asks again.
    std::optional<Round> takeOne();

private:
    std::mutex m_lock;
    std::condition_variable m_taken;
    std::deque<Round> m_rounds; // guarded by m_lock
    bool m_asked = false; // guarded by m_lock: a take is asked for or running
};

struct Outcome {
    int tensors = 0, problems = 0, rounds = 0;
    static constexpr size_t kProblemsSaid = 20;
    std::vector<QString> problemLines; // the first kProblemsSaid: "file: why"
    std::optional<llmscope::TopoNode> topology; // read from the scan's files (no early one)
    std::vector<llmscope::live::RoundStats> stats; // every round's, with that topology
    std::vector<llmscope::Request> requests; // the requests its program served, where recorded
    QString error;
};
// scanDumpByRound into handover (onTaken: ask the GUI thread to take); progress reports and
// reads cancelled. topologyFromScan: no early topology, so look for one among the files.
Outcome scanRounds(const std::string &root, RoundHandover &handover, bool statsByRound, bool topologyFromScan,
                   const std::function<void()> &onTaken, const std::function<void(uint64_t, uint64_t)> &progress,
                   const std::atomic<bool> &cancelled);

} // namespace dumpscan
