// The heatmap: layers x operation kinds from a topology, values from streamed statistics,
// NaN/Inf marked, the statistic, scale and round changed recolour the rendered cells, and a
// click picks the op.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QComboBox>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTest>

#include <cmath>

#include "document/session_document.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"

using namespace llmscope;

namespace {
std::vector<live::TopoOp> groups()
{
    return {{"0", "Embedding", "Embedding", {}, ""},
            {"1", "Layer0", "DecoderLayer", {}, ""},
            {"2", "Layer1", "DecoderLayer", {}, ""},
            {"3", "OutputHead", "OutputHead", {}, ""}};
}
std::vector<live::TopoOp> ops()
{
    return {{"0_0", "inp_embd", "GET_ROWS", {}, ""}, {"1_0", "norm-0", "RMS_NORM", {}, ""},
            {"1_1", "ffn_out-0", "MUL_MAT", {}, ""}, {"1_2", "norm-0", "RMS_NORM", {}, ""},
            {"2_0", "norm-1", "RMS_NORM", {}, ""},   {"2_1", "ffn_out-1", "MUL_MAT", {}, ""},
            {"2_2", "norm-1", "RMS_NORM", {}, ""},   {"3_0", "result_output", "MUL_MAT", {}, ""}};
}
live::OpStats st(const char *id, double max, double l2, uint64_t nan = 0)
{
    return {id, max, -max / 2, 0.1, l2, nan, 0};
}
QColor pixel(QTableView *t, const QModelIndex &i)
{
    return t->viewport()->grab().toImage().pixelColor(t->visualRect(i).center() + QPoint(8, 0));
}
} // namespace

class TstHeatmap : public QObject {
    Q_OBJECT
private slots:
    // The grid printed: each layer's row of op ids under the kinds' columns, empty where a
    // layer has no such op.
    void printedGrid()
    {
        HeatmapModel m;
        m.setOps(OpGraph(live::Topology{0, 0, groups(), ops()}));
        QStringList lines{QStringLiteral("|")};
        for (int c = 0; c < m.columnCount(); ++c)
            lines.last() += QStringLiteral(" %1 |").arg(m.columnKind(c));
        for (int r = 0; r < m.rowCount(); ++r) {
            lines << m.headerData(r, Qt::Vertical).toString() + QStringLiteral(" |");
            for (int c = 0; c < m.columnCount(); ++c)
                lines.last() += QStringLiteral(" %1 |").arg(m.index(r, c).data(HeatmapModel::OpIdRole).toString());
        }
        QCOMPARE(lines.join('\n'),
                 QString("| inp_embd | norm | ffn_out | norm (2nd) | result_output |\n"
                         "Embedding | 0_0 |  |  |  |  |\n"
                         "Layer0 (blk.0) |  | 1_0 | 1_1 | 1_2 |  |\n"
                         "Layer1 (blk.1) |  | 2_0 | 2_1 | 2_2 |  |\n"
                         "OutputHead |  |  |  |  | 3_0 |"));
    }

