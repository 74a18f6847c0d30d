#include "document/dump_rounds.h"

#include <algorithm>

#include "core/dump/dump_layout.h"

using namespace llmscope;

void DumpRounds::add(const Chunk &chunk)
{
    const DumpIndex &files = chunk.files;
    m_records.insert(m_records.end(), files.tensors.begin(), files.tensors.end());
    for (const TensorRecord &t : files.tensors) {
        if (!isTensorFile(t.path)) // what the inspector reads
            continue;
        auto &paths = m_files[t.opId][t.exec];
        paths.insert(std::upper_bound(paths.begin(), paths.end(), t.path), t.path);
    }
    for (const live::RoundStats &s : chunk.stats) {
        auto &round = m_stats[s.round];
        for (const auto &o : s.stats) {
            const QString id = QString::fromStdString(o.id);
            round.insert(id, o);
            auto newest = m_newest.find(id);
            if (newest == m_newest.end())
                m_newest.insert(id, {s.round, o});
            else if (newest->first <= s.round)
                *newest = {s.round, o};
        }
    }
    while (m_stats.size() > kRoundsKept) // a long run: the oldest rounds go
        m_stats.erase(m_stats.begin());
    if (!chunk.requests.empty())
        m_requests = chunk.requests;
}

std::vector<const Request *> DumpRounds::requestsOfRound(int64_t round) const
{
    std::vector<const Request *> out;
    for (const Request &r : m_requests)
        if (std::binary_search(r.rounds.begin(), r.rounds.end(), round))
            out.push_back(&r);
    return out;
}

QStringList DumpRounds::filesOf(const QString &op, qint64 maxRound, qint64 *round) const
{
    *round = -1;
    const auto it = m_files.find(op.toStdString());
    if (it == m_files.end())
        return {};
    auto r = maxRound < 0 ? it->second.end() : it->second.upper_bound(maxRound);
    if (r == it->second.begin())
        return {};
    --r;
    *round = r->first;
    QStringList out;
    for (const auto &f : r->second)
        out << QString::fromStdString(f);
    return out;
}

const live::OpStats *DumpRounds::statsOf(const QString &op, int64_t round) const
{
    const auto r = m_stats.find(round);
    if (r == m_stats.end())
        return nullptr;
    const auto it = r->second.find(op);
    return it == r->second.end() ? nullptr : &*it;
}

std::vector<int64_t> DumpRounds::statsRounds() const
{
    std::vector<int64_t> out;
    out.reserve(m_stats.size());
    for (const auto &[round, ops] : m_stats)
        out.push_back(round);
    return out;
}

int64_t DumpRounds::statsRoundBefore(int64_t round) const
{
    const auto r = m_stats.lower_bound(round);
    return r == m_stats.begin() ? -1 : std::prev(r)->first;
}

live::RoundStats DumpRounds::newestStats() const
{
    live::RoundStats out{m_stats.empty() ? -1 : m_stats.rbegin()->first, {}};
    out.stats.reserve(size_t(m_newest.size()));
    for (const auto &[round, stats] : m_newest)
        out.stats.push_back(stats);
    return out;
}
