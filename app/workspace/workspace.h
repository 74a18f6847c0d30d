// The session in the window: it owns the document (what is shown), the cursor (where the user
// looks) and the jobs that write the document, each a controller of its own that never calls
// another: the program under the probe (LiveController), the scan of a dump
// (ScanController), comparisons (CompareController), the replay (ReplayController), the hunt
// (HuntAction) and the quantization report (QuantReportAction). It composes the jobs where one
// needs another: a comparison opens golden's dump while it runs, a run's end has its dump read. Qt Core only (no widgets): tested without a window. GUI
// thread; the jobs' work runs on the thread pool and comes back here by queued calls.
//
// A new source (open, launch, a comparison's golden) resets the document first: every view
// clears on it, every job of the previous source is abandoned, and nothing of it survives.
#pragma once
#include <QObject>

#include <functional>

#include <QCoroTask>

#include <map>
#include <memory>
#include <optional>

#include "app/session/launch_plan.h"
#include "app/session/live_session.h"
#include "app/spread/spread_plan.h"
#include "app/workspace/step_host.h"
#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/dump/topology.h"
#include "core/graph/op_graph.h"
#include "core/launch/dump_options.h"
#include "core/live/live_protocol.h"
#include "core/opcheck/opcheck_run.h"
#include "core/select/selection.h"

#include "document/compared_files.h"
#include "document/console_tone.h"
#include "document/cursor.h"
#include "document/session_document.h"

class Job;
class QThreadPool;
class HuntAction;
class QuantReportAction;
class LiveController;
class ReplayController;
class CompareController;
class ScanController;
class SpreadAction;
struct HuntSide;

class Workspace : public QObject, public StepHost {
    Q_OBJECT
public:
    using Source = SessionDocument::Source;
    using Tone = ConsoleTone;

    explicit Workspace(QObject *parent = nullptr);
    ~Workspace() override;

    // What is shown (the source, its ops, files, statistics, comparison, replay): the views
    // read it and follow its signals; the jobs here write it.
    SessionDocument *document() const { return m_doc; }

    // --- the source
    LiveSession *session() const override; // the live controller's
    // Opens a dump folder: its topology at once, its files and statistics round by round.
    // By value: the coroutine outlives its callers' arguments.
    QCoro::Task<bool> openDump(QString folder);
    // Starts a program under the probe (a new source); false and error says why.
    bool launch(const llmscope::DumpOptions &options, const LaunchSettings &settings, QString *error) override;
    bool canRunAgain() const { return m_lastLaunch.has_value(); }
    const std::optional<std::pair<llmscope::DumpOptions, LaunchSettings>> &lastLaunch() const { return m_lastLaunch; }
    QCoro::Task<> runAgain();
    void stop();
    // Back to nothing shown (File > Close); refused while a program runs.
    bool closeSource();

    // --- comparison
    // Compares golden with test off the GUI thread (compareJob); golden's dump becomes the
    // source when no program runs. mapping: a --mapping file of op pairs, or empty.
    // standard: how ops are judged (compare's --standard), the engine's budgets when unset.
    // A request chosen on a side (llama-server's slots) compares its view: golden's view is
    // then the source shown, and what was chosen and cut is said in the console.
    QCoro::Task<bool> compare(QString golden, QString test, QString mapping = {},
                              std::optional<llmscope::Standard> standard = {},
                              llmscope::RequestChoice goldenRequest = {}, llmscope::RequestChoice testRequest = {});
    std::shared_ptr<const llmscope::CompareResult> comparison() const override { return m_doc->results().comparison; }
    // The comparison whose metrics colour golden's ops (heatmap, graph, curves): the shown
    // one, or a hunt's statistics pass while its element-wise diff is shown.
    void showMetrics(std::shared_ptr<const llmscope::CompareResult> r) override;
    using OpTensors = ComparedFiles;
    // The comparison's CSV and JSON reports into folder; the files, or empty and error says why.
    QStringList writeReports(const QString &folder, QString *error) const;

    // --- the picked operation and the round looked at (-1: the newest): the cursor every view
    // sets and follows
    Cursor *cursor() const { return m_cursor; }

    // --- the selection sent to the running program
    // Sends -ids text to the program; the op panel's status comes back by selectionStatus. Once
    // the program shown has ended, runs it again dumping those ids (canRunAgainWithIds).
    void applySelection(const QString &idsText);
    bool canApply() const;
    // The program shown is the user's last launch and has ended: the ids picked in its tree can
    // be dumped by running it again.
    bool canRunAgainWithIds() const;
    QString selectionStatusText() const { return m_selectionWords ? m_selectionWords() : QString(); } // worded now