    void layersByKinds()
    {
        HeatmapModel m;
        SessionDocument doc; // the statistics' owner, which the colours read
        m.colours()->follow(&doc);
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setOps(OpGraph(live::Topology{0, 0, groups(), ops()}));
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.columnCount(), 5); // inp_embd, norm, ffn_out, norm (2nd), result_output
        QCOMPARE(m.columnKind(1), QString("norm"));
        QCOMPARE(m.columnKind(3), QString("norm (2nd)")); // the same kind and type: told apart by order
        QCOMPARE(m.headerData(3, Qt::Horizontal).toString(), QString("norm\n(2nd)"));
        QCOMPARE(m.headerData(3, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QString("norm (2nd)\n2 node(s): norm-0, norm-1")); // the engine's full names
        // llama.cpp's count beside the group's: op 2_* is in blk.1, as the tree says it
        QCOMPARE(m.headerData(2, Qt::Vertical).toString(), QString("Layer1 (blk.1)"));
        QCOMPARE(m.indexForOp("2_2"), m.index(2, 3)); // layer 1's second norm
        QCOMPARE(m.indexForOp("2_1").data(HeatmapModel::OpIdRole).toString(), QString("2_1"));
        QVERIFY(!m.index(0, 1).data(HeatmapModel::OpIdRole).toString().size()); // no norm in the embedding
        HeatmapModel views; // a layer's number inside a name, before a view's suffix
        views.setOps(
            OpGraph(live::Topology{0,
                                   0,
                                   {{"1", "Layer0", "DecoderLayer", {}, ""}, {"2", "Layer1", "DecoderLayer", {}, ""}},
                                   {{"1_0", "Qcur-0 (view)", "VIEW", {}, ""},
                                    {"1_1", "cache_k_l0 (view)", "VIEW", {}, ""},
                                    {"2_0", "Qcur-1 (view)", "VIEW", {}, ""},
                                    {"2_1", "cache_k_l1 (view)", "VIEW", {}, ""}}}));
        QCOMPARE(views.columnCount(), 2);
        QCOMPARE(views.columnKind(0), QString("Qcur (view)"));
        QCOMPARE(views.columnKind(1), QString("cache_k (view)"));
        HeatmapModel typed; // one node name for several ops, as llama.cpp names Qcur before and after RoPE
        typed.setOps(OpGraph(live::Topology{0,
                                            0,
                                            {{"1", "Layer0", "DecoderLayer", {}, ""}},
                                            {{"1_0", "Qcur-0", "MUL_MAT", {}, ""},
                                             {"1_1", "Qcur-0", "ROPE", {}, ""},
                                             {"1_2", "Qcur-0", "ROPE", {}, ""}}}));
        QCOMPARE(typed.columnCount(), 3);
        QCOMPARE(typed.columnKind(0), QString("Qcur (MUL_MAT)"));
        QCOMPARE(typed.columnKind(1), QString("Qcur (ROPE)"));
        QCOMPARE(typed.columnKind(2), QString("Qcur (ROPE, 2nd)"));
        for (int c = 0; c < typed.columnCount(); ++c)
            QVERIFY(!typed.columnKind(c).contains('#'));
        doc.addRounds({{}, {{5, {st("1_1", 2, 10), st("2_1", 8, 30, 3), st("0_0", 1, 4)}}}});
        QCOMPARE(m.colours()->round(), int64_t(5));
        QCOMPARE(m.indexForOp("2_1").data(HeatmapModel::ValueRole).toDouble(), 8.0); // max |x|
        QCOMPARE(m.indexForOp("2_1").data().toString(), QString("!")); // NaN in the output
        QVERIFY(std::isnan(m.indexForOp("1_0").data(HeatmapModel::ValueRole).toDouble())); // not dumped
        m.colours()->setMetric(HeatmapModel::Metric::L2Norm);
        QCOMPARE(m.colours()->range(), (std::pair<double, double>{4, 30}));
        doc.addRounds({{}, {{6, {st("2_1", 8, 60)}}}});
        m.colours()->setMetric(HeatmapModel::Metric::Change);
        QCOMPARE(m.indexForOp("2_1").data(HeatmapModel::ValueRole).toDouble(), 1.0); // 30 -> 60
        m.colours()->setRound(5);
        QCOMPARE(m.colours()->round(), int64_t(5));
        QVERIFY(std::isnan(m.indexForOp("2_1").data(HeatmapModel::ValueRole).toDouble())); // no round before 5
    }

    void changesRecolourTheRenderedCells()
    {
        HeatmapView v;
        SessionDocument doc;
        v.colours()->follow(&doc);
        v.resize(700, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        HeatmapModel *m = v.model();
        m->setOps(OpGraph(live::Topology{0, 0, groups(), ops()}));
        doc.addRounds({{}, {{1, {st("1_1", 1, 100), st("2_1", 10, 1), st("0_0", 100, 10)}}}});
        QTableView *t = v.table();
        const QModelIndex a = m->indexForOp("1_1"), b = m->indexForOp("2_1");
        const QColor a1 = pixel(t, a), b1 = pixel(t, b);
        QVERIFY(a1 != b1);
        v.metricBox()->setCurrentIndex(v.metricBox()->findData(int(HeatmapModel::Metric::L2Norm)));
        QVERIFY(pixel(t, a) != a1); // from the lowest max |x| to the highest L2 norm
        const QColor aL2 = pixel(t, a), mid = pixel(t, m->indexForOp("0_0"));
        v.scaleBox()->setCurrentIndex(v.scaleBox()->findData(int(HeatmapModel::Scale::Log)));
        QCOMPARE(pixel(t, a), aL2); // the top of the range either way
        QVERIFY(pixel(t, m->indexForOp("0_0")) != mid); // 10 of 1..100: the middle on a log scale
        QSignalSpy clicked(&v, &HeatmapView::opClicked);
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(b).center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toString(), QString("2_1"));
        doc.addRounds({{}, {{2, {st("1_1", 1, 50)}}}});
        QCOMPARE(m->colours()->round(), int64_t(2)); // following the newest
        auto *follow = v.findChild<QCheckBox *>();
        follow->setChecked(false);
        v.roundSlider()->setValue(0);
        QCOMPARE(m->colours()->round(), int64_t(1));
    }

