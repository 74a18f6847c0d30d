#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

#include "console_view.h"
#include "counters_view.h"
#include "diff_view.h"
#include "error_curve_view.h"
#include "files_page.h"
#include "heatmap_model.h"
#include "heatmap_view.h"
#include "help_menu.h"
#include "job.h"
#include "job_bar.h"
#include "layer_graph_view.h"
#include "op_tree_model.h"
#include "op_tree_panel.h"
#include "quant_report/quant_report_action.h"
#include "quant_report_view.h"
#include "recent_dumps.h"
#include "session/launch_history.h"
#include "session_document.h"
#include "session_menu.h"
#include "start_page.h"
#include "tensor_diff_view.h"
#include "tensor_inspector.h"
#include "unpaired_view.h"
#include "util/error.h"
#include "view_menu.h"
#include "workspace.h"

using namespace llmscope;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_ws(new Workspace(this)), m_stack(new QStackedWidget(this)),
      m_startPage(new StartPage(this)), m_tabs(new QTabWidget(this)), m_filesPage(new FilesPage(this)), m_ops(new OpTreePanel(this)),
      m_counters(new CountersView(this)), m_console(new ConsoleView(this)), m_inspector(new TensorInspector(this)),
      m_colours(new OpColours(this)), m_heatmap(new HeatmapView(m_colours, this)), m_diff(new DiffView(this)), m_tensorDiff(new TensorDiffView(this)),
      m_curves(new ErrorCurveView(this)), m_unpaired(new UnpairedView(this)),
      m_graph(new LayerGraphView(m_colours, this)), m_quantView(new QuantReportView(this)),
      m_diffSide(new QTabWidget(this)), m_diffPage(nullptr)
{
    setWindowTitle(tr("llmscope - LLM inference precision debugger"));
    setObjectName(QStringLiteral("MainWindow"));
    resize(1400, 860);
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    buildPages();
    buildDocks();
    buildStatusBar();
    buildMenus();
    followDocument();
    followSource();
    followProgram();
    followOps();
    followComparison();
    followJobs();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateActions();
}

MainWindow::~MainWindow() = default;

DumpTreeModel *MainWindow::dumpModel() const { return m_filesPage->model(); }
QTreeView *MainWindow::treeView() const { return m_filesPage->tree(); }

// --- building

void MainWindow::buildPages()
{
    connect(m_startPage, &StartPage::launchRequested, this, &MainWindow::showLaunchDialog);
    connect(m_startPage, &StartPage::openRequested, this, &MainWindow::chooseDump);
    auto *diffTop = new QSplitter(this);
    diffTop->addWidget(m_diff);
    // The side views and the inspector scroll when the window is small: their lists, tables
    // and charts never raise the window's least height past a laptop's screen.
    auto scrollable = [this](QWidget *w) {
        auto *area = new QScrollArea(this);
        area->setWidget(w);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        return area;
    };
    m_diffSide->addTab(scrollable(m_curves), tr("Error by layer"));
    m_diffSide->addTab(scrollable(m_unpaired), tr("Unpaired"));
    diffTop->addWidget(m_diffSide);
    diffTop->setStretchFactor(0, 3);
    diffTop->setStretchFactor(1, 2);
    auto *diffSplit = new QSplitter(Qt::Vertical, this);
    diffSplit->addWidget(diffTop);
    diffSplit->addWidget(m_tensorDiff);
    diffSplit->setStretchFactor(0, 2); // the elements get the larger share: rows to read
    diffSplit->setStretchFactor(1, 3);
    m_diffPage = diffSplit;
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->addTab(m_graph, tr("Graph"));
    m_inspectorPage = scrollable(m_inspector);
    m_tabs->addTab(m_inspectorPage, tr("Inspector"));
    m_tabs->addTab(m_diffPage, tr("Diff"));
    m_tabs->addTab(m_filesPage, tr("Tensor files"));
    m_quantView->hide(); // a tab once there is a report
    m_stack->addWidget(m_startPage);
    m_stack->addWidget(m_tabs);
    setCentralWidget(m_stack);
}

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
    QDockWidget *countersDock = dock(m_counters, tr("Session"), QStringLiteral("SessionDock"), Qt::BottomDockWidgetArea);
    splitDockWidget(consoleDock, countersDock, Qt::Horizontal);
    resizeDocks({opsDock}, {470}, Qt::Horizontal); // a laptop's width leaves the pages most of the room
    resizeDocks({consoleDock}, {150}, Qt::Vertical);
}

