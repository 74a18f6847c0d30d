// What the window shows, owned in one place: the source (an opened dump, or a program running
// under the probe), its operations, the dump's files and statistics by op and round, the
// program's state, and the results computed on them (the comparison shown, the one whose
// metrics colour the ops, the replay, the spread, the quantization report), and the -ids picked
// but not applied. The controllers write it; the views read it and follow its signals (one for
// each part), constructed with it. Qt Core only; GUI thread.
//
// reset() starts a new source: sourceChanged first, every view clears on it, and nothing of
// the previous source survives it.
#pragma once
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

#include "core/compare/compare_run.h"
#include "core/graph/op_graph.h"
#include "core/live/live_protocol.h"
#include "core/opcheck/opcheck_run.h"
#include "core/quant/quant_report.h"
#include "core/run_spread/spread.h"
#include "document/dump_rounds.h"

class SessionDocument : public QObject {
    Q_OBJECT
public:
    enum class Source { None, Dump, Program };
    Q_ENUM(Source)
    struct SourceInfo {
        Source kind = Source::None;
        QString name; // the folder, or the program's name
        QString dumpRoot; // where its tensors are (may be empty)
    };
    // The program running under the probe (Source::Program): its state, process and counters.
    struct Program {
        std::function<QString()> state; // the live session's state, worded when shown (in the language then)
        QString message; // why
        QString stateWords() const { return state ? state() : QString(); }
        std::optional<llmscope::live::Hello> process;
        std::optional<llmscope::live::Counters> counters;
        std::optional<llmscope::live::Round> lastRound;
    };
    // What was computed on the source; null: none. resultChanged says which changed.
    enum class Result { Comparison, Metrics, Replay, Spread, QuantReport };
    Q_ENUM(Result)
    struct Results {
        std::shared_ptr<const llmscope::CompareResult> comparison; // the one shown
        std::shared_ptr<const llmscope::CompareResult> metrics; // the one whose metrics colour the ops
        std::shared_ptr<const llmscope::OpcheckResult> replay;
        std::shared_ptr<const llmscope::SpreadResult> spread; // several runs side by side, run 0 the source
        QString spreadFolder; // the spread's dumps and reports
        bool spreadOnSource = false; // its run 0 is the source: its ops are the graph's
        std::shared_ptr<const llmscope::QuantReport> quantReport;
        QString quantFolder; // the report's
    };

    explicit SessionDocument(QObject *parent = nullptr) : QObject(parent) {}

    const SourceInfo &source() const { return m_source; }
    void reset(Source kind, const QString &name); // sourceChanged
    void setDumpRoot(const QString &root) { m_source.dumpRoot = root; }
    // Whose files the pages show, in words with the folder: golden's or test's dump of the
    // comparison shown, the running program's, or the dump opened; empty when none.
    QString dumpRootWords() const;

    // Its operations, one graph whatever the source; never null.
    std::shared_ptr<const llmscope::OpGraph> graph() const { return m_graph; }
    void setGraph(llmscope::OpGraph graph); // graphChanged

    const DumpRounds &rounds() const { return m_rounds; }
    void addRounds(const DumpRounds::Chunk &chunk); // roundsAdded

    const Program &program() const { return m_program; }
    template <class Edit>
    void editProgram(Edit &&edit) // programChanged
    {
        edit(m_program);
        emit programChanged();
    }

    // The -ids picked in the tree or typed (as typed: maybe no -ids list yet), not yet applied:
    // what Apply sends, and what a view built later (a language switch) shows again.
    const QString &pickedIds() const { return m_pickedIds; }
    void setPickedIds(const QString &text, const QObject *by = nullptr); // pickedIdsChanged when it differs

    const Results &results() const { return m_results; }
    void setComparison(std::shared_ptr<const llmscope::CompareResult> r);
    void setMetrics(std::shared_ptr<const llmscope::CompareResult> r);
    void setReplay(std::shared_ptr<const llmscope::OpcheckResult> r);
    void setSpread(std::shared_ptr<const llmscope::SpreadResult> r, const QString &folder = {}, bool onSource = true);
    void setQuantReport(std::shared_ptr<const llmscope::QuantReport> r, const QString &folder);

signals:
    void sourceChanged(SessionDocument::Source kind, const QString &name); // every view clears
    void graphChanged();
    void roundsAdded(const DumpRounds::Chunk &chunk); // a scan's rounds in order, or a program's round
    void programChanged();
    void resultChanged(SessionDocument::Result which);
    void pickedIdsChanged(const QString &text, const QObject *by); // by: who picked them (null: the program)

private:
    SourceInfo m_source;
    std::shared_ptr<const llmscope::OpGraph> m_graph = std::make_shared<llmscope::OpGraph>();
    DumpRounds m_rounds;
    Program m_program;
    Results m_results;
    QString m_pickedIds;
};
