// What the window shows, owned in one place: the source (an opened dump, or a program running
// under the probe), its operations, the dump's files by op and round (in memory: the
// inspector looks an op up here, not on disk), the statistics as rounds bring them, the
// comparison shown and the one whose metrics colour the ops, and the replay. The jobs write
// it (the workspace's scan, compare, replay and live session); the views read it and follow
// its signals, constructed with it. Qt Core only; GUI thread.
//
// reset() starts a new source: sourceChanged first, every view clears on it, and nothing of
// the previous source survives it.
#pragma once
#include <QHash>
#include <QObject>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare_run.h"
#include "dump/dump_index.h"
#include "graph/op_graph.h"
#include "live/live_protocol.h"
#include "opcheck/opcheck_run.h"
#include "quant/quant_report.h"
#include "spread/spread.h"

class SessionDocument : public QObject {
    Q_OBJECT
public:
    enum class Source { None, Dump, Program };
    Q_ENUM(Source)
    explicit SessionDocument(QObject *parent = nullptr) : QObject(parent) {}

    // --- the source
    Source source() const { return m_source; }
    QString sourceName() const { return m_sourceName; } // the folder, or the program's name
    QString dumpRoot() const { return m_dumpRoot; }      // where its tensors are (may be empty)
    void reset(Source source, const QString &name);      // sourceChanged
    void setDumpRoot(const QString &root) { m_dumpRoot = root; }

    // --- its operations, one graph whatever the source; each op's backend where a dump's kernel
    // file names it (a live graph's ops carry theirs)
    const llmscope::OpGraph &graph() const { return *m_graph; }
    std::shared_ptr<const llmscope::OpGraph> sharedGraph() const { return m_graph; } // never null
    const std::map<std::string, std::string> &backends() const { return m_backends; }
    void setGraph(llmscope::OpGraph graph, std::map<std::string, std::string> backends = {}); // topologyChanged

    // --- the dump's files and statistics, as rounds come
    void addFiles(const llmscope::DumpIndex &chunk);      // filesAdded
    const llmscope::DumpIndex &index() const { return m_index; } // every chunk so far, in order
    // Every round's statistics (the newest kRoundsKept rounds): each op's in a round, null when
    // it was not dumped there.
    void addStats(const llmscope::live::RoundStats &s);   // statsAdded (every round, as it comes)
    static constexpr size_t kRoundsKept = 4096;
    const llmscope::live::OpStats *statsOf(const QString &op, int64_t round) const;
    bool hasStatsIn(int64_t round) const { return m_stats.count(round) > 0; }
    std::vector<int64_t> statsRounds() const; // ascending
    // The round before round with statistics; -1 when none.
    int64_t statsRoundBefore(int64_t round) const;
    llmscope::live::RoundStats newestStats() const; // each op's newest, in the newest round's number
    void setNewestStats(const llmscope::live::RoundStats &merged); // opStatsChanged
    // The tensor files (.bin, .npy) of op in the newest round at most maxRound (-1: any) the
    // scan has brought; round says which, -1 when none.
    QStringList filesOf(const QString &op, qint64 maxRound, qint64 *round) const;

    // --- the program running under the probe (Source::Program): its state, process and counters
    struct Program {
        QString state, message; // the live session's state, in words, and why
        std::optional<llmscope::live::Hello> process;
        std::optional<llmscope::live::Counters> counters;
        std::optional<llmscope::live::Round> lastRound;
    };
    const Program &program() const { return m_program; }
    void setProgramState(const QString &state, const QString &message); // programChanged
    void setProgramProcess(const llmscope::live::Hello &h);
    void setProgramCounters(const llmscope::live::Counters &c);
    void setProgramRound(const llmscope::live::Round &r);

    // --- the comparison, the metrics shown on the ops, the replay (null: none)
    std::shared_ptr<const llmscope::CompareResult> comparison() const { return m_comparison; }
    std::shared_ptr<const llmscope::CompareResult> metrics() const { return m_metrics; }
    std::shared_ptr<const llmscope::OpcheckResult> replay() const { return m_replay; }
    // The quantization report (llmscope quant-report) and its folder; null: none.
    std::shared_ptr<const llmscope::QuantReport> quantReport() const { return m_quantReport; }
    QString quantFolder() const { return m_quantFolder; }
    void setQuantReport(std::shared_ptr<const llmscope::QuantReport> r, const QString &folder); // quantReportChanged
    // Several runs side by side (llmscope spread), run 0 the source; null: none.
    std::shared_ptr<const llmscope::SpreadResult> spread() const { return m_spread; }
    void setComparison(std::shared_ptr<const llmscope::CompareResult> r); // comparisonChanged
    void setMetrics(std::shared_ptr<const llmscope::CompareResult> r);    // metricsChanged
    void setReplay(std::shared_ptr<const llmscope::OpcheckResult> r);     // replayChanged
    void setSpread(std::shared_ptr<const llmscope::SpreadResult> r);      // spreadChanged

signals:
    void sourceChanged(SessionDocument::Source source, const QString &name); // every view clears
    void topologyChanged(); // graph()
    void backendsChanged();
    void filesAdded(const llmscope::DumpIndex &chunk); // a scan's rounds, in order
    void statsAdded(const llmscope::live::RoundStats &stats);
    // The newest statistics of each op, merged (at most ten times a second while a program runs).
    void opStatsChanged(const llmscope::live::RoundStats &newest);
    void comparisonChanged(std::shared_ptr<const llmscope::CompareResult> r);
    void metricsChanged(std::shared_ptr<const llmscope::CompareResult> r);
    void replayChanged(std::shared_ptr<const llmscope::OpcheckResult> r);
    void spreadChanged(std::shared_ptr<const llmscope::SpreadResult> r);
    void quantReportChanged(std::shared_ptr<const llmscope::QuantReport> r);
    void programChanged(); // program()

private:
    Source m_source = Source::None;
    QString m_sourceName, m_dumpRoot;
    std::shared_ptr<const llmscope::OpGraph> m_graph = std::make_shared<llmscope::OpGraph>();
    std::map<std::string, std::string> m_backends;
    llmscope::DumpIndex m_index;
    std::map<std::string, std::map<int64_t, std::vector<std::string>>> m_files; // op -> round -> files, sorted
    std::map<int64_t, QHash<QString, llmscope::live::OpStats>> m_stats; // round -> op -> statistics
    Program m_program;
    std::shared_ptr<const llmscope::CompareResult> m_comparison, m_metrics;
    std::shared_ptr<const llmscope::OpcheckResult> m_replay;
    std::shared_ptr<const llmscope::SpreadResult> m_spread;
    std::shared_ptr<const llmscope::QuantReport> m_quantReport;
    QString m_quantFolder;
};
