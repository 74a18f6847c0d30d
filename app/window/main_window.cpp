#include "app/window/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QScrollArea>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QTranslator>

#include "app/session/launch_history.h"
#include "app/window/central_pages.h"
#include "app/window/help_menu.h"
#include "app/window/i18n.h"
#include "app/window/job_bar.h"
#include "app/window/recent_dumps.h"
#include "app/window/screen_fit.h"
#include "app/window/session_menu.h"
#include "app/window/view_menu.h"
#include "app/workspace/job.h"
#include "app/workspace/workspace.h"
#include "core/util/error.h"
#include "document/session_document.h"
#include "views/console_view.h"
#include "views/counters_view.h"
#include "views/files_page.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"
#include "views/start_page.h"

using namespace llmscope;

MainWindow::MainWindow(Workspace *ws, QWidget *parent)
    : QMainWindow(parent), m_ws(ws ? ws : new Workspace(this)), m_pages(new CentralPages(m_ws, this)),
      m_ops(new OpTreePanel(this)), m_counters(new CountersView(this)), m_console(new ConsoleView(this))
{
    m_ws->setParent(this);
    setWindowTitle(m_ws->document()->source().kind == Workspace::Source::None
                       ? tr("llmscope - LLM inference precision debugger")
                       : tr("%1 - llmscope").arg(m_ws->document()->source().name));
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setCentralWidget(m_pages);
    connect(m_pages, &CentralPages::diffShown, this, &MainWindow::diffShown);
    buildDocks();
    buildStatusBar();
    buildMenus();
    followSource();
    followProgram();
    followJobs();
    QSettings settings;
    const bool kept = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    resize(fittingScreen(kept ? size() : QSize(1400, 860), this)); // a size kept from a larger screen too
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateActions();
}

MainWindow::~MainWindow() = default;

DumpTreeModel *MainWindow::dumpModel() const
{
    return m_pages->filesPage()->model();
}
QTreeView *MainWindow::treeView() const
{
    return m_pages->filesPage()->tree();
}
TensorInspector *MainWindow::inspector() const
{
    return m_pages->inspector();
}
HeatmapView *MainWindow::heatmap() const
{
    return m_pages->heatmap();
}
DiffView *MainWindow::diff() const
{
    return m_pages->diff();
}
TensorDiffView *MainWindow::tensorDiff() const
{
    return m_pages->tensorDiff();
}
ErrorCurveView *MainWindow::errorCurves() const
{
    return m_pages->curves();
}
UnpairedView *MainWindow::unpaired() const
{
    return m_pages->unpaired();
}
LayerGraphView *MainWindow::layerGraph() const
{
    return m_pages->graph();
}
QuantReportView *MainWindow::quantReportView() const
{
    return m_pages->quantView();
}
SpreadView *MainWindow::spreadView() const
{
    return m_pages->spreadView();
}

// --- building

void MainWindow::buildDocks()
{
    auto dock = [this](QWidget *w, const QString &title, const QString &name, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name); // window state is saved by these names
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    QDockWidget *opsDock = dock(m_ops, tr("Operations"), QStringLiteral("OperationsDock"), Qt::LeftDockWidgetArea);
    QDockWidget *consoleDock = dock(m_console, tr("Console"), QStringLiteral("ConsoleDock"), Qt::BottomDockWidgetArea);
    // The Session panel scrolls rather than holding the bottom docks taller than a small screen spares.
    auto *counters = new QScrollArea(this);
    counters->setWidget(m_counters);
    counters->setWidgetResizable(true);
    counters->setFrameShape(QFrame::NoFrame);
    QDockWidget *countersDock = dock(counters, tr("Session"), QStringLiteral("SessionDock"), Qt::BottomDockWidgetArea);
    splitDockWidget(consoleDock, countersDock, Qt::Horizontal);
    resizeDocks({opsDock}, {470}, Qt::Horizontal); // a laptop's width leaves the pages most of the room
    // A window made narrower takes its width from the docks first: the operations' ids and names
    // stay readable (about 44 characters), as the pages need far less than a 1024-wide screen.
    m_ops->setMinimumWidth(m_ops->fontMetrics().averageCharWidth() * 44);
    resizeDocks({consoleDock}, {150}, Qt::Vertical);
    // The docks follow the document and the cursor as the pages do.
    m_ops->follow(m_ws->document());
    m_ops->follow(m_ws->cursor());
    m_counters->follow(m_ws->document());
    connect(m_ws, &Workspace::said, m_console, &ConsoleView::say);
}

