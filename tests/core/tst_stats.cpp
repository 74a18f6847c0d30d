#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

#include "tensor/bin_file.h"
#include "tensor/convert.h"
#include "tensor/stats.h"
#include "util/error.h"
#include "../test_helpers.h"

using namespace llmscope;

class TstStats : public QObject {
    Q_OBJECT
private slots:
    // Every half, against the definition: (-1)^s * 2^(e-15) * (1 + m/1024), subnormals 2^-14 * m/1024.
    void halfConversionIsExactForEveryValue()
    {
        for (uint32_t h = 0; h < 65536; ++h) {
            const uint32_t e = (h >> 10) & 31, m = h & 1023;
            const double sign = (h & 0x8000) ? -1.0 : 1.0;
            const float got = halfToFloat(uint16_t(h));
            if (e == 31) {
                QVERIFY(m ? std::isnan(got) : got == float(sign * INFINITY));
                continue;
            }
            const double want = sign * (e ? std::ldexp(1024.0 + m, int(e) - 25) : std::ldexp(double(m), -24));
            if (got != float(want) || std::signbit(got) != std::signbit(want))
                QFAIL(qPrintable(QString("half 0x%1: %2, want %3").arg(h, 4, 16).arg(got).arg(want)));
        }
    }

    void knownValues()
    {
        auto s = computeStats(testing::f32Tensor({4}, {1, -2, 3, 0}));
        QVERIFY(s);
        QCOMPARE(s->max, 3.0);
        QCOMPARE(s->min, -2.0);
        QCOMPARE(s->mean, 0.5);
        QCOMPARE(s->l2norm, std::sqrt(14.0));
        QCOMPARE(s->zeroCount, uint64_t(1));
        QCOMPARE(s->nanCount, uint64_t(0));
    }

    // Each numeric dtype agrees with an independent double-precision computation.
    void everyNumericDtypeMatchesReference_data()
    {
        QTest::addColumn<int>("dtype");
        for (int c : {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 27, 29, 30, 35, 36, 37, 38, 39, 40, 41})
            QTest::newRow(dtypeName(c).c_str()) << c;
    }
    void everyNumericDtypeMatchesReference()
    {
        QFETCH(int, dtype);
        Tensor t = testing::randomTensor(dtype, {64, 33}, unsigned(dtype) * 3 + 1);
        if (dtype == 12)
            for (auto &b : t.data)
                b &= 1;
        const uint64_t n = t.elementCount();
        std::vector<double> v(n);
        decodeElements(dtype, t.data.data(), 0, n, v.data());
        double mx = -INFINITY, mn = INFINITY, sum = 0, sq = 0;
        uint64_t nan = 0, inf = 0;
        for (double x : v) {
            const double f = double(float(x));
            if (std::isnan(f)) {
                ++nan;
                continue;
            }
            inf += std::isinf(f);
            mx = std::max(mx, f);
            mn = std::min(mn, f);
            sum += f;
            sq += f * f;
        }
        auto s = computeStats(t);
        QVERIFY(s);
        QCOMPARE(s->nanCount, nan);
        QCOMPARE(s->infCount, inf);
        if (nan) {
            QVERIFY(std::isnan(s->max) && std::isnan(s->mean));
            return;
        }
        QCOMPARE(s->max, mx);
        QCOMPARE(s->min, mn);
        if (std::isfinite(sum)) {
            QVERIFY(std::abs(s->mean - sum / double(n)) <= 1e-12 * std::max(1.0, std::abs(sum / double(n))));
            QVERIFY(std::abs(s->l2norm - std::sqrt(sq)) <= 1e-12 * std::max(1.0, std::sqrt(sq)));
        }
    }

    void nanAndInfAreCounted()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
        auto s = computeStats(testing::f32Tensor({4}, {1, nan, inf, 0}));
        QCOMPARE(s->nanCount, uint64_t(1));
        QCOMPARE(s->infCount, uint64_t(1));
        QCOMPARE(s->zeroCount, uint64_t(1));
        QVERIFY(std::isnan(s->max));
        auto i = computeStats(testing::f32Tensor({3}, {1, -inf, 2}));
        QCOMPARE(i->min, -double(INFINITY));
        QCOMPARE(i->max, 2.0);
    }

    void nonNumericIsNotApplicable()
    {
        QVERIFY(!computeStats(testing::randomTensor(13, {8})));
        QVERIFY(!computeStats(testing::randomTensor(16, {8})));
        Tensor t = testing::randomTensor(13, {8});
        setStatsAttrs(t, computeStats(t));
        QCOMPARE(t.attr("max").value_or(""), std::string("N/A"));
        QVERIFY(!statsFromAttrs(t));
    }

    // msit's statistics-mode file: header only, six decimals, readable back.
    void statisticsFileRoundTrip()
    {
        QTemporaryDir dir;
        Tensor full = testing::f32Tensor({3}, {1.25f, -0.5f, 2});
        Tensor header;
        header.dtype = full.dtype;
        header.dims = full.dims;
        setStatsAttrs(header, computeStats(full));
        QCOMPARE(header.attr("max").value_or(""), std::string("2.000000"));
        QCOMPARE(header.attr("mean").value_or(""), std::string("0.916667"));
        QCOMPARE(header.attr("l2norm").value_or(""), std::string("2.410913"));
        const std::string p = (dir.path() + "/s.bin").toStdString();
        writeBin(p, header);
        const Tensor r = readBin(p);
        QVERIFY(!r.hasData);
        auto s = statsFromAttrs(r);
        QVERIFY(s);
        QCOMPARE(s->min, -0.5);
        Tensor bad = r;
        bad.setAttr("mean", "abc");
        QVERIFY_THROWS_EXCEPTION(Error, statsFromAttrs(bad));
    }
};

QTEST_GUILESS_MAIN(TstStats)
#include "tst_stats.moc"
