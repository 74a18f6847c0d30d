// The spread's table: its colours say what the verdict says. Runs that differ within their
// standard (CPU against Vulkan's rounding) are blue however far apart; red only where the runs
// part beyond it; white where bit-identical.
#include <QBrush>
#include <QTest>

#include <cmath>

#include <QLabel>

#include "document/session_document.h"
#include "views/spread_table_model.h"
#include "views/spread_view.h"

using namespace llmscope;

namespace {
SpreadOp op(const std::string &id, double spread, bool departs)
{
    SpreadOp o;
    o.round = 0;
    o.opId = id;
    o.type = "MUL_MAT";
    o.spread = spread;
    o.departs = departs;
    o.fromFirst = {0, spread};
    return o;
}
QColor colour(const SpreadTableModel &m, int row, int column)
{
    return m.index(row, column).data(Qt::BackgroundRole).value<QBrush>().color();
}
bool red(const QColor &c)
{
    return c.red() > c.blue() + 60;
}
bool blue(const QColor &c)
{
    return c.blue() > c.red() + 20;
}
} // namespace

class TstSpreadTableModel : public QObject {
    Q_OBJECT
private slots:
    void coloursFollowTheVerdict()
    {
        auto r = std::make_shared<SpreadResult>();
        r->runs = {{"cpu", "a", 0}, {"vulkan", "b", 1}};
        // within budget, the largest distance of the table; within budget, small; beyond; identical
        r->ops = {op("1_1", 8.8e-4, false), op("1_2", 2.4e-4, false), op("1_3", 1e-4, true), op("1_4", 0, false)};
        r->firstDeparture = 2;
        SpreadTableModel m;
        m.setResult(r);
        for (const int column : {int(SpreadTableModel::SpreadColumn), int(SpreadTableModel::FirstRunColumn) + 1}) {
            QVERIFY2(blue(colour(m, 0, column)), qPrintable(colour(m, 0, column).name())); // the largest, yet within
            QVERIFY2(blue(colour(m, 1, column)), qPrintable(colour(m, 1, column).name()));
            QVERIFY2(red(colour(m, 2, column)), qPrintable(colour(m, 2, column).name())); // the only one beyond
            QVERIFY(!m.index(3, column).data(Qt::BackgroundRole).isValid()); // bit-identical: white
        }
        // in percent, as the Diff table's errors; bit-identical a plain 0
        QCOMPARE(m.index(0, SpreadTableModel::SpreadColumn).data().toString(), QString("0.088 %"));
        QCOMPARE(m.index(2, SpreadTableModel::FirstRunColumn + 1).data().toString(), QString("0.01 %"));
        QCOMPARE(m.index(3, SpreadTableModel::SpreadColumn).data().toString(), QString("0"));
        // deeper the farther apart, within one verdict
        QVERIFY(colour(m, 0, SpreadTableModel::SpreadColumn).lightness() <
                colour(m, 1, SpreadTableModel::SpreadColumn).lightness());
    }

    // The spread's page follows the document: the document's spread with its folder, shown when
    // it is set, none once another source comes; a view built later shows what it holds.
    void viewFollowsTheDocument()
    {
        auto r = std::make_shared<SpreadResult>();
        r->runs = {{"cpu", "a", 0}, {"vulkan", "b", 1}};
        r->ops = {op("1_1", 8.8e-4, false), op("1_3", 1e-4, true)};
        r->firstDeparture = 1;
        r->departingRun = 1;
        SessionDocument doc;
        doc.reset(SessionDocument::Source::Dump, "/runs/run-0");
        SpreadView v;
        v.follow(&doc);
        QCOMPARE(v.model()->rowCount(), 0);
        doc.setSpread(r, "/runs", false); // on its page only: run 0 is not the source
        QCOMPARE(v.model()->rowCount(), 2);
        QVERIFY2(v.summary()->text().contains("/runs"), qPrintable(v.summary()->text()));
        QVERIFY(!doc.results().spreadOnSource);
        QCOMPARE(doc.results().spreadFolder, QString("/runs"));
        SpreadView later; // a window built again on the same document
        later.follow(&doc);
        QCOMPARE(later.model()->rowCount(), 2);
        doc.reset(SessionDocument::Source::Dump, "/elsewhere"); // another source: the spread was of the runs before
        QCOMPARE(v.model()->rowCount(), 0);
        QVERIFY(v.summary()->text().isEmpty());
        QVERIFY(!doc.results().spread && doc.results().spreadFolder.isEmpty());
        doc.setSpread(r, "/runs");
        QVERIFY(doc.results().spreadOnSource);
        doc.setSpread(nullptr, "/runs"); // none: no folder either
        QCOMPARE(v.model()->rowCount(), 0);
        QVERIFY(doc.results().spreadFolder.isEmpty() && !doc.results().spreadOnSource);
    }
};

QTEST_MAIN(TstSpreadTableModel)
#include "tst_spreadtablemodel.moc"