    // --- jobs
    Job *scanJob() const;
    Job *compareJob() const;
    Job *huntJob() const { return m_huntJob; }
    Job *reportJob() const { return m_reportJob; }
    Job *opcheckJob() const;
    HuntAction *hunt() const { return m_hunt; }
    QuantReportAction *quantReport() const { return m_quant; }
    // Session > Hunt: golden and test run, compared, and the first divergent op opened.
    // Refused (false, and status says why) while a program, hunt or report runs.
    QCoro::Task<bool> runHunt(HuntSide golden, HuntSide test, QString folder, QString rounds,
                              std::optional<llmscope::Standard> standard = {});
    // Session > Replay operations: llmscope opcheck on the dump shown, off the GUI thread
    // (opcheckJob), refused while a program runs or with no dump open.
    QCoro::Task<bool> opcheck();
    // The replay's reference of op in the round shown beside its output, computed off the GUI
    // thread into a file of the workspace's own: replayShown says the two files (nothing when
    // the op was not replayed; a later call wins).
    QCoro::Task<> showReplay(QString op);
    // Session > Quantization report, refused as the hunt is.
    QCoro::Task<bool> runQuantReport(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget);
    // Session > Spread: the runs dumped and compared (spreadJob), then run 0's dump opened, and
    // where a run departs, run 0 compared with it in the Diff tab; spreadShown once they are.
    QCoro::Task<bool> runSpread(spread::Request request);
    SpreadAction *spread() const { return m_spread; }
    Job *spreadJob() const;
    // A hunt or a quantization report runs: the programs launched are its steps, not the user's.
    bool runningSteps() const;
    // Why a hunt or report cannot start now; empty when it can.
    QString busyReason() const;
    // The threads scans and comparisons run on (default: Qt's global pool, which the window's
    // painting shares; a test gives one of its own to order the work it races).
    void setThreadPool(QThreadPool *pool);
    // How long the GUI thread takes a scan's rounds before the event loop runs (0: one round).
    void setTakeSlice(qint64 ms);
    // A line for the console (and the status bar), in llmscope's voice.
    void say(const QString &text, Tone tone = Tone::Info) override;

    // --- what a hunt or a report's steps ask (StepHost)
    QObject *lifetime() override;
    QCoro::Task<bool> compareShown(QString golden, QString test, std::optional<llmscope::Standard> standard) override;
    void stopSteps() override; // the program, and the comparison under way

signals:
    void launchFailed(const QString &error);
    void launched(const llmscope::DumpOptions &options, const LaunchSettings &settings, bool byHunt);
    void dumpLoaded(const QString &folder, int tensors, int rounds, int problems);
    void dumpFailed(const QString &folder, const QString &message);
    void topologyShown(const QString &folder, int operations); // an opened dump's, before its files
    void replayShown(const Workspace::OpTensors &files); // golden: the reference, test: the output
    void compareFinished(bool ok, const QString &message);
    void selectionStatus(const QString &text); // for the op panel; selectionStatusText() words it again
    void selectionApplied(const llmscope::Selection &selection, const QString &idsText, qint64 fromRound);
    void said(const QString &text, ConsoleTone tone);
    void status(const QString &text, int timeoutMs); // a line for the status bar only
    void actionsChanged(); // running, can apply, can run again
    void spreadShown(); // a spread's result, with its first run's dump open
    void spreadFailed(const QString &why); // a spread that failed or was cancelled: no result, and why
    void huntFailed(const QString &why); // a hunt that failed or was cancelled: no result, and why

private:
    void beginSource(Source source, const QString &name);

    std::function<QString()> m_selectionWords; // the op panel's latest status, to be worded again
    Job *m_huntJob, *m_reportJob;
    HuntAction *m_hunt;
    QuantReportAction *m_quant;

    SessionDocument *m_doc;
    uint64_t m_sourceGen = 0; // a source's late results are dropped once another is in
    std::optional<std::pair<llmscope::DumpOptions, LaunchSettings>> m_lastLaunch;
    bool m_showingLastLaunch = false; // the source shown is m_lastLaunch's run (not a hunt's, not a dump)
    Cursor *m_cursor;
    LiveController *m_live;
    ReplayController *m_replay;
    CompareController *m_compare;
    ScanController *m_scan;
    SpreadAction *m_spread;
};
