#include "session_document.h"

#include <QSet>

#include <algorithm>

#include "util/text.h"

using namespace llmscope;

void SessionDocument::reset(Source source, const QString &name)
{
    m_source = source;
    m_sourceName = name;
    m_dumpRoot.clear();
    m_graph = std::make_shared<const OpGraph>();
    m_backends.clear();
    m_files.clear();
    m_index = {};
    m_stats.clear();
    m_program = {};
    m_comparison.reset();
    m_metrics.reset();
    m_replay.reset();
    m_spread.reset();
    m_quantReport.reset();
    m_quantFolder.clear();
    emit sourceChanged(source, name);
}

void SessionDocument::setGraph(OpGraph graph, std::map<std::string, std::string> backends)
{
    m_graph = std::make_shared<const OpGraph>(std::move(graph));
    const bool named = !backends.empty();
    if (named)
        m_backends = std::move(backends);
    emit topologyChanged();
    if (named)
        emit backendsChanged();
}

void SessionDocument::addFiles(const DumpIndex &chunk)
{
    if (m_index.root.empty()) {
        m_index.root = chunk.root;
        m_index.layout = chunk.layout;
    }
    m_index.tensors.insert(m_index.tensors.end(), chunk.tensors.begin(), chunk.tensors.end());
    m_index.problems.insert(m_index.problems.end(), chunk.problems.begin(), chunk.problems.end());
    for (const TensorRecord &t : chunk.tensors) {
        const std::string ext = toLower(t.path.substr(std::min(t.path.size(), t.path.rfind('.'))));
        if (ext != ".bin" && ext != ".npy") // what the inspector reads
            continue;
        auto &files = m_files[t.opId][t.exec];
        files.insert(std::upper_bound(files.begin(), files.end(), t.path), t.path);
    }
    emit filesAdded(chunk);
}

void SessionDocument::addStats(const live::RoundStats &s)
{
    auto &round = m_stats[s.round];
    for (const auto &o : s.stats)
        round.insert(QString::fromStdString(o.id), o);
    while (m_stats.size() > kRoundsKept) // a long run: the oldest rounds go
        m_stats.erase(m_stats.begin());
    emit statsAdded(s);
}

const live::OpStats *SessionDocument::statsOf(const QString &op, int64_t round) const
{
    const auto r = m_stats.find(round);
    if (r == m_stats.end())
        return nullptr;
    const auto it = r->second.find(op);
    return it == r->second.end() ? nullptr : &*it;
}

std::vector<int64_t> SessionDocument::statsRounds() const
{
    std::vector<int64_t> out;
    out.reserve(m_stats.size());
    for (const auto &[round, ops] : m_stats)
        out.push_back(round);
    return out;
}

live::RoundStats SessionDocument::newestStats() const
{
    live::RoundStats out{m_stats.empty() ? -1 : m_stats.rbegin()->first, {}};
    QSet<QString> seen;
    for (auto r = m_stats.rbegin(); r != m_stats.rend(); ++r)
        for (auto it = r->second.begin(); it != r->second.end(); ++it)
            if (!seen.contains(it.key())) {
                seen.insert(it.key());
                out.stats.push_back(it.value());
            }
    return out;
}

int64_t SessionDocument::statsRoundBefore(int64_t round) const
{
    const auto r = m_stats.lower_bound(round);
    return r == m_stats.begin() ? -1 : std::prev(r)->first;
}

void SessionDocument::setNewestStats(const live::RoundStats &merged)
{
    emit opStatsChanged(merged);
}

QStringList SessionDocument::filesOf(const QString &op, qint64 maxRound, qint64 *round) const
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

void SessionDocument::setProgramState(const QString &state, const QString &message)
{
    m_program.state = state;
    m_program.message = message;
    emit programChanged();
}

void SessionDocument::setProgramProcess(const live::Hello &h)
{
    m_program.process = h;
    emit programChanged();
}

void SessionDocument::setProgramCounters(const live::Counters &c)
{
    m_program.counters = c;
    emit programChanged();
}

void SessionDocument::setProgramRound(const live::Round &r)
{
    m_program.lastRound = r;
    emit programChanged();
}

void SessionDocument::setComparison(std::shared_ptr<const CompareResult> r)
{
    m_comparison = std::move(r);
    emit comparisonChanged(m_comparison);
}

void SessionDocument::setMetrics(std::shared_ptr<const CompareResult> r)
{
    m_metrics = std::move(r);
    emit metricsChanged(m_metrics);
}

void SessionDocument::setReplay(std::shared_ptr<const OpcheckResult> r)
{
    m_replay = std::move(r);
    emit replayChanged(m_replay);
}

void SessionDocument::setQuantReport(std::shared_ptr<const QuantReport> r, const QString &folder)
{
    m_quantReport = std::move(r);
    m_quantFolder = folder;
    emit quantReportChanged(m_quantReport);
}

void SessionDocument::setSpread(std::shared_ptr<const SpreadResult> r)
{
    m_spread = std::move(r);
    emit spreadChanged(m_spread);
}
