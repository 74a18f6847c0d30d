#include "views/layer_graph_view.h"
#include "document/layer_words.h"

#include <algorithm>

#include "document/cursor.h"
#include "document/session_document.h"

#include <QComboBox>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>

#include "core/select/op_id.h"
#include "views/graphviz_layout.h"
#include "views/op_colours.h"

using namespace llmscope;

namespace {
constexpr int kIdRole = 0; // QGraphicsItem::data key: the op id of a box
constexpr int kTipRole = 1; // a leaf's own tooltip, before what a comparison adds

QString shortName(const LayerGraph::Node &n)
{
    QString s = QString::fromStdString(n.name);
    if (n.kind == LayerGraph::Kind::Weight && s.startsWith(QLatin1String("blk."))) // blk.3.ffn_down.weight
        s = s.section(QLatin1Char('.'), 2);
    for (const char *part : {"_weight_", "_internal_", "_in_tensor_"}) // ATB: {Model}_weight_19
        if (const qsizetype at = s.indexOf(QLatin1String(part)); at > 0)
            s = s.mid(at + 1);
    return s.size() > 22 ? s.left(20) + QStringLiteral("...") : s;
}
} // namespace

LayerGraphView::LayerGraphView(OpColours *colours, QWidget *parent)
    : QWidget(parent), m_colours(colours), m_layers(new QComboBox(this)), m_status(new QLabel(this)),
      m_scene(new QGraphicsScene(this)), m_view(new QGraphicsView(m_scene, this))
{
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setDragMode(QGraphicsView::ScrollHandDrag);
    m_view->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    m_view->viewport()->installEventFilter(this);
    m_view->setToolTip(tr("Boxes: the layer's operations, coloured as the heatmap; grey leaves: weights, KV cache "
                          "and inputs from outside the layer. Click a box to pick it; Ctrl+wheel zooms."));
    m_layers->setMinimumContentsLength(16);
    auto *fitButton = m_fit = new QPushButton(tr("Fit"), this);
    // as wide as its longer text from the start: a text that changes it would move the view under
    // the fit just made
    fitButton->setMinimumWidth(fitButton->fontMetrics().horizontalAdvance(tr("Fit: whole layer")) +
                               2 * fitButton->fontMetrics().averageCharWidth() + 16);
    m_status->setWordWrap(true);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Layer:"), this));
    row->addWidget(m_layers);
    row->addWidget(fitButton);
    row->addWidget(m_status, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_view, 1);
    connect(fitButton, &QPushButton::clicked, this, [this] {
        m_whole = m_fit->property("offersWhole").toBool();
        m_autoFit = true;
        fit();
    });
    connect(m_layers, &QComboBox::activated, this, [this](int i) { showLayer(m_layers->itemData(i).toString()); });
    if (m_colours) // the metric, round or threshold changed, or new values: the same colours as the heatmap
        connect(m_colours, &OpColours::changed, this, &LayerGraphView::recolour);
    clear();
}

void LayerGraphView::clear()
{
    m_ops = std::make_shared<const OpGraph>();
    m_graph = {};
    m_group.clear();
    m_items.clear();
    m_leaves.clear();
    m_scene->clear();
    m_layers->clear();
    m_status->setText(tr("A layer's operations appear here once a program runs or a dump is opened."));
}

