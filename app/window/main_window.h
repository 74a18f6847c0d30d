// The main window frames the session: the central pages (CentralPages), the docks (the
// operation tree, the console, the program's counters), the menus, the status bar with each
// long job's progress and Cancel, its dialogs and the export. The workspace owns what the
// session is about; the views follow its document and cursor themselves. No state of the
// session lives here; a view never calls another view.
#pragma once
#include <QMainWindow>

#include <QCoroTask>

#include "app/session/launch_plan.h"
#include "core/launch/dump_options.h"

class CentralPages;
class ConsoleView;
class CountersView;
class DiffView;
class DumpTreeModel;
class ErrorCurveView;
class HeatmapView;
class LayerGraphView;
class OpTreePanel;
class QTreeView;
class QuantReportView;
class RecentDumps;
class SessionMenu;
class SpreadView;
class TensorDiffView;
class TensorInspector;
class UnpairedView;
class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // ws: a session to show (a language switch builds the window again around it); null: a new one.
    explicit MainWindow(Workspace *ws = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    Workspace *workspace() const { return m_ws; }
    // Session > Launch with these options; false (and the start page says why) when it cannot start.
    bool launch(const llmscope::DumpOptions &options, const LaunchSettings &settings = {});
    void showLaunchDialog();
    // View > Language: remembered, then this window built again in that language around the
    // same session, and this one closed (the new one deletes itself on close when this one
    // does, as the application's windows do). The new window.
    MainWindow *switchLanguage(const QString &code);
    // Writes the shown comparison's CSV and JSON reports and PNG pictures of its views into
    // folder; the files written, or empty (and error says why).
    QStringList exportDiff(const QString &folder, QString *error);

    // The views, for tests and benchmarks that drive them as a user would.
    DumpTreeModel *dumpModel() const;
    QTreeView *treeView() const;
    OpTreePanel *opPanel() const { return m_ops; }
    CountersView *counters() const { return m_counters; }
    ConsoleView *console() const { return m_console; }
    TensorInspector *inspector() const;
    HeatmapView *heatmap() const;
    DiffView *diff() const;
    TensorDiffView *tensorDiff() const;
    ErrorCurveView *errorCurves() const;
    UnpairedView *unpaired() const;
    LayerGraphView *layerGraph() const;
    QuantReportView *quantReportView() const;
    SpreadView *spreadView() const;

signals:
    void diffShown(int operations); // the Diff table holds a comparison (before the heatmap has its metrics)

protected:
    void closeEvent(QCloseEvent *e) override;
    void dragEnterEvent(QDragEnterEvent *e) override;
    void dropEvent(QDropEvent *e) override;

private:
    void buildDocks();
    void buildMenus();
    void buildStatusBar();
    // The title, the actions and the status bar follow the workspace; the pages and docks
    // follow the document and the cursor themselves.
    void followSource();
    void followProgram();
    void followJobs();

    void updateActions();
    void chooseDump();
    void openDump(const QString &folder);
    void chooseExportFolder();

    Workspace *m_ws;
    CentralPages *m_pages;
    OpTreePanel *m_ops;
    CountersView *m_counters;
    ConsoleView *m_console;
    SessionMenu *m_session = nullptr;
    QAction *m_exportAct = nullptr;
    RecentDumps *m_recent = nullptr;
};
