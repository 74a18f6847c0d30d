// One layer's ggml nodes and their data edges, laid out by Graphviz: ops as boxes coloured by
// the shared colour scale (OpColours: the heatmap's metric, round and threshold), weights, KV cache and inputs
// from outside the layer as small leaves. Picking an op anywhere shows its layer with the op
// framed; a click on a box picks that op everywhere.
#pragma once
#include <QHash>
#include <QWidget>

#include "core/graph/layer_graph.h"
#include <memory>

class SessionDocument;
class Cursor;
class OpColours;
class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QPushButton;
class QGraphicsRectItem;

class LayerGraphView : public QWidget {
    Q_OBJECT
public:
    // Colours come from the shared scale, and follow it (null: boxes uncoloured).
    explicit LayerGraphView(OpColours *colours, QWidget *parent = nullptr);

    void setGraph(std::shared_ptr<const llmscope::OpGraph> ops); // the document's, shared
    void clear();
    void showLayer(const QString &group);
    void selectOp(const QString &id); // shows its layer, framed
    void follow(Cursor *cursor); // a click sets the cursor's op; the cursor's op is shown
    // The document's operations; with a comparison's metrics, the first divergent op's layer.
    void follow(SessionDocument *doc);
    QString layer() const { return m_group; }
    const llmscope::LayerGraph &graph() const { return m_graph; }
    // The box of an op of the shown layer (scene coordinates); null when not shown.
    QGraphicsRectItem *opItem(const QString &id) const { return m_items.value(id); }
    // The box of the weight or input the comparison blames (drawn red), or null where none is shown.
    QGraphicsRectItem *blamedItem() const;
    QColor opColour(const QString &id) const;
    QGraphicsView *view() const { return m_view; }
    double scaleShown() const; // the view's zoom (1: the layout's own size)
    static constexpr double kReadableScale = 0.6; // below it a box's label cannot be read
    QComboBox *layerBox() const { return m_layers; }
    QString status() const;
    void fit();

signals:
    void opClicked(const QString &id);

protected:
    bool eventFilter(QObject *o, QEvent *e) override;
    // Laid out while hidden (another tab in front), the graph is fitted again once it has its
    // size, unless the user has zoomed.
    void resizeEvent(QResizeEvent *e) override;
    void showEvent(QShowEvent *e) override;

private:
    void recolour();

    OpColours *m_colours;
    QComboBox *m_layers;
    QLabel *m_status;
    QGraphicsScene *m_scene;
    QGraphicsView *m_view;
    std::shared_ptr<const llmscope::OpGraph> m_ops = std::make_shared<const llmscope::OpGraph>();
    llmscope::LayerGraph m_graph;
    QString m_group, m_selected;
    bool m_deferred = false; // a topology came while hidden: its layer is laid out once shown
    bool m_autoFit = true; // fit on resize, until the user zooms
    // Fit shows readable boxes; where the layer is larger than that, the button offers the whole
    // layer, however small, and then readable boxes again.
    QPushButton *m_fit;
    bool m_whole = false;
    QHash<QString, QGraphicsRectItem *> m_items; // op id -> its box
    QHash<QString, QGraphicsRectItem *> m_leaves; // a weight's or input's tensor name -> its box
};
