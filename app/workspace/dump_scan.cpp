#include "app/workspace/dump_scan.h"

#include "core/dump/token_record.h"
#include "core/requests/requests.h"

#include "core/compare/tensor_reader.h"
#include "core/dump/op_info_csv.h"
#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"
#include "core/util/error.h"
#include "document/reason_words.h"

using namespace llmscope;

namespace dumpscan {

namespace {

// An output's statistics from its data, where its header or statistic.csv has none (a dump of
// tensors only): the heatmap of an opened dump is the one it showed live. Too large a tensor,
// or one that cannot be read as numbers, has none.
std::optional<TensorStats> statsFromData(const TensorRecord &t)
{
    constexpr uint64_t kMostElements = uint64_t(1) << 24;
    if (!t.hasData)
        return std::nullopt;
    try {
        TensorRecord copy = t;
        TensorReader reader(copy);
        reader.requireData();
        if (reader.count() == 0 || reader.count() > kMostElements)
            return std::nullopt;
        std::vector<float> values(reader.count());
        reader.read(0, values.size(), values.data());
        return computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(values.data()), values.size(),
                            false);
    } catch (const Error &) {
        return std::nullopt; // listed among the scan's problems, or not a numeric tensor
    }
}

} // namespace

std::vector<live::RoundStats> statsOf(const DumpIndex &index, const std::atomic<bool> &cancelled)
{
    std::map<int64_t, live::RoundStats> byRound;
    for (const TensorRecord &t : index.tensors) {
        if (t.input || t.before || t.index != 0)
            continue;
        const std::optional<TensorStats> s = t.stats ? t.stats : cancelled ? std::nullopt : statsFromData(t);
        if (!s)
            continue;
        live::RoundStats &r = byRound[t.exec];
        r.round = t.exec;
        r.stats.push_back({t.opId, s->max, s->min, s->mean, s->l2norm, s->nanCount, s->infCount});
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
    try {
        const auto records = readFusionRecords(root, true);
        if (!records.empty())
            e.fused = records.begin()->second;
    } catch (const Error &) {
        // a malformed record: the ops are shown without their chains, as compare says why
    }
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
                if (handover.push({chunk, statsByRound ? statsOf(chunk, cancelled) : std::vector<live::RoundStats>()},
                                  cancelled))
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
            out.problemLines.push_back(
                QString::fromStdString(index.problems[i].path + ": " + index.problems[i].message));
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
            out.stats = statsOf(index, cancelled);
        try {
            out.requests = requestsOf(readTokenRecords(index.root));
        } catch (const Error &e) { // the files still show
            ++out.problems;
            out.problemLines.push_back(errorWords(e));
        }
    } catch (const Error &e) {
        out.error = errorWords(e);
    }
    return out;
}

} // namespace dumpscan
