// The spread's table: its colours say what the verdict says. Runs that differ within their
// standard (CPU against Vulkan's rounding) are blue however far apart; red only where the runs
// part beyond it; white where bit-identical.
#include <QBrush>
#include <QTest>

#include <cmath>

#include "views/spread_table_model.h"

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
};

QTEST_MAIN(TstSpreadTableModel)
#include "tst_spreadtablemodel.moc"
