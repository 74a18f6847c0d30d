#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include "dump/dump_index.h"
#include "dump_tree_model.h"
#include "../test_helpers.h"

class TstDumpTreeModel : public QObject {
    Q_OBJECT
private slots:
    void treeOfRoundsOpsAndTensors()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setIndex(llmscope::scanDump(dir.path().toStdString()));
        QCOMPARE(model.rowCount(), 2); // rounds 0 and 1
        const QModelIndex round1 = model.index(1, 0);
        QCOMPARE(round1.data().toString(), QString("Round 1"));
        QCOMPARE(model.rowCount(round1), 3); // 0_Embed, 1_Layer, 2_Head
        const QModelIndex layer = model.index(1, 0, round1);
        QCOMPARE(layer.data().toString(), QString("1_Layer"));
        QCOMPARE(model.rowCount(layer), 2);
        const QModelIndex linear = model.index(1, 0, layer);
        QCOMPARE(linear.data().toString(), QString("1_Linear"));
        QCOMPARE(model.rowCount(linear), 2);
        const QModelIndex out = model.index(1, 0, linear);
        QCOMPARE(out.data().toString(), QString("after/outtensor0"));
        QCOMPARE(out.siblingAtColumn(DumpTreeModel::DTypeColumn).data().toString(), QString("float32"));
        QCOMPARE(out.siblingAtColumn(DumpTreeModel::ShapeColumn).data().toString(), QString("[2,2]"));
        QVERIFY(out.data(Qt::ToolTipRole).toString().endsWith("/1_Layer/1_Linear/after/outtensor0.bin"));
        QCOMPARE(model.parent(out), linear);
        QCOMPARE(model.parent(linear), layer);
        model.setIndex({}); // reset to empty is valid too
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TstDumpTreeModel)
#include "tst_dumptreemodel.moc"