void MainWindow::buildStatusBar()
{
    for (Job *job : {m_ws->scanJob(), m_ws->compareJob(), m_ws->huntJob(), m_ws->reportJob(), m_ws->opcheckJob(),
                     m_ws->spreadJob()})
        statusBar()->addPermanentWidget(new JobBar(job, this));
    statusBar()->showMessage(m_ws->session()->isRunning() ? tr("The program is running") : tr("Ready"));
}

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open dump folder..."), this, &MainWindow::chooseDump);
    open->setShortcut(QKeySequence::Open);
    m_recent = new RecentDumps(this);
    connect(m_recent, &RecentDumps::openRequested, this, &MainWindow::openDump);
    file->addMenu(m_recent);
    m_exportAct = file->addAction(tr("&Export diff report..."), this, &MainWindow::chooseExportFolder);
    m_exportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportAct->setToolTip(tr("The comparison's CSV and JSON reports and pictures of its views, in a folder"));
    file->addSeparator();
    file->addAction(tr("&Quit"), qApp, &QApplication::quit)->setShortcut(QKeySequence::Quit);
    m_session = new SessionMenu(m_ws, m_ops, this);
    menuBar()->addMenu(m_session);
    menuBar()->addMenu(new ViewMenu(this, m_ops, m_pages->tabs(),
                                    {[this](QWidget *page) { m_pages->showPage(page); },
                                     [this] { m_pages->inspect(m_ws->cursor()->op()); },
                                     [this](const QString &code) { switchLanguage(code); }}));
    menuBar()->addMenu(new HelpMenu(this));
    addToolBar(m_session->toolBar(open));
    m_pages->startPage()->offer({{QStringLiteral("launch"), m_session->launchAction()},
                                 {QStringLiteral("open"), open},
                                 {QStringLiteral("hunt"), m_session->huntAction()},
                                 {QStringLiteral("compare"), m_session->compareAction()}});
}

// --- following the workspace: the title, the actions, the status bar

void MainWindow::followSource()
{
    SessionDocument *doc = m_ws->document();
    connect(doc, &SessionDocument::sourceChanged, this, [this](SessionDocument::Source source, const QString &name) {
        updateActions();
        if (source != SessionDocument::Source::Program)
            return;
        if (!m_ws->runningSteps()) // a hunt's runs share one console: its steps stay readable between them
            m_console->clear();
        setWindowTitle(tr("%1 - llmscope").arg(name));
    });
    connect(doc, &SessionDocument::graphChanged, this, [this] {
        if (const QString op = m_ws->cursor()->op(); !op.isEmpty()) // picked before its topology came
            m_ops->selectOp(op);
    });
    connect(doc, &SessionDocument::resultChanged, this, &MainWindow::updateActions);
    connect(m_ws, &Workspace::dumpLoaded, this, [this](const QString &folder) {
        if (m_ws->document()->source().kind == Workspace::Source::Dump)
            setWindowTitle(tr("%1 - llmscope").arg(folder));
        m_recent->add(folder);
        updateActions(); // a dump to replay
    });
    connect(m_ws, &Workspace::status, this,
            [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); });
    connect(m_ws, &Workspace::actionsChanged, this, &MainWindow::updateActions);
}

