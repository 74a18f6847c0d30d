// The window's central area: the start page until there is something to show, then the pages
// (heatmap, graph, inspector, diff, tensor files, and a quantization report's once there is
// one, and a spread's). It builds the views, has each follow the document and the cursor (the
// inspector fills itself), fills the element view from what the cursor points at, keeps the
// spread's and the report's tabs while the document has them, and brings forward the page that
// answers what just happened (a program's first operations, an opened dump, a comparison, a
// replay, a report). The window frames it; the workspace owns what it shows.
#pragma once
#include <QStackedWidget>

class DiffView;
class ErrorCurveView;
class FilesPage;
class HeatmapView;
class LayerGraphView;
class OpColours;
class QTabWidget;
class QuantReportView;
class SpreadView;
class StartPage;
class TensorDiffView;
class TensorInspector;
class UnpairedView;
class Workspace;

class CentralPages : public QStackedWidget {
    Q_OBJECT
public:
    explicit CentralPages(Workspace *ws, QWidget *parent = nullptr);

    void showPage(QWidget *page); // a tab, brought forward
    void inspect(const QString &id); // the inspector (on the op's tensors) brought forward from the files
    // Pictures of the views as they stand (heatmap.png, diff.png, error_by_layer.png,
    // layer_graph.png) into folder; the files, or empty and error says why.
    QStringList savePictures(const QString &folder, QString *error);

    QTabWidget *tabs() const { return m_tabs; }
    StartPage *startPage() const { return m_startPage; }
    FilesPage *filesPage() const { return m_filesPage; }
    TensorInspector *inspector() const { return m_inspector; }
    HeatmapView *heatmap() const { return m_heatmap; }
    LayerGraphView *graph() const { return m_graph; }
    DiffView *diff() const { return m_diff; }
    TensorDiffView *tensorDiff() const { return m_tensorDiff; }
    ErrorCurveView *curves() const { return m_curves; }
    UnpairedView *unpaired() const { return m_unpaired; }
    QuantReportView *quantView() const { return m_quantView; }
    SpreadView *spreadView() const { return m_spreadView; }

signals:
    void diffShown(int operations); // the Diff page holds a comparison

private:
    void build();
    void followDocument();
    void followSource();
    void followCursor();
    void followResults();
    void showSession(); // what the session holds already
    void showSpread(); // the document's spread in its tab (none: nothing)
    void showQuantReport(bool bringForward = true); // the document's report, in its tab (none: the tab goes)

    Workspace *m_ws;
    StartPage *m_startPage;
    QTabWidget *m_tabs;
    FilesPage *m_filesPage;
    TensorInspector *m_inspector;
    QWidget *m_inspectorPage; // the inspector in a scroll area
    OpColours *m_colours; // the colour scale the heatmap sets and the layer graph shares
    HeatmapView *m_heatmap;
    LayerGraphView *m_graph;
    DiffView *m_diff;
    TensorDiffView *m_tensorDiff;
    ErrorCurveView *m_curves;
    UnpairedView *m_unpaired;
    QuantReportView *m_quantView;
    SpreadView *m_spreadView;
    QTabWidget *m_diffSide;
    QWidget *m_diffPage = nullptr;
    bool m_topologyShown = false; // this source's operations came (a program's first: the heatmap shown)
};
