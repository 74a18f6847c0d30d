#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QLocale>
#include <QProcess>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolBar>
#include <QTreeView>
#include <QtConcurrent>

#include <QCoroFuture>

#include "counters_view.h"
#include "quant_report_action.h"
#include "quant_report_view.h"
#include "dump/dump_index.h"
#include "dump/op_info_csv.h"
#include "dump/topology.h"
#include "graph/layer_graph.h"
#include "onnx/onnx_export.h"
#include "dump_tree_model.h"
#include "launch_dialog.h"
#include "op_tree_model.h"
#include "compare/compare_run.h"
#include "diff_table_model.h"
#include "diff_view.h"
#include "tensor_diff_view.h"
#include "dump/op_files.h"
#include "heatmap_view.h"
#include "error_curve_view.h"
#include "unpaired_view.h"
#include "layer_graph_view.h"
#include "hunt_action.h"
#include "compare/report.h"
#include "op_tree_panel.h"
#include "tensor_inspector.h"
#include "util/error.h"

using namespace llmscope;

namespace {
constexpr int kRecentDumps = 8;
constexpr int kConsoleLines = 5000;

// The statistics of every op output in an opened dump, round by round (the heatmap's).
std::vector<live::RoundStats> statsOf(const DumpIndex &index)
{
    std::map<int64_t, live::RoundStats> byRound;
    for (const TensorRecord &t : index.tensors)
        if (t.stats && !t.input && !t.before && t.index == 0) {
            live::RoundStats &r = byRound[t.exec];
            r.round = t.exec;
            r.stats.push_back({t.opId, t.stats->max, t.stats->min, t.stats->mean, t.stats->l2norm, t.stats->nanCount,
                               t.stats->infCount});
        }
    std::vector<live::RoundStats> out;
    for (auto &[round, r] : byRound)
        out.push_back(std::move(r));
    return out;
}
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_model(new DumpTreeModel(this)), m_stack(new QStackedWidget(this)),
      m_placeholder(new QLabel(this)), m_tabs(new QTabWidget(this)), m_tree(new QTreeView(this)),
      m_details(new QTextBrowser(this)), m_progress(new QProgressBar(this)), m_ops(new OpTreePanel(this)),
      m_counters(new CountersView(this)), m_console(new QPlainTextEdit(this)), m_inspector(new TensorInspector(this)),
      m_heatmap(new HeatmapView(this)), m_diff(new DiffView(this)), m_tensorDiff(new TensorDiffView(this)),
      m_curves(new ErrorCurveView(this)), m_unpaired(new UnpairedView(this)),
      m_graph(new LayerGraphView(m_heatmap->model(), this)), m_hunt(new HuntAction(this)),
      m_quant(new QuantReportAction(this)), m_quantView(new QuantReportView(this)),
      m_diffSide(new QTabWidget(this)),
      m_cancel(new QPushButton(this)),
      m_session(new LiveSession(this))
{
    setWindowTitle(tr("llmscope - LLM inference precision debugger"));
    setObjectName(QStringLiteral("MainWindow"));
    resize(1400, 860);
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setTextFormat(Qt::RichText);
    m_placeholder->setText(
        tr("<h2>Find the first operation that goes wrong</h2>"
           "<p><a href=\"launch\">Launch a program</a> (Ctrl+L) under the probe: its operations appear on the "
           "left as it runs; check the ones to dump and press Apply (Ctrl+Return).</p>"
           "<p><a href=\"open\">Open a dump folder</a> (Ctrl+O) written by llmscope or by <code>msit llm "
           "dump</code>, or drop one on this window.</p>"));
    connect(m_placeholder, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link == QLatin1String("launch"))
            showLaunchDialog();
        else
            chooseDump();
    });

    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->resizeSection(DumpTreeModel::NameColumn, 300); // names readable; the rest scrolls
    m_tree->header()->setStretchLastSection(true);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::showDetails);
    auto *split = new QSplitter(this);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->addTab(m_graph, tr("Graph"));
    m_tabs->addTab(m_inspector, tr("Inspector"));
    auto *diffTop = new QSplitter(this);
    diffTop->addWidget(m_diff);
    m_diffSide->addTab(m_curves, tr("Error by layer"));
    m_diffSide->addTab(m_unpaired, tr("Unpaired"));
    diffTop->addWidget(m_diffSide);
    diffTop->setStretchFactor(0, 3);
    diffTop->setStretchFactor(1, 2);
    auto *diffSplit = new QSplitter(Qt::Vertical, this);
    diffSplit->addWidget(diffTop);
    diffSplit->addWidget(m_tensorDiff);
    m_diffPage = diffSplit;
    m_tabs->addTab(diffSplit, tr("Diff"));
    m_tabs->addTab(split, tr("Tensor files"));
    m_stack->addWidget(m_placeholder);
    m_stack->addWidget(m_tabs);
    setCentralWidget(m_stack);

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
    resizeDocks({opsDock}, {560}, Qt::Horizontal);
    resizeDocks({consoleDock}, {190}, Qt::Vertical);
    m_console->setReadOnly(true);
    m_console->setMaximumBlockCount(kConsoleLines);
    m_console->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_console->setPlaceholderText(tr("The program's output appears here while it runs."));

    m_progress->setMaximumWidth(240);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    m_cancel->setText(tr("Cancel"));
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_hunt->isRunning())
            m_hunt->cancel(); // the whole hunt: its running program or comparison
        else if (m_quant->isRunning())
            m_quant->cancel(); // the report and every program it runs
        else
            cancelCompare();
    });
    m_quantView->hide(); // a tab once there is a report
    connect(m_quant, &QuantReportAction::stepStarted, this, [this](int step, const QString &text) {
        m_cancel->show();
        m_progress->setRange(0, QuantReportAction::kSteps);
        m_progress->setValue(step - 1);
        m_progress->setFormat(tr("quantization report: step %1 of %2").arg(step).arg(QuantReportAction::kSteps));
        m_progress->show();
        note(text);
    });
    connect(m_quant, &QuantReportAction::finished, this, [this](bool ok, const QString &message) {
        m_cancel->hide();
        m_progress->hide();
        m_progress->setFormat(QStringLiteral("%p%"));
        note(message);
        if (!ok)
            return;
        m_quantView->setReport(*m_quant->report(), m_quant->folder());
        if (m_tabs->indexOf(m_quantView) < 0)
            m_tabs->addTab(m_quantView, tr("Quantization"));
        m_stack->setCurrentWidget(m_tabs);
        m_tabs->setCurrentWidget(m_quantView);
    });
    connect(m_hunt, &HuntAction::stepStarted, this, [this](int step, const QString &) {
        m_cancel->show();
        m_progress->setRange(0, 4);
        m_progress->setValue(step - 1);
        m_progress->setFormat(tr("hunt: step %1 of 4").arg(step));
        m_progress->show();
    });
    connect(m_hunt, &HuntAction::finished, this, [this](bool, const QString &message) {
        m_cancel->hide();
        m_progress->hide();
        m_progress->setFormat(QStringLiteral("%p%"));
        statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0), 60000);
    });
    connect(m_diff, &DiffView::opClicked, this, [this](const QString &id) { m_ops->selectOp(id); });
    connect(m_curves, &ErrorCurveView::opClicked, this, [this](const QString &id) {
        m_ops->selectOp(id);
        m_diff->selectOp(id);
    });
    connect(m_unpaired, &UnpairedView::compareAgain, this, [this](const QString &mapping) {
        if (m_compareResult)
            compareDumps(QString::fromStdString(m_compareResult->goldenRoot),
                         QString::fromStdString(m_compareResult->myRoot), mapping);
    });
    connect(m_diff, &DiffView::opPicked, this, [this](int i) { // golden and test, element by element
        const CompareResult *r = m_diff->model()->result();
        if (!r || i < 0 || size_t(i) >= r->ops.size())
            return;
        const OpResult &op = r->ops[size_t(i)];
        auto files = [&](const std::string &root) {
            QStringList out;
            const OpFiles f = findOpFiles(root, op.opPath, op.round);
            if (f.round == op.round)
                for (const auto &p : f.files)
                    out << QString::fromStdString(p);
            return out;
        };
        m_tensorDiff->setFiles(tr("%1, round %2").arg(QString::fromStdString(op.label())).arg(op.round),
                               files(r->goldenRoot), files(r->myRoot));
    });
    statusBar()->showMessage(tr("Ready"));

    buildMenus();

    connect(m_ops, &OpTreePanel::applyRequested, this, &MainWindow::applySelection);
    connect(m_ops, &OpTreePanel::currentOpChanged, this, &MainWindow::inspectOp);
    connect(m_ops, &OpTreePanel::currentOpChanged, m_heatmap, &HeatmapView::selectOp);
    connect(m_ops, &OpTreePanel::currentOpChanged, m_graph, &LayerGraphView::selectOp);
    connect(m_graph, &LayerGraphView::opClicked, m_ops, &OpTreePanel::selectOp);
    connect(m_heatmap, &HeatmapView::opClicked, m_ops, &OpTreePanel::selectOp);
    connect(m_session, &LiveSession::stateChanged, this, &MainWindow::sessionState);
    connect(m_session, &LiveSession::helloReceived, this, [this](const live::Hello &h) {
        m_counters->setProcess(h);
        appendConsole(tr("[llmscope] probe connected: process %1 (%2 on %3)")
                          .arg(h.pid)
                          .arg(QString::fromStdString(h.engine), QString::fromStdString(h.device)),
                      QStringLiteral("#206020"));
    });
    connect(m_session, &LiveSession::topologyReceived, this, [this](const live::Topology &t) {
        const bool first = m_ops->model()->opCount() == 0;
        m_ops->model()->setTopology(t);
        m_heatmap->model()->setOps(t.groups, t.ops);
        m_graph->setTopology(t.groups, t.ops);
        if (first) {
            m_stack->setCurrentIndex(1);
            m_tabs->setCurrentWidget(m_heatmap); // it fills as the dumped rounds' statistics come
        }
        if (!first)
            return;
        const DumpOptions &o = m_session->options();
        m_ops->setStatus(tr("%n operation(s) in the program's graph. It dumps %1 in rounds %2 (the launch's -er); "
                            "check operations and Apply to dump them from its next round on.",
                            nullptr, int(t.ops.size()))
                             .arg(o.ids.empty() ? tr("every operation") : tr("-ids %1").arg(QString::fromStdString(o.ids)),
                                  QString::fromStdString(o.rounds)));
    });
    // Statistics stream in a round at a time, faster than anyone reads them: the newest of each
    // op is kept and the tree repaints them at most ten times a second.
    m_statsFlush.setSingleShot(true);
    m_statsFlush.setInterval(100);
    connect(m_session, &LiveSession::statsReceived, this, [this](const live::RoundStats &s) {
        m_heatmap->model()->addStats(s);
        for (const auto &o : s.stats)
            m_pendingStats[o.id] = o;
        m_pendingRound = std::max(m_pendingRound, s.round);
        if (!m_statsFlush.isActive())
            m_statsFlush.start();
    });
    connect(&m_statsFlush, &QTimer::timeout, this, [this] {
        live::RoundStats merged{m_pendingRound, {}};
        merged.stats.reserve(m_pendingStats.size());
        for (auto &[id, o] : m_pendingStats)
            merged.stats.push_back(std::move(o));
        m_pendingStats.clear();
        m_ops->model()->setRoundStats(merged);
    });
    connect(m_session, &LiveSession::countersReceived, m_counters, &CountersView::setCounters);
    connect(m_session, &LiveSession::roundReceived, m_counters, &CountersView::setLastRound);
    connect(m_session, &LiveSession::warningReceived, this, [this](const QString &w) {
        appendConsole(tr("[llmscope] warning: %1").arg(w), QStringLiteral("#a05000"));
        statusBar()->showMessage(w, 10000);
    });
    connect(m_session, &LiveSession::noProbe, this, [this](const QString &why) {
        appendConsole(QStringLiteral("[llmscope] ") + why, QStringLiteral("#a05000"));
        m_ops->setStatus(why);
    });
    connect(m_session, &LiveSession::output, this,
            [this](const QString &text, bool err) { appendConsole(text, err ? QStringLiteral("#8a2020") : QString()); });
    connect(m_session, &LiveSession::acknowledged, this, &MainWindow::acknowledged);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateRecentMenu();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open dump folder..."), this, &MainWindow::chooseDump);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    auto *session = menuBar()->addMenu(tr("&Session"));
    m_launchAct = session->addAction(tr("&Launch program..."), this, &MainWindow::showLaunchDialog);
    m_launchAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_againAct = session->addAction(tr("Run &again"), this, &MainWindow::runAgain);
    m_againAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_stopAct = session->addAction(tr("&Stop"), this, &MainWindow::stopProgram);
    m_stopAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    session->addSeparator();
    m_applyAct = session->addAction(tr("&Apply selection"), this, &MainWindow::applySelection);
    session->addSeparator();
    auto *compare = session->addAction(tr("&Compare dumps..."), this, &MainWindow::showCompareDialog);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    auto *huntAct = session->addAction(tr("&Hunt the first divergent operation..."), this, &MainWindow::showHuntDialog);
    huntAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    huntAct->setToolTip(tr("Run a golden and a test program, compare, and open the first operation that departs"));
    auto *quantAct = session->addAction(tr("&Quantization report..."), this, &MainWindow::showQuantReportDialog);
    quantAct->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    quantAct->setToolTip(tr("An F32 golden against its quantized model: which weights lose the most, and which to "
                            "keep in a higher type"));
    m_exportAct = file->addAction(tr("&Export diff report..."), this, &MainWindow::chooseExportFolder);
    m_exportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportAct->setToolTip(tr("The comparison's CSV and JSON reports and pictures of its views, in a folder"));
    m_exportAct->setEnabled(false);
    m_applyAct->setToolTip(tr("Dump the checked operations from the program's next graph on"));

    auto *view = menuBar()->addMenu(tr("&View"));
    auto *find = view->addAction(tr("&Find operation"), this, [this] {
        m_ops->searchEdit()->setFocus();
        m_ops->searchEdit()->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    auto *ids = view->addAction(tr("Edit -&ids"), this, [this] {
        m_ops->idsEdit()->setFocus();
        m_ops->idsEdit()->selectAll();
    });
    ids->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    auto *refresh = view->addAction(tr("&Refresh inspector"), this, [this] { inspectOp(m_ops->currentOpId()); });
    refresh->setShortcut(QKeySequence::Refresh);
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) { // the central tabs: Ctrl+1 .. Ctrl+5
        QWidget *page = m_tabs->widget(i);
        QAction *a = view->addAction(m_tabs->tabText(i), this, [this, page] {
            m_stack->setCurrentIndex(1);
            m_tabs->setCurrentWidget(page);
        });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    view->addSeparator();
    for (QDockWidget *d : findChildren<QDockWidget *>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    // The language: remembered, and in effect from the next start (every string is set up then).
    auto *language = view->addMenu(tr("&Language"));
    auto *languages = new QActionGroup(language);
    const QString chosen = QSettings().value(QStringLiteral("ui/language")).toString();
    for (const auto &[code, name] : {std::pair{QString(), tr("System (%1)").arg(QLocale::system().name())},
                                     std::pair{QStringLiteral("en"), QStringLiteral("English")},
                                     std::pair{QStringLiteral("zh_CN"), QStringLiteral("简体中文")}}) {
        QAction *a = language->addAction(name);
        a->setCheckable(true);
        a->setChecked(code == chosen);
        a->setData(code);
        languages->addAction(a);
    }
    connect(languages, &QActionGroup::triggered, this, [this](QAction *a) { chooseLanguage(a->data().toString()); });

    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About llmscope"), this, &MainWindow::showAbout);

    auto *bar = addToolBar(tr("Session"));
    bar->setObjectName(QStringLiteral("SessionToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(m_launchAct);
    bar->addAction(m_againAct);
    bar->addAction(m_stopAct);
    bar->addSeparator();
    bar->addAction(open);
}

void MainWindow::updateActions()
{
    const bool running = m_session->isRunning();
    m_againAct->setEnabled(m_lastLaunch.has_value());
    m_stopAct->setEnabled(running);
    const bool canApply = running && m_session->state() != LiveSession::State::Starting;
    m_applyAct->setEnabled(canApply);
    m_ops->setApplyEnabled(canApply, canApply ? tr("Send this selection to the running program: it dumps these "
                                                   "operations from its next graph on (Ctrl+Return)")
                                              : tr("Launch a program (Session > Launch, Ctrl+L) to apply a "
                                                   "selection while it runs"));
}

void MainWindow::appendConsole(const QString &text, const QString &color)
{
    QString t = text;
    if (t.endsWith(QLatin1Char('\n')))
        t.chop(1);
    if (color.isEmpty())
        m_console->appendPlainText(t);
    else
        m_console->appendHtml(QStringLiteral("<span style=\"color:%1\">%2</span>").arg(color, t.toHtmlEscaped()));
}

void MainWindow::showLaunchDialog()
{
    LaunchDialog dialog(this);
    if (m_lastLaunch)
        dialog.setOptions(m_lastLaunch->first, m_lastLaunch->second);
    if (dialog.exec() != QDialog::Accepted)
        return;
    try {
        launch(dialog.options(), dialog.settings());
    } catch (const Error &e) { // the dialog checked the options: only a race with the file system
        statusBar()->showMessage(tr("Cannot launch: %1").arg(QString::fromUtf8(e.what())), 15000);
    }
}

bool MainWindow::launch(const DumpOptions &options, const LaunchSettings &settings)
{
    if (m_session->isRunning()) {
        statusBar()->showMessage(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        return false;
    }
    m_ops->model()->clear();
    m_heatmap->model()->clear();
    m_graph->clear();
    try {
        m_ops->model()->setIdsText(QString::fromStdString(options.ids)); // checked once the ops are known
    } catch (const Error &) {
        // parseDumpOptions checked them
    }
    m_ops->setStatus(tr("Waiting for the program's first graph..."));
    m_counters->clear();
    if (!m_hunt->isRunning()) // a hunt's runs share one console: its steps stay readable between them
        m_console->clear();
    m_pending.clear();
    m_pendingStats.clear();
    m_pendingRound = -1;
    QString error;
    if (!m_session->start(options, settings, &error)) {
        appendConsole(tr("[llmscope] cannot launch: %1").arg(error), QStringLiteral("#b00000"));
        m_counters->setState(LiveSession::stateName(LiveSession::State::FailedToStart), error);
        m_placeholder->setText(tr("<h2>Could not launch the program</h2><p>%1</p>").arg(error.toHtmlEscaped()));
        m_stack->setCurrentIndex(0);
        statusBar()->showMessage(tr("Cannot launch: %1").arg(error), 15000);
        return false;
    }
    m_lastLaunch = std::make_pair(options, settings);
    if (!m_hunt->isRunning()) // a hunt's own runs are not the user's launches
        LaunchDialog::remember(LaunchDialog::commandLineFor(options, settings), settings.workingDirectory);
    m_counters->setDumpFolder(m_session->dumpRoot());
    m_dumpRoot = m_session->dumpRoot();
    m_stack->setCurrentIndex(0);
    m_placeholder->setText(tr("<h2>%1 is running under the probe</h2>"
                              "<p>Its operations fill the tree on the left as it computes: model, layers, the ggml "
                              "nodes of each.</p><p>Check the operations to dump (or type ids such as "
                              "<code>2_29,3</code>) and press <b>Apply</b> (Ctrl+Return): the program dumps them from "
                              "its next graph on, and the tree marks them.</p><p>The program's output is in the "
                              "console below; Stop is Ctrl+. and Run again Ctrl+R.</p>")
                               .arg(QFileInfo(QString::fromStdString(options.command[0])).fileName().toHtmlEscaped()));
    appendConsole(tr("[llmscope] %1; dumping into %2")
                      .arg(QString::fromStdString(joinCommand(options.command)), m_session->dumpRoot()),
                  QStringLiteral("#206020"));
    setWindowTitle(tr("%1 - llmscope").arg(QFileInfo(QString::fromStdString(options.command[0])).fileName()));
    updateActions();
    return true;
}

void MainWindow::runAgain()
{
    if (!m_lastLaunch)
        return;
    if (m_session->isRunning()) {
        QPointer<MainWindow> self(this);
        auto again = [](QPointer<MainWindow> w) -> QCoro::Task<> {
            co_await w->m_session->stop();
            if (w)
                w->launch(w->m_lastLaunch->first, w->m_lastLaunch->second);
        };
        again(self);
        return;
    }
    launch(m_lastLaunch->first, m_lastLaunch->second);
}

void MainWindow::stopProgram()
{
    if (m_session->isRunning()) {
        appendConsole(tr("[llmscope] stopping the program"), QStringLiteral("#206020"));
        m_session->stop();
    }
}

void MainWindow::applySelection()
{
    if (!m_session->isRunning())
        return;
    const QString ids = m_ops->model()->idsText();
    Selection sel;
    try {
        const DumpOptions &o = m_session->options();
        sel.ids = OpIds::parse(ids.toStdString());
        sel.opNames = parseOpNames(o.opNames);
        sel.child = o.child;
        sel.time = DumpTime(o.time);
        sel.part = TensorPart(o.part);
        sel.rounds = Rounds::all(); // from the acknowledged round on
    } catch (const Error &e) {
        m_ops->setStatus(tr("Cannot apply: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    const uint64_t seq = m_session->select(sel);
    if (!seq) {
        m_ops->setStatus(tr("No probe is connected yet: the selection is sent once the program's probe talks."));
        return;
    }
    m_pending[seq] = {sel, ids};
    m_ops->setStatus(tr("Sent -ids %1; waiting for the program's next graph...")
                         .arg(ids.isEmpty() ? tr("(every operation)") : ids));
}

void MainWindow::acknowledged(const live::Ack &ack)
{
    const auto it = m_pending.find(ack.seq);
    if (it == m_pending.end())
        return;
    const auto [sel, ids] = it->second;
    m_pending.erase(m_pending.begin(), std::next(it));
    if (!ack.error.empty()) {
        m_ops->setStatus(tr("The program refused the selection: %1").arg(QString::fromStdString(ack.error)));
        return;
    }
    m_ops->model()->setApplied(sel, ack.fromRound);
    const QString what = ids.isEmpty() ? tr("every operation") : tr("-ids %1").arg(ids);
    m_ops->setStatus(tr("Dumping %1 from round %2 on (acknowledged by the program).").arg(what).arg(ack.fromRound));
    appendConsole(tr("[llmscope] the program dumps %1 from round %2").arg(what).arg(ack.fromRound),
                  QStringLiteral("#206020"));
    emit selectionApplied(ids, ack.fromRound);
}

void MainWindow::sessionState(LiveSession::State s, const QString &message)
{
    m_counters->setState(LiveSession::stateName(s), message);
    if (!message.isEmpty())
        statusBar()->showMessage(message, 15000);
    if (s == LiveSession::State::Finished || s == LiveSession::State::Crashed || s == LiveSession::State::Stopped ||
        s == LiveSession::State::FailedToStart) {
        const QString color = s == LiveSession::State::Finished ? QStringLiteral("#206020") : QStringLiteral("#b00000");
        appendConsole(QStringLiteral("[llmscope] ") + message, color);
        m_pending.clear();
        const auto &types = m_session->options().types;
        if (s != LiveSession::State::FailedToStart && !m_session->dumpRoot().isEmpty() &&
            std::find(types.begin(), types.end(), "onnx") != types.end()) { // as llmscope dump: from the topology
            std::vector<std::string> problems;
            const auto files = exportDumpOnnx(m_session->dumpRoot().toStdString(), &problems);
            appendConsole(tr("[llmscope] onnx: %n file(s) of the topology under onnx/", nullptr, int(files.size())),
                          QStringLiteral("#206020"));
            for (const auto &p : problems)
                appendConsole(QStringLiteral("[llmscope] ") + QString::fromStdString(p), QStringLiteral("#a05000"));
        }
        if (s != LiveSession::State::FailedToStart && !m_session->dumpRoot().isEmpty())
            openDump(m_session->dumpRoot()); // what was written, file by file
    }
    updateActions();
}

QCoro::Task<bool> MainWindow::openDump(QString folder)
{
    QPointer<MainWindow> self(this);
    statusBar()->showMessage(tr("Scanning %1...").arg(folder));
    m_progress->setRange(0, 0);
    m_progress->show();
    auto report = [self](uint64_t done, uint64_t total) {
        QMetaObject::invokeMethod(qApp, [self, done, total] {
            if (self && total > 0) {
                self->m_progress->setRange(0, static_cast<int>(total));
                self->m_progress->setValue(static_cast<int>(done));
            }
        });
        return true;
    };
    const std::string path = folder.toStdString();
    // The operations first (their topology file is found without walking the tensors), so a
    // large dump shows its tree at once; the files follow when the scan is done.
    struct Early {
        std::optional<TopoNode> topology;
        std::map<std::string, std::string> backends; // from the kernel CSVs, when dumped
    };
    auto topoFuture = QtConcurrent::run([path]() -> Early {
        Early e;
        for (const auto &f : findModelFiles(path))
            try {
                e.topology = readTopologyFile(f);
                break;
            } catch (const Error &) {
                // the scan lists it among the problems
            }
        if (e.topology)
            e.backends = readOpBackends(path);
        return e;
    });
    const Early earlyRead = co_await topoFuture;
    const std::optional<TopoNode> &early = earlyRead.topology;
    if (!self)
        co_return false;
    if (early && !m_session->isRunning() && m_ops->model()->opCount() == 0) {
        m_ops->model()->setTopology(*early);
        m_ops->model()->setBackends(earlyRead.backends);
        const auto [groups, ops] = topologyOps(*early);
        m_heatmap->model()->clear();
        m_heatmap->model()->setOps(groups, ops);
        m_graph->setTopology(groups, ops);
        m_ops->setStatus(tr("Topology of the opened dump: %n operation(s).", nullptr, m_ops->model()->opCount()));
        emit topologyShown(folder, m_ops->model()->opCount());
    }
    struct Scan {
        std::shared_ptr<DumpTreeModel::Tree> tree;
        std::vector<live::RoundStats> stats;
        int tensors = 0, problems = 0, rounds = 0;
        std::optional<TopoNode> topology;
        QString error;
    };
    auto future = QtConcurrent::run([path, report, haveTopology = early.has_value()]() {
        Scan s;
        try {
            DumpIndex index = scanDump(path, report);
            s.tensors = int(index.tensors.size());
            s.problems = int(index.problems.size());
            s.rounds = int(index.rounds().size());
            for (const auto &files : {index.modelFiles, index.torchTreeFiles})
                if (!haveTopology && !s.topology && !files.empty()) {
                    try {
                        s.topology = readTopologyFile(files.front());
                    } catch (const Error &) {
                        // listed among the problems by the scan; the files still show
                    }
                }
            s.stats = statsOf(index);
            s.tree = DumpTreeModel::buildTree(std::move(index)); // the nodes too, off the GUI thread
        } catch (const Error &e) {
            s.error = QString::fromUtf8(e.what());
        }
        return s;
    });
    Scan scan = co_await future;
    if (!self)
        co_return false;
    m_progress->hide();
    if (!scan.error.isEmpty()) {
        statusBar()->showMessage(tr("Could not open %1").arg(folder));
        if (m_stack->currentIndex() == 0)
            m_placeholder->setText(tr("<h2>Could not open the dump</h2><p>%1</p>").arg(scan.error.toHtmlEscaped()));
        emit dumpFailed(folder, scan.error);
        co_return false;
    }
    const int tensors = scan.tensors, problems = scan.problems, rounds = scan.rounds;
    m_model->setTree(std::move(scan.tree));
    if (!m_session->isRunning() && early) // an opened dump's statistics, layer by layer
        for (const auto &s : scan.stats)
            m_heatmap->model()->addStats(s);
    m_tree->expandToDepth(0);
    m_stack->setCurrentIndex(1);
    if (m_heatmap->model()->rowCount() == 0 && m_tabs->currentWidget() == m_heatmap) // no topology: the files
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_tree->parentWidget()));
    if (!m_session->isRunning())
        m_dumpRoot = folder;
    if (scan.topology && !m_session->isRunning() && m_ops->model()->opCount() == 0) {
        m_ops->model()->setTopology(*scan.topology);
        const auto [groups, ops] = topologyOps(*scan.topology);
        m_heatmap->model()->setOps(groups, ops);
        m_graph->setTopology(groups, ops);
        for (const auto &s : scan.stats)
            m_heatmap->model()->addStats(s);
        m_ops->setStatus(tr("Topology of the opened dump: %n operation(s).", nullptr, m_ops->model()->opCount()));
    }
    if (!m_session->isRunning())
        setWindowTitle(tr("%1 - llmscope").arg(folder));
    statusBar()->showMessage(tr("%n tensor(s) in %1 round(s)", nullptr, tensors).arg(rounds) +
                             (problems ? tr("; %n file(s) could not be read", nullptr, problems) : QString()));
    rememberDump(folder);
    emit dumpLoaded(folder, tensors);
    co_return true;
}

void MainWindow::inspectOp(const QString &id)
{
    if (id.isEmpty())
        return;
    OpTreeModel *m = m_ops->model();
    const QModelIndex i = m->indexForId(id);
    const QString title = QStringLiteral("%1 %2 (%3)")
                              .arg(id, i.siblingAtColumn(OpTreeModel::NameColumn).data().toString(),
                                   i.siblingAtColumn(OpTreeModel::TypeColumn).data().toString());
    const OpFiles files = m_dumpRoot.isEmpty() ? OpFiles{} : findOpFiles(m_dumpRoot.toStdString(), m->opPath(id).toStdString());
    QStringList paths;
    for (const auto &f : files.files)
        paths << QString::fromStdString(f);
    m_inspector->setOp(title, files.round, paths,
                       paths.isEmpty() ? tr("Nothing of this operation is in the dump yet: check it and Apply "
                                            "(a running program), or dump it with -ids %1.").arg(id)
                                       : QString());
    // From the files or the start page, the inspector comes forward; picked in the heatmap or
    // the diff, those stay in view.
    if (m_stack->currentIndex() == 0 || m_tabs->currentWidget() == m_tree->parentWidget())
        m_tabs->setCurrentWidget(m_inspector);
    m_stack->setCurrentIndex(1);
}

void MainWindow::showCompareDialog()
{
    QDialog d(this);
    d.setWindowTitle(tr("Compare a golden dump with a test dump"));
    auto *golden = new QLineEdit(&d), *test = new QLineEdit(&d);
    auto *form = new QFormLayout(&d);
    auto row = [&](QLineEdit *e) {
        auto *h = new QHBoxLayout;
        auto *browse = new QPushButton(tr("..."), &d);
        h->addWidget(e, 1);
        h->addWidget(browse);
        connect(browse, &QPushButton::clicked, &d, [&d, e] {
            const QString dir = QFileDialog::getExistingDirectory(&d, tr("Dump folder"));
            if (!dir.isEmpty())
                e->setText(dir);
        });
        return h;
    };
    form->addRow(tr("&Golden (reference):"), row(golden));
    form->addRow(tr("&Test:"), row(test));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &d);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    d.resize(640, d.sizeHint().height());
    if (d.exec() == QDialog::Accepted && !golden->text().isEmpty() && !test->text().isEmpty())
        compareDumps(golden->text(), test->text());
}

void MainWindow::cancelCompare()
{
    if (m_cancelFlag)
        m_cancelFlag->store(true);
}

QCoro::Task<bool> MainWindow::compareDumps(QString golden, QString test, QString mapping)
{
    QPointer<MainWindow> self(this);
    if (m_cancelFlag) { // one comparison at a time
        statusBar()->showMessage(tr("A comparison is running; cancel it first"), 10000);
        co_return false;
    }
    std::optional<QCoro::Task<bool>> opening;
    if (!m_session->isRunning()) { // golden's operations in the tree and heatmap, while comparing
        m_ops->model()->clear();
        opening.emplace(openDump(golden));
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancelFlag = cancel;
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Comparing %1 with %2...").arg(golden, test));
    auto progress = [self](uint64_t done, uint64_t total, const std::string &op) {
        QMetaObject::invokeMethod(qApp, [self, done, total, op = QString::fromStdString(op)] {
            if (self && total > 0) {
                self->m_progress->setRange(0, int(total));
                self->m_progress->setValue(int(done));
                self->statusBar()->showMessage(tr("Comparing: %1").arg(op));
            }
        });
    };
    CompareOptions o;
    o.goldenPath = golden.toStdString();
    o.myPath = test.toStdString();
    o.mappingFile = mapping.toStdString();
    o.cancel = cancel.get();
    auto future = QtConcurrent::run([o, progress, cancel]() -> std::pair<std::shared_ptr<CompareResult>, QString> {
        try {
            return {std::make_shared<CompareResult>(runCompare(o, progress)), QString()};
        } catch (const Error &e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    });
    auto [result, error] = co_await future;
    if (!self)
        co_return false;
    m_cancelFlag.reset();
    m_progress->hide();
    m_cancel->hide();
    if (!result) {
        statusBar()->showMessage(tr("Could not compare: %1").arg(error), 15000);
        emit compareFinished(false, error);
        co_return false;
    }
    m_stack->setCurrentIndex(1); // before the table picks its first divergent op: the Diff tab stays in front
    m_tabs->setCurrentIndex(m_tabs->indexOf(m_diffPage));
    m_compareResult = result;
    m_diff->setResult(result); // selects the first divergent op, which fills the element view
    emit diffShown(int(result->ops.size()));
    m_unpaired->setResult(result.get());
    m_exportAct->setEnabled(true);
    m_stack->setCurrentIndex(1);
    if (opening) // golden's ops in the heatmap first: the metrics are shown on them
        co_await *opening;
    if (!self)
        co_return false;
    showCompareMetrics(*result);
    if (result->firstDivergent >= 0)
        m_ops->selectOp(QString::fromStdString(result->ops[size_t(result->firstDivergent)].opId));
    const QString message = result->firstDivergent >= 0
                                ? tr("First divergent: %1").arg(QString::fromStdString(result->ops[size_t(result->firstDivergent)].label()))
                                : tr("Every operation passed");
    statusBar()->showMessage(message, 30000);
    emit compareFinished(true, message);
    co_return true;
}

void MainWindow::showCompareMetrics(const CompareResult &r)
{
    m_heatmap->setCompare(&r);
    m_curves->setResult(&r, m_heatmap->model()->layerNames());
    m_graph->selectOp(m_heatmap->model()->firstDivergentOp());
}

void MainWindow::note(const QString &text)
{
    appendConsole(text, QStringLiteral("#205080"));
    statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), 30000);
}

void MainWindow::showHuntDialog()
{
    if (m_hunt->isRunning() || m_quant->isRunning()) {
        statusBar()->showMessage(tr("A hunt or report is running; cancel it first"), 10000);
        return;
    }
    HuntDialog d(this);
    if (d.exec() != QDialog::Accepted)
        return;
    HuntSide golden, test;
    QString error;
    if (d.sides(&golden, &test, &error))
        hunt(golden, test, d.folder(), d.rounds());
}

QCoro::Task<bool> MainWindow::hunt(HuntSide golden, HuntSide test, QString folder, QString rounds)
{
    if (m_quant->isRunning()) {
        statusBar()->showMessage(tr("A hunt or report is running; cancel it first"), 10000);
        co_return false;
    }
    if (m_session->isRunning()) {
        statusBar()->showMessage(tr("A program is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        co_return false;
    }
    auto run = m_hunt->run(std::move(golden), std::move(test), folder, rounds);
    co_return co_await run;
}

void MainWindow::showQuantReportDialog()
{
    if (m_quant->isRunning() || m_hunt->isRunning()) {
        statusBar()->showMessage(tr("A hunt or report is running; cancel it first"), 10000);
        return;
    }
    HuntDialog d(this, HuntDialog::Purpose::QuantReport);
    if (d.exec() != QDialog::Accepted)
        return;
    HuntSide golden, test;
    QString error;
    if (d.sides(&golden, &test, &error))
        quantReport(golden, test, d.folder(), d.rounds(), d.budget());
    else
        note(error); // the dialog checked them: only a file changed since could say this
}

QCoro::Task<bool> MainWindow::quantReport(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget)
{
    if (m_session->isRunning() || m_hunt->isRunning()) {
        statusBar()->showMessage(tr("A program or hunt is running: stop it first (Session > Stop, Ctrl+.)"), 10000);
        co_return false;
    }
    auto run = m_quant->run(std::move(golden), std::move(test), folder, rounds, budget);
    co_return co_await run;
}

QStringList MainWindow::exportDiff(const QString &folder, QString *error)
{
    if (!m_compareResult) {
        *error = tr("Nothing to export: compare two dumps first (Session > Compare dumps, Ctrl+D).");
        return {};
    }
    QStringList written;
    try {
        const QString csv = QString::fromStdString(writeCompareReports(*m_compareResult, folder.toStdString()));
        written << csv << csv.left(csv.size() - 4) + QStringLiteral(".json");
    } catch (const Error &e) {
        *error = QString::fromUtf8(e.what());
        return {};
    }
    // Pictures as the views stand. A tab laid out only while it is the current one: each page
    // is brought forward for its picture (no repaint happens in between), then the user's tab.
    const std::tuple<QWidget *, QWidget *, const char *> views[] = {{m_heatmap, m_heatmap, "heatmap.png"},
                                                                    {m_diffPage, m_diffPage, "diff.png"},
                                                                    {m_diffPage, m_curves, "error_by_layer.png"},
                                                                    {m_graph, m_graph, "layer_graph.png"}};
    QWidget *current = m_tabs->currentWidget();
    const int stack = m_stack->currentIndex();
    m_stack->setCurrentIndex(1);
    for (const auto &[page, w, name] : views) {
        m_tabs->setCurrentWidget(page);
        const QString path = QDir(folder).filePath(QString::fromLatin1(name));
        if (!w->grab().save(path, "PNG")) {
            *error = tr("Could not write %1 (is the disk full?)").arg(path);
            written.clear();
            break;
        }
        written << path;
    }
    m_tabs->setCurrentWidget(current);
    m_stack->setCurrentIndex(stack);
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

void MainWindow::chooseDump()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open dump folder"));
    if (dir.isEmpty())
        return;
    m_ops->model()->clear();
    openDump(dir); // runs to completion on its own; results arrive through the signals
}

void MainWindow::rememberDump(const QString &folder)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("dumps/recent")).toStringList();
    recent.removeAll(folder);
    recent.prepend(folder);
    while (recent.size() > kRecentDumps)
        recent.removeLast();
    settings.setValue(QStringLiteral("dumps/recent"), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("dumps/recent")).toStringList();
    for (const QString &f : recent)
        m_recentMenu->addAction(f, this, [this, f] {
            m_ops->model()->clear();
            openDump(f);
        });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::showDetails()
{
    const QModelIndex cur = m_tree->currentIndex();
    const QString tip = m_model->data(cur.siblingAtColumn(0), Qt::ToolTipRole).toString();
    if (!cur.isValid() || tip.isEmpty()) {
        m_details->clear();
        return;
    }
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(cur.siblingAtColumn(0).data().toString().toHtmlEscaped());
    for (int c = 1; c < DumpTreeModel::ColumnCount; ++c)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(m_model->headerData(c, Qt::Horizontal).toString(),
                         cur.siblingAtColumn(c).data().toString().toHtmlEscaped());
    html += QStringLiteral("</table><p><small>%1</small></p>").arg(tip.toHtmlEscaped());
    m_details->setHtml(html);
}

void MainWindow::chooseLanguage(const QString &code)
{
    QSettings().setValue(QStringLiteral("ui/language"), code);
    if (QMessageBox::question(this, tr("Language"),
                              tr("llmscope shows the new language from its next start. Restart now? (A running "
                                 "program is stopped.)")) != QMessageBox::Yes)
        return;
    QStringList args = QCoreApplication::arguments().mid(1);
    for (int i = args.indexOf(QStringLiteral("--lang")); i >= 0; i = args.indexOf(QStringLiteral("--lang")))
        args.remove(i, std::min<qsizetype>(2, args.size() - i)); // the chosen language, not the one it started in
    if (m_session->isRunning())
        m_session->stop(std::chrono::milliseconds(0));
    QProcess::startDetached(QCoreApplication::applicationFilePath(), args);
    close();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About llmscope"),
                       tr("<b>llmscope %1</b><p>Finds the first operation where an accelerated LLM "
                          "inference departs from its reference. Reads and writes msit's dump format.</p>")
                           .arg(QStringLiteral(LLMSCOPE_VERSION)));
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
            m_ops->model()->clear();
            openDump(u.toLocalFile());
            e->acceptProposedAction();
            return;
        }
}
