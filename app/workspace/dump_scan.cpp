#include "dump_scan.h"

#include "dump/op_info_csv.h"
#include "util/error.h"

using namespace llmscope;

namespace dumpscan {

std::vector<live::RoundStats> statsOf(const DumpIndex &index)
{
    std::map<int64_t, live::RoundStats> byRound;
    for (const TensorRecord &t : index.tensors)
        if (t.stats && !t.input && !t.before && t.index == 0) {
            live::RoundStats &r = byRound[t.exec];
            r.round = t.exec;
            r.stats.push_back({t.opId, t.stats->max, t.stats->min, t.stats->mean, t.stats->l2norm, t.stats->nanCount,
                               t.stats->infCount});
        }
    std::vector<live::RoundStats> out;
    for (auto &[round, r] : byRound)
        out.push_back(std::move(r));
    return out;
}

EarlyTopology readEarlyTopology(const std::string &root)
{
    EarlyTopology e;
    for (const auto &f : findModelFiles(root))
        try {
            e.topology = readTopologyFile(f);
            break;
        } catch (const Error &) {
            // the scan lists it among the problems
        }
    if (e.topology)
        e.backends = readOpBackends(root);
    return e;
}

bool RoundHandover::push(Round round, const std::atomic<bool> &cancelled)
{
    std::unique_lock<std::mutex> hold(m_lock);
    while (m_rounds.size() >= kMaxQueued && !cancelled)
        m_taken.wait_for(hold, std::chrono::milliseconds(20));
    m_rounds.push_back(std::move(round));
    const bool ask = !m_asked;
    m_asked = true;
    return ask;
}

std::optional<RoundHandover::Round> RoundHandover::takeOne()
{
    std::optional<Round> r;
    {
        std::lock_guard<std::mutex> hold(m_lock);
        if (m_rounds.empty()) {
            m_asked = false;
            return std::nullopt;
        }
        r = std::move(m_rounds.front());
        m_rounds.pop_front();
    }
    m_taken.notify_one();
    return r;
}

Outcome scanRounds(const std::string &root, RoundHandover &handover, bool statsByRound, bool topologyFromScan,
                   const std::function<void()> &onTaken, const std::function<void(uint64_t, uint64_t)> &progress,
                   const std::atomic<bool> &cancelled)
{
    Outcome out;
    try {
        const DumpIndex index = scanDumpByRound(
            root,
            [&](const DumpIndex &chunk) {
                if (cancelled)
                    return false;
                if (handover.push({chunk, statsByRound ? statsOf(chunk) : std::vector<live::RoundStats>()}, cancelled))
                    onTaken();
                return true;
            },
            [&](uint64_t done, uint64_t total) {
                progress(done, total);
                return !cancelled;
            });
        out.tensors = int(index.tensors.size());
        out.problems = int(index.problems.size());
        for (size_t i = 0; i < index.problems.size() && i < Outcome::kProblemsSaid; ++i)
            out.problemLines.push_back(QString::fromStdString(index.problems[i].path + ": " + index.problems[i].message));
        out.rounds = int(index.rounds().size());
        if (topologyFromScan)
            for (const auto &files : {index.modelFiles, index.torchTreeFiles})
                if (!out.topology && !files.empty()) {
                    try {
                        out.topology = readTopologyFile(files.front());
                    } catch (const Error &) {
                        // listed among the problems by the scan; the files still show
                    }
                }
        if (out.topology)
            out.stats = statsOf(index);
    } catch (const Error &e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

} // namespace dumpscan
