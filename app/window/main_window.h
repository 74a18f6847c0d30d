// The main window builds the pages, docks, menus and status bar and wires each view to the
// workspace, which owns what the session is about: the operation tree (live from a running
// program, or an opened dump's topology), the heatmap, graph and inspector on the picked op,
// the comparison's diff, curves and unpaired tensors, the program's console and counters,
// the dump's files, and each long job's progress and Cancel. No state of the session lives
// here; a view never calls another view.
#pragma once
#include <QMainWindow>

#include <QCoroTask>

#include "launch/dump_options.h"
#include "session/launch_plan.h"

class ConsoleView;
class CountersView;
class DiffView;
class DumpTreeModel;
class ErrorCurveView;
class FilesPage;
class HeatmapView;
class OpColours;
class LayerGraphView;
class LiveSession;
class OpTreePanel;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;
class QTreeView;
class QuantReportView;
class RecentDumps;
class SessionMenu;
class StartPage;
class TensorDiffView;
class TensorInspector;
class UnpairedView;
class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    Workspace *workspace() const { return m_ws; }
    // Session > Launch with these options; false (and the start page says why) when it cannot start.
    bool launch(const llmscope::DumpOptions &options, const LaunchSettings &settings = {});
    void showLaunchDialog();
    // Writes the shown comparison's CSV and JSON reports and PNG pictures of its views into
    // folder; the files written, or empty (and error says why).
    QStringList exportDiff(const QString &folder, QString *error);

    // The views, for tests and benchmarks that drive them as a user would.
    DumpTreeModel *dumpModel() const;
    QTreeView *treeView() const;
    OpTreePanel *opPanel() const { return m_ops; }
    CountersView *counters() const { return m_counters; }
    ConsoleView *console() const { return m_console; }
    TensorInspector *inspector() const { return m_inspector; }
    HeatmapView *heatmap() const { return m_heatmap; }
    DiffView *diff() const { return m_diff; }
    TensorDiffView *tensorDiff() const { return m_tensorDiff; }
    ErrorCurveView *errorCurves() const { return m_curves; }
    UnpairedView *unpaired() const { return m_unpaired; }
    LayerGraphView *layerGraph() const { return m_graph; }
    QuantReportView *quantReportView() const { return m_quantView; }

signals:
    void diffShown(int operations); // the Diff table holds a comparison (before the heatmap has its metrics)

protected:
    void closeEvent(QCloseEvent *e) override;
    void dragEnterEvent(QDragEnterEvent *e) override;
    void dropEvent(QDropEvent *e) override;

private:
    void buildPages();
    void buildDocks();
    void buildMenus();
    void buildStatusBar();
    // Each view follows the document and the cursor; the window follows the workspace.
    void followDocument();
    void followSource();
    void followProgram();
    void followOps();
    void followComparison();
    void followJobs();

    void showPage(QWidget *page); // a central tab, brought forward
    void inspect(const QString &id);       // the op's tensors, the inspector brought forward from the files
    void fillInspector(const QString &id); // the op's tensors, the pages as they are
    void updateActions();
    void chooseDump();
    void openDump(const QString &folder);
    void chooseExportFolder();

    Workspace *m_ws;
    QStackedWidget *m_stack;
    StartPage *m_startPage;
    QTabWidget *m_tabs;
    FilesPage *m_filesPage;
    OpTreePanel *m_ops;
    CountersView *m_counters;
    ConsoleView *m_console;
    TensorInspector *m_inspector;
    QWidget *m_inspectorPage; // the inspector in a scroll area
    OpColours *m_colours; // the colour scale the heatmap sets and the layer graph shares
    HeatmapView *m_heatmap;
    DiffView *m_diff;
    TensorDiffView *m_tensorDiff;
    ErrorCurveView *m_curves;
    UnpairedView *m_unpaired;
    LayerGraphView *m_graph;
    QuantReportView *m_quantView;
    QTabWidget *m_diffSide;
    QWidget *m_diffPage;
    SessionMenu *m_session = nullptr;
    QAction *m_exportAct = nullptr;
    RecentDumps *m_recent = nullptr;
    bool m_topologyShown = false;    // this source's operations came (a program's first: the heatmap shown)
};
