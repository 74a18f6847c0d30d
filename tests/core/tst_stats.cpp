#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "core/compare/precision_standard.h"
#include "core/dump/statistic_csv.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sketch.h"
#include "core/tensor/stats.h"
#include "core/util/content_digest.h"
#include "core/util/error.h"
#include "core/util/text.h"
#include "tests/test_helpers.h"

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

    // The vectorized widening (decodeToFloat: statistics and compare) gives halfToFloat's bits for
    // every half, NaN payloads included, and bfloat16 its high half.
    void widenedHalvesAreExact()
    {
        std::vector<uint16_t> all(65536);
        for (uint32_t h = 0; h < 65536; ++h)
            all[h] = uint16_t(h);
        std::vector<float> got(all.size());
        const auto *bytes = reinterpret_cast<const uint8_t *>(all.data());
        decodeToFloat(int32_t(DType::Float16), bytes, 0, all.size(), got.data());
        for (uint32_t h = 0; h < 65536; ++h) {
            const float want = halfToFloat(uint16_t(h));
            if (std::memcmp(&got[h], &want, 4) != 0)
                QFAIL(qPrintable(QString("half 0x%1: %2, want %3").arg(h, 4, 16).arg(got[h]).arg(want)));
        }
        decodeToFloat(int32_t(DType::BFloat16), bytes, 3, all.size() - 3, got.data()); // from an element on
        for (uint32_t h = 3; h < 65536; ++h) {
            const float want = bf16ToFloat(uint16_t(h));
            QVERIFY(std::memcmp(&got[h - 3], &want, 4) == 0);
        }
    }

    // Every other dtype is widened to float a chunk (4096 elements) at a time and takes float32's
    // loops: over several chunks and a tail its statistics are an independent double-precision
    // computation's, its sketch the definition's, and its digest the stored bytes'.
    void widenedDtypesAcrossChunks_data()
    {
        QTest::addColumn<int>("dtype");
        for (DType c : {DType::Float16, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16, DType::UInt16,
                        DType::Int32, DType::Int4, DType::UInt1, DType::Double})
            QTest::newRow(dtypeName(int32_t(c)).c_str()) << int(c);
    }
    void widenedDtypesAcrossChunks()
    {
        QFETCH(int, dtype);
        const uint64_t n = 3 * 4096 + 1001;
        Tensor t = testing::randomTensor(dtype, {int64_t(n)}, unsigned(dtype) + 40);
        std::mt19937 rng(9);
        std::normal_distribution<float> d(0.25f, 2.0f);
        for (uint64_t i = 0; i < n; ++i) { // floats: finite values, a few zeros and subnormals
            const float x = i % 997 == 0 ? 0.0f : i % 1009 == 0 ? 3e-6f : d(rng);
            if (dtype == int(DType::Float16)) {
                const uint16_t h = floatToHalf(x);
                std::memcpy(t.data.data() + 2 * i, &h, 2);
            } else if (dtype == int(DType::BFloat16)) {
                const uint16_t b = floatToBf16(x);
                std::memcpy(t.data.data() + 2 * i, &b, 2);
            } else if (dtype == int(DType::Double)) {
                const double w = x;
                std::memcpy(t.data.data() + 8 * i, &w, 8);
            }
        }
        std::vector<double> v(n);
        decodeElements(dtype, t.data.data(), 0, n, v.data());
        double mx = -INFINITY, mn = INFINITY, sum = 0, sq = 0;
        uint64_t zeros = 0;
        std::vector<double> sketch(kSketchBuckets, 0.0);
        for (uint64_t i = 0; i < n; ++i) {
            const double f = double(float(v[i]));
            zeros += f == 0;
            mx = std::max(mx, f);
            mn = std::min(mn, f);
            sum += f;
            sq += f * f;
            const bool negated = ((sketchBlock(i / 64).signs >> (i % 64)) & 1) != 0;
            sketch[(i % 64 + sketchBlock(i / 64).rotation) % 64] += negated ? -f : f;
        }
        const auto s = computeStats(t);
        QVERIFY(s);
        QCOMPARE(s->count, n);
        QCOMPARE(s->nanCount, uint64_t(0));
        QCOMPARE(s->infCount, uint64_t(0));
        QCOMPARE(s->zeroCount, zeros);
        QCOMPARE(s->max, mx);
        QCOMPARE(s->min, mn);
        QVERIFY(std::abs(s->mean - sum / double(n)) <= 1e-12 * std::max(1.0, std::abs(sum / double(n))));
        QVERIFY(std::abs(s->l2norm - std::sqrt(sq)) <= 1e-12 * std::sqrt(sq));
        QCOMPARE(s->digest, contentDigest(t.data.data(), t.data.size()));
        QCOMPARE(s->sketch.size(), size_t(kSketchBuckets));
        double scale = 0;
        for (double b : sketch)
            scale = std::max(scale, std::abs(b));
        for (int b = 0; b < kSketchBuckets; ++b)
            QVERIFY2(std::abs(double(s->sketch[size_t(b)]) - sketch[size_t(b)]) <= 1e-6 * (1 + scale),
                     qPrintable(
                         QString("bucket %1: %2 against %3").arg(b).arg(s->sketch[size_t(b)]).arg(sketch[size_t(b)])));
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

    // float32 has a vectorized path: it must agree with the general one (float64 holding the
    // same values) across chunk boundaries, at any byte offset, with Inf, zeros and NaN.
    void float32AgreesWithTheGeneralPath_data()
    {
        QTest::addColumn<int>("special"); // 0 none, 1 Inf and zeros, 2 a NaN in the third chunk
        QTest::addColumn<int>("offset"); // byte offset of the payload
        QTest::newRow("plain") << 0 << 0;
        QTest::newRow("misaligned") << 0 << 1;
        QTest::newRow("inf and zeros") << 1 << 2;
        QTest::newRow("nan") << 2 << 3;
    }
    void float32AgreesWithTheGeneralPath()
    {
        QFETCH(int, special);
        QFETCH(int, offset);
        const size_t n = 10007; // three chunks of 4096 and a tail
        std::mt19937 rng(11);
        std::normal_distribution<float> d(0.5f, 3.0f);
        std::vector<float> v(n);
        for (auto &x : v)
            x = d(rng);
        if (special == 1) {
            v[5000] = INFINITY;
            v[9000] = -INFINITY;
            v[17] = v[8200] = 0.0f;
            v[8201] = -0.0f;
        } else if (special == 2) {
            v[8500] = std::numeric_limits<float>::quiet_NaN();
        }
        std::vector<uint8_t> bytes(n * 4 + 8);
        std::memcpy(bytes.data() + offset, v.data(), n * 4);
        std::vector<double> wide(v.begin(), v.end());
        const auto f = computeStats(0, bytes.data() + offset, n);
        const auto g = computeStats(11, reinterpret_cast<const uint8_t *>(wide.data()), n);
        QVERIFY(f && g);
        QCOMPARE(f->count, g->count);
        QCOMPARE(f->nanCount, g->nanCount);
        QCOMPARE(f->infCount, g->infCount);
        QCOMPARE(f->zeroCount, g->zeroCount);
        if (special == 2) {
            QCOMPARE(f->nanCount, uint64_t(1));
            QVERIFY(std::isnan(f->max) && std::isnan(f->min) && std::isnan(f->mean) && std::isnan(f->l2norm));
            return;
        }
        if (special == 1)
            QCOMPARE(f->zeroCount, uint64_t(3));
        QCOMPARE(f->max, g->max);
        QCOMPARE(f->min, g->min);
        if (special == 1)
            return; // +Inf and -Inf: both means are NaN
        QVERIFY(std::abs(f->mean - g->mean) <= 1e-12 * std::max(1.0, std::abs(g->mean)));
        QVERIFY(std::abs(f->l2norm - g->l2norm) <= 1e-12 * g->l2norm);
    }

    // Statistics are printed as printf's "%.6f" prints them, for any double.
    void statisticsPrintAsPrintfDoes()
    {
        std::mt19937_64 rng(3);
        std::normal_distribution<double> d(0, 1);
        std::vector<double> values = {0.0, -0.0, 5e-7, -5e-7, 1.5e-6, 2.5e-7, 0.1, 1e300, -1.7e308, 4.9e-324};
        for (int i = 0; i < 20000; ++i) {
            uint64_t bits = rng();
            double x;
            std::memcpy(&x, &bits, sizeof x);
            if (std::isfinite(x))
                values.push_back(x);
            values.push_back(d(rng));
            values.push_back(d(rng) * 1e-5);
            values.push_back(double(float(d(rng) * 100)));
            // Near the half-way points of the sixth decimal and around the fast path's limit.
            const double tie = (double(int64_t(rng() % 40000000000ull)) + 0.5) / 1e6;
            values.push_back(tie);
            values.push_back(std::nextafter(tie, 0.0));
            values.push_back(-std::nextafter(tie, 1e300));
            values.push_back(std::ldexp(1.0 + double(rng() % 1000) / 1000, 24) * (i % 2 ? 1 : -1));
        }
        std::vector<char> want(400);
        for (double x : values) {
            std::snprintf(want.data(), want.size(), "%.6f", x);
            if (formatStat(x) != want.data())
                QFAIL(("formatStat(" + std::to_string(x) + ") gave " + formatStat(x) + ", printf " + want.data())
                          .c_str());
        }
        QCOMPARE(formatStat(std::nan("")), std::string("nan"));
        QCOMPARE(formatStat(-INFINITY), std::string("-inf"));
    }

    // A CSV row's fixed parts, built for one round and filled in for another, give the row
    // built for that round directly; a dump root that itself looks like a round folder is kept.
    void statisticRowFilledPerRound()
    {
        StatisticRow r;
        r.pid = 77;
        r.opFolders = {"3_DecoderLayer", "12_MUL,MAT"};
        r.opType = "MUL_MAT";
        r.before = true;
        r.input = true;
        r.index = 1;
        r.dims = {512, 1024};
        r.stats = computeStats(testing::f32Tensor({3}, {1.25f, -0.5f, 2}));
        auto pathFor = [](int64_t exec) {
            return "/data/tensors/0_77/3/out/tensors/0_77/" + std::to_string(exec) +
                "/3_DecoderLayer/12_MUL_MAT/before/intensor1.bin";
        };
        r.exec = 3;
        r.tensorPath = pathFor(3);
        const StatisticRowParts parts = statisticRowParts(r);
        for (int64_t exec : {3, 0, 12, 1000}) {
            StatisticRow direct = r;
            direct.exec = exec;
            direct.tensorPath = pathFor(exec);
            std::string filled;
            appendStatisticCsvLine(filled, parts, exec, r.stats);
            QCOMPARE(filled, statisticCsvLine(direct));
        }
        QCOMPARE(statisticCsvLine(r),
                 std::string("0_77,3,MUL_MAT,MUL_MAT,3_12,input,1,float32,ND,512x1024,"
                             "2.000000,-0.500000,0.916667,2.410913,") +
                     pathFor(3) + ",3_DecoderLayer/12_MUL_MAT,before," + encodeSketch(r.stats->sketch) + "," +
                     encodeDigest(r.stats->digest) + "\n");
        QCOMPARE(r.stats->sketch.size(), size_t(kSketchBuckets));
        QCOMPARE(encodeDigest(r.stats->digest).size(), size_t(19)); // "d2." and 16 hex digits
        StatisticRow plain = r; // without a sketch and a digest, their columns are empty
        plain.stats->sketch.clear();
        plain.stats->digest = 0;
        QVERIFY(statisticCsvLine(plain).ends_with(",before,,\n"));
        std::string noStats;
        appendStatisticCsvLine(noStats, parts, 4, std::nullopt);
        QVERIFY(noStats.find(",512x1024,N/A,N/A,N/A,N/A," + pathFor(4) + ",") != std::string::npos);
    }

    // The digest tells bytes apart, bit for bit: the same tensor gives the same digest, one
    // bit flipped anywhere (the first element, the last, a tail shorter than 8 bytes) another,
    // a NaN's payload too; it travels in the .bin header and reads back; none without a sketch.
    void digestTellsEveryBit()
    {
        std::mt19937 gen(7);
        std::normal_distribution<float> d;
        std::vector<float> v(1001); // 4004 bytes: a tail of 4
        for (float &x : v)
            x = d(gen);
        const auto base = computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(v.data()), v.size());
        QVERIFY(base && base->digest);
        const auto again = computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(v.data()), v.size());
        QCOMPARE(again->digest, base->digest);
        for (size_t at : {size_t(0), size_t(500), v.size() - 1})
            for (int bit : {0, 17, 31}) {
                std::vector<float> w = v;
                uint32_t u;
                std::memcpy(&u, &w[at], 4);
                u ^= 1u << bit;
                std::memcpy(&w[at], &u, 4);
                const auto flipped =
                    computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(w.data()), w.size());
                QVERIFY2(flipped->digest != base->digest, qPrintable(QString("element %1 bit %2").arg(at).arg(bit)));
            }
        std::vector<float> shorter(v.begin(), v.end() - 1); // one element less: another tensor
        QVERIFY(computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(shorter.data()), shorter.size())
                    ->digest != base->digest);
        QCOMPARE(
            computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(v.data()), v.size(), false)->digest,
            uint64_t(0)); // asked without the sketch: no digest either
        QCOMPARE(decodeDigest(encodeDigest(base->digest)), base->digest);
        QVERIFY(encodeDigest(base->digest).starts_with("d2."));
        QCOMPARE(decodeDigest("not a digest"), uint64_t(0));
        QCOMPARE(decodeDigest("d2.0123456789abcdeg"), uint64_t(0));
        QCOMPARE(decodeDigest("0123456789abcdef"), uint64_t(0)); // the earlier definition's: none
        // taken a chunk at a time with the statistics (16 KiB chunks), as over the whole bytes
        std::vector<float> wide(10007); // three chunks and a tail of 12 bytes past whole blocks
        for (float &x : wide)
            x = d(gen);
        const auto *bytes = reinterpret_cast<const uint8_t *>(wide.data());
        QCOMPARE(computeStats(int32_t(DType::Float32), bytes, wide.size())->digest,
                 contentDigest(bytes, wide.size() * 4));
        ContentDigest pieces(wide.size() * 4);
        pieces.addBlocks(bytes, 64 * 100);
        pieces.addBlocks(bytes + 64 * 100, 64 * 300);
        QCOMPARE(pieces.finish(bytes + 64 * 400, wide.size() * 4 - 64 * 400), contentDigest(bytes, wide.size() * 4));
        // the same words in another order, or one word's halves swapped: other digests
        std::vector<float> swapped = wide;
        std::swap(swapped[0], swapped[16]); // in words 0 and 8: the same lane
        QVERIFY(contentDigest(reinterpret_cast<const uint8_t *>(swapped.data()), wide.size() * 4) !=
                contentDigest(bytes, wide.size() * 4));
        swapped = wide;
        std::swap_ranges(swapped.begin(), swapped.begin() + 16, swapped.begin() + 16); // two blocks: rows swapped
        QVERIFY(contentDigest(reinterpret_cast<const uint8_t *>(swapped.data()), wide.size() * 4) !=
                contentDigest(bytes, wide.size() * 4));
        swapped = wide;
        std::swap(swapped[0], swapped[1]);
        QVERIFY(contentDigest(reinterpret_cast<const uint8_t *>(swapped.data()), wide.size() * 4) !=
                contentDigest(bytes, wide.size() * 4));
        Tensor t = testing::f32Tensor({3}, {1.25f, -0.5f, 2});
        const auto s = computeStats(t);
        setStatsAttrs(t, s);
        QCOMPARE(statsFromAttrs(t)->digest, s->digest);
    }

    // The digest is its definition (util/content_digest.h), written here a word at a time: word i
    // of block b into lane i % 8 with the key of its lane and block, the words past the last
    // whole block into the next lanes, a tail under 8 bytes as one more word, then the mix.
    void digestIsItsDefinition()
    {
        const auto avalanche = [](uint64_t x) {
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            x ^= x >> 33;
            x *= 0xc4ceb9fe1a85ec53ull;
            return x ^ (x >> 33);
        };
        const auto definition = [&](const uint8_t *data, uint64_t bytes) {
            uint64_t acc[8];
            for (uint64_t j = 0; j < 8; ++j)
                acc[j] = avalanche(bytes + 0x9E3779B97F4A7C15ull * (2 * j + 1));
            for (uint64_t i = 0; 8 * i < bytes; ++i) {
                uint64_t w = 0;
                std::memcpy(&w, data + 8 * i, std::min<uint64_t>(8, bytes - 8 * i));
                const uint64_t key = 0x9E3779B97F4A7C15ull * (2 * (i % 8) + 1) ^ (i / 8) * 0xD6E8FEB86659FD93ull;
                const uint64_t x = w ^ key;
                acc[i % 8] += w + (x & 0xFFFFFFFFu) * (x >> 32);
            }
            uint64_t h = bytes;
            for (uint64_t j = 0; j < 8; ++j)
                h = avalanche(h ^ avalanche(acc[j] + j));
            return h ? h : 1;
        };
        std::mt19937 gen(17);
        std::vector<uint8_t> bytes(70000);
        for (uint8_t &b : bytes)
            b = uint8_t(gen());
        for (const uint64_t n : {0, 5, 8, 63, 64, 100, 1000, 16384, 16391, 70000})
            QVERIFY2(contentDigest(bytes.data(), n) == definition(bytes.data(), n), qPrintable(QString::number(n)));
    }

    // The sketch is its definition: element i added, with the sign of bit i % 64 of its block's
    // sign bits, to bucket (i % 64 + its block's rotation) % 64, the block i / 64; float32 and
    // decoded types alike, from any element on.
    void sketchIsItsDefinition()
    {
        std::mt19937 rng(5);
        std::normal_distribution<float> d(0, 3);
        std::vector<float> v(10007);
        for (auto &x : v)
            x = d(rng);
        std::vector<double> want(kSketchBuckets, 0.0);
        const auto bucket = [](uint64_t i) { return (i % 64 + sketchBlock(i / 64).rotation) % 64; };
        const auto negated = [](uint64_t i) { return ((sketchBlock(i / 64).signs >> (i % 64)) & 1) != 0; };
        for (size_t i = 0; i < v.size(); ++i)
            want[bucket(i)] += negated(i) ? -double(v[i]) : double(v[i]);
        const auto s = computeStats(testing::f32Tensor({int64_t(v.size())}, v));
        QVERIFY(s && s->sketch.size() == size_t(kSketchBuckets));
        for (int b = 0; b < kSketchBuckets; ++b)
            QCOMPARE(s->sketch[size_t(b)], float(want[size_t(b)]));
        // float16: the decoded values, the same way
        std::vector<uint16_t> half(v.size());
        std::vector<double> wantHalf(kSketchBuckets, 0.0);
        for (size_t i = 0; i < v.size(); ++i) {
            half[i] = floatToHalf(v[i]);
            wantHalf[bucket(i)] += negated(i) ? -double(halfToFloat(half[i])) : double(halfToFloat(half[i]));
        }
        const auto sh = computeStats(1, reinterpret_cast<const uint8_t *>(half.data()), half.size());
        QVERIFY(sh && sh->sketch.size() == size_t(kSketchBuckets));
        for (int b = 0; b < kSketchBuckets; ++b)
            QCOMPARE(sh->sketch[size_t(b)], float(wantHalf[size_t(b)]));
        // from an element inside a block on (a part of a tensor): its blocks' buckets and signs
        for (const uint64_t first : {uint64_t(0), uint64_t(37), uint64_t(4096), (uint64_t(1) << 32) - 70}) {
            SketchSums part;
            part.add(v.data(), 1000, first);
            std::vector<double> wantPart(kSketchBuckets, 0.0);
            for (uint64_t j = 0; j < 1000; ++j)
                wantPart[bucket(first + j)] += negated(first + j) ? -double(v[j]) : double(v[j]);
            const std::vector<float> got = part.finish();
            for (int b = 0; b < kSketchBuckets; ++b)
                QVERIFY2(std::fabs(got[size_t(b)] - wantPart[size_t(b)]) <= 1e-5 * (1 + std::fabs(wantPart[size_t(b)])),
                         qPrintable(QString("from %1, bucket %2: %3 against %4")
                                        .arg(first)
                                        .arg(b)
                                        .arg(got[size_t(b)])
                                        .arg(wantPart[size_t(b)])));
        }
        // The definition pinned, as the Python dumper's test pins it (tests/python): the sketch of
        // 3000 values (i % 17 - 8) / 7, bit for bit, whatever vector unit summed it.
        std::vector<float> pinned(3000);
        for (size_t i = 0; i < pinned.size(); ++i)
            pinned[i] = float((int(i % 17) - 8) / 7.0);
        const std::string pinnedText =
            "s2.tm2bwLRt2z4hSZI_SJKEQChJEj902zY_bts2QP__n0Dbti3AAACAv5MkicC4bdu_kiTJP9u2jUDcto3Abtu2QG_btkBt27bA3"
            "LZtQJMkiUBJksTAbtuWQG7btkCSJAnAtm37wJMkycCTJAnASpKkwP__f79t23ZAAgCAvzRJEr5v27bASZKEQCdJEj-SJIlA3LbtQ"
            "EiSJEC2bQvB____PyVJkkCSJKlAb9u2vwAAoMABAOBASpKkQNu2LUCTJMm_JEmSQAEAAEBKkqRAR5KkvyVJkj-SJIlAcNu2P0qSx"
            "MDbtu3Atm0bQLlt279MkiTA_v__v7dtG8Cobds-_v__Pw";
        QCOMPARE(encodeSketch(computeStats(testing::f32Tensor({3000}, pinned))->sketch), pinnedText);
        // a block's 64 elements in 64 buckets
        std::vector<int> hits(kSketchBuckets, 0);
        for (uint64_t i = 640; i < 704; ++i)
            ++hits[bucket(i)];
        QCOMPARE(*std::min_element(hits.begin(), hits.end()), 1);
        // none asked, none with a NaN or an Inf
        QVERIFY(computeStats(testing::f32Tensor({3}, {1, 2, 3}), false)->sketch.empty());
        QVERIFY(computeStats(testing::f32Tensor({3}, {1, NAN, 3}))->sketch.empty());
        QVERIFY(computeStats(testing::f32Tensor({3}, {1, INFINITY, 3}))->sketch.empty());
    }

    // Written and read back bit for bit, in a header and in text; text that is no sketch is
    // refused.
    void sketchTravelsWhole()
    {
        const auto s = computeStats(testing::f32Tensor({4}, {1.5f, -2, 1e-30f, 3e30f}));
        const std::string text = encodeSketch(s->sketch);
        QCOMPARE(text.size(), size_t(345));
        QVERIFY(text.rfind(kSketchPrefix, 0) == 0);
        QVERIFY(text.find_first_of("=,\n\t") == std::string::npos);
        QCOMPARE(decodeSketch(text), std::optional<std::vector<float>>(s->sketch));
        Tensor t = testing::f32Tensor({4}, {1.5f, -2, 1e-30f, 3e30f});
        setStatsAttrs(t, s);
        QCOMPARE(statsFromAttrs(t)->sketch, s->sketch);
        std::string padded = text; // the last character's 4 unused bits set: not a sketch's text
        const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        padded.back() = alphabet[alphabet.find(padded.back()) | 1];
        // an earlier definition's sketch (a hash an element: no prefix) cannot be compared with this one's
        const std::string earlier = text.substr(3);
        std::string nul = text, high = text; // a character outside the alphabet: NUL, a byte over 127
        nul[100] = '\0';
        high[200] = char(0xC3);
        for (const std::string &bad : {text.substr(1), text + "A", "s2.=" + text.substr(4), std::string(345, '!'),
                                       std::string(), padded, earlier, nul, high})
            QVERIFY(!decodeSketch(bad));
        t.setAttr(kSketchAttr, "broken");
        QVERIFY(statsFromAttrs(t)->sketch.empty()); // msit's four still read
    }

    // Two sketches estimate ||test - golden|| without bias and within the stated spread
    // (kSketchNmseSpread of the NMSE), for the shapes kernel faults take: noise everywhere, a
    // few rows, each row's tail, an offset over one row, two elements swapped (which keeps
    // max, min, mean and norm: the statistics' bound is 0), one element (exact).
    void sketchEstimatesTheError_data()
    {
        QTest::addColumn<QString>("shape");
        for (const char *s : {"noise", "rows", "tails", "row offset", "swap", "element"})
            QTest::newRow(s) << QString(s);
    }
    void sketchEstimatesTheError()
    {
        QFETCH(QString, shape);
        constexpr int kRows = 64, kCols = 160, kTrials = 400;
        std::mt19937 rng(11);
        std::normal_distribution<float> d(0, 1);
        std::uniform_int_distribution<int> row(0, kRows - 1), col(0, kCols - 1);
        double sum = 0, sumSq = 0, boundMax = 0;
        for (int trial = 0; trial < kTrials; ++trial) {
            std::vector<float> g(kRows * kCols), t;
            for (auto &x : g)
                x = d(rng);
            t = g;
            if (shape == "noise")
                for (auto &x : t)
                    x += 1e-3f * d(rng);
            else if (shape == "rows")
                for (int k = 0; k < 3; ++k)
                    for (int c = 0, r = row(rng); c < kCols; ++c)
                        t[size_t(r * kCols + c)] += 0.1f * d(rng);
            else if (shape == "tails")
                for (int r = 0; r < kRows; ++r)
                    for (int c = kCols - 8; c < kCols; ++c)
                        t[size_t(r * kCols + c)] *= 1.5f;
            else if (shape == "row offset")
                for (int c = 0, r = row(rng); c < kCols; ++c)
                    t[size_t(r * kCols + c)] += 0.05f;
            else if (shape == "swap")
                std::swap(t[size_t(row(rng) * kCols + col(rng))], t[size_t(row(rng) * kCols + col(rng))]);
            else
                t[size_t(row(rng) * kCols + col(rng))] += 1;
            double truth = 0;
            for (size_t i = 0; i < g.size(); ++i)
                truth += (double(t[i]) - g[i]) * (double(t[i]) - g[i]);
            if (truth == 0)
                continue; // an element swapped with itself
            const auto sg = computeStats(testing::f32Tensor({kCols, kRows}, g)),
                       st = computeStats(testing::f32Tensor({kCols, kRows}, t));
            const double est = sketchDifferenceNorm(sg->sketch, st->sketch);
            const double ratio = est * est / truth;
            if (shape == "element")
                QVERIFY2(std::fabs(ratio - 1) < 1e-4, qPrintable(QString::number(ratio)));
            sum += ratio;
            sumSq += ratio * ratio;
            boundMax = std::max(boundMax, statsErrorBound(*sg, *st, g.size()) * sg->l2norm / std::sqrt(truth));
        }
        const double mean = sum / kTrials, spread = std::sqrt(std::max(0.0, sumSq / kTrials - mean * mean));
        qInfo("%s: estimated / true NMSE %.3f, spread %.3f; the statistics' bound reaches %.3f of the error",
              qPrintable(shape), mean, spread, boundMax);
        // unbiased: the mean of 400 within 4 of its standard errors (0.018 at the stated spread)
        QVERIFY2(std::fabs(mean - 1) < 4 * kSketchNmseSpread / std::sqrt(double(kTrials)),
                 qPrintable(QString::number(mean)));
        // the spread within the stated one, with room for a hash that is not truly random (measured:
        // 0.10 to 0.20 over these shapes)
        QVERIFY2(spread <= kSketchNmseSpread * 1.25, qPrintable(QString::number(spread)));
        if (shape == "swap")
            QCOMPARE(boundMax, 0.0); // what the statistics cannot see
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
