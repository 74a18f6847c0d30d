// The dump's files and statistics by op and round, as rounds come: what the inspector looks
// an op's tensors up in (in memory, not on disk), what the heatmap and the op tree colour ops
// by. The document holds one and adds to it; nothing else writes it. Qt Core only.
#pragma once
#include <QHash>
#include <QString>
#include <QStringList>

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/live/live_protocol.h"
#include "core/requests/requests.h"

class DumpRounds {
public:
    // What arrives at once: a scan's rounds of files with their statistics, or a running
    // program's round of statistics.
    struct Chunk {
        llmscope::DumpIndex files;
        std::vector<llmscope::live::RoundStats> stats;
        std::vector<llmscope::Request> requests = {}; // the requests of the whole dump, once it is read
    };
    static constexpr size_t kRoundsKept = 4096; // statistics of the newest rounds; older ones go

    void add(const Chunk &chunk);
    void clear() { *this = {}; }

    // Every chunk's files so far, in order. A deque: a new round moves none of the records before
    // it (a vector's growth moved and paged in all of them, a stall of tens of milliseconds).
    const std::deque<llmscope::TensorRecord> &records() const { return m_records; }
    // The tensor files (.bin, .npy) of op in the newest round at most maxRound (-1: any);
    // round says which, -1 when none.
    QStringList filesOf(const QString &op, qint64 maxRound, qint64 *round) const;

    const llmscope::live::OpStats *statsOf(const QString &op, int64_t round) const; // null: not dumped there
    bool hasStatsIn(int64_t round) const { return m_stats.count(round) > 0; }
    std::vector<int64_t> statsRounds() const; // ascending
    int64_t statsRoundBefore(int64_t round) const; // -1 when none
    llmscope::live::RoundStats newestStats() const; // each op's newest, in the newest round's number
    // The requests its program served (llama-server's slots), from the rounds' token records;
    // empty until the dump is read, or where it records no sequences.
    const std::vector<llmscope::Request> &requests() const { return m_requests; }
    std::vector<const llmscope::Request *> requestsOfRound(int64_t round) const;

private:
    std::deque<llmscope::TensorRecord> m_records;
    std::map<std::string, std::map<int64_t, std::vector<std::string>>> m_files; // op -> round -> files, sorted
    std::map<int64_t, QHash<QString, llmscope::live::OpStats>> m_stats; // round -> op -> statistics
    QHash<QString, std::pair<int64_t, llmscope::live::OpStats>> m_newest; // op -> its newest round's
    std::vector<llmscope::Request> m_requests;
};
