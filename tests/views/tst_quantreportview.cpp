// The quantization report's table and view on a report written and read back as the command
// line writes it: cells by kind and layer, colours by share, the chosen ones bold, the bars in
// rank order, and a click picking a weight.
#include <QChartView>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QAbstractItemModelTester>

#include "core/quant/quant_report.h"
#include "core/util/error.h"
#include "document/session_document.h"
#include "tests/views/model_print.h"
#include "views/quant_heatmap_model.h"
#include "views/quant_report_view.h"

using namespace llmscope;

namespace {
// A 3-layer report: shares falling with rank, the first four chosen.
QuantReport sample()
{
    QuantReport r;
    const char *kinds[] = {"ffn_down", "attn_v", "attn_k", "ffn_up"};
    int rank = 0;
    for (int layer = 2; layer >= 0; --layer)
        for (const char *k : kinds) {
            WeightCost c;
            c.kind = k;
            c.layer = layer;
            c.name = "blk." + std::to_string(layer) + "." + k + ".weight";
            c.pattern = c.name;
            c.myType = "q4_0";
            c.goldenType = "f32";
            c.keepType = "q8_0";
            c.elements = 4096;
            c.myBytes = 2304;
            c.keepBytes = 4352;
            c.quantError = 0.085;
            c.keepError = 0.004;
            c.addedNmse = 0.01 / (rank + 1);
            c.logitsNmse = c.addedNmse;
            c.share = 0.3 / (rank + 1);
            c.gainPerMiB = 1.0 / (rank + 1);
            c.chosen = rank < 4;
            c.op = "op " + std::to_string(rank);
            r.weights.push_back(c);
            ++rank;
        }
    WeightCost out;
    out.kind = "output";
    out.name = out.pattern = "output.weight";
    out.myType = "q6_K";
    out.keepType = "q8_0";
    out.share = 0.001;
    r.weights.push_back(out);
    r.rounds.push_back({0, 1, 0.05, 0.75, 0.1});
    r.meanKl = 0.05;
    r.top1 = 0.75;
    r.testBytes = 100000;
    r.budgetBytes = 10000;
    r.chosenBytes = 8192;
    return r;
}
} // namespace

class TstQuantReportView : public QObject {
    Q_OBJECT
private slots:
    // The JSON the command line writes reads back the same; other text is an Error.
    void reportRoundTrips()
    {
        const QuantReport r = sample();
        const QuantReport back = parseQuantReport(quantReportJson(r));
        QCOMPARE(back.weights.size(), r.weights.size());
        QCOMPARE(back.weights[3].name, r.weights[3].name);
        QCOMPARE(back.weights[3].chosen, true);
        QCOMPARE(back.weights[4].chosen, false);
        QCOMPARE(back.weights[0].share, r.weights[0].share);
        QCOMPARE(back.chosenBytes, r.chosenBytes);
        QCOMPARE(back.rounds.size(), size_t(1));
        QVERIFY(std::isnan(back.weights.back().keepError)); // NaN travels as null
        for (const char *bad : {"", "{", "[]", "{\"version\":2}", "{\"version\":1,\"logits\":{}}"})
            QVERIFY_THROWS_EXCEPTION(Error, parseQuantReport(bad));
        QCOMPARE(QString::fromStdString(tensorTypesText(r)).count('\n'), 4);
    }

