// The tensor inspector on real files: a 3-D float tensor sliced two ways with the pickers,
// values and NaN/Inf marks in the table, statistics and the histogram computed off the GUI
// thread; a statistics-only file shows its header's statistics.
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "core/tensor/bin_file.h"
#include "core/tensor/stats.h"
#include "tests/test_helpers.h"
#include "tests/views/model_print.h"
#include "views/slice_picker.h"
#include "views/tensor_diff_view.h"
#include "views/tensor_inspector.h"
#include "views/tensor_slice_model.h"

using namespace llmscope;

class TstTensorInspector : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_full, m_stats;

private slots:
    void initTestCase()
    {
        Tensor t;
        t.dtype = 0;
        t.dims = {4, 30, 50};
        t.hasData = true;
        std::vector<float> v(6000);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = float(i) * 0.5f;
        v[1 * 1500 + 2 * 50 + 3] = NAN; // [1][2][3]
        v[5] = INFINITY;
        t.data.assign(reinterpret_cast<uint8_t *>(v.data()), reinterpret_cast<uint8_t *>(v.data() + v.size()));
        QDir().mkpath(m_dir.path() + "/after");
        m_full = m_dir.path() + "/after/outtensor0.bin";
        writeBin(m_full.toStdString(), t);
        Tensor s = t;
        setStatsAttrs(s, computeStats(t));
        s.data.clear();
        s.hasData = false;
        m_stats = m_dir.path() + "/after/outtensor1.bin";
        writeBin(m_stats.toStdString(), s);
    }

    void slicesAndStatistics()
    {
        TensorInspector w;
        w.resize(900, 700);
        w.show();
        QSignalSpy loaded(&w, &TensorInspector::tensorLoaded);
        w.setOp("2_29 ffn_out-1 (MUL_MAT)", 7, {m_full, m_stats});
        QCOMPARE(w.currentFile(), m_full);
        TensorSliceModel *m = w.sliceModel();
        QCOMPARE(m->rowCount(), 30); // dims 1 x 2 of dim 0 = 0
        QCOMPARE(m->columnCount(), 50);
        QCOMPARE(m->index(2, 3).data().toString(), QString("51.5")); // element 103
        // dim 0 = 1 through its spin box: the NaN at [1][2][3] shows, marked
        QSpinBox *dim0 = w.picker()->fixedBoxes().at(0);
        QVERIFY(dim0->isVisible());
        dim0->setValue(1);
        QCOMPARE(m->index(2, 3).data().toString(), QString("NaN"));
        QVERIFY(m->index(2, 3).data(Qt::BackgroundRole).isValid());
        QVERIFY(!m->index(2, 4).data(Qt::BackgroundRole).isValid());
        // rows = dim 0, columns = dim 2, dim 1 fixed at 2
        w.picker()->rowDimBox()->setCurrentIndex(w.picker()->rowDimBox()->findData(0));
        QCOMPARE(m->rowCount(), 4);
        w.picker()->fixedBoxes().at(1)->setValue(2);
        QCOMPARE(m->index(1, 3).data().toString(), QString("NaN"));
        QCOMPARE(m->index(3, 0).data().toString(), QString::number((3 * 1500 + 2 * 50) * 0.5));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        QVERIFY2(w.statsText().contains("1 NaN, 1 Inf"), qPrintable(w.statsText()));
        QVERIFY2(w.statsText().contains("max 2999.5"), qPrintable(w.statsText()));
        QCOMPARE(w.histogram()->chart()->series().size(), 1);
        // the statistics file: no values, its header's numbers
        w.fileList()->setCurrentRow(1);
        QCOMPARE(m->rowCount(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
        QVERIFY2(w.statsText().contains("from the file's statistics"), qPrintable(w.statsText()));
    }

    // A slice and the error between two, printed: rows and columns as the file lays them out,
    // NaN named, and the error cell by cell.
    void printedSlices()
    {
        QTemporaryDir dir;
        const QString golden = dir.filePath("g.bin"), test = dir.filePath("t.bin");
        llmscope::writeBin(golden.toStdString(), testing::f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
        llmscope::writeBin(test.toStdString(), testing::f32Tensor({2, 3}, {1, 2.5f, 3, 4, NAN, 6}));
        TensorSliceModel g, t;
        QVERIFY(g.open(golden));
        QVERIFY(t.open(test));
        QCOMPARE(testing::printTable(t),
                 QString(" | 0 | 1 | 2\n"
                         "0 | 1 | 2.5 | 3\n"
                         "1 | 4 | NaN | 6"));
        SliceErrorModel e(&g, &t);
        QCOMPARE(testing::printTable(e),
                 QString(" | 0 | 1 | 2\n"
                         "0 | 0 | 0.25 | 0\n" // relative: |2.5 - 2| / 2
                         "1 | 0 | inf | 0")); // a NaN where golden has 5
    }

    void nothingToShowSaysWhy()
    {
        TensorInspector w;
        w.setOp("3_1 x (ADD)", -1, {}, "Nothing of this operation is in the dump yet");
        QCOMPARE(w.sliceModel()->rowCount(), 0);
        QCOMPARE(w.fileList()->count(), 0);
    }
};

QTEST_MAIN(TstTensorInspector)
#include "tst_tensorinspector.moc"