void LayerGraphView::setGraph(std::shared_ptr<const OpGraph> ops)
{
    const QString keep = m_group;
    m_ops = std::move(ops);
    const OpGraph &graph = *m_ops;
    m_layers->clear();
    const std::vector<int> &groups = graph.groups();
    for (const int g : groups) {
        const GraphOp &op = graph.ops()[size_t(g)];
        m_layers->addItem(
            QStringLiteral("%1 %2").arg(QString::fromStdString(op.id), layerLabel(QString::fromStdString(op.name))),
            QString::fromStdString(op.id));
    }
    m_group.clear();
    auto idOf = [&](size_t i) { return QString::fromStdString(graph.ops()[size_t(groups[i])].id); };
    const QString first = groups.size() > 1 ? idOf(1) // the first layer, not the embedding
        : groups.empty()                    ? QString()
                                            : idOf(0);
    const QString layer = keep.isEmpty() || m_layers->findData(keep) < 0 ? first : keep;
    if (!isVisible()) { // laid out when shown or when an op is picked: opening a dump waits for no layout
        m_scene->clear();
        m_items.clear();
        m_leaves.clear();
        m_group = layer;
        m_layers->setCurrentIndex(m_layers->findData(layer));
        m_deferred = true;
        return;
    }
    showLayer(layer);
}

void LayerGraphView::showLayer(const QString &group)
{
    if (group == m_group && !m_items.isEmpty())
        return;
    m_deferred = false;
    m_group = group;
    m_layers->setCurrentIndex(m_layers->findData(group));
    m_scene->clear();
    m_items.clear();
    m_leaves.clear();
    m_graph = buildLayerGraph(*m_ops, group.toStdString());
    if (m_graph.nodes.empty()) {
        m_status->setText(tr("No operations in this layer."));
        return;
    }
    QFont opFont = font(), leafFont = font();
    opFont.setPointSizeF(opFont.pointSizeF() * 0.85);
    leafFont.setPointSizeF(leafFont.pointSizeF() * 0.75);
    const QFontMetricsF om(opFont), lm(leafFont);
    std::vector<QSizeF> sizes;
    std::vector<QString> labels;
    for (const auto &n : m_graph.nodes) {
        if (n.kind == LayerGraph::Kind::Op) {
            const QString label = QStringLiteral("%1 %2\n%3")
                                      .arg(QString::fromStdString(n.id), shortName(n), QString::fromStdString(n.type));
            labels.push_back(label);
            sizes.push_back(
                {std::max(om.horizontalAdvance(QString::fromStdString(n.id) + QLatin1Char(' ') + shortName(n)),
                          om.horizontalAdvance(QString::fromStdString(n.type))) +
                     12,
                 om.height() * 2 + 8});
        } else {
            labels.push_back(shortName(n));
            sizes.push_back({lm.horizontalAdvance(labels.back()) + 10, lm.height() + 4});
        }
    }
    const GraphLayout layout = layoutGraph(m_graph, sizes);
    if (!layout.error.isEmpty()) {
        m_status->setText(layout.error);
        return;
    }
    const QPen edgePen(QColor(110, 110, 110), 1);
    for (size_t e = 0; e < layout.edges.size(); ++e) {
        m_scene->addPath(layout.edges[e], edgePen)->setZValue(0);
        if (!layout.arrows[e].isEmpty())
            m_scene->addPolygon(layout.arrows[e], edgePen, QBrush(QColor(110, 110, 110)))->setZValue(0);
    }
    for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
        const auto &n = m_graph.nodes[i];
        const bool op = n.kind == LayerGraph::Kind::Op;
        auto *box = m_scene->addRect(
            layout.nodes[i], QPen(op ? QColor(60, 60, 60) : QColor(150, 150, 150), op ? 1 : 0.8),
            op ? QBrush(QColor(235, 235, 235))
               : QBrush(n.kind == LayerGraph::Kind::Cache ? QColor(225, 235, 250) : QColor(245, 245, 245)));
        box->setZValue(1);
        auto *text = new QGraphicsSimpleTextItem(labels[i], box);
        text->setFont(op ? opFont : leafFont);
        const QRectF tb = text->boundingRect();
        text->setPos(layout.nodes[i].center() - QPointF(tb.width() / 2, tb.height() / 2));
        if (op || !n.id.empty()) { // ops, and outside inputs some other layer's op computes, are clickable
            box->setData(kIdRole, QString::fromStdString(n.id));
            box->setCursor(Qt::PointingHandCursor);
        }
        if (op)
            m_items.insert(QString::fromStdString(n.id), box);
        else
            m_leaves.insert(QString::fromStdString(n.name), box);
        box->setToolTip(
            op ? tr("%1 %2 (%3)")
                     .arg(QString::fromStdString(n.id), QString::fromStdString(n.name), QString::fromStdString(n.type))
                : n.kind == LayerGraph::Kind::Weight ? tr("weight %1").arg(QString::fromStdString(n.name))
                : n.kind == LayerGraph::Kind::Cache  ? tr("KV cache %1").arg(QString::fromStdString(n.name))
                : n.id.empty()                       ? tr("input %1").arg(QString::fromStdString(n.name))
                                                     : tr("%1, computed by %2 in another layer")
                                     .arg(QString::fromStdString(n.name), QString::fromStdString(n.id)));
        box->setData(kTipRole, box->toolTip());
    }
    m_scene->setSceneRect(layout.bounds.adjusted(-10, -10, 10, 10));
    m_status->setText(tr("%1 operations, %2 inputs from outside the layer, %3 edges. Colours: the heatmap's "
                         "statistic in its round. Ctrl+wheel zooms, dragging moves.")
                          .arg(m_graph.opCount())
                          .arg(int(m_graph.nodes.size()) - m_graph.opCount())
                          .arg(m_graph.edges.size()));
    recolour();
    m_autoFit = true;
    m_whole = false;
    fit();
}

