#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
const int32_t kAllCodes[] = {0,  1,  2,  3,  4,  6,  7,  8,  9,  10, 11, 12, 13, 16,
                             17, 27, 29, 30, 33, 34, 35, 36, 37, 38, 39, 40, 41};

} // namespace

class TstBinFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char *name) { return (m_dir.path() + "/" + name).toStdString(); }

private slots:
    void everyDtypeRoundTrips_data()
    {
        QTest::addColumn<int>("dtype");
        for (int32_t c : kAllCodes)
            QTest::newRow(dtypeName(c).c_str()) << int(c);
    }
    void everyDtypeRoundTrips()
    {
        QFETCH(int, dtype);
        Tensor t = testing::randomTensor(dtype, {3, 5}, unsigned(dtype));
        t.format = 29;
        t.setAttr("note", "kept");
        const std::string p = path("rt.bin");
        writeBin(p, t);
        const Tensor r = readBin(p);
        QCOMPARE(r.dtype, dtype);
        QCOMPARE(r.format, 29);
        QCOMPARE(r.dims, t.dims);
        QVERIFY(r.hasData);
        QCOMPARE(r.data, t.data);
        QCOMPARE(r.attr("note").value_or(""), std::string("kept"));
    }

    void headerIsMsitsExactly()
    {
        Tensor t = testing::randomTensor(1, {2, 3});
        QCOMPARE(encodeBinHeader(t),
                 std::string("$Version=1.0\n$Object.Count=1\n$Object.Length=12\nformat=2\n"
                             "dtype=1\ndims=2,3\n$Object.data=0,12\n$End=1\n"));
    }

    void headerOnlyFiles()
    {
        Tensor t;
        t.dtype = 1;
        t.dims = {4, 4096};
        t.setAttr("max", "1.500000");
        const std::string p = path("stats.bin");
        writeBin(p, t);
        const auto info = readBinFile(p);
        QVERIFY(!info.tensor.hasData);
        QVERIFY(info.tensor.data.empty());
        QCOMPARE(info.tensor.dims, (std::vector<int64_t>{4, 4096}));
        QCOMPARE(info.tensor.attr("max").value_or(""), std::string("1.500000"));
        QCOMPARE(info.objectLength, uint64_t(0));
    }

    void honoursObjectOffsets()
    {
        // Payload lies at offset 4 of a 12-byte data area; a second record follows.
        std::string f = "$Version=1.0\n$Object.Count=1\n$Object.Length=12\nformat=2\ndtype=4\ndims=2,2\n"
                        "$Object.data=4,4\n$Object.data=8,4\n$End=1\n";
        f += std::string("\xAA\xAA\xAA\xAA\x01\x02\x03\x04\xBB\xBB\xBB\xBB", 12);
        f += "trailing bytes a rewrite left behind";
        testing::writeRaw(path("off.bin"), f);
        const Tensor r = readBin(path("off.bin"));
        QCOMPARE(r.data, (std::vector<uint8_t>{1, 2, 3, 4}));
    }

    void unknownCodesAreKept()
    {
        Tensor t;
        t.dtype = 99;
        t.format = 77;
        t.dims = {7};
        t.hasData = true;
        t.data = {1, 2, 3};
        writeBin(path("unk.bin"), t);
        const Tensor r = readBin(path("unk.bin"));
        QCOMPARE(r.dtype, 99);
        QCOMPARE(r.format, 77);
        QCOMPARE(r.data, t.data);
        QCOMPARE(dtypeName(99), std::string("dtype 99"));
        QCOMPARE(formatName(77), std::string("format 77"));
        QCOMPARE(formatName(29), std::string("FRACTAL_NZ"));
    }

    void engineTypeAttributeSurvives()
    {
        Tensor t;
        t.dtype = int32_t(DType::UInt8);
        t.dims = {34};
        t.hasData = true;
        t.data.assign(34, 7);
        t.setAttr(kEngineDTypeAttr, "q8_0");
        t.setAttr(kEngineDimsAttr, "32");
        writeBin(path("q8.bin"), t);
        const Tensor r = readBin(path("q8.bin"));
        QCOMPARE(r.attr(kEngineDTypeAttr).value_or(""), std::string("q8_0"));
        QCOMPARE(r.attr(kEngineDimsAttr).value_or(""), std::string("32"));
    }

    void corruptFilesAreErrors_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray ok = "$Version=1.0\n$Object.Count=1\n$Object.Length=4\nformat=2\ndtype=0\ndims=1\n"
                              "$Object.data=0,4\n$End=1\n";
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("no end") << QByteArray("$Version=1.0\ndtype=0\ndims=1\n");
        QTest::newRow("no equals") << QByteArray("$Version=1.0\ngarbage\n$End=1\n");
        QTest::newRow("two equals") << QByteArray("$Version=1.0\na=b=c\n$End=1\n");
        QTest::newRow("truncated payload") << ok + QByteArray("\x01\x02", 2);
        QTest::newRow("bad length") << QByteArray("$Version=1.0\n$Object.Length=x\ndtype=0\ndims=1\n$End=1\n");
        QTest::newRow("object outside") << QByteArray("$Version=1.0\n$Object.Count=1\n$Object.Length=4\ndtype=0\n"
                                                      "dims=1\n$Object.data=2,4\n$End=1\n") +
                QByteArray(4, 'x');
        QTest::newRow("count without record") << QByteArray("$Version=1.0\n$Object.Count=1\n$Object.Length=4\n"
                                                            "dtype=0\ndims=1\n$End=1\n") +
                QByteArray(4, 'x');
        QTest::newRow("size mismatch") << QByteArray("$Version=1.0\n$Object.Count=1\n$Object.Length=4\ndtype=0\n"
                                                     "dims=2\n$Object.data=0,4\n$End=1\n") +
                QByteArray(4, 'x');
        QTest::newRow("no dtype") << QByteArray("$Version=1.0\n$Object.Count=0\n$Object.Length=0\ndims=1\n$End=1\n");
        QTest::newRow("bad dims") << QByteArray("$Version=1.0\n$Object.Count=0\ndtype=0\ndims=2,-1\n$End=1\n");
        QTest::newRow("no version") << QByteArray("dtype=0\ndims=1\n$End=1\n");
        QTest::newRow("binary garbage") << QByteArray("\x7f"
                                                      "ELF\x02\x01\x01\x00\n=\n",
                                                      10);
        QTest::newRow("npy file") << QByteArray("\x93NUMPY\x01\x00", 8);
    }
    void corruptFilesAreErrors()
    {
        QFETCH(QByteArray, bytes);
        testing::writeRaw(path("bad.bin"), bytes.toStdString());
        QVERIFY_THROWS_EXCEPTION(Error, readBin(path("bad.bin")));
    }

    void everyTruncationIsAnError()
    {
        writeBin(path("full.bin"), testing::randomTensor(0, {4, 4}));
        std::ifstream in(path("full.bin"), std::ios::binary);
        const std::string full((std::istreambuf_iterator<char>(in)), {});
        for (size_t n = 0; n < full.size(); ++n) {
            testing::writeRaw(path("cut.bin"), full.substr(0, n));
            bool threw = false;
            try {
                readBin(path("cut.bin"));
            } catch (const Error &) {
                threw = true;
            }
            QVERIFY2(threw, qPrintable(QString("truncated at %1 of %2 bytes read as valid").arg(n).arg(full.size())));
        }
    }

    void missingFileAndFolder()
    {
        QVERIFY_THROWS_EXCEPTION(Error, readBin(path("nope.bin")));
        QVERIFY_THROWS_EXCEPTION(Error, readBin(m_dir.path().toStdString()));
    }

    void refusesInconsistentWrites()
    {
        Tensor t = testing::randomTensor(0, {2, 2});
        t.data.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, writeBin(path("inc.bin"), t));
        Tensor a = testing::randomTensor(0, {1});
        a.setAttr("evil", "line\nbreak");
        QVERIFY_THROWS_EXCEPTION(Error, writeBin(path("evil.bin"), a));
    }

    void halfAndBf16Conversions()
    {
        QCOMPARE(halfToFloat(0x3C00), 1.0f);
        QCOMPARE(halfToFloat(0xC000), -2.0f);
        QCOMPARE(halfToFloat(0x7BFF), 65504.0f);
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QVERIFY(std::isinf(halfToFloat(0x7C00)));
        QVERIFY(std::isnan(halfToFloat(0x7E00)));
        QCOMPARE(bf16ToFloat(0x3F80), 1.0f);
        QCOMPARE(bf16ToFloat(0xC0A0), -5.0f);
        // Every finite half survives float -> half exactly.
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const float f = halfToFloat(uint16_t(h));
            if (std::isnan(f))
                continue;
            QCOMPARE(floatToHalf(f), uint16_t(h));
        }
        QCOMPARE(floatToHalf(1.0f + 1.0f / 4096), uint16_t(0x3C00)); // tie rounds to even
        QCOMPARE(floatToBf16(1.0f), uint16_t(0x3F80));
    }

    void smallFloatAndPackedDecoding_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QList<double>>("values");
        const double nan = std::nan("");
        QTest::newRow("int4") << int(DType::Int4) << QByteArray("\x7F\x08", 2) << QList<double>{-1, 7, -8, 0};
        QTest::newRow("uint1") << int(DType::UInt1) << QByteArray("\x05", 1) << QList<double>{1, 0, 1, 0, 0, 0, 0, 0};
        QTest::newRow("e4m3fn") << int(DType::Float8E4M3FN) << QByteArray("\x38\x7E\xFF\x01", 4)
                                << QList<double>{1.0, 448.0, nan, std::ldexp(1.0, -9)};
        QTest::newRow("e5m2") << int(DType::Float8E5M2) << QByteArray("\x3C\x7B\x7C", 3)
                              << QList<double>{1.0, 57344.0, INFINITY};
        QTest::newRow("e8m0") << int(DType::Float8E8M0) << QByteArray("\x7F\x80\xFF", 3) << QList<double>{1, 2, nan};
        QTest::newRow("fp4_e2m1") << int(DType::Float4E2M1) << QByteArray("\x21\x7F", 2)
                                  << QList<double>{0.5, 1.0, -6.0, 6.0};
        QTest::newRow("fp6_e3m2") << int(DType::Float6E3M2) << QByteArray("\x0C\x1F", 2) << QList<double>{1.0, 28.0};
        QTest::newRow("fp6_e2m3") << int(DType::Float6E2M3) << QByteArray("\x08\x1F", 2) << QList<double>{1.0, 7.5};
        QTest::newRow("bool") << int(DType::Bool) << QByteArray("\x00\x01", 2) << QList<double>{0, 1};
    }
    void smallFloatAndPackedDecoding()
    {
        QFETCH(int, dtype);
        QFETCH(QByteArray, bytes);
        QFETCH(QList<double>, values);
        std::vector<double> out(size_t(values.size()));
        decodeElements(dtype, reinterpret_cast<const uint8_t *>(bytes.constData()), 0, out.size(), out.data());
        for (qsizetype i = 0; i < values.size(); ++i) {
            if (std::isnan(values[i]))
                QVERIFY(std::isnan(out[size_t(i)]));
            else
                QCOMPARE(out[size_t(i)], values[i]);
        }
    }

    void nonNumericHasNoConversion()
    {
        Tensor t = testing::randomTensor(int32_t(DType::String), {4});
        QVERIFY_THROWS_EXCEPTION(Error, toFloat(t));
        Tensor h = testing::randomTensor(int32_t(DType::HiFloat8), {4});
        QVERIFY_THROWS_EXCEPTION(Error, toFloat(h));
    }
};

QTEST_GUILESS_MAIN(TstBinFile)
#include "tst_binfile.moc"
