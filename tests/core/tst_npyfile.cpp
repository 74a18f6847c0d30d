#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/tensor/npy_file.h"
#include "core/util/error.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {

std::string npyBytes(int version, const std::string &dict, const std::string &payload)
{
    std::string h = dict;
    const size_t pre = version == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64)
        h += ' ';
    h += '\n';
    std::string out("\x93NUMPY", 6);
    out += char(version);
    out += '\0';
    out += char(h.size() & 0xFF);
    out += char(h.size() >> 8);
    if (version > 1)
        out += std::string(2, '\0');
    return out + h + payload;
}

// Values the float conversion gives, or NaN-aware equality for widened types.
bool sameValues(const std::vector<float> &a, const std::vector<float> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
            return false;
    return true;
}
} // namespace

class TstNpyFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char *name) { return (m_dir.path() + "/" + name).toStdString(); }

private slots:
    void everyDtypeRoundTrips_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("storedAs"); // -1: same dtype and bytes
        const int same = -1;
        for (int c : {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17})
            QTest::newRow(dtypeName(c).c_str()) << c << same;
        QTest::newRow("bfloat16") << 27 << 0;
        QTest::newRow("int4") << 29 << 2;
        QTest::newRow("uint1") << 30 << 12;
        QTest::newRow("complex32") << 33 << 16;
        for (int c : {35, 36, 37, 38, 39, 40, 41})
            QTest::newRow(dtypeName(c).c_str()) << c << 0;
    }
    void everyDtypeRoundTrips()
    {
        QFETCH(int, dtype);
        QFETCH(int, storedAs);
        Tensor t = testing::randomTensor(dtype, {2, 3, 4}, unsigned(dtype) + 7);
        if (dtype == int(DType::Bool))
            for (auto &b : t.data)
                b &= 1;
        if (dtype == int(DType::Float6E3M2) || dtype == int(DType::Float6E2M3))
            for (auto &b : t.data)
                b &= 0x3F;
        writeNpy(path("rt.npy"), t);
        const Tensor r = readNpy(path("rt.npy"));
        QCOMPARE(r.dims, t.dims);
        if (storedAs == -1) {
            QCOMPARE(r.dtype, dtype);
            QCOMPARE(r.data, t.data);
        } else {
            QCOMPARE(r.dtype, storedAs);
            if (dtype == 33) { // complex32 -> complex64: compare the halves one by one
                for (size_t i = 0; i < t.elementCount() * 2; ++i) {
                    uint16_t h;
                    float f;
                    std::memcpy(&h, t.data.data() + 2 * i, 2);
                    std::memcpy(&f, r.data.data() + 4 * i, 4);
                    const float want = halfToFloat(h);
                    QVERIFY(f == want || (std::isnan(f) && std::isnan(want)));
                }
            } else {
                QVERIFY(sameValues(toFloat(r), toFloat(t)));
            }
        }
    }

    void readsEveryVersionAndShape_data()
    {
        QTest::addColumn<int>("version");
        QTest::addColumn<QString>("dict");
        QTest::addColumn<QList<qint64>>("dims");
        QTest::newRow("v1 2d") << 1 << "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }"
                               << QList<qint64>{1, 2};
        QTest::newRow("v2 1d") << 2 << "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" << QList<qint64>{2};
        QTest::newRow("v3 dq") << 3 << "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}"
                               << QList<qint64>{2};
        QTest::newRow("scalar") << 1 << "{'descr': '<f4', 'fortran_order': False, 'shape': (), }" << QList<qint64>{};
    }
    void readsEveryVersionAndShape()
    {
        QFETCH(int, version);
        QFETCH(QString, dict);
        QFETCH(QList<qint64>, dims);
        const float v[2] = {1.5f, -2.0f};
        const size_t n = dims.isEmpty() ? 1 : 2;
        testing::writeRaw(path("v.npy"),
                          npyBytes(version, dict.toStdString(), std::string(reinterpret_cast<const char *>(v), 4 * n)));
        const Tensor t = readNpy(path("v.npy"));
        QCOMPARE(t.dims, std::vector<int64_t>(dims.begin(), dims.end()));
        QCOMPARE(toFloat(t)[0], 1.5f);
    }

    void rejectsWhatItCannotRead_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const std::string payload(8, '\0');
        auto mk = [&](const char *dict) { return QByteArray::fromStdString(npyBytes(1, dict, payload)); };
        QTest::newRow("big endian") << mk("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }");
        QTest::newRow("fortran") << mk("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }");
        QTest::newRow("object") << mk("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }");
        QTest::newRow("structured") << mk("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }");
        QTest::newRow("truncated data") << mk("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
        QTest::newRow("no shape") << mk("{'descr': '<f4', 'fortran_order': False, }");
        QTest::newRow("bad magic") << QByteArray("\x93NUMPX\x01\x00\x00\x00", 10);
        QTest::newRow("version 9") << QByteArray("\x93NUMPY\x09\x00\x00\x00", 10);
        QTest::newRow("short") << QByteArray("\x93NU", 3);
        QTest::newRow("header past end") << QByteArray("\x93NUMPY\x01\x00\xFF\x00{", 11);
    }
    void rejectsWhatItCannotRead()
    {
        QFETCH(QByteArray, bytes);
        testing::writeRaw(path("bad.npy"), bytes.toStdString());
        QVERIFY_THROWS_EXCEPTION(Error, readNpy(path("bad.npy")));
    }

    void refusesHifloat8()
    {
        QVERIFY_THROWS_EXCEPTION(Error, writeNpy(path("h.npy"), testing::randomTensor(int(DType::HiFloat8), {4})));
    }

    // NumPy itself reads what we write and writes what we read.
    void numpyInterop()
    {
        // Debian's interpreter, where python3-numpy goes (a python3 earlier on PATH may lack it).
        const QString py =
            QFile::exists("/usr/bin/python3") ? "/usr/bin/python3" : QStandardPaths::findExecutable("python3");
        QProcess probe;
        probe.start(py, {"-c", "import numpy"});
        probe.waitForFinished();
        QVERIFY2(probe.exitCode() == 0, "python3-numpy is missing: scripts/setup installs it");
        Tensor t = testing::f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6.5f});
        writeNpy(path("ours.npy"), t);
        QProcess p;
        p.start(py,
                {"-c",
                 QString("import numpy as np; a=np.load('%1'); assert a.shape==(2,3), a.shape; "
                         "assert a.dtype==np.float32; assert a[1,2]==6.5; "
                         "np.save('%2', np.arange(12, dtype=np.int16).reshape(3,4)); "
                         "np.save('%3', np.array([1.5, -2], dtype=np.float16))")
                     .arg(QString::fromStdString(path("ours.npy")), QString::fromStdString(path("theirs.npy")),
                          QString::fromStdString(path("half.npy")))});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const Tensor r = readNpy(path("theirs.npy"));
        QCOMPARE(r.dtype, int32_t(DType::Int16));
        QCOMPARE(r.dims, (std::vector<int64_t>{3, 4}));
        QCOMPARE(toFloat(r)[11], 11.0f);
        const Tensor h = readNpy(path("half.npy"));
        QCOMPARE(h.dtype, int32_t(DType::Float16));
        QCOMPARE(toFloat(h)[1], -2.0f);
    }
};

QTEST_GUILESS_MAIN(TstNpyFile)
#include "tst_npyfile.moc"