void LayerGraphView::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    if (m_autoFit)
        fit();
}

void LayerGraphView::showEvent(QShowEvent *e)
{
    QWidget::showEvent(e);
    if (m_deferred)
        showLayer(m_group);
    if (m_autoFit)
        fit();
}

void LayerGraphView::selectOp(const QString &id)
{
    if (id.isEmpty())
        return;
    m_selected = id;
    showLayer(QString::fromStdString(std::string(opGroup(id.toStdString()))));
    recolour();
    if (QGraphicsRectItem *box = m_items.value(id))
        m_view->ensureVisible(box);
}

QColor LayerGraphView::opColour(const QString &id) const
{
    if (!m_colours)
        return {};
    return m_colours->colourOf(id);
}

void LayerGraphView::recolour()
{
    const QString first = m_colours ? m_colours->firstDivergentOp() : QString();
    for (auto it = m_items.begin(); it != m_items.end(); ++it) {
        const QColor c = opColour(it.key());
        QGraphicsRectItem *box = it.value();
        box->setBrush(c.isValid() ? c : QColor(235, 235, 235));
        const bool dark = c.isValid() && c.lightnessF() < 0.55;
        for (QGraphicsItem *child : box->childItems())
            static_cast<QGraphicsSimpleTextItem *>(child)->setBrush(dark ? Qt::white : Qt::black);
        QPen pen(QColor(60, 60, 60), 1);
        if (it.key() == first)
            pen = QPen(QColor(220, 0, 0), 4); // the first divergent op
        if (it.key() == m_selected)
            pen = QPen(it.key() == first ? QColor(220, 0, 0) : palette().color(QPalette::Highlight), 4, Qt::DashLine);
        box->setPen(pen);
    }
    // The weight (or input) the first divergent op's error comes in through: red, and said so.
    const QString blamed = m_colours ? m_colours->blamedLeaf() : QString();
    for (auto it = m_leaves.begin(); it != m_leaves.end(); ++it) {
        const bool is = !blamed.isEmpty() && it.key() == blamed;
        it.value()->setPen(is ? QPen(QColor(220, 0, 0), 3) : QPen(QColor(150, 150, 150), 0.8));
        const QString own = it.value()->data(kTipRole).toString();
        it.value()->setToolTip(
            is ? own + QLatin1Char('\n') + tr("the first divergent operation's error comes in through it") : own);
    }
}

