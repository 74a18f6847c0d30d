// The comparison's table, printed: a real compare of two dumps written here, one op's output
// 1 % off in round 1. Each op in execution order with its errors, what it inherits and adds,
// and its result; the first divergent named, and what follows it failed without being first.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

#include "core/compare/compare_run.h"
#include "core/dump/fusion_record.h"
#include "core/util/atomic_file.h"
#include "tests/test_helpers.h"
#include "tests/views/model_print.h"
#include "views/diff_table_model.h"

using namespace llmscope;

class TstDiffTableModel : public QObject {
    Q_OBJECT
private slots:
    void printedTable()
    {
        QTemporaryDir dir;
        const std::string golden = testing::writeSyntheticDump(dir.filePath("g").toStdString());
        const std::string test = testing::writeSyntheticDump(dir.filePath("t").toStdString());
        std::string linear; // round 1's 1_Linear output, 1 % larger
        for (const auto &e : std::filesystem::recursive_directory_iterator(test))
            if (e.path().string().find("/1/1_Layer/1_Linear/after/outtensor0.bin") != std::string::npos)
                linear = e.path().string();
        QVERIFY(!linear.empty());
        testing::scaleTensorFile(linear, 1.01f);
        CompareOptions o;
        o.goldenPath = golden;
        o.myPath = test;
        auto result = std::make_shared<const CompareResult>(runCompare(o));

        DiffTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(result);
        QCOMPARE(
            testing::printTable(m),
            QString("Round | Operation | Output error | Inherited | Added itself | Cosine | Of its budget | Result\n"
                    "0 | 0 (Embed) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "0 | 1_0 (Norm) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "0 | 1_1 (Linear) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "0 | 2 (Head) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "1 | 0 (Embed) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "1 | 1_0 (Norm) | 0 % | 0 % | 0 % | 1.000000 |  | passed\n"
                    "1 | 1_1 (Linear) | 1 % | 0 % | 1 % | 1.000000 |  | FIRST DIVERGENT\n" // scaled: cosine stays 1
                    "1 | 2 (Head) | 0 % | 0 % | 0 % | 1.000000 |  | passed"));
        QCOMPARE(m.index(6, 0).data(DiffTableModel::FirstDivergentRole).toBool(), true);
        QCOMPARE(m.index(6, 0).data(DiffTableModel::OpIdRole).toString(), QString("1_1"));
        QCOMPARE(m.firstDivergentRow(), result->firstDivergent);
        m.setResult(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }

    // A chain the test computed fused (its dump's fusion record): one row naming its ops, the
    // tooltip saying which side fused it and that only its end reached memory.
    void aFusedChainIsOneRow()
    {
        QTemporaryDir dir;
        const std::string golden = testing::writeSyntheticDump(dir.filePath("g").toStdString());
        const std::string test = testing::writeSyntheticDump(dir.filePath("t").toStdString());
        FusedChainRecord chain;
        chain.ids = {"1_0", "1_1"};
        chain.names = {"norm-0", "linear-0"};
        chain.types = "Norm+Linear";
        chain.backend = "CPU";
        const std::string record = test + "/" + fusionRecordPath(4321, 1);
        makeDirs(std::filesystem::path(record).parent_path().string());
        writeFileAtomic(record, fusionRecordJson(1, {chain}));
        CompareOptions o;
        o.goldenPath = golden;
        o.myPath = test;
        DiffTableModel m;
        m.setResult(std::make_shared<const CompareResult>(runCompare(o)));
        QCOMPARE(m.index(2, DiffTableModel::OpColumn).data().toString(), QString("1_1 (Linear)")); // round 0: not fused
        QCOMPARE(m.index(6, DiffTableModel::OpColumn).data().toString(), QString("1_0+1_1 (Norm+Linear, fused)"));
        const QString tip = m.index(6, DiffTableModel::OpColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith("test computed these ops as one fused kernel (Norm+Linear): 1_0 norm-0, 1_1 linear-0."),
                 qPrintable(tip));
        QCOMPARE(m.index(6, 0).data(DiffTableModel::OpIdRole).toString(), QString("1_1")); // the chain's end, as dumped
    }

    // Ops compared on statistics: a cosine estimated from the norms and the sketches is marked
    // so, one the statistics cannot tell is a dash, never the 1 of metrics not computed.
    void cosineFromStatistics()
    {
        auto r = std::make_shared<CompareResult>();
        r->ops.resize(2);
        r->ops[0].opId = "1_1";
        r->ops[0].fromStats = true;
        r->ops[0].outputCosine = 0.995;
        r->ops[1].opId = "1_2";
        r->ops[1].fromStats = true;
        r->ops[1].outputCosine = NAN;
        DiffTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(r);
        QCOMPARE(m.index(0, DiffTableModel::CosineColumn).data().toString(), QString("≈0.995000"));
        QCOMPARE(m.index(1, DiffTableModel::CosineColumn).data().toString(), QString("–"));
        QVERIFY(m.index(0, DiffTableModel::CosineColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("estimated from the statistics"));
        QVERIFY(
            m.index(1, DiffTableModel::CosineColumn).data(Qt::ToolTipRole).toString().contains("do not tell a cosine"));
    }
};

QTEST_MAIN(TstDiffTableModel)
#include "tst_difftablemodel.moc"
