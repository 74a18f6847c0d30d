#include "app/window/central_pages.h"

#include <QDir>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <QTabWidget>

#include "app/workspace/workspace.h"
#include "document/session_document.h"
#include "views/diff_view.h"
#include "views/error_curve_view.h"
#include "views/files_page.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"
#include "views/layer_graph_view.h"
#include "views/quant_report_view.h"
#include "views/spread_view.h"
#include "views/start_page.h"
#include "views/tensor_diff_view.h"
#include "views/tensor_inspector.h"
#include "views/unpaired_view.h"

using namespace llmscope;

CentralPages::CentralPages(Workspace *ws, QWidget *parent)
    : QStackedWidget(parent), m_ws(ws), m_startPage(new StartPage(this)), m_tabs(new QTabWidget(this)),
      m_filesPage(new FilesPage(this)), m_inspector(new TensorInspector(this)), m_colours(new OpColours(this)),
      m_heatmap(new HeatmapView(m_colours, this)), m_graph(new LayerGraphView(m_colours, this)),
      m_diff(new DiffView(this)), m_tensorDiff(new TensorDiffView(this)), m_curves(new ErrorCurveView(this)),
      m_unpaired(new UnpairedView(this)), m_quantView(new QuantReportView(this)), m_spreadView(new SpreadView(this)),
      m_diffSide(new QTabWidget(this))
{
    build();
    followDocument();
    followSource();
    followCursor();
    followResults();
    showSession();
}

void CentralPages::showSession()
{
    // A window built on a session under way (a language switch): the pages as it stands.
    if (m_ws->document()->source().kind != SessionDocument::Source::None)
        setCurrentWidget(m_tabs);
    showQuantReport(false);
    showSpread();
}

void CentralPages::build()
{
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
    diffTop->setSizes({600, 400}); // the table's operation and output error in view, the chart beside
    // The verdict across the page's width, above the table and the chart: its cause in two
    // lines, not six beside the chart.
    auto *verdictAndTable = new QWidget(this);
    auto *top = new QVBoxLayout(verdictAndTable);
    top->setContentsMargins(0, 0, 0, 0);
    top->setSpacing(2);
    top->addWidget(m_diff->summaryPanel());
    top->addWidget(diffTop, 1);
    auto *diffSplit = new QSplitter(Qt::Vertical, this);
    diffSplit->addWidget(verdictAndTable);
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
    m_spreadView->hide(); // a tab once there is a spread
    addWidget(m_startPage);
    addWidget(m_tabs);
}

void CentralPages::followDocument()
{
    // Each view follows the document (what is shown) and the cursor (where the user looks)
    // itself; these connections come first, so the pages' own below see the views updated.
    SessionDocument *doc = m_ws->document();
    Cursor *cursor = m_ws->cursor();
    m_filesPage->follow(doc);
    m_heatmap->follow(doc); // before the graph: it puts the metrics into the colours they share
    m_graph->follow(doc);
    m_inspector->follow(doc);
    m_diff->follow(doc);
    m_unpaired->follow(doc);
    m_curves->follow(doc);
    m_tensorDiff->follow(doc);
    m_quantView->follow(doc);
    m_spreadView->follow(doc);
    m_inspector->follow(cursor);
    m_tensorDiff->follow(cursor); // golden and test, element by element
    m_heatmap->follow(cursor);
    m_graph->follow(cursor);
    m_diff->follow(cursor);
    m_curves->follow(cursor);
    m_spreadView->follow(cursor);
    m_filesPage->follow(cursor);
}

void CentralPages::followSource()
{
    SessionDocument *doc = m_ws->document();
    connect(doc, &SessionDocument::sourceChanged, this, [this] { m_topologyShown = false; });
    connect(doc, &SessionDocument::graphChanged, this, [this, doc] {
        if (!std::exchange(m_topologyShown, true) && doc->source().kind == SessionDocument::Source::Program)
            showPage(m_heatmap); // it fills as the dumped rounds' statistics come
        if (const QString op = m_ws->cursor()->op(); !op.isEmpty()) { // picked before its topology came
            m_heatmap->selectOp(op);
            inspect(op);
        }
    });
    connect(m_ws, &Workspace::topologyShown, this, [this] { setCurrentWidget(m_tabs); });
    connect(m_ws, &Workspace::dumpLoaded, this, [this] {
        m_filesPage->openRounds();
        setCurrentWidget(m_tabs);
        if (m_heatmap->model()->rowCount() == 0 && m_tabs->currentWidget() == m_heatmap) // no topology: the files
            m_tabs->setCurrentWidget(m_filesPage);
    });
    connect(m_ws, &Workspace::dumpFailed, this, [this](const QString &, const QString &error) {
        if (currentWidget() == m_startPage)
            m_startPage->showOpenFailed(error);
    });
    connect(m_ws, &Workspace::launched, this, [this] {
        m_startPage->showRunning(m_ws->document()->source().name);
        setCurrentWidget(m_startPage);
    });
    connect(m_ws, &Workspace::launchFailed, this, [this](const QString &error) {
        m_startPage->showLaunchFailed(error);
        setCurrentWidget(m_startPage);
    });
}

