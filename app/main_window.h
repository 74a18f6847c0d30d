// The main window: a dump's tensors as a tree, with their details beside it.
#pragma once
#include <QMainWindow>

#include <QCoroTask>

class DumpTreeModel;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTextBrowser;
class QTreeView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    // Scans the folder off the GUI thread; the view fills when the scan is done.
    // By value: the coroutine outlives its callers' arguments (it resumes after they return).
    QCoro::Task<bool> openDump(QString folder);
    DumpTreeModel *dumpModel() const { return m_model; }
    QTreeView *treeView() const { return m_tree; }

signals:
    void dumpLoaded(const QString &folder, int tensors);
    void dumpFailed(const QString &folder, const QString &message);

private:
    void chooseDump();
    void showDetails();
    void showAbout();

    DumpTreeModel *m_model;
    QStackedWidget *m_stack;
    QLabel *m_placeholder;
    QTreeView *m_tree;
    QTextBrowser *m_details;
    QProgressBar *m_progress;
};