    // The op picked stays in view when the window narrows: a wide layer, its last kind picked.
    void thePickedOpStaysInViewOnResize()
    {
        const QStringList kinds{"ADD",     "MUL",  "ROPE",  "SOFT_MAX", "CPY",      "VIEW",
                                "PERMUTE", "CONT", "SCALE", "SILU",     "RMS_NORM", "MUL_MAT"};
        std::vector<live::TopoOp> wide;
        for (int i = 0; i < kinds.size(); ++i)
            wide.push_back(
                {"1_" + std::to_string(i), "op-" + std::to_string(i) + "-0", kinds[i].toStdString(), {}, ""});
        HeatmapView v;
        SessionDocument doc;
        v.colours()->follow(&doc);
        v.resize(1200, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.model()->setOps(OpGraph(live::Topology{0, 0, {{"1", "Layer0", "DecoderLayer", {}, ""}}, wide}));
        QTableView *t = v.table();
        const QModelIndex last = v.model()->indexForOp("1_11");
        QVERIFY(last.isValid());
        v.selectOp("1_11");
        QVERIFY(t->viewport()->rect().contains(t->visualRect(last)));
        v.resize(320, 300);
        QTRY_COMPARE(t->viewport()->width() < t->horizontalHeader()->length(), true); // it scrolls now
        QVERIFY2(
            t->viewport()->rect().intersects(t->visualRect(last)),
            qPrintable(QString("cell at %1, view %2 wide").arg(t->visualRect(last).x()).arg(t->viewport()->width())));
    }

    // A threshold recolours at once from the stored values: the cells above it turn red.
    void thresholdFlagsCells()
    {
        HeatmapView v;
        SessionDocument doc;
        v.colours()->follow(&doc);
        v.resize(700, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        HeatmapModel *m = v.model();
        m->setOps(OpGraph(live::Topology{0, 0, groups(), ops()}));
        doc.addRounds({{}, {{1, {st("1_1", 1, 100), st("2_1", 10, 1), st("0_0", 5, 10)}}}});
        QTableView *t = v.table();
        const QModelIndex low = m->indexForOp("1_1"), high = m->indexForOp("2_1"), mid = m->indexForOp("0_0");
        const QColor midBefore = pixel(t, mid);
        v.thresholdBox()->setValue(4); // max |x|: 1, 10, 5
        QCOMPARE(pixel(t, high), QColor(255, 40, 40));
        QCOMPARE(pixel(t, mid), QColor(255, 40, 40));
        QVERIFY(pixel(t, low) != QColor(255, 40, 40));
        v.thresholdBox()->setValue(7);
        QCOMPARE(pixel(t, mid), midBefore); // back on the ramp
        v.thresholdBox()->setValue(0);
        QVERIFY(std::isnan(m->colours()->threshold()));
    }

    // The token axis: rounds x layers for one operation kind.
    void roundsByLayersForOneKind()
    {
        HeatmapView v;
        SessionDocument doc;
        v.colours()->follow(&doc);
        HeatmapModel *m = v.model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m->setOps(OpGraph(live::Topology{0, 0, groups(), ops()}));
        for (int r = 0; r < 3; ++r)
            doc.addRounds({{}, {{r, {st("1_1", 1 + r, 10), st("2_1", 10 * (r + 1), 20)}}}});
        v.modeBox()->setCurrentIndex(1);
        QVERIFY(v.kindBox()->isEnabled());
        v.kindBox()->setCurrentIndex(v.kindBox()->findText("ffn_out"));
        QCOMPARE(m->rowCount(), 3); // rounds 0..2
        QCOMPARE(m->columnCount(), 4); // the layers (and embedding, head)
        QCOMPARE(m->headerData(2, Qt::Vertical).toString(), QString("round 2"));
        QCOMPARE(m->headerData(1, Qt::Horizontal).toString(), QString("Layer0 (blk.0)"));
        QCOMPARE(m->index(2, 2).data(HeatmapModel::ValueRole).toDouble(), 30.0); // layer 1's ffn_out, round 2
        QCOMPARE(m->index(0, 1).data(HeatmapModel::OpIdRole).toString(), QString("1_1"));
        QCOMPARE(m->indexForOp("2_1"), m->index(2, 2)); // its newest round
        QCOMPARE(m->colours()->range(), (std::pair<double, double>{1, 30})); // the colours span every round shown
        doc.addRounds({{}, {{3, {st("2_1", 1, 1)}}}});
        QCOMPARE(m->rowCount(), 4); // a row for each new round
    }
};

QTEST_MAIN(TstHeatmap)
#include "tst_heatmap.moc"