void MainWindow::buildStatusBar()
{
    for (Job *job : {m_ws->scanJob(), m_ws->compareJob(), m_ws->huntJob(), m_ws->reportJob(), m_ws->opcheckJob()})
        statusBar()->addPermanentWidget(new JobBar(job, this));
    statusBar()->showMessage(tr("Ready"));
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
    menuBar()->addMenu(new ViewMenu(this, m_ops, m_tabs,
                                    {[this](QWidget *page) { showPage(page); }, [this] { inspect(m_ws->currentOp()); },
                                     [this] {
                                         if (m_ws->session()->isRunning())
                                             m_ws->session()->stop(std::chrono::milliseconds(0));
                                     }}));
    menuBar()->addMenu(new HelpMenu(this));
    auto *bar = addToolBar(tr("Session"));
    bar->setObjectName(QStringLiteral("SessionToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addActions({m_session->launchAction(), m_session->againAction(), m_session->stopAction()});
    bar->addSeparator();
    bar->addAction(open);
}

// --- following the workspace

void MainWindow::followDocument()
{
    // Each view follows the document (what is shown) and the cursor (where the user looks)
    // itself; these connections come first, so the window's own below see the views updated.
    SessionDocument *doc = m_ws->document();
    Cursor *cursor = m_ws->cursor();
    m_filesPage->follow(doc);
    m_ops->follow(doc);
    m_heatmap->follow(doc); // before the graph: it puts the metrics into the colours they share
    m_graph->follow(doc);
    m_inspector->follow(doc);
    m_diff->follow(doc);
    m_unpaired->follow(doc);
    m_curves->follow(doc);
    m_tensorDiff->follow(doc);
    m_ops->follow(cursor);
    m_heatmap->follow(cursor);
    m_graph->follow(cursor);
    m_diff->follow(cursor);
    m_curves->follow(cursor);
}

void MainWindow::followSource()
{
    SessionDocument *doc = m_ws->document();
    connect(doc, &SessionDocument::sourceChanged, this, [this](SessionDocument::Source source, const QString &name) {
        m_counters->clear(); // the previous run's figures belong to the previous source
        m_topologyShown = false;
        updateActions();
        if (source != SessionDocument::Source::Program)
            return;
        if (!m_ws->runningSteps()) // a hunt's runs share one console: its steps stay readable between them
            m_console->clear();
        setWindowTitle(tr("%1 - llmscope").arg(name));
    });
    connect(doc, &SessionDocument::topologyChanged, this, [this, doc] {
        if (!std::exchange(m_topologyShown, true) && doc->source() == SessionDocument::Source::Program)
            showPage(m_heatmap); // it fills as the dumped rounds' statistics come
        if (const QString op = m_ws->currentOp(); !op.isEmpty()) { // picked before its topology came
            m_ops->selectOp(op);
            m_heatmap->selectOp(op);
            inspect(op);
        }
    });
    connect(doc, &SessionDocument::filesAdded, this, [this] {
        // The picked op's files may come with this round: the inspector shows them, and the
        // page the user is on stays.
        if (const QString op = m_ws->currentOp(); !op.isEmpty() && m_inspector->currentFile().isEmpty())
            fillInspector(op);
    });
    connect(m_ws, &Workspace::topologyShown, this, [this] { m_stack->setCurrentWidget(m_tabs); });
    connect(m_ws, &Workspace::dumpLoaded, this, [this](const QString &folder) {
        m_filesPage->openRounds();
        m_stack->setCurrentWidget(m_tabs);
        if (m_heatmap->model()->rowCount() == 0 && m_tabs->currentWidget() == m_heatmap) // no topology: the files
            m_tabs->setCurrentWidget(m_filesPage);
        if (m_ws->source() == Workspace::Source::Dump)
            setWindowTitle(tr("%1 - llmscope").arg(folder));
        m_recent->add(folder);
        updateActions(); // a dump to replay
    });
    connect(m_ws, &Workspace::dumpFailed, this, [this](const QString &, const QString &error) {
        if (m_stack->currentWidget() == m_startPage)
            m_startPage->showOpenFailed(error);
    });
    connect(m_ws, &Workspace::said, m_console, &ConsoleView::say);
    connect(m_ws, &Workspace::status, this, [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); });
    connect(m_ws, &Workspace::actionsChanged, this, &MainWindow::updateActions);
}

void MainWindow::followProgram()
{
    LiveSession *session = m_ws->session();
    connect(session, &LiveSession::stateChanged, m_counters,
            [this](LiveSession::State s, const QString &message) { m_counters->setState(LiveSession::stateName(s), message); });
    connect(session, &LiveSession::helloReceived, m_counters, &CountersView::setProcess);
    connect(session, &LiveSession::countersReceived, m_counters, &CountersView::setCounters);
    connect(session, &LiveSession::roundReceived, m_counters, &CountersView::setLastRound);
    connect(m_ws, &Workspace::launched, this, [this](const DumpOptions &options, const LaunchSettings &settings, bool byHunt) {
        try {
            m_ops->model()->setIdsText(QString::fromStdString(options.ids)); // checked once the ops are known
        } catch (const Error &) {
            // parseDumpOptions checked them
        }
        if (!byHunt) // a hunt's own runs are not the user's launches
            LaunchHistory::remember(LaunchHistory::commandLineFor(options, settings), settings.workingDirectory);
        m_counters->setDumpFolder(m_ws->dumpRoot());
        m_startPage->showRunning(m_ws->document()->sourceName());
        m_stack->setCurrentWidget(m_startPage);
    });
    connect(m_ws, &Workspace::launchFailed, this, [this](const QString &error) {
        m_counters->setState(LiveSession::stateName(LiveSession::State::FailedToStart), error);
        m_startPage->showLaunchFailed(error);
        m_stack->setCurrentWidget(m_startPage);
        statusBar()->showMessage(tr("Cannot launch: %1").arg(error), 15000);
    });
}

void MainWindow::followOps()
{
    // The inspector and the element view are filled here from what the cursor points at.
    Cursor *cursor = m_ws->cursor();
    auto replayed = [this] { // replayed: the reference beside the output, in the round looked at
        if (m_ws->opcheckResult() && !m_ws->comparison() && !m_ws->currentOp().isEmpty())
            m_ws->showReplay(m_ws->currentOp());
    };
    connect(cursor, &Cursor::opChanged, this, [this, replayed](const QString &id) {
        inspect(id);
        replayed();
    });
    connect(m_ws, &Workspace::replayShown, this, [this](const Workspace::OpTensors &t) {
        m_tensorDiff->setFiles(t.title, t.golden, t.test, tr("Replay (float64)"), tr("Output"));
    });
    connect(cursor, &Cursor::roundChanged, this, [this, replayed] {
        if (!m_ws->currentOp().isEmpty())
            inspect(m_ws->currentOp()); // that round's tensors
        replayed();
    });
    // A replay whose first failure is the op already picked: the cursor does not move, the
    // element view still shows it.
    connect(m_ws->document(), &SessionDocument::replayChanged, this, replayed);
    connect(m_ws, &Workspace::selectionStatus, m_ops, &OpTreePanel::setStatus);
    connect(m_ws, &Workspace::selectionApplied, this, [this](const Selection &sel, const QString &, qint64 fromRound) {
        m_ops->model()->setApplied(sel, fromRound);
    });
}

void MainWindow::followComparison()
{
    SessionDocument *doc = m_ws->document();
    connect(doc, &SessionDocument::comparisonChanged, this, [this](std::shared_ptr<const CompareResult> r) {
        updateActions();
        if (!r)
            return;
        showPage(m_diffPage);
        emit diffShown(int(r->ops.size()));
    });
    connect(doc, &SessionDocument::replayChanged, this, [this](std::shared_ptr<const OpcheckResult> r) {
        if (r)
            showPage(m_heatmap); // the ops' errors over their bounds, the failing ones flagged
    });
    connect(m_ws->cursor(), &Cursor::comparedChanged, this, [this](int i) { // golden and test, element by element
        if (const ComparedFiles t = m_ws->comparedTensors(i); !t.title.isEmpty())
            m_tensorDiff->setCompared(t);
    });
    connect(m_unpaired, &UnpairedView::compareAgain, this, [this](const QString &mapping) {
        if (const auto r = m_ws->comparison())
            m_ws->compare(QString::fromStdString(r->goldenRoot), QString::fromStdString(r->myRoot), mapping);
    });
}

void MainWindow::followJobs()
{
    for (Job *job : {m_ws->scanJob(), m_ws->compareJob(), m_ws->huntJob(), m_ws->reportJob(), m_ws->opcheckJob()})
        connect(job, &Job::started, this, [this](const QString &what) { statusBar()->showMessage(what); });
    connect(m_ws->opcheckJob(), &Job::finished, this,
            [this](bool, const QString &message) { statusBar()->showMessage(message, 60000); });
    connect(m_ws->huntJob(), &Job::finished, this,
            [this](bool, const QString &message) { statusBar()->showMessage(message, 60000); });
    connect(m_ws->quantReport(), &QuantReportAction::finished, this, [this](bool ok) {
        if (!ok)
            return;
        m_quantView->setReport(*m_ws->quantReport()->report(), m_ws->quantReport()->folder());
        if (m_tabs->indexOf(m_quantView) < 0)
            m_tabs->addTab(m_quantView, tr("Quantization"));
        showPage(m_quantView);
    });
}

// --- pages and the picked op

void MainWindow::showPage(QWidget *page)
{
    m_stack->setCurrentWidget(m_tabs);
    m_tabs->setCurrentWidget(page);
}

void MainWindow::fillInspector(const QString &id)
{
    const Workspace::Inspection i = m_ws->inspect(id);
    m_inspector->setOp(i.title, i.round, i.files, i.note);
}

void MainWindow::inspect(const QString &id)
{
    if (id.isEmpty())
        return;
    fillInspector(id);
    // From the files or the start page, the inspector comes forward; picked in the heatmap or
    // the diff, those stay in view.
    if (m_stack->currentWidget() == m_startPage || m_tabs->currentWidget() == m_filesPage)
        m_tabs->setCurrentWidget(m_inspectorPage);
    m_stack->setCurrentWidget(m_tabs);
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
    // Pictures as the views stand. A tab laid out only while it is the current one: each page
    // is brought forward for its picture (no repaint happens in between), then the user's tab.
    const std::tuple<QWidget *, QWidget *, const char *> views[] = {{m_heatmap, m_heatmap, "heatmap.png"},
                                                                    {m_diffPage, m_diffPage, "diff.png"},
                                                                    {m_diffPage, m_curves, "error_by_layer.png"},
                                                                    {m_graph, m_graph, "layer_graph.png"}};
    QWidget *current = m_tabs->currentWidget();
    QWidget *stack = m_stack->currentWidget();
    for (const auto &[page, w, name] : views) {
        showPage(page);
        const QString path = QDir(folder).filePath(QString::fromLatin1(name));
        if (!w->grab().save(path, "PNG")) {
            *error = tr("Could not write %1 (is the disk full?)").arg(path);
            written.clear();
            break;
        }
        written << path;
    }
    m_tabs->setCurrentWidget(current);
    m_stack->setCurrentWidget(stack);
    return written;
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
