// The layer graph: a real msit model topology (Bloom's layer, as msit dumped it) resolved into ops and
// edges, laid out by Graphviz top to bottom without overlaps, coloured as the heatmap (and
// recoloured with it), and a click on a box picks the op.
#include <QGraphicsRectItem>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <QApplication>
#include <QLabel>
#include <QPushButton>

#include "core/dump/topology.h"
#include "core/graph/layer_graph.h"
#include "document/session_document.h"
#include "views/heatmap_model.h"
#include "views/layer_graph_view.h"
#include "views/op_colours.h"

using namespace llmscope;

class TstLayerGraph : public QObject {
    Q_OBJECT
    std::shared_ptr<const OpGraph> m_graph;

private slots:
    void initTestCase()
    {
        const TopoNode model = readTopologyFile(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json");
        m_graph = std::make_shared<const OpGraph>(model);
        QCOMPARE(m_graph->groups().size(), size_t(1));
    }

    // Inputs resolved by name to the op that last output them; weights and other layers' outputs as leaves.
    void edgesFromNames()
    {
        const LayerGraph g = buildLayerGraph(*m_graph, "0");
        QCOMPARE(g.opCount(), 11);
        int weights = 0, outside = 0, internal = 0;
        for (const auto &n : g.nodes) {
            weights += n.kind == LayerGraph::Kind::Weight;
            outside += n.kind == LayerGraph::Kind::Outside;
        }
        for (const auto &[from, to] : g.edges) {
            QVERIFY(to < g.opCount()); // every edge ends at an op of the layer
            internal += from < g.opCount();
            if (from < g.opCount()) // an op's input is computed before it
                QVERIFY(from < to);
        }
        QVERIFY(weights >= 4);
        QVERIFY(outside >= 1); // the model's input to the layer
        QVERIFY(internal >= 10);
        // The second op's input is the first op's output, found by its name.
        const GraphOp &second = *m_graph->find("0_1");
        QVERIFY(std::any_of(second.inputs.begin(), second.inputs.end(), [](const auto &i) { return i.op == "0_0"; }));
    }

    void laidOutAndClickable()
    {
        OpColours colours; // one scale for the heatmap and the graph
        SessionDocument doc; // the statistics' owner
        colours.follow(&doc);
        HeatmapModel heat(&colours);
        heat.setOps(*m_graph);
        LayerGraphView v(&colours);
        v.resize(900, 800);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setGraph(m_graph);
        QCOMPARE(v.layer(), QString("0"));
        const LayerGraph &g = v.graph();
        std::vector<QRectF> boxes;
        for (int i = 0; i < g.opCount(); ++i) {
            QGraphicsRectItem *box = v.opItem(QString::fromStdString(g.nodes[size_t(i)].id));
            QVERIFY(box);
            boxes.push_back(box->rect());
        }
        for (size_t a = 0; a < boxes.size(); ++a)
            for (size_t b = a + 1; b < boxes.size(); ++b)
                QVERIFY(!boxes[a].intersects(boxes[b]));
        for (const auto &[from, to] : g.edges) // top to bottom
            if (from < g.opCount())
                QVERIFY(boxes[size_t(from)].center().y() < boxes[size_t(to)].center().y());

        // Coloured as the heatmap: a value above the threshold turns the box red, at once, and
        // another statistic recolours it as it recolours the cell.
        live::RoundStats s{0, {}};
        for (int i = 0; i < g.opCount(); ++i)
            s.stats.push_back({g.nodes[size_t(i)].id, double(i + 1), 0, 0, 1, 0, 0});
        doc.addRounds({{}, {s}});
        const QString last = QString::fromStdString(g.nodes[size_t(g.opCount() - 1)].id);
        const QColor before = v.opItem(last)->brush().color();
        QCOMPARE(before, colours.colourFor(double(g.opCount())));
        QCOMPARE(before, heat.indexForOp(last).data(Qt::BackgroundRole).value<QBrush>().color()); // its heatmap cell's
        colours.setThreshold(g.opCount() - 0.5);
        QCOMPARE(v.opItem(last)->brush().color(), QColor(255, 40, 40));
        QVERIFY(v.opItem(QString::fromStdString(g.nodes[0].id))->brush().color() != QColor(255, 40, 40));
        colours.setThreshold(NAN);
        colours.setMetric(OpColours::Metric::Mean); // every mean 0: one colour, the cells' and the boxes'
        const QString firstOp = QString::fromStdString(g.nodes[0].id);
        QCOMPARE(v.opItem(firstOp)->brush().color(),
                 heat.indexForOp(firstOp).data(Qt::BackgroundRole).value<QBrush>().color());
        QCOMPARE(v.opItem(last)->brush().color(), v.opItem(firstOp)->brush().color());

        // A click on a box picks its op and frames it.
        v.fit();
        QSignalSpy clicked(&v, &LayerGraphView::opClicked);
        const QString target = QString::fromStdString(g.nodes[3].id);
        const QPoint at = v.view()->mapFromScene(v.opItem(target)->rect().center());
        QTest::mouseClick(v.view()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toString(), target);
        QCOMPARE(v.opItem(target)->pen().style(), Qt::DashLine);

        v.grab().save(QStringLiteral(LLMSCOPE_BUILD_DIR "/screenshots/layer_graph_bloom.png"));

        // On a small screen Fit keeps the boxes readable (the whole layer would be too small to
        // read), and the status says how to zoom.
        v.resize(420, 260);
        QApplication::processEvents();
        const QRectF scene = v.view()->sceneRect();
        const double whole =
            std::min(v.view()->viewport()->width() / scene.width(), v.view()->viewport()->height() / scene.height());
        QVERIFY2(whole < LayerGraphView::kReadableScale, qPrintable(QString::number(whole))); // the case at hand
        v.fit();
        QVERIFY2(v.scaleShown() >= LayerGraphView::kReadableScale, qPrintable(QString::number(v.scaleShown())));
        // ... and the button then offers the whole layer, however small, and readable boxes again
        QPushButton *fitButton = nullptr;
        for (QPushButton *b : v.findChildren<QPushButton *>())
            if (b->text() == "Fit: whole layer")
                fitButton = b;
        QVERIFY2(fitButton, "no Fit: whole layer button after a fit that leaves part of the layer out");
        QTest::mouseClick(fitButton, Qt::LeftButton);
        QVERIFY2(v.scaleShown() < LayerGraphView::kReadableScale, qPrintable(QString::number(v.scaleShown())));
        const QRect shown = v.view()->mapFromScene(scene).boundingRect();
        QVERIFY2(v.view()->viewport()->rect().adjusted(-2, -2, 2, 2).contains(shown),
                 qPrintable(QString("the layer at %1,%2 %3x%4 in %5x%6")
                                .arg(shown.x())
                                .arg(shown.y())
                                .arg(shown.width())
                                .arg(shown.height())
                                .arg(v.view()->viewport()->width())
                                .arg(v.view()->viewport()->height())));
        QCOMPARE(fitButton->text(), QString("Fit"));
        QTest::mouseClick(fitButton, Qt::LeftButton);
        QVERIFY2(v.scaleShown() >= LayerGraphView::kReadableScale, qPrintable(QString::number(v.scaleShown())));
        QCOMPARE(fitButton->text(), QString("Fit: whole layer"));
        QVERIFY(v.findChild<QLabel *>(QString(), Qt::FindDirectChildrenOnly) != nullptr);
        bool hinted = false;
        for (QLabel *l : v.findChildren<QLabel *>())
            hinted = hinted || l->text().contains("Ctrl+wheel zooms");
        QVERIFY(hinted);
    }
};

QTEST_MAIN(TstLayerGraph)
#include "tst_layergraph.moc"