void CentralPages::followCursor()
{
    // The inspector fills itself from the cursor; the element view is filled here from what the
    // cursor points at, and the page that answers is brought forward.
    Cursor *cursor = m_ws->cursor();
    auto replayed = [this] { // replayed: the reference beside the output, in the round looked at
        if (m_ws->document()->results().replay && !m_ws->comparison() && !m_ws->cursor()->op().isEmpty())
            m_ws->showReplay(m_ws->cursor()->op());
    };
    connect(cursor, &Cursor::opChanged, this, [this, replayed](const QString &id, const QObject *by) {
        if (by != m_filesPage) // (browsing the files, the inspector follows and the page stays)
            inspect(id);
        replayed();
    });
    connect(m_ws, &Workspace::replayShown, this, [this](const Workspace::OpTensors &t) {
        m_tensorDiff->setFiles(t.title, t.golden, t.test, tr("Replay (float64)"), tr("Output"));
    });
    connect(cursor, &Cursor::roundChanged, this, [this, replayed] {
        if (!m_ws->cursor()->op().isEmpty())
            inspect(m_ws->cursor()->op()); // that round's tensors
        replayed();
    });
    // A replay whose first failure is the op already picked: the cursor does not move, the
    // element view still shows it.
    connect(m_ws->document(), &SessionDocument::resultChanged, this, [replayed](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Replay)
            replayed();
    });
}

void CentralPages::followResults()
{
    SessionDocument *doc = m_ws->document();
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        const SessionDocument::Results &r = doc->results();
        switch (which) {
        case SessionDocument::Result::Comparison:
            if (r.comparison) {
                showPage(m_diffPage);
                emit diffShown(int(r.comparison->ops.size()));
            }
            break;
        case SessionDocument::Result::Replay:
            if (r.replay)
                showPage(m_heatmap); // the ops' errors over their bounds, the failing ones flagged
            break;
        case SessionDocument::Result::QuantReport: showQuantReport(); break;
        case SessionDocument::Result::Metrics:
        case SessionDocument::Result::Spread: break; // the heatmap and the spread's page follow them
        }
    });
    connect(m_unpaired, &UnpairedView::compareAgain, this, [this](const QString &mapping) {
        if (const auto r = m_ws->comparison())
            m_ws->compare(QString::fromStdString(r->goldenRoot), QString::fromStdString(r->myRoot), mapping);
    });
    connect(m_ws, &Workspace::spreadShown, this, [this] {
        showSpread();
        showPage(m_spreadView);
    });
    connect(m_ws, &Workspace::spreadFailed, this, [this](const QString &why) {
        m_spreadView->showFailure(why);
        if (m_tabs->indexOf(m_spreadView) < 0)
            m_tabs->addTab(m_spreadView, tr("Spread"));
        showPage(m_spreadView);
    });
    connect(m_ws, &Workspace::huntFailed, this, [this](const QString &why) {
        m_diff->showFailure(tr("The hunt failed:"), why);
        showPage(m_diffPage);
    });
    // The report and the spread were of the sources before: the document holds neither now, and
    // their tabs go (a spread shown again comes back with its own source).
    connect(m_ws->document(), &SessionDocument::sourceChanged, this, [this] {
        showQuantReport(false);
        if (const int at = m_tabs->indexOf(m_spreadView); at >= 0)
            m_tabs->removeTab(at);
    });
}

void CentralPages::showQuantReport(bool bringForward)
{
    // the view follows the document itself; the page's tab is here
    if (!m_ws->document()->results().quantReport) {
        if (const int at = m_tabs->indexOf(m_quantView); at >= 0)
            m_tabs->removeTab(at);
        return;
    }
    if (m_tabs->indexOf(m_quantView) < 0)
        m_tabs->addTab(m_quantView, tr("Quantization"));
    if (bringForward)
        showPage(m_quantView);
}

void CentralPages::showSpread()
{
    if (!m_ws->document()->results().spread) // the view follows the document; its tab is here
        return;
    if (m_tabs->indexOf(m_spreadView) < 0)
        m_tabs->addTab(m_spreadView, tr("Spread"));
}

void CentralPages::showPage(QWidget *page)
{
    setCurrentWidget(m_tabs);
    m_tabs->setCurrentWidget(page);
}

void CentralPages::inspect(const QString &id)
{
    if (id.isEmpty())
        return;
    // The inspector has the op's tensors (it follows the cursor). From the files or the start
    // page, it comes forward; picked in the heatmap or the diff, those stay in view.
    if (currentWidget() == m_startPage || m_tabs->currentWidget() == m_filesPage)
        m_tabs->setCurrentWidget(m_inspectorPage);
    setCurrentWidget(m_tabs);
}

QStringList CentralPages::savePictures(const QString &folder, QString *error)
{
    // A tab is laid out only while it is the current one: each page is brought forward for
    // its picture (no repaint happens in between), then the user's page again.
    const std::tuple<QWidget *, QWidget *, const char *> views[] = {{m_heatmap, m_heatmap, "heatmap.png"},
                                                                    {m_diffPage, m_diffPage, "diff.png"},
                                                                    {m_diffPage, m_curves, "error_by_layer.png"},
                                                                    {m_graph, m_graph, "layer_graph.png"}};
    QWidget *tab = m_tabs->currentWidget(), *page = currentWidget();
    QStringList written;
    for (const auto &[shown, w, name] : views) {
        showPage(shown);
        const QString path = QDir(folder).filePath(QString::fromLatin1(name));
        if (!w->grab().save(path, "PNG")) {
            *error = tr("Could not write %1 (is the disk full?)").arg(path);
            written.clear();
            break;
        }
        written << path;
    }
    m_tabs->setCurrentWidget(tab);
    setCurrentWidget(page);
    return written;
}
