// The main window: the operation tree (live from a running program, or an opened dump's
// topology), the running program's console and counters, and the dump's files, as docks
// around central tabs. Launch (Ctrl+L) starts a program under the probe; checking ids and
// Apply (Ctrl+Return) changes what it dumps from its next graph on.
#pragma once
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <QCoroTask>

#include <optional>

#include "compare/compare_run.h"
#include "launch/dump_options.h"
#include "session/launch_plan.h"
#include "session/live_session.h"

class CountersView;
class DumpTreeModel;
class OpTreePanel;
class QAction;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;
class QTreeView;
class DiffView;
class TensorDiffView;
class HeatmapView;
class ErrorCurveView;
class UnpairedView;
class HuntAction;
struct HuntSide;
class QuantReportAction;
class QuantReportView;
class LayerGraphView;
class QPushButton;
class TensorInspector;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Scans the folder off the GUI thread; the views fill when the scan is done.
    // By value: the coroutine outlives its callers' arguments (it resumes after they return).
    QCoro::Task<bool> openDump(QString folder);
    // Starts a program under the probe with the window attached; false (and a message shown)
    // when it cannot start.
    bool launch(const llmscope::DumpOptions &options, const LaunchSettings &settings = {});
    void showLaunchDialog();
    void runAgain();
    void stopProgram();
    // Sends the checked ids to the running program (Apply).
    void applySelection();

    DumpTreeModel *dumpModel() const { return m_model; }
    QTreeView *treeView() const { return m_tree; }
    OpTreePanel *opPanel() const { return m_ops; }
    LiveSession *session() const { return m_session; }
    CountersView *counters() const { return m_counters; }
    QPlainTextEdit *console() const { return m_console; }
    TensorInspector *inspector() const { return m_inspector; }
    HeatmapView *heatmap() const { return m_heatmap; }
    DiffView *diff() const { return m_diff; }
    TensorDiffView *tensorDiff() const { return m_tensorDiff; }
    // Compares a golden dump with a test dump off the GUI thread (progress and Cancel in the
    // status bar) and shows the result in the Diff tab; false when it could not run.
    // mapping: a --mapping file of op pairs made by hand, or empty.
    QCoro::Task<bool> compareDumps(QString golden, QString test, QString mapping = {});
    // Writes the shown comparison's CSV and JSON reports and PNG pictures of its views into
    // folder; the files written, or empty (and error says why).
    QStringList exportDiff(const QString &folder, QString *error);
    void chooseExportFolder();
    ErrorCurveView *errorCurves() const { return m_curves; }
    UnpairedView *unpaired() const { return m_unpaired; }
    LayerGraphView *layerGraph() const { return m_graph; }
    const llmscope::CompareResult *compareResult() const { return m_compareResult.get(); }
    std::shared_ptr<const llmscope::CompareResult> compareResultShared() const { return m_compareResult; }
    // A comparison's metrics on golden's ops in the heatmap, graph and error curves.
    void showCompareMetrics(const llmscope::CompareResult &r);
    // A line in the console and the status bar (the hunt's steps).
    void note(const QString &text);
    // Session > Hunt: runs golden and test, compares, and opens the first divergent op.
    void showHuntDialog();
    QCoro::Task<bool> hunt(HuntSide golden, HuntSide test, QString folder, QString rounds);
    HuntAction *huntAction() const { return m_hunt; }
    // Session > Quantization report: golden against a quantized test, the weights ranked; shown
    // in the Quantization tab.
    void showQuantReportDialog();
    QCoro::Task<bool> quantReport(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget);
    QuantReportAction *quantReportAction() const { return m_quant; }
    QuantReportView *quantReportView() const { return m_quantView; }
    void showCompareDialog();
    void cancelCompare();
    // Shows the op's tensors from the newest round of the dump (live or opened) that has them.
    void inspectOp(const QString &id);

signals:
    void dumpLoaded(const QString &folder, int tensors);
    void topologyShown(const QString &folder, int operations); // an opened dump's, before its files
    void compareFinished(bool ok, const QString &message);
    void diffShown(int operations); // the Diff table holds a comparison (before the heatmap has its metrics)
    void dumpFailed(const QString &folder, const QString &message);
    // The probe acknowledged a selection: it applies from this round on.
    void selectionApplied(const QString &idsText, qint64 fromRound);

protected:
    void closeEvent(QCloseEvent *e) override;
    void dragEnterEvent(QDragEnterEvent *e) override;
    void dropEvent(QDropEvent *e) override;

private:
    void buildMenus();
    void chooseDump();
    void showDetails();
    void showAbout();
    void chooseLanguage(const QString &code); // "" the system's, "en", "zh_CN"
    void appendConsole(const QString &text, const QString &color = {});
    void sessionState(LiveSession::State s, const QString &message);
    void acknowledged(const llmscope::live::Ack &ack);
    void rememberDump(const QString &folder);
    void updateRecentMenu();
    void updateActions();

    DumpTreeModel *m_model;
    QStackedWidget *m_stack;
    QLabel *m_placeholder;
    QTabWidget *m_tabs;
    QTreeView *m_tree;
    QTextBrowser *m_details;
    QProgressBar *m_progress;
    OpTreePanel *m_ops;
    CountersView *m_counters;
    QPlainTextEdit *m_console;
    TensorInspector *m_inspector;
    HeatmapView *m_heatmap;
    DiffView *m_diff;
    TensorDiffView *m_tensorDiff;
    ErrorCurveView *m_curves;
    UnpairedView *m_unpaired;
    LayerGraphView *m_graph;
    HuntAction *m_hunt;
    QuantReportAction *m_quant;
    QuantReportView *m_quantView;
    QTabWidget *m_diffSide;
    QWidget *m_diffPage; // the Diff tab
    std::shared_ptr<const llmscope::CompareResult> m_compareResult; // the one shown
    QAction *m_exportAct = nullptr;
    QPushButton *m_cancel;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag; // the running compare's
    QString m_dumpRoot; // the dump the tree's ops are read from (the live one, or the opened one)
    LiveSession *m_session;
    QAction *m_launchAct = nullptr, *m_againAct = nullptr, *m_stopAct = nullptr, *m_applyAct = nullptr;
    QMenu *m_recentMenu = nullptr;
    std::optional<std::pair<llmscope::DumpOptions, LaunchSettings>> m_lastLaunch;
    std::map<uint64_t, std::pair<llmscope::Selection, QString>> m_pending; // sent, not yet acknowledged
    std::map<std::string, llmscope::live::OpStats> m_pendingStats; // newest per op, not yet shown
    int64_t m_pendingRound = -1;
    QTimer m_statsFlush;
};