void MainWindow::followProgram()
{
    connect(m_ws, &Workspace::launched, this,
            [this](const DumpOptions &options, const LaunchSettings &settings, bool byHunt) {
                m_ws->document()->setPickedIds(QString::fromStdString(options.ids)); // checked once the ops are known
                if (!byHunt) // a hunt's own runs are not the user's launches
                    LaunchHistory::remember(LaunchHistory::commandLineFor(options, settings),
                                            settings.workingDirectory);
            });
    connect(m_ws, &Workspace::launchFailed, this,
            [this](const QString &error) { statusBar()->showMessage(tr("Cannot launch: %1").arg(error), 15000); });
    connect(m_ws, &Workspace::selectionStatus, m_ops, &OpTreePanel::setStatus);
    connect(m_ws, &Workspace::selectionApplied, this, [this](const Selection &sel, const QString &, qint64 fromRound) {
        m_ops->model()->setApplied(sel, fromRound);
    });
}

void MainWindow::followJobs()
{
    for (Job *job : {m_ws->scanJob(), m_ws->compareJob(), m_ws->huntJob(), m_ws->reportJob(), m_ws->opcheckJob(),
                     m_ws->spreadJob()})
        connect(job, &Job::started, this, [this](const QString &what) { statusBar()->showMessage(what); });
    for (Job *job : {m_ws->opcheckJob(), m_ws->huntJob(), m_ws->spreadJob()})
        connect(job, &Job::finished, this,
                [this](bool, const QString &message) { statusBar()->showMessage(message, 60000); });
}

void MainWindow::updateActions()
{
    m_session->updateActions();
    m_exportAct->setEnabled(m_ws->comparison() != nullptr);
}

// --- actions

void MainWindow::showLaunchDialog()
{
    m_session->showLaunchDialog();
}

MainWindow *MainWindow::switchLanguage(const QString &code)
{
    QSettings().setValue(QStringLiteral("ui/language"), code);
    for (QTranslator *t : qApp->findChildren<QTranslator *>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
    installTranslations(*qApp, code);
    auto *next = new MainWindow(m_ws); // takes the session: closing this window leaves it be
    next->setAttribute(Qt::WA_DeleteOnClose, testAttribute(Qt::WA_DeleteOnClose));
    next->restoreGeometry(saveGeometry());
    next->restoreState(saveState());
    next->m_console->continueFrom(*m_console); // the program's output so far
    next->m_pages->tabs()->setCurrentIndex(m_pages->tabs()->currentIndex()); // the page the user was on
    next->m_pages->setCurrentIndex(m_pages->currentIndex());
    next->m_ops->searchEdit()->setText(m_ops->searchEdit()->text());
    next->m_ops->setStatus(m_ws->selectionStatusText()); // worded again in the new language
    if (const QString said = statusBar()->currentMessage(); !said.isEmpty())
        next->statusBar()->showMessage(said); // the last job's end ("found: ..."), as the console keeps it
    next->show();
    close();
    return next;
}

bool MainWindow::launch(const DumpOptions &options, const LaunchSettings &settings)
{
    QString error;
    return m_ws->launch(options, settings, &error);
}

void MainWindow::chooseDump()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open dump folder"));
    if (!dir.isEmpty())
        openDump(dir);
}

void MainWindow::openDump(const QString &folder)
{
    m_ws->openDump(folder); // runs to completion on its own; results arrive through the signals
}

QStringList MainWindow::exportDiff(const QString &folder, QString *error)
{
    QStringList written = m_ws->writeReports(folder, error);
    if (written.isEmpty())
        return {};
    const QStringList pictures = m_pages->savePictures(folder, error);
    return pictures.isEmpty() ? QStringList() : written + pictures;
}

void MainWindow::chooseExportFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the diff report into"));
    if (dir.isEmpty())
        return;
    QString error;
    const QStringList files = exportDiff(dir, &error);
    if (files.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Exported %n file(s) into %1", nullptr, int(files.size())).arg(dir), 15000);
}

void MainWindow::closeEvent(QCloseEvent *e)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *e)
{
    for (const QUrl &u : e->mimeData()->urls())
        if (u.isLocalFile() && QFileInfo(u.toLocalFile()).isDir()) {
            e->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent *e)
{
    for (const QUrl &u : e->mimeData()->urls())
        if (u.isLocalFile() && QFileInfo(u.toLocalFile()).isDir()) {
            openDump(u.toLocalFile());
            e->acceptProposedAction();
            return;
        }
}