QGraphicsRectItem *LayerGraphView::blamedItem() const
{
    const QString blamed = m_colours ? m_colours->blamedLeaf() : QString();
    return blamed.isEmpty() ? nullptr : m_leaves.value(blamed);
}

QString LayerGraphView::status() const
{
    return m_status->text();
}

void LayerGraphView::fit()
{
    if (m_scene->items().isEmpty())
        return;
    // The whole layer asked for: nothing to scroll, and no scroll bar of the readable view left to
    // take room the fit counted on.
    const auto bars = m_whole ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded;
    m_view->setHorizontalScrollBarPolicy(bars);
    m_view->setVerticalScrollBarPolicy(bars);
    m_view->resetTransform();
    m_view->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    if (m_view->transform().m11() > 1.5) // a small layer: not blown up
        m_view->setTransform(QTransform::fromScale(1.5, 1.5));
    const bool tooSmall = m_view->transform().m11() < kReadableScale;
    if (!tooSmall && m_whole) { // it fits readable: the usual view, its scroll bars as needed
        m_whole = false;
        m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    }
    // the button offers the other view of a layer larger than readable boxes show
    m_fit->setText(tooSmall && !m_whole ? tr("Fit: whole layer") : tr("Fit"));
    m_fit->setProperty("offersWhole", tooSmall && !m_whole);
    m_fit->setToolTip(!tooSmall     ? tr("The whole layer in view")
                          : m_whole ? tr("Readable boxes, as much of the layer as they leave in view")
                                    : tr("The whole layer in view, its boxes too small to read: an overview"));
    // A tall layer fitted whole has labels no one can read: as wide as the view then, never
    // smaller than readable, scrolled to the first divergent op (or the top); whole when asked.
    if (tooSmall && !m_whole) {
        const QRectF scene = m_scene->sceneRect();
        const double across = scene.width() > 0 ? m_view->viewport()->width() / scene.width() : 1;
        const double s = std::clamp(across, kReadableScale, 1.5);
        m_view->setTransform(QTransform::fromScale(s, s));
        const QString first = m_colours ? m_colours->firstDivergentOp() : QString();
        if (QGraphicsRectItem *box = m_items.value(m_selected.isEmpty() ? first : m_selected))
            m_view->centerOn(box);
        else
            m_view->centerOn(scene.center().x(), scene.top());
    }
}

double LayerGraphView::scaleShown() const
{
    return m_view->transform().m11();
}

bool LayerGraphView::eventFilter(QObject *o, QEvent *e)
{
    if (o == m_view->viewport() && e->type() == QEvent::MouseButtonRelease) {
        auto *me = static_cast<QMouseEvent *>(e);
        for (QGraphicsItem *item : m_view->items(me->position().toPoint())) {
            const QString id = item->data(kIdRole).toString();
            if (!id.isEmpty()) {
                selectOp(id);
                emit opClicked(id);
                return false;
            }
        }
    }
    if (o == m_view->viewport() && e->type() == QEvent::Wheel) {
        auto *we = static_cast<QWheelEvent *>(e);
        if (we->modifiers() & Qt::ControlModifier) {
            const double f = std::pow(1.0015, we->angleDelta().y());
            m_view->scale(f, f);
            m_autoFit = false;
            m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded); // zoomed in from the whole layer: scrollable
            m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
            return true;
        }
    }
    return QWidget::eventFilter(o, e);
}

void LayerGraphView::follow(Cursor *cursor)
{
    followOp(cursor, this, &LayerGraphView::opClicked);
}

void LayerGraphView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::sourceChanged, this, &LayerGraphView::clear);
    connect(doc, &SessionDocument::graphChanged, this, [this, doc] { setGraph(doc->graph()); });
    // After the heatmap has put the metrics into the shared colours (it follows first).
    connect(doc, &SessionDocument::resultChanged, this, [this](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Metrics)
            selectOp(m_colours->firstDivergentOp());
    });
    if (!doc->graph()->empty()) // what the document holds already
        setGraph(doc->graph());
}