    void tableByKindAndLayer()
    {
        QuantHeatmapModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setReport(std::make_shared<const QuantReport>(sample()));
        QCOMPARE(m.rowCount(), 5); // attn_k, attn_v, ffn_up, ffn_down in block order, then output
        QCOMPARE(m.columnCount(), 4);
        QStringList rows;
        for (int r = 0; r < m.rowCount(); ++r)
            rows << m.headerData(r, Qt::Vertical, Qt::DisplayRole).toString();
        QCOMPARE(rows, (QStringList{"attn_k", "attn_v", "ffn_up", "ffn_down", "output"}));
        QCOMPARE(m.headerData(3, Qt::Horizontal, Qt::DisplayRole).toString(), QString("model"));
        const QModelIndex top = m.indexOf("blk.2.ffn_down.weight");
        QCOMPARE(top, m.index(3, 2));
        QCOMPARE(top.data().toString(), QString("30.0"));
        QVERIFY(top.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!m.indexOf("blk.0.ffn_down.weight").data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!m.index(4, 0).data().isValid()); // no output weight in a layer
        QCOMPARE(m.weightAt(m.index(4, 0)), -1);
        // Darker for a larger share.
        const int dark = top.data(Qt::BackgroundRole).value<QColor>().lightness();
        const int light = m.indexOf("blk.0.ffn_up.weight").data(Qt::BackgroundRole).value<QColor>().lightness();
        QVERIFY2(dark < light, qPrintable(QString("%1 %2").arg(dark).arg(light)));
        QVERIFY(top.data(Qt::ToolTipRole).toString().contains("chosen to keep higher"));
        // The whole table: each weight's share of the error (%), by kind and layer.
        QCOMPARE(testing::printTable(m),
                 QString(" | layer 0 | layer 1 | layer 2 | model\n"
                         "attn_k | 2.7 | 4.3 | 10.0 | \n"
                         "attn_v | 3.0 | 5.0 | 15.0 | \n"
                         "ffn_up | 2.5 | 3.8 | 7.5 | \n"
                         "ffn_down | 3.3 | 6.0 | 30.0 | \n"
                         "output |  |  |  | 0.1"));
    }

    void viewPicksAWeightFromTheTableAndHoldsTheBars()
    {
        QuantReportView v;
        v.resize(1200, 600);
        v.show();
        v.setReport(std::make_shared<const QuantReport>(sample()), "/tmp/q");
        QVERIFY(v.summary()->text().contains("/tmp/q/tensor-types.txt"));
        QCOMPARE(v.barWeights().size(), QuantReportView::kBars > 13 ? 13 : QuantReportView::kBars);
        QCOMPARE(v.barWeights().first(), QString("blk.2.ffn_down.weight"));
        QSignalSpy picked(&v, &QuantReportView::weightSelected);
        const QModelIndex cell = v.model()->indexOf("blk.1.attn_v.weight");
        QTest::mouseClick(v.table()->viewport(), Qt::LeftButton, {}, v.table()->visualRect(cell).center());
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.at(0).at(0).toString(), QString("blk.1.attn_v.weight"));
        QCOMPARE(v.selectedWeight(), QString("blk.1.attn_v.weight"));
        QVERIFY(!v.selectWeight("no.such.weight"));
        QCOMPARE(picked.count(), 1);
        v.setReport(std::make_shared<const QuantReport>(sample()),
                    "/tmp/q"); // again: the chart is replaced, not leaked
        QCOMPARE(v.selectedWeight(), QString());
    }

    // The view follows the document: its report when set, nothing of it once another source
    // comes (no summary, no bars), and a view built later shows what the document holds.
    void viewFollowsTheDocument()
    {
        SessionDocument doc;
        QuantReportView v;
        v.follow(&doc);
        doc.setQuantReport(std::make_shared<const QuantReport>(sample()), "/tmp/q");
        QVERIFY(v.summary()->text().contains("/tmp/q/tensor-types.txt"));
        QVERIFY(!v.barWeights().isEmpty());
        QCOMPARE(&v.model()->report(), doc.results().quantReport.get()); // read there, not copied
        QuantReportView later;
        later.follow(&doc);
        QCOMPARE(later.barWeights(), v.barWeights());
        doc.reset(SessionDocument::Source::Dump, "/elsewhere");
        QVERIFY(v.summary()->text().isEmpty());
        QVERIFY(v.barWeights().isEmpty());
        QCOMPARE(v.model()->rowCount(), 0);
    }
};

QTEST_MAIN(TstQuantReportView)
#include "tst_quantreportview.moc"
