// The compare engine on files written here: metrics against a long-double reference, msit's
// special cases, NaN/Inf findings, matching (same and different topologies, a mapping file),
// the engine and msit standards' verdicts, bad inputs, and both reports.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <set>

#include "core/compare/divergence_cause.h"
#include "core/compare/error_by_layer.h"
#include "core/compare/merge_exact.h"

#include "core/compare/compare_run.h"
#include "core/compare/metrics.h"
#include "core/compare/pair_standard.h"
#include "core/compare/precision_standard.h"
#include "core/compare/quantization.h"
#include "core/compare/report.h"
#include "core/dump/dump_writer.h"
#include "core/dump/probe_status.h"
#include "core/dump/statistic_csv.h"
#include "core/dump/topology.h"
#include "core/run_spread/spread.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/npy_file.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/chain_dump.h"
#include "tests/compare_reference.h"
#include "tests/test_helpers.h"

using namespace llmscope;
using testing::Chain;
using testing::writeChain;

namespace {

// got within relTol of want, relative to want: a small value is held to its own size (an
// absolute floor would pass an NMSE of 1.6e-7 anywhere from 0 to 1e-6). absTol only where a
// figure's own accuracy is absolute, and then said why.
void near(double got, long double want, const char *what, double relTol = 1e-6, double absTol = 0)
{
    if (!(std::fabs(got - double(want)) <= relTol * std::fabs(double(want)) + absTol))
        QFAIL(qPrintable(QString("%1: %2, reference %3").arg(what).arg(got, 0, 'g', 12).arg(double(want), 0, 'g', 12)));
}

// A dump with the given ops (each {top folder, child folder, op name}), one input and one
// output each; outputs from fn(op index, element), inputs the same in every dump.
std::string writeDump(const std::string &dir, const std::vector<std::vector<std::string>> &ops,
                      const std::function<float(size_t, int)> &fn, const TopoNode *model = nullptr)
{
    DumpWriter::Options o;
    o.outDir = dir;
    o.minFreeBytes = 0;
    o.timestamp = 1700000000;
    DumpWriter w(o);
    for (size_t k = 0; k < ops.size(); ++k) {
        std::vector<float> in(64), out(64);
        for (int i = 0; i < 64; ++i) {
            in[size_t(i)] = float(i) * 0.5f + 1; // the same on both sides
            out[size_t(i)] = fn(k, i);
        }
        w.writeTensor(0, 7, 0, ops[k], true, true, 0, testing::f32Tensor({8, 8}, in));
        w.writeTensor(0, 7, 0, ops[k], false, false, 0, testing::f32Tensor({8, 8}, out));
    }
    if (model)
        w.writeText("model/7/GgmlGraph.json", writeModelTopology(*model));
    return w.root();
}

TopoNode model(const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> &groups)
{
    TopoNode m;
    m.name = "GgmlGraph";
    for (const auto &[name, children] : groups) {
        TopoNode g;
        g.name = name;
        g.type = "DecoderLayer";
        for (const auto &[n, t] : children) {
            TopoNode c;
            c.name = n;
            c.type = t;
            g.children.push_back(c);
        }
        m.children.push_back(g);
    }
    return m;
}

} // namespace

class TstCompare : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string path(const std::string &name) const { return m_dir.path().toStdString() + "/" + name; }

private slots:
    // Several runs side by side: three runs of one command, the third with one op's output
    // 1 % off in round 1 (as a race would leave it). That op is where the runs part (not
    // bit-identical within one configuration), the third run departs, and it is named as
    // nondeterminism, one run of two differing from the first. Runs of two commands part only
    // beyond ggml's budgets: the same 1 % difference in a run of another command parts too.
    void spreadNamesTheRunThatDeparts()
    {
        QTemporaryDir dir;
        std::vector<SpreadRun> runs;
        for (int k = 0; k < 3; ++k)
            runs.push_back({"cmd", testing::writeSyntheticDump(dir.filePath(QString::number(k)).toStdString()), 0});
        std::string linear;
        for (const auto &e : std::filesystem::recursive_directory_iterator(runs[2].dump))
            if (e.path().string().find("/1/1_Layer/1_Linear/after/outtensor0.bin") != std::string::npos)
                linear = e.path().string();
        QVERIFY(!linear.empty());
        testing::scaleTensorFile(linear, 1.01f);
        const SpreadResult r = computeSpread(runs);
        QCOMPARE(r.comparedPairs, 3);
        QVERIFY(r.departs());
        const SpreadOp &first = r.ops[size_t(r.firstDeparture)];
        QCOMPARE(first.opId, std::string("1_1"));
        QCOMPARE(first.round, int64_t(1));
        QCOMPARE(r.departingRun, 2);
        QVERIFY(first.spread > 0.009 && first.spread < 0.011); // 1 %, relative euclidean
        QVERIFY2(first.why.english().find("runs 1 and 3 (one configuration) are not bit-identical") !=
                     std::string::npos,
                 first.why.english().c_str());
        QCOMPARE(r.nondeterministic.size(), size_t(1));
        QCOMPARE(r.ops[r.nondeterministic[0]].differing, 1);
        for (const SpreadOp &o : r.ops) // every other op: the same in every run
            QVERIFY(&o == &first || (o.spread == 0 && !o.departs));
        const std::string json = spreadJson(r);
        QVERIFY(json.find("\"first_departure\": {") != std::string::npos);
        QVERIFY(json.find("\"run\": 2") != std::string::npos);
        QCOMPARE(r.observerChanged(), -1);
        QVERIFY(json.find("\"observer_changed_run\": -1") != std::string::npos);

        // Each run's observer check travels with it: the first run it says observing changed is named.
        std::vector<SpreadRun> checked = runs;
        checked[0].observer = ObserverCheck{3, std::nullopt, std::nullopt, "result_output", 0};
        checked[1].observer = ObserverCheck{1, int64_t(1), std::nullopt, "result_output", 1e-6};
        QCOMPARE(computeSpread(checked).observerChanged(), -1); // its last bits only: said, not named
        checked[1].observer->relativeError = 1e-3;
        const SpreadResult o = computeSpread(checked);
        QCOMPARE(o.observerChanged(), 1);
        const std::string oj = spreadJson(o);
        QVERIFY(oj.find("\"observer_changed_run\": 1") != std::string::npos);
        QVERIFY(oj.find("round 1's result_output differs") != std::string::npos);
        QVERIFY(oj.find("\"rounds_compared\": 3") != std::string::npos);

        // The same two runs as two commands: each held to ggml's budget, which 1 % of a plain
        // dump's op (msit's standard: no budget of its own) exceeds, and nothing nondeterministic.
        const SpreadResult two = computeSpread({{"a", runs[0].dump, 0}, {"b", runs[2].dump, 1}});
        QCOMPARE(two.comparedPairs, 1);
        QVERIFY(two.nondeterministic.empty());
        QVERIFY(two.departs());
        QCOMPARE(two.departingRun, 1); // of two, the second (the first is the reference)
        QVERIFY_THROWS_EXCEPTION(Error, computeSpread({runs[0]}));
    }

    // From statistics alone, runs of one command differing in one bit of one element: their
    // statistics (six decimals) agree, their digests do not, so the op is named
    // nondeterministic, judged from statistics; its round is the suspect a second pass dumps,
    // and that pass's measure takes its place.
    void spreadFromStatisticsTellsOneBit()
    {
        QTemporaryDir dir;
        auto statsDump = [&](const QString &name, float last) {
            const std::string root = dir.filePath(name).toStdString();
            StatisticRow r;
            r.pid = 9;
            r.exec = 0;
            r.opFolders = {"1_DecoderLayer", "3_MUL_MAT"};
            r.opType = "MUL_MAT";
            r.dims = {4};
            r.stats = computeStats(testing::f32Tensor({4}, {1, -2, 3, last}));
            r.tensorPath = root + "/tensors/0_9/0/1_DecoderLayer/3_MUL_MAT/after/outtensor0.bin";
            std::filesystem::create_directories(root + "/tensors/0_9/0");
            writeFileAtomic(root + "/tensors/0_9/0/statistic.csv", statisticCsvHeader() + statisticCsvLine(r));
            return root;
        };
        const float half = 0.5f, next = std::nextafter(half, 1.0f);
        std::vector<SpreadRun> runs{
            {"cmd", statsDump("a", half), 0}, {"cmd", statsDump("b", half), 0}, {"cmd", statsDump("c", next), 0}};
        SpreadResult r = computeSpread(runs);
        QCOMPARE(r.ops.size(), size_t(1));
        const SpreadOp &o = r.ops[0];
        QVERIFY(!o.fromTensors);
        QCOMPARE(o.fromFirst[1], 0.0); // a and b: the same digest
        QVERIFY(o.departs); // c: one bit apart, which no statistic shows
        QCOMPARE(o.differing, 1);
        QCOMPARE(r.nondeterministic.size(), size_t(1));
        QVERIFY2(o.why.english().find("runs 1 and 3 (one configuration) are not bit-identical") != std::string::npos,
                 o.why.english().c_str());
        const SpreadSuspects s = suspectsOf(r);
        QCOMPARE(s.firstRound, int64_t(0));
        QCOMPARE(s.lastRound, int64_t(0));
        SpreadResult exact; // what a second pass of tensors measures there
        exact.runs = {{"cmd", "a2", 0}, {"cmd", "b2", 0}, {"cmd", "c2", 0}};
        exact.ops = {o};
        exact.ops[0].fromTensors = true;
        exact.ops[0].spread = 6e-8;
        exact.ops[0].fromFirst = {0, 0, 6e-8};
        QCOMPARE(r.configurations.size(), size_t(3)); // these dumps have no status: nothing said
        QVERIFY(!r.configurations[1] && !r.configurations[2]);
        r.configurations[2] = ConfigDiff{};
        r.configurations[2]->compared = 7; // what the first pass said of run 3's configuration
        mergeExact(r, exact);
        QVERIFY(r.configurations[2] &&
                r.configurations[2]->compared == 7); // kept: the second pass's runs are the same commands
        QCOMPARE(r.ops[0].spread, 6e-8);
        QVERIFY(r.ops[0].fromTensors);
        QVERIFY(suspectsOf(r).empty()); // measured: no further pass
        QCOMPARE(r.departureDump(), std::string("c2"));
        QCOMPARE(r.departureReference(), std::string("a2"));
        QVERIFY(spreadJson(r).find("\"second_pass\": [") != std::string::npos);
    }

    // The error curves' data: per shown round, each layer's worst output error and its op,
    // and the error its ops add; the first divergent op's round always among those shown.
    // One rule says where the first divergent op's error comes from, for every front end.
    void divergenceCauses()
    {
        CompareResult r;
        r.rows.resize(2);
        r.rows[0].weight = true;
        r.rows[0].tensorName = "blk.1.ffn_down.weight";
        r.rows[0].computed = true; // the weights compared: the same
        r.rows[0].metrics.goldenNorm = 1;
        r.rows[1].passed = false;
        OpResult op;
        op.worstInput = 0;
        op.worstInputIsWeight = true;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Itself); // the same weight: not its cause
        r.rows[0].metrics.relEuclidean = 0.05;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Weight);
        // from two programs' statistics: rounding apart is the same weight, more differs
        r.rows[0].computed = false;
        r.rows[0].statsOnly = true;
        r.rows[0].statsBound = 0;
        r.rows[0].statsEstimate = 1e-7;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Itself);
        r.rows[0].statsEstimate = 0.05;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Weight);
        QCOMPARE(divergenceCause(r, op).row, &r.rows[0]);
        // Worded once for every front end, the error said as it is known.
        QCOMPARE(QString::fromStdString(causeWords(r, op).english()),
                 QString("the weight blk.1.ffn_down.weight differs between golden and test "
                         "(relative error about 5 %): the op's error comes in through it"));
        r.rows[0].quantization = Quantization{"f32", "q4_0", 0.08, 0.08, 0.0};
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Itself); // its quantization: the op's own
        r.rows[0].quantization->error = 0.3; // beyond what quantization explains
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Weight);
        op.worstInput = 1;
        op.worstInputIsWeight = false;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Input);
        r.rows[1].golden.index = 1;
        r.rows[1].computed = true;
        r.rows[1].metrics.relEuclidean = 0.125;
        QCOMPARE(
            QString::fromStdString(causeWords(r, op).english()), // no name: its place among the op's inputs
            QString("its input 1 already differs (relative error 12.5 %): the op that computes it was not compared"));
        r.rows[1].tensorName = "attn_norm-0";
        r.rows[1].computed = true;
        r.rows[1].metrics.relEuclidean = 0.125;
        QCOMPARE(QString::fromStdString(causeWords(r, op).english()),
                 QString("its input attn_norm-0 already differs (relative "
                         "error 12.5 %): the op that computes it was not compared"));
        r.rows[1].passed = true;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Itself);
        op.worstInput = -1;
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Itself);
        QVERIFY(causeWords(r, op).empty()); // it adds nothing: nothing to say
        op.addedError = 0.01;
        QCOMPARE(QString::fromStdString(causeWords(r, op).english()),
                 QString("its inputs agree more than its output: the op itself adds the error"));
        r.standard = Standard::Engine; // whose verdict says it
        QVERIFY(causeWords(r, op).empty());
        op.unreadable = "truncated";
        QCOMPARE(divergenceCause(r, op).kind, DivergenceCause::Kind::Unreadable);
    }

    void errorByLayerCurves()
    {
        CompareResult r;
        auto op = [](int64_t round, const char *id, double out, double added) {
            OpResult o;
            o.round = round;
            o.opId = id;
            o.outputError = out;
            o.addedError = added;
            return o;
        };
        for (int64_t round = 0; round < 5; ++round) {
            r.ops.push_back(op(round, "1_0", 0.01, 0.01));
            r.ops.push_back(op(round, "1_3", 0.02, 0.001));
            r.ops.push_back(op(round, "2_1", round == 4 ? 0.5 : 0.03, round == 4 ? 0.4 : 0.0));
        }
        r.firstDivergent = 14; // round 4's 2_1
        const ErrorByLayer e = errorByLayer(r, 4, 3);
        QCOMPARE(e.layers, 4);
        QCOMPARE(e.firstRound, int64_t(4));
        QCOMPARE(e.roundsCompared, size_t(5));
        QCOMPARE(e.output.size(), size_t(3)); // round 4, then the earliest: 0 and 1
        QVERIFY(e.output.count(4) && e.output.count(0) && e.output.count(1) && !e.output.count(2));
        QCOMPARE(e.output.at(0)[1], 0.02);
        QCOMPARE(e.worst.at(0)[1], std::string("1_3"));
        QCOMPARE(e.added.at(0)[1], 0.01); // the most any op of the layer adds
        QCOMPARE(e.output.at(4)[2], 0.5);
        QCOMPARE(e.added.at(4)[2], 0.4);
        QVERIFY(std::isnan(e.output.at(0)[0]) && std::isnan(e.output.at(0)[3])); // nothing compared there
    }

    void metricsEqualTheReference_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("noise");
        QTest::newRow("small noise") << 1 << 1000 << 1e-3;
        QTest::newRow("large noise") << 2 << 5000 << 0.5;
        QTest::newRow("over chunks") << 3 << 200000 << 1e-2;
        QTest::newRow("with zeros") << 4 << 777 << 1e-1;
    }
    void metricsEqualTheReference()
    {
        QFETCH(int, seed);
        QFETCH(int, n);
        QFETCH(double, noise);
        std::mt19937 rng(seed);
        std::normal_distribution<float> d(0, 2);
        std::vector<float> g(static_cast<size_t>(n)), m(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
            g[size_t(i)] = (i % 13 == 0 && seed == 4) ? 0.0f : d(rng);
            m[size_t(i)] = g[size_t(i)] + float(noise) * d(rng);
        }
        const Metrics x = computeMetrics(g.data(), m.data(), uint64_t(n), 1e-3);
        const testing::Reference r = testing::reference(g, m);
        near(1 - x.cosine, 1 - r.cosine, "1 - cosine"); // near 1, its distance from 1 is the figure
        near(x.maxRelErr, r.maxRel, "max relative error");
        near(x.meanRelErr, r.meanRel, "mean relative error");
        near(x.maxAbsErr, r.maxAbs, "max absolute error");
        near(x.meanAbsErr, r.meanAbs, "mean absolute error");
        // msit's KL sums the softmax's exponentials in float, as msit does: it holds to 2e-8
        // absolute (5.8e-9 the worst seen over these rows), not to its relative size.
        near(x.klDivergence, r.kl, "kl divergence", 1e-6, 2e-8);
        near(x.relEuclidean, r.red, "relative euclidean distance");
        QCOMPARE(x.count, uint64_t(n));
    }

    void specialCases()
    {
        const std::vector<float> z(16, 0.0f), one(16, 1.0f);
        const Metrics zz = computeMetrics(z.data(), z.data(), 16, 1e-7);
        QCOMPARE(zz.cosine, 1.0); // msit: both all zero
        QCOMPARE(zz.relEuclidean, 0.0);
        QVERIFY(zz.passed(defaultTolerance(0)));
        const Metrics zo = computeMetrics(z.data(), one.data(), 16, 1e-7);
        QCOMPARE(zo.cosine, 0.0);
        QCOMPARE(zo.maxRelErr, 0.0); // |g| <= eps: relative error 0, as msit
        QCOMPARE(zo.maxAbsErr, 1.0); // not masked (msit would report 0)
        QCOMPARE(zo.relEuclidean, 0.0); // ||g|| <= eps
        QVERIFY(!zo.passed(defaultTolerance(0)));
        const Metrics same = computeMetrics(one.data(), one.data(), 16, 1e-7);
        QCOMPARE(same.cosine, 1.0);
        QCOMPARE(same.klDivergence, 0.0);
        QCOMPARE(same.within01, 1.0);
    }

    // Chunks whose sides are the same bytes take a shorter way (compareData); fed in any mix
    // with differing chunks, the metrics are those of the general way.
    void sameChunksMatchTheGeneralWay()
    {
        std::mt19937 rng(7);
        std::normal_distribution<float> d(0, 3);
        const uint64_t chunk = 10000, n = 4 * chunk;
        std::vector<float> g(n), m(n);
        for (uint64_t i = 0; i < n; ++i)
            g[i] = m[i] = d(rng);
        for (uint64_t i = chunk; i < 2 * chunk; ++i)
            m[i] += 0.01f * d(rng); // chunk 1 differs, 0, 2 and 3 do not
        g[3 * chunk + 5] = m[3 * chunk + 5] = 16.0f; // a new maximum in a later same chunk (not one so
            // large that the softmax is one-hot: KL 0)
        g[2 * chunk + 9] = m[2 * chunk + 9] = NAN; // and a NaN in another
        const Metrics ref = computeMetrics(g.data(), m.data(), n, 1e-3);
        QVERIFY2(ref.klDivergence > 1e-6, qPrintable(QString::number(ref.klDivergence)));
        MetricAccumulator acc(1e-3);
        for (uint64_t at = 0; at < n; at += chunk) {
            if (std::memcmp(&g[at], &m[at], chunk * sizeof(float)) == 0)
                acc.addSame(&g[at], chunk); // chunks 0, 2 (its NaN is the same bytes on both sides) and 3
            else
                acc.add(&g[at], &m[at], chunk);
        }
        const Metrics x = acc.finish();
        QCOMPARE(x.count, ref.count);
        QCOMPARE(x.nanGolden, uint64_t(1));
        QCOMPARE(x.nanMy, uint64_t(1));
        QCOMPARE(x.nonFiniteMismatch, ref.nonFiniteMismatch);
        near(1 - x.cosine, 1 - ref.cosine, "1 - cosine");
        near(x.klDivergence, ref.klDivergence, "kl divergence");
        near(x.relEuclidean, ref.relEuclidean, "relative euclidean distance");
        near(x.meanAbsErr, ref.meanAbsErr, "mean absolute error");
        near(x.goldenMean, ref.goldenMean, "golden mean");
        QCOMPARE(x.goldenMax, 16.0);
        QCOMPARE(x.myMin, ref.myMin);
        QCOMPARE(x.within01, ref.within01);
        QCOMPARE(x.withinTol, ref.withinTol);

        // As compareData goes: the same chunks first without their exponentials, brought in
        // once chunk 1 differs.
        MetricAccumulator later(1e-3);
        later.addSame(&g[0], chunk, false);
        QVERIFY(later.expPending());
        later.addSameExp(&g[0], chunk);
        QVERIFY(!later.expPending());
        later.add(&g[chunk], &m[chunk], chunk);
        later.addSame(&g[2 * chunk], chunk);
        later.addSame(&g[3 * chunk], chunk);
        const Metrics y = later.finish();
        near(y.klDivergence, ref.klDivergence, "kl divergence, exponentials brought in later");
        near(1 - y.cosine, 1 - ref.cosine, "1 - cosine, exponentials brought in later");
        QCOMPARE(y.count, ref.count);

        // A tensor that is the same throughout: exact cosine, no divergence, every element within.
        MetricAccumulator same(1e-7), deferred(1e-7);
        same.addSame(g.data(), chunk);
        deferred.addSame(g.data(), chunk, false);
        const Metrics s = same.finish(), sd = deferred.finish();
        QCOMPARE(sd.cosine, s.cosine);
        QCOMPARE(sd.klDivergence, 0.0);
        QCOMPARE(sd.goldenMean, s.goldenMean);
        const Metrics sref = computeMetrics(g.data(), g.data(), chunk, 1e-7);
        QCOMPARE(s.cosine, sref.cosine);
        QCOMPARE(s.klDivergence, 0.0);
        QCOMPARE(s.maxAbsErr, 0.0);
        QCOMPARE(s.within01, 1.0);
        near(s.goldenMean, sref.goldenMean, "golden mean");
    }

    void nanAndInfAreFindings()
    {
        std::vector<float> g(10, 1.0f), m(10, 1.0f);
        g[2] = NAN;
        m[3] = INFINITY;
        m[4] = -INFINITY;
        m[5] = NAN;
        const Metrics x = computeMetrics(g.data(), m.data(), 10, 1e-7);
        QCOMPARE(x.nanGolden, uint64_t(1));
        QCOMPARE(x.infMy, uint64_t(2));
        QCOMPARE(x.nanMy, uint64_t(1));
        QCOMPARE(x.count, uint64_t(6)); // the finite pairs
        QCOMPARE(x.cosine, 1.0);
        QVERIFY(!x.passed(defaultTolerance(0)));
    }

    void toleranceTableAndShares()
    {
        QCOMPARE(defaultTolerance(1).relTol, 1e-3);
        QCOMPARE(defaultTolerance(27).relTol, 1e-2);
        QCOMPARE(defaultTolerance(0).passRate, 0.9999);
        QCOMPARE(defaultTolerance(2).relTol, 1.0);
        std::vector<float> g(1000, 1.0f), m(1000, 1.0f);
        for (int i = 0; i < 3; ++i)
            m[size_t(i)] = 1.004f; // 0.4 %: outside 0.1 %, inside 0.5 %
        m[3] = 1.01f;
        const Metrics x = computeMetrics(g.data(), m.data(), 1000, 1e-3);
        QCOMPARE(x.within01, 0.996);
        QCOMPARE(x.within05, 0.999);
        QVERIFY(!x.passed({1e-3, 0.999}));
        QVERIFY(x.passed({1e-3, 0.996}));
    }

    void sameTopologyPairsByPath()
    {
        const auto ops =
            std::vector<std::vector<std::string>>{{"0_Embed"}, {"1_Layer", "0_Norm"}, {"1_Layer", "1_Linear"}};
        const std::string g = writeDump(path("same/g"), ops, [](size_t k, int i) { return float(k + i); });
        const std::string m = writeDump(path("same/m"), ops, [](size_t k, int i) {
            return float(k + i) * (k == 1 ? 1.01f : 1.0f); // op 1_0 adds 1 %
        });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        const CompareResult r = runCompare(o);
        QCOMPARE(r.method.english(), std::string("same topology"));
        QCOMPARE(r.rows.size(), size_t(6));
        QVERIFY(r.onlyGolden.empty() && r.onlyMy.empty());
        QCOMPARE(r.ops.size(), size_t(3));
        QCOMPARE(r.firstDivergent, 1);
        QCOMPARE(r.ops[1].opId, std::string("1_0"));
        QVERIFY(r.ops[0].passed);
        QVERIFY(std::fabs(r.ops[1].addedError - 0.01) < 1e-4); // its input is fine, its output is 1 % off
        QVERIFY(!r.allPassed());
    }

    // Flash attention off inserts nodes: the matching pairs by layer, node name and op.
    void differentTopologiesPairByNameAndOp()
    {
        const auto gm =
            model({{"Layer0", {{"norm-0", "RMS_NORM"}, {"attn_out-0", "MUL_MAT"}, {"ffn_out-0", "MUL_MAT"}}}});
        const auto mm = model({{"Layer0",
                                {{"norm-0", "RMS_NORM"},
                                 {"kq-0", "MUL_MAT"},
                                 {"kq_soft_max-0", "SOFT_MAX"},
                                 {"attn_out-0", "MUL_MAT"},
                                 {"ffn_out-0", "MUL_MAT"}}}});
        const std::string g = writeDump(
            path("topo/g"),
            {{"0_DecoderLayer", "0_RMS_NORM"}, {"0_DecoderLayer", "1_MUL_MAT"}, {"0_DecoderLayer", "2_MUL_MAT"}},
            [](size_t k, int i) { return float(k * 100 + i); }, &gm);
        const std::vector<size_t> same = {0, 99, 99, 1, 2}; // my node -> golden node with the same values
        const std::string m = writeDump(
            path("topo/m"),
            {{"0_DecoderLayer", "0_RMS_NORM"},
             {"0_DecoderLayer", "1_MUL_MAT"},
             {"0_DecoderLayer", "2_SOFT_MAX"},
             {"0_DecoderLayer", "3_MUL_MAT"},
             {"0_DecoderLayer", "4_MUL_MAT"}},
            [&](size_t k, int i) { return float(same[k] * 100 + i); }, &mm);
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        const CompareResult r = runCompare(o);
        QCOMPARE(r.method.english(), std::string("by layer, node name and op"));
        QCOMPARE(r.rows.size(), size_t(6));
        QVERIFY(r.allPassed() == false); // unmatched nodes on my side
        for (const auto &row : r.rows)
            QVERIFY2(row.passed, row.key.c_str()); // every pair holds the same values
        QCOMPARE(r.onlyMy.size(), size_t(4)); // kq and kq_soft_max, input and output each
        QCOMPARE(r.onlyGolden.size(), size_t(0));
        // A mapping pairs what names cannot: golden's 0_1 with my 0_2 (a deliberate mismatch).
        writeFileAtomic(path("map.json"), R"({"pairs": [{"golden": "0_1", "my": "0_2"}]})");
        o.mappingFile = path("map.json");
        const CompareResult mapped = runCompare(o);
        bool seen = false;
        for (const auto &row : mapped.rows)
            if (row.golden.opId == "0_1") {
                QCOMPARE(row.my.opId, std::string("0_2"));
                QCOMPARE(row.passed, row.golden.input); // same inputs, other outputs
                seen = true;
            }
        QVERIFY(seen);
    }

    // Nodes without a name of their own (ggml's " (reshaped)" suffix alone) that a backend
    // computes in the other order (Vulkan reorders its graph): told apart by their shapes,
    // each paired with its own; without that, the first of each side pairs and neither
    // compares. Sides whose shapes differ (another batch) still pair by occurrence.
    void unnamedNodesPairByTheirShapes()
    {
        auto write = [&](const std::string &dir, bool swapped, int64_t tokens) {
            DumpWriter::Options o;
            o.outDir = dir;
            o.minFreeBytes = 0;
            o.timestamp = 1700000000;
            DumpWriter w(o);
            std::vector<std::pair<std::string, std::vector<int64_t>>> nodes{{" (reshaped)", {tokens, 4, 8}},
                                                                            {" (reshaped)", {tokens, 2, 8}}};
            if (swapped)
                std::swap(nodes[0], nodes[1]);
            nodes.insert(nodes.begin(), {"norm-0", {tokens, 8}});
            if (swapped) // another graph: a node more, so pairing goes by layer, name and op
                nodes.push_back({"extra-0", {tokens, 8}});
            TopoNode m = model({{"Layer0", {}}});
            for (size_t k = 0; k < nodes.size(); ++k) {
                const auto &[name, dims] = nodes[k];
                const std::string type = name == " (reshaped)" ? "RESHAPE" : "MUL";
                m.children[0].children.push_back(TopoNode{});
                m.children[0].children.back().name = name;
                m.children[0].children.back().type = type;
                int64_t n = 1;
                for (int64_t d : dims)
                    n *= d;
                std::vector<float> v(static_cast<size_t>(n));
                for (size_t i = 0; i < v.size(); ++i)
                    v[i] = float(dims[1]) + 0.01f * float(i);
                w.writeTensor(0, 7, 0, {"0_DecoderLayer", std::to_string(k) + "_" + type}, false, false, 0,
                              testing::f32Tensor(dims, v));
            }
            w.writeText("model/7/GgmlGraph.json", writeModelTopology(m));
            return w.root();
        };
        CompareOptions o;
        o.goldenPath = write(path("unnamed/g"), false, 3);
        o.myPath = write(path("unnamed/m"), true, 3);
        const CompareResult r = runCompare(o);
        QCOMPARE(r.method.english(), std::string("by layer, node name and op"));
        int reshapes = 0;
        for (const auto &row : r.rows) {
            QVERIFY2(row.passed && !row.unreadable, row.key.c_str());
            if (row.golden.opFolders.at(1).find("RESHAPE") != std::string::npos) {
                QCOMPARE(row.golden.dims, row.my.dims);
                ++reshapes;
            }
        }
        QCOMPARE(reshapes, 2);
        // one token a round on one side: the shapes differ, occurrence pairs them still
        o.myPath = write(path("unnamed/m1"), false, 1);
        o.goldenPath = write(path("unnamed/g3"), true, 3);
        const CompareResult other = runCompare(o);
        int paired = 0;
        for (const auto &row : other.rows)
            paired += row.golden.opFolders.at(1).find("RESHAPE") != std::string::npos;
        QCOMPARE(paired, 2);
    }

    void mappingFilesAreChecked_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "{"
                                  << "not JSON";
        QTest::newRow("list") << "[1]"
                              << "expected an object";
        QTest::newRow("number") << R"({"3_1": 4})"
                                << "must be strings";
        QTest::newRow("bad id") << R"({"3_x": "4"})"
                                << "not an op id";
        QTest::newRow("pairs") << R"({"pairs": [{"golden": "1"}]})"
                               << "needs \"golden\" and \"my\"";
    }
    void mappingFilesAreChecked()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseOpMapping(text.toStdString());
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
        QCOMPARE(parseOpMapping(R"({"3_1": "3_4"})").at("3_1"), std::string("3_4"));
    }

    void mappingWrittenReadsBack()
    {
        const OpMapping m{{"3_1", "3_4"}, {"12_0", "12_2"}};
        QCOMPARE(parseOpMapping(writeOpMapping(m)), m);
    }

    void filesAgainstFiles()
    {
        Tensor a = testing::f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6});
        writeBin(path("a.bin"), a);
        Tensor h; // the same values in float16, exactly representable
        h.dtype = 1;
        h.dims = {2, 3};
        h.hasData = true;
        for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) {
            const uint16_t x = floatToHalf(v);
            h.data.push_back(uint8_t(x & 0xFF));
            h.data.push_back(uint8_t(x >> 8));
        }
        writeBin(path("h.bin"), h);
        writeNpy(path("a.npy"), a);
        writeBin(path("short.bin"), testing::f32Tensor({5}, {1, 2, 3, 4, 5}));
        writeBin(path("t.bin"), testing::f32Tensor({3, 2}, {1, 2, 3, 4, 5, 6}));
        CompareOptions o;
        o.goldenPath = path("a.bin");
        for (const char *other : {"h.bin", "a.npy"}) {
            o.myPath = path(other);
            const CompareResult r = runCompare(o);
            QCOMPARE(r.rows.size(), size_t(1));
            QVERIFY2(r.rows[0].passed, r.rows[0].failReason.english().c_str());
            QCOMPARE(r.rows[0].metrics.cosine, 1.0);
        }
        o.myPath = path("short.bin");
        const CompareResult s = runCompare(o);
        QCOMPARE(s.rows.size(), size_t(1));
        QVERIFY(!s.rows[0].passed);
        QVERIFY2(QString::fromStdString(s.rows[0].failReason.english()).contains("shape mismatch: golden 2,3 vs my 5"),
                 s.rows[0].failReason.english().c_str());
        o.myPath = path("t.bin"); // same count, other shape: compared, and said
        const CompareResult t = runCompare(o);
        QCOMPARE(t.rows.size(), size_t(1));
        QVERIFY(QString::fromStdString(t.rows[0].failReason.english()).contains("different shapes"));
        // A truncated file is a reason on its row, not a crash.
        const auto bytes = readWholeFile(path("a.bin"));
        writeFileAtomic(path("cut.bin"), std::string(bytes.begin(), bytes.end() - 5));
        o.myPath = path("cut.bin");
        const CompareResult c = runCompare(o);
        QCOMPARE(c.rows.size(), size_t(1));
        QVERIFY(!c.rows[0].passed && !c.rows[0].failReason.empty());
        // ... reported as unreadable, with no metrics that could pass for a comparison
        QVERIFY(c.rows[0].unreadable && !c.rows[0].computed);
        QCOMPARE(c.firstDivergent, 0);
        QVERIFY2(QString::fromStdString(c.ops[0].unreadable.english()).contains("truncated"),
                 c.ops[0].unreadable.english().c_str());
        QVERIFY(msitReportCsv(c).find("N/A,N/A,N/A,N/A,N/A,N/A,N/A,\"unreadable: ") != std::string::npos);
    }

    // Dims whose element count overflows 64 bits are an error that says so, not "0 bytes".
    void overflowingDimsSaySo()
    {
        const std::string header = "$Version=1.0\n$Object.Count=1\n$Object.Length=4\nformat=2\ndtype=0\n"
                                   "dims=4294967296,4294967296,2\n$Object.data=0,4\n$End=1\n";
        writeFileAtomic(path("huge.bin"), header + std::string(4, '\0'));
        try {
            readBinFile(path("huge.bin"), true);
            QFAIL("read");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("overflows 64 bits"), e.what());
        }
        const std::string bytesOverflow = "$Version=1.0\n$Object.Count=0\n$Object.Length=0\nformat=2\ndtype=9\n"
                                          "dims=4294967296,536870912\n$End=1\n"; // 2^61 int64: 2^67 bits
        writeFileAtomic(path("huge2.bin"), bytesOverflow);
        try {
            readBinFile(path("huge2.bin"), true);
            QFAIL("read");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("more than 2^64 bits"), e.what());
        }
        CompareOptions o;
        writeBin(path("ovf-golden.bin"), testing::f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})); // its own: alone or not
        o.goldenPath = path("ovf-golden.bin");
        o.myPath = path("huge.bin");
        const CompareResult r = runCompare(o);
        QCOMPARE(r.rows.size(), size_t(1));
        QVERIFY(r.rows[0].unreadable);
        QVERIFY2(QString::fromStdString(r.rows[0].failReason.english()).contains("overflows 64 bits"),
                 r.rows[0].failReason.english().c_str());
    }

    void cancelStopsTheCompare()
    {
        const auto ops = std::vector<std::vector<std::string>>{{"0_Embed"}, {"1_Head"}};
        const std::string g = writeDump(path("cancel/g"), ops, [](size_t, int i) { return float(i); });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = g;
        std::atomic<bool> cancel{true};
        o.cancel = &cancel;
        try {
            runCompare(o);
            QFAIL("ran");
        } catch (const Error &e) {
            QCOMPARE(QString(e.what()), QString("compare cancelled"));
        }
        cancel = false;
        QVERIFY(runCompare(o).allPassed());
    }

    void badInputsSayWhat()
    {
        CompareOptions o;
        o.goldenPath = path("nowhere");
        o.myPath = path("a.bin");
        try {
            runCompare(o);
            QFAIL("ran");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).contains("neither a dump folder nor a tensor file"));
        }
        QDir().mkpath(QString::fromStdString(path("empty")));
        o.goldenPath = path("empty");
        o.myPath = path("empty");
        try {
            runCompare(o);
            QFAIL("ran");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).contains("holds no tensors"));
        }
    }

    // Two backends of one model: rounding noise everywhere, more in the matrix products. The
    // engine standard passes it all and names the op adding the most for its budget; msit's
    // per-element rule fails nearly every pair.
    void engineStandardPassesRoundingNoise()
    {
        const Chain c{{{"norm-0", "RMS_NORM"},
                       {"Qcur-0", "MUL_MAT"},
                       {"Qcur-0 (reshaped)", "RESHAPE"},
                       {"ffn_inp-0", "ADD"},
                       {"ffn_swiglu-0", "SWIGLU"},
                       {"ffn_out-0", "MUL_MAT"}},
                      {1, 5}};
        const std::vector<double> rel{3e-7, 4e-4, 4e-4, 2e-4, 3e-4, 5e-4}; // what each output carries
        const std::string g = writeChain(path("eng/g"), c, [](size_t) { return 0.0; });
        const std::string m = writeChain(path("eng/m"), c, [&](size_t k) { return rel[k]; });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        o.standard = Standard::Engine;
        const CompareResult r = runCompare(o);
        QCOMPARE(r.ops.size(), size_t(6));
        QVERIFY2(r.firstDivergent < 0,
                 r.firstDivergent >= 0 ? r.ops[size_t(r.firstDivergent)].verdict.english().c_str() : "");
        QVERIFY(r.allPassed());
        // SWIGLU and ffn_out carry less than twice what they get; Qcur adds 1.6e-7 - (2 * 3e-7)^2.
        QCOMPARE(r.mostAdded, 1);
        // (the chain's values are float32: what they store is 2e-5 off the figures asked for)
        near(r.ops[1].nmse, 1.6e-7L, "Qcur NMSE", 1e-4);
        near(r.ops[1].budgetShare, (1.6e-7L - 3.6e-13L) / 5e-4L, "Qcur's share of its budget", 1e-4);
        QCOMPARE(r.ops[2].ownNmse, 0.0); // a reshape passes on what it gets
        QCOMPARE(r.ops[3].ownNmse, 0.0); // a sum's error is bounded by its inputs'
        o.standard = Standard::Msit;
        const CompareResult msit = runCompare(o);
        QCOMPARE(msit.firstDivergent, 0);
        size_t failed = 0;
        for (const auto &row : msit.rows)
            failed += !row.passed;
        QCOMPARE(failed, size_t(11)); // every pair but the graph input: 1e-7 per element is float32's rounding
    }

    // A kernel that adds error beyond its budget is named; the ops after it carry the error
    // without being blamed for it. A weight that differs is named as its op's cause.
    void engineStandardNamesTheOpThatAddsError()
    {
        const Chain c{{{"norm-0", "RMS_NORM"},
                       {"Qcur-0", "MUL_MAT"},
                       {"ffn_inp-0", "ADD"},
                       {"ffn_swiglu-0", "SWIGLU"},
                       {"ffn_out-0", "MUL_MAT"}},
                      {1, 4}};
        const std::string g = writeChain(path("bad/g"), c, [](size_t) { return 0.0; });
        // The SWIGLU adds 3e-3 relative error (NMSE 9e-6 > 1e-7); what follows carries it.
        const std::vector<double> rel{1e-7, 3e-4, 2e-4, 3e-3, 3.2e-3};
        const std::string m = writeChain(path("bad/m"), c, [&](size_t k) { return rel[k]; });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        o.standard = Standard::Engine;
        const CompareResult r = runCompare(o);
        QCOMPARE(r.firstDivergent, 3);
        QVERIFY(!r.ops[3].passed);
        QVERIFY2(QString::fromStdString(r.ops[3].verdict.english())
                     .contains("beyond what its inputs explain (budget 1e-07 for SWIGLU)"),
                 r.ops[3].verdict.english().c_str());
        QVERIFY(r.ops[4].passed); // ffn_out carries it
        QCOMPARE(r.mostAdded, 3);

        // The same run whose ffn_out weight differs by 1 %: that op is named, with the weight.
        const std::string w = writeChain(
            path("bad/w"), c, [](size_t k) { return k == 4 ? 1e-2 : 0.0; },
            [](size_t k) { return k == 4 ? 1e-2 : 0.0; });
        o.myPath = w;
        const CompareResult rw = runCompare(o);
        QCOMPARE(rw.firstDivergent, 4);
        // An op that only moves data and still adds error beyond its input's is named too.
        const Chain moved{{{"norm-0", "RMS_NORM"}, {"Qcur-0", "MUL_MAT"}, {"Qcur-0 (reshaped)", "RESHAPE"}}, {}};
        o.goldenPath = writeChain(path("bad/mg"), moved, [](size_t) { return 0.0; });
        o.myPath = writeChain(path("bad/mm"), moved, [](size_t k) { return k == 2 ? 5e-2 : k == 1 ? 1e-4 : 0.0; });
        const CompareResult rm = runCompare(o);
        QCOMPARE(rm.firstDivergent, 2);
        QVERIFY2(QString::fromStdString(rm.ops[2].verdict.english()).contains("RESHAPE moves data and must add none"),
                 rm.ops[2].verdict.english().c_str());
        QVERIFY2(QString::fromStdString(rw.ops[4].verdict.english()).contains("the weight w4.weight differs"),
                 rw.ops[4].verdict.english().c_str());
        QVERIFY(rw.ops[4].worstInputIsWeight);
    }

    // Ops are judged and named in the order they run: ids compare by their numbers, so a
    // layer's op 0_10 comes after its op 0_2, and layer 10 after layer 2. Under the engine
    // standard the first op adding error is named (op 1's rounding is within MUL_MAT's
    // budget); under msit's the first whose elements differ.
    void opsFollowTheirNumericIds()
    {
        Chain c;
        for (int k = 0; k < 12; ++k)
            c.ops.push_back({"op-" + std::to_string(k), k == 1 ? "MUL_MAT" : "MUL"});
        // op 1 rounds (1e-5), op 2 adds 1 %, ops 3 to 9 carry it, op 10 adds 10 %, op 11 carries it
        auto rel = [](size_t k) { return k == 0 ? 0.0 : k == 1 ? 1e-5 : k < 10 ? 1e-2 : 1e-1; };
        CompareOptions o;
        o.goldenPath = writeChain(path("order/g"), c, [](size_t) { return 0.0; });
        o.myPath = writeChain(path("order/m"), c, rel);
        o.standard = Standard::Engine;
        const CompareResult r = runCompare(o);
        QCOMPARE(r.ops.size(), size_t(12));
        for (size_t k = 0; k < 12; ++k)
            QCOMPARE(r.ops[k].opId, "0_" + std::to_string(k));
        QCOMPARE(r.firstDivergent, 2);
        std::vector<size_t> failed;
        for (size_t k = 0; k < r.ops.size(); ++k)
            if (!r.ops[k].passed)
                failed.push_back(k);
        QCOMPARE(failed, (std::vector<size_t>{2, 10}));
        QCOMPARE(r.mostAdded, 10);
        o.standard = Standard::Msit;
        const CompareResult msit = runCompare(o);
        QCOMPARE(msit.ops.size(), size_t(12));
        QCOMPARE(msit.firstDivergent, 1);
        QCOMPARE(msit.ops[1].opId, std::string("0_1"));

        // Top-level ids of one and two digits, loose dumps (msit's standard).
        const std::vector<std::vector<std::string>> layers{
            {"10_Layer", "0_Op"}, {"2_Layer", "0_Op"}, {"1_Layer", "0_Op"}, {"2_Layer", "11_Op"}, {"2_Layer", "3_Op"}};
        o.goldenPath = writeDump(path("order/lg"), layers, [](size_t, int i) { return float(i); });
        o.myPath = writeDump(path("order/lm"), layers, [](size_t k, int i) { return float(i) * (k == 1 ? 1 : 1.01f); });
        o.standard = Standard::Msit;
        const CompareResult lr = runCompare(o);
        QStringList ids;
        for (const auto &op : lr.ops)
            ids << QString::fromStdString(op.opId);
        QCOMPARE(ids, QStringList({"1_0", "2_0", "2_3", "2_11", "10_0"}));
        QCOMPARE(lr.firstDivergent, 0);
        QCOMPARE(lr.ops[1].passed, true); // 2_0 is the one equal pair
        QCOMPARE(lr.ops[4].passed, false);
    }

    // What an op may pass on of its inputs' error (kEngineCarry): twice their relative error
    // for any op but a sum, whose absolute errors add. An op is charged what is beyond that.
    void engineCarry()
    {
        const Chain c{{{"norm-0", "RMS_NORM"}, {"mul-0", "MUL"}}, {}};
        CompareOptions o;
        o.goldenPath = writeChain(path("carry/g"), c, [](size_t) { return 0.0; });
        o.standard = Standard::Engine;
        // 1.5 times its input's error: carried (it would not be with a carry of 1)
        o.myPath = writeChain(path("carry/m15"), c, [](size_t k) { return k ? 1.5e-2 : 1e-2; });
        CompareResult r = runCompare(o);
        QCOMPARE(r.ops.size(), size_t(2));
        QVERIFY(!r.ops[0].passed); // the norm's own 1 %
        QVERIFY2(r.ops[1].passed, r.ops[1].verdict.english().c_str());
        QCOMPARE(r.ops[1].ownNmse, 0.0);
        near(r.ops[1].explainedNmse, 4e-4L, "explained: (2 x 1 %)^2", 1e-4);
        // 2.5 times: charged (2.5 %)^2 - (2 x 1 %)^2 (a carry of 10 would explain it all)
        o.myPath = writeChain(path("carry/m25"), c, [](size_t k) { return k ? 2.5e-2 : 1e-2; });
        r = runCompare(o);
        QVERIFY(!r.ops[1].passed);
        near(r.ops[1].ownNmse, 6.25e-4L - 4e-4L, "charged beyond twice the input's error", 1e-4);
        near(r.ops[1].budgetShare, (6.25e-4L - 4e-4L) / 1e-7L, "share of MUL's budget", 1e-4);

        // A sum: its output's absolute error is at most its inputs' together.
        const Chain s{{{"norm-0", "RMS_NORM"}, {"ffn_inp-0", "ADD"}}, {}};
        o.goldenPath = writeChain(path("carry/sg"), s, [](size_t) { return 0.0; });
        o.myPath = writeChain(path("carry/sm"), s, [](size_t k) { return k ? 5e-2 : 1e-2; });
        r = runCompare(o);
        QCOMPARE(r.ops.size(), size_t(2));
        double inNorm = 0, inErr = 0, outNorm = 0;
        size_t inputs = 0;
        for (size_t i : r.ops[1].rows) {
            const CompareRow &row = r.rows[i];
            QVERIFY(row.computed);
            if (row.golden.input) {
                ++inputs;
                inNorm = row.metrics.goldenNorm;
                inErr = row.metrics.relEuclidean;
            } else {
                outNorm = row.metrics.goldenNorm;
            }
        }
        QCOMPARE(inputs, size_t(1));
        const double explained = inNorm * inErr / outNorm;
        QVERIFY(explained > 0 && explained < 5e-2 / 2); // so that the verdict depends on the rule
        near(r.ops[1].explainedNmse, explained * explained, "a sum explains its inputs' absolute error", 1e-9);
        QVERIFY(!r.ops[1].passed);
        near(r.ops[1].ownNmse, 25e-4L - explained * explained, "a sum's own NMSE", 1e-4);
    }

    // Each op type's budget (ggml's test-backend-ops): passed at 0.8 of it, failed at 1.25;
    // ops that move data must add nothing.
    void engineBudgets_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<double>("budget");
        for (const char *t : {"MUL_MAT", "MUL_MAT_ID", "OUT_PROD", "FLASH_ATTN_EXT"})
            QTest::newRow(t) << QString(t) << 5e-4;
        QTest::newRow("SOFT_MAX") << QString("SOFT_MAX") << 1e-6;
        for (const char *t : {"RMS_NORM", "MUL", "SWIGLU", "ROPE", "ADD", "SCALE"})
            QTest::newRow(t) << QString(t) << 1e-7;
        for (const char *t : {"GET_ROWS", "VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE", "CPY", "CONT", "SET_ROWS"})
            QTest::newRow(t) << QString(t) << 0.0;
    }
    void engineBudgets()
    {
        QFETCH(QString, type);
        QFETCH(double, budget);
        const Chain c{{{"x-0", type.toStdString()}}, {}};
        const std::string tag = "budget/" + type.toStdString();
        CompareOptions o;
        o.goldenPath = writeChain(path(tag + "/g"), c, [](size_t) { return 0.0; });
        o.standard = Standard::Engine;
        auto judged = [&](double rel, const char *name) {
            o.myPath = writeChain(path(tag + "/" + name), c, [rel](size_t) { return rel; });
            const CompareResult r = runCompare(o);
            return r.ops.size() == 1 ? r.ops[0] : OpResult{};
        };
        const OpResult over = judged(budget > 0 ? std::sqrt(1.25 * budget) : 1e-6, "over");
        QCOMPARE(over.opType, type.toStdString());
        QCOMPARE(over.budget, budget);
        QVERIFY(!over.passed);
        const OpResult under = judged(std::sqrt(0.8 * budget), "under");
        QCOMPARE(under.budget, budget);
        QVERIFY2(under.passed, under.verdict.english().c_str());
        if (budget > 0)
            near(under.budgetShare, 0.8L, "share of the budget", 1e-3);
    }

    // The standard fits the pair, from what each dump's status says its run was: the same
    // command, libraries and machine bit for bit; one backend (another build, another
    // command) by rounding; other backends, or a run that does not say, by ggml's budgets.
    void theStandardFitsThePair()
    {
        ProbeStatus s;
        s.pid = 7;
        s.command = {"llama-simple", "-m", "m.gguf"};
        s.host = "machine-1";
        s.libraries = {"/z/stock/libggml-cpu.so.0 aa", "/z/bin/libggml-base.so.0 bb"};
        s.backends = {"CPU"};
        s.keepFusion = true;
        s.environment = {"OMP_NUM_THREADS=2"};
        s.pieces = 398;
        const ProbeStatus back = parseProbeStatus(writeProbeStatus(s));
        QCOMPARE(back.pieces, uint64_t(398));
        QCOMPARE(back.environment, s.environment);
        QCOMPARE(back.command, s.command);
        QCOMPARE(back.host, s.host);
        QCOMPARE(back.libraries, s.libraries);
        QCOMPARE(back.backends, s.backends);
        QVERIFY(back.keepFusion);
        const std::string root = path("standard/golden");
        std::filesystem::create_directories(root + "/llmscope");
        writeFileAtomic(root + "/llmscope/7.json", writeProbeStatus(s));
        const RunFacts golden = runFacts(root);
        QVERIFY(golden.known);
        QCOMPARE(golden.backends, s.backends);

        RunFacts test = golden;
        StandardChoice c = choosePairStandard(golden, test);
        QCOMPARE(c.standard, Standard::Exact);
        QVERIFY2(c.why.english().find("bit for bit") != std::string::npos, c.why.english().c_str());
        test.libraries[0] = "/z/chunk/libggml-cpu.so.0 cc"; // another CPU backend
        c = choosePairStandard(golden, test);
        QCOMPARE(c.standard, Standard::Rounding);
        QCOMPARE(c.why.english(),
                 std::string("rounding: both sides ran on CPU with the same types (differing in libggml-cpu.so.0), "
                             "so each operation is held to what float rounding in another order may change"));
        test = golden;
        test.environment.push_back("GGML_CPU_DISABLE_FUSION=1"); // the same command, steered otherwise
        c = choosePairStandard(golden, test);
        QCOMPARE(c.standard, Standard::Rounding);
        QVERIFY2(c.why.english().find("differing in GGML_CPU_DISABLE_FUSION") != std::string::npos,
                 c.why.english().c_str());
        test = golden;
        test.keepFusion = false; // fused kernels on one side only
        QCOMPARE(choosePairStandard(golden, test).standard, Standard::Rounding);
        test.backends = {"Vulkan0", "CPU"};
        c = choosePairStandard(golden, test);
        QCOMPARE(c.standard, Standard::Engine);
        QVERIFY2(c.why.english().find("golden ran on CPU, test on Vulkan0, CPU") != std::string::npos,
                 c.why.english().c_str());
        // a device backend on another machine may be another device
        RunFacts here = golden, there = golden;
        here.backends = there.backends = {"Vulkan0", "CPU"};
        there.host = "machine-2";
        there.command = {"llama-cli"};
        QCOMPARE(choosePairStandard(here, there).standard, Standard::Engine);
        there.host = here.host;
        QCOMPARE(choosePairStandard(here, there).standard, Standard::Rounding);
        c = choosePairStandard(golden, RunFacts{});
        QCOMPARE(c.standard, Standard::Engine);
        QVERIFY2(c.why.english().find("a dump does not say which backends ran it (test's)") != std::string::npos,
                 c.why.english().c_str());
        for (const char *name : {"exact", "rounding", "engine", "msit"})
            QCOMPARE(standardName(*parseStandard(name)), name);
        QVERIFY(!parseStandard("strict"));
    }

    // The rounding standard's budget: a product's grows with its reduction length (K^2 for
    // terms that may cancel), a norm's with K, an element-wise op's is a few units in the last
    // place; rounding to a narrower type inside the op adds what its inputs' difference flips
    // (nothing when they agree). Each far below ggml's cross-backend budget.
    void roundingBudgets()
    {
        const double u2 = std::ldexp(1.0, -48) * 64;
        near(roundingBudget("MUL_MAT", {2048, 0, 0}), u2 * 2048.0 * 2048.0, "a product of 2048", 1e-12);
        near(roundingBudget("RMS_NORM", {2048, 0, 0}), u2 * 2048.0, "a norm of 2048", 1e-12);
        near(roundingBudget("MUL", {2048, 0, 0}), u2, "an element-wise op", 1e-12);
        QVERIFY(roundingBudget("MUL_MAT", {2048, 0, 0}) < 5e-4 / 100);
        const double f16 = typeUnit("f16");
        QCOMPARE(f16, std::ldexp(1.0, -11));
        near(roundingBudget("SET_ROWS", {1, f16, 1e-5}) - u2, 16 * f16 * 1e-5, "a float16 cache's flips", 1e-9);
        QCOMPARE(roundingBudget("SET_ROWS", {1, f16, 0}), u2);
        QCOMPARE(activationType("q4_0"), std::string("q8_0"));
        QCOMPARE(activationType("q5_1"), std::string("q8_1"));
        QCOMPARE(activationType("q6_K"), std::string("q8_K"));
        QCOMPARE(activationType("f16"), std::string("f16"));
        QCOMPARE(activationType("f32"), std::string());
        QCOMPARE(roundingCarry("SOFT_MAX"), 16.0);
        QCOMPARE(roundingCarry("MUL"), kEngineCarry);
    }

    // Statistics-only dumps: a fault that keeps max, min, mean and norm (two elements of one
    // output swapped, as a wrong index does) is invisible to the statistics' bound and found by
    // the sketches' estimate; a chain that only rounds stays clean with sketches (an op that
    // carries its inputs' error is not charged the estimates' spread).
    // A hunt's picture: statistics of every op, the suspect then measured element by element;
    // the measured op in place (its figures, its rows), the others as estimated, the first
    // divergent found again.
    void exactMeasuresInPlace()
    {
        const Chain c{{{"norm-0", "RMS_NORM"}, {"Qcur-0", "MUL_MAT"}, {"ffn_inp-0", "ADD"}, {"ffn_out-0", "MUL_MAT"}},
                      {1, 4}};
        testing::ChainDumpOptions stats;
        stats.statsOnly = true;
        const auto fault = [](size_t k) { return k == 1 ? 0.05 : 0.0; };
        const auto none = [](size_t) { return 0.0; };
        CompareOptions o;
        o.standard = Standard::Engine;
        o.goldenPath = writeChain(path("merge/gs"), c, none, none, stats);
        o.myPath = writeChain(path("merge/ms"), c, fault, none, stats);
        const CompareResult estimate = runCompare(o);
        o.goldenPath = writeChain(path("merge/gt"), c, none, none);
        o.myPath = writeChain(path("merge/mt"), c, fault, none);
        CompareResult exact = runCompare(o);
        QCOMPARE(estimate.ops.size(), size_t(4));
        QCOMPARE(exact.ops.size(), size_t(4));
        QVERIFY(estimate.ops[1].fromStats && !exact.ops[1].fromStats);
        QCOMPARE(exact.firstDivergent, 1);
        // The suspect and the op after it measured (a hunt's last pass dumps the one op).
        const OpResult measured = exact.ops[1], next = exact.ops[2];
        exact.ops = {measured, next};
        CompareResult picture = estimate;
        mergeExact(picture, exact);
        QCOMPARE(picture.ops.size(), estimate.ops.size());
        QCOMPARE(picture.ops[1].outputError, measured.outputError);
        QCOMPARE(picture.ops[1].outputCosine, measured.outputCosine);
        QVERIFY(!picture.ops[1].fromStats);
        for (size_t r : picture.ops[1].rows) // its rows are the measured ones
            QVERIFY(picture.rows[r].computed && !picture.rows[r].statsOnly);
        QVERIFY(picture.ops[1].outputError != estimate.ops[1].outputError); // the estimate gave way
        QVERIFY(next.worstInput >= 0); // the next op's input carrying the suspect's error, its row moved too
        QCOMPARE(picture.rows[size_t(picture.ops[2].worstInput)].golden.path,
                 exact.rows[size_t(next.worstInput)].golden.path);
        QCOMPARE(picture.ops[3].outputError, estimate.ops[3].outputError); // the rest as estimated
        QVERIFY(picture.ops[3].fromStats);
        QCOMPARE(picture.firstDivergent, 1);
        // Measured within its budget (the statistics overstated it): no longer the first divergent.
        exact.ops[0].passed = true;
        exact.ops[0].budgetShare = 0.5;
        picture = estimate;
        mergeExact(picture, exact);
        QVERIFY(picture.firstDivergent != 1);
    }

    void sketchesSeeWhatStatisticsCannot()
    {
        const Chain c{{{"norm-0", "RMS_NORM"},
                       {"Qcur-0", "MUL_MAT"},
                       {"ffn_inp-0", "ADD"},
                       {"ffn_swiglu-0", "SWIGLU"},
                       {"ffn_out-0", "MUL_MAT"}},
                      {1, 4}};
        testing::ChainDumpOptions stats;
        stats.statsOnly = true;
        testing::ChainDumpOptions swapped = stats;
        swapped.change = [](size_t k, std::vector<float> &v) {
            if (k == 1)
                std::swap(v[3], v[200]);
        };
        CompareOptions o;
        o.standard = Standard::Engine;
        o.goldenPath = writeChain(
            path("sketch/g"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, stats);
        o.myPath = writeChain(
            path("sketch/m"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, swapped);
        const CompareResult r = runCompare(o);
        QCOMPARE(r.ops.size(), size_t(5));
        QCOMPARE(r.firstDivergent, 1);
        std::vector<size_t> failed;
        for (size_t k = 0; k < r.ops.size(); ++k)
            if (!r.ops[k].passed)
                failed.push_back(k);
        QCOMPARE(failed, std::vector<size_t>{1});
        const auto out = std::find_if(r.rows.begin(), r.rows.end(), [](const CompareRow &row) {
            return row.nodeName == "Qcur-0" && !row.golden.input;
        });
        QVERIFY(out != r.rows.end() && out->statsOnly);
        QCOMPARE(out->statsBound, 0.0);
        const auto v = testing::chainValues(1, 0, false);
        const double truth = std::sqrt(2.0) * std::fabs(v[3] - v[200]) / out->golden.stats->l2norm;
        QVERIFY2(out->statsEstimate > 0.5 * truth && out->statsEstimate < 1.5 * truth,
                 qPrintable(QString("%1 against %2").arg(out->statsEstimate).arg(truth)));
        // Its cosine, estimated from the norms and the sketches' distance (a swap keeps the
        // norm: 1 - cos is half the squared relative distance), not the 1 of untold metrics.
        const OpResult &qcur = r.ops[1];
        QVERIFY(qcur.fromStats);
        const double away = 1 - qcur.outputCosine, truthAway = truth * truth / 2;
        QVERIFY2(away > 0.25 * truthAway && away < 2.25 * truthAway,
                 qPrintable(QString("1 - cosine %1 against %2").arg(away).arg(truthAway)));
        // The same dumps without sketches: nothing to see.
        testing::ChainDumpOptions bare = stats, bareSwapped = swapped;
        bare.noSketch = bareSwapped.noSketch = true;
        o.goldenPath = writeChain(
            path("sketch/bg"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, bare);
        o.myPath = writeChain(
            path("sketch/bm"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, bareSwapped);
        const CompareResult blind = runCompare(o);
        QCOMPARE(blind.ops.size(), size_t(5));
        QCOMPARE(blind.firstDivergent, -1);
        QVERIFY(std::isnan(blind.ops[1].outputCosine)); // and no cosine to tell

        // Rounding noise through the chain, statistics and sketches only: every op passes.
        const std::vector<double> rel{3e-7, 4e-4, 4e-4, 2e-4, 5e-4};
        o.goldenPath = writeChain(
            path("sketch/ng"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, stats);
        o.myPath = writeChain(
            path("sketch/nm"), c, [&](size_t k) { return rel[k]; }, [](size_t) { return 0.0; }, stats);
        const CompareResult noise = runCompare(o);
        QCOMPARE(noise.ops.size(), size_t(5));
        QVERIFY2(noise.firstDivergent < 0,
                 noise.firstDivergent >= 0 ? noise.ops[size_t(noise.firstDivergent)].verdict.english().c_str() : "");
    }

    // An op that moves data adds nothing, whatever its figures come from: with sketches, a
    // GET_ROWS that takes a wrong row (its output 80 % off, its input within rounding) is
    // charged what its input cannot explain and fails its budget of 0; one that carries its
    // input's rounding passes.
    void aDataMoverAddsNothingOnSketchesToo()
    {
        const Chain c{{{"norm-0", "RMS_NORM"}, {"rows-0", "GET_ROWS"}, {"ffn_out-0", "MUL_MAT"}}, {2}};
        testing::ChainDumpOptions stats;
        stats.statsOnly = true;
        CompareOptions o;
        o.standard = Standard::Engine;
        o.goldenPath = writeChain(
            path("mover/g"), c, [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, stats);
        o.myPath = writeChain(
            path("mover/m"), c, [](size_t k) { return k == 0 ? 1e-4 : 0.8; }, [](size_t) { return 0.0; }, stats);
        const CompareResult wrong = runCompare(o);
        QCOMPARE(wrong.ops.size(), size_t(3));
        QCOMPARE(wrong.firstDivergent, 1);
        QCOMPARE(wrong.ops[1].budget, 0.0);
        QVERIFY(wrong.ops[1].ownNmse > 0.1);
        o.myPath = writeChain(
            path("mover/r"), c, [](size_t) { return 1e-4; }, [](size_t) { return 0.0; }, stats);
        const CompareResult carried = runCompare(o);
        QVERIFY2(carried.firstDivergent < 0,
                 carried.firstDivergent >= 0 ? carried.ops[size_t(carried.firstDivergent)].verdict.english().c_str()
                                             : "");
    }

    // Statistics bound the error from below, past their six decimals; NaN and Inf that differ
    // leave no bound (the op fails), the same Inf on both sides (a mask) is no difference.
    void statisticsBoundTheError()
    {
        TensorStats g{100, 2, -1, 0.5, 10, 0, 0, 0, {}};
        TensorStats t = g;
        QCOMPARE(statsErrorBound(g, t, 100), 0.0);
        t.l2norm = 10.5;
        near(statsErrorBound(g, t, 100), (0.5L - 1e-6L) / 10, "l2norm difference");
        t = g;
        t.mean = 0.51;
        near(statsErrorBound(g, t, 100), 10 * (0.01L - 1e-6L) / 10, "sqrt(n) times the mean's difference");
        t = g;
        t.l2norm += 4e-7; // within what six decimals hide
        QCOMPARE(statsErrorBound(g, t, 100), 0.0);
        t = g;
        t.nanCount = 1;
        QVERIFY(std::isnan(statsErrorBound(g, t, 100)));
        g.min = t.min = -INFINITY;
        g.infCount = t.infCount = 1;
        t.nanCount = 0;
        QCOMPARE(statsErrorBound(g, t, 100), 0.0);
    }

    // The probe's dumps are judged by the engine standard unless told otherwise; msit's
    // thresholds ask for msit's.
    void standardFollowsTheDumps()
    {
        const Chain c{{{"norm-0", "RMS_NORM"}}, {}};
        const std::string g = writeChain(path("std/g"), c, [](size_t) { return 0.0; });
        const std::string m = writeChain(path("std/m"), c, [](size_t) { return 1e-6; });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        QCOMPARE(runCompare(o).standard, Standard::Msit); // no probe status: an msit dump
        for (const auto &root : {g, m}) {
            makeDirs(root + "/" + ProbeStatus::kFolder);
            writeFileAtomic(root + "/" + ProbeStatus::kFolder + "/7.json", writeProbeStatus(ProbeStatus{}));
        }
        QCOMPARE(runCompare(o).standard, Standard::Engine);
        o.relTol = 1e-3;
        QCOMPARE(runCompare(o).standard, Standard::Msit);
        QCOMPARE(parseStandard("engine"), std::optional<Standard>(Standard::Engine));
        QVERIFY(!parseStandard("strict"));
    }

    void reportsHaveMsitsColumnsAndEveryMetric()
    {
        const auto ops = std::vector<std::vector<std::string>>{{"0_Embed"}, {"1_Head"}};
        const std::string g = writeDump(path("rep/g"), ops, [](size_t, int i) { return float(i); });
        const std::string m = writeDump(path("rep/m"), ops, [](size_t k, int i) { return k ? NAN : float(i); });
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = m;
        const CompareResult r = runCompare(o);
        const std::string csvPath = writeCompareReports(r, path("rep/out"), 1700000000);
        QVERIFY(QString::fromStdString(csvPath).endsWith("/msit_cmp_report_20231114221320.csv"));
        const auto csv = readWholeFile(csvPath);
        const QStringList lines =
            QString::fromUtf8(QByteArray(reinterpret_cast<const char *>(csv.data()), int(csv.size())))
                .split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines[0],
                 QString("token_id,data_id,golden_data_path,golden_op_type,golden_dtype,golden_shape,"
                         "golden_max_value,golden_min_value,golden_mean_value,my_data_path,my_op_type,"
                         "my_dtype,my_shape,my_max_value,my_min_value,my_mean_value,cosine_similarity,"
                         "max_relative_error,mean_relative_error,max_absolute_error,mean_absolute_error,"
                         "kl_divergence,relative_euclidean_distance,cmp_fail_reason,op_label,nmse,note"));
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines.last().endsWith("64 NaN in my,1 (Head),N/A,"), qPrintable(lines.last()));
        QVERIFY2(lines[1].endsWith(",0 (Embed),0,"), qPrintable(lines[1]));
        const auto json = readWholeFile(csvPath.substr(0, csvPath.size() - 4) + ".json");
        const QJsonObject doc =
            QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char *>(json.data()), int(json.size()))).object();
        QCOMPARE(doc["rows"].toArray().size(), 4);
        QCOMPARE(doc["first_divergent"].toInt(), 1);
        QCOMPARE(doc["standard"].toString(), QString("msit")); // loose test dumps, not the probe's
        QCOMPARE(doc["rows"].toArray()[3].toObject()["metrics"].toObject()["nan_my"].toInt(), 64);
        const QJsonArray notes = doc["notes"].toArray();
        QCOMPARE(size_t(notes.size()), r.notes.size());
        for (size_t i = 0; i < r.notes.size(); ++i)
            QCOMPARE(notes[qsizetype(i)].toString().toStdString(), r.notes[i]);
    }

    // A weight stored in another type is quantization up to 1.25 times what requantizing
    // golden's gives; without that figure, up to a relative error of 0.5; else it differs.
    void quantizationVerdicts()
    {
        Quantization q;
        q.goldenType = "f32";
        q.myType = "q4_0";
        q.expected = 0.085;
        q.error = 0.086;
        QVERIFY(q.explained());
        QCOMPARE(q.words("blk.3.ffn_down.weight").english(),
                 std::string("quantization of blk.3.ffn_down.weight (q4_0): relative error 8.6 %"));
        q.error = 0.123;
        QVERIFY(!q.explained());
        QCOMPARE(q.words("blk.3.ffn_down.weight").english(),
                 std::string("blk.3.ffn_down.weight (q4_0) differs from golden's by 12.3 %, more than its quantization "
                             "explains (8.5 %)"));
        q.expected = NAN; // golden quantized too, or no reference quantizer
        q.error = 0.3;
        QVERIFY(q.explained());
        q.error = 1.0; // a zeroed weight
        QVERIFY(!q.explained());
        QVERIFY(QString::fromStdString(q.words("w").english()).contains("more than any quantization of it should"));
    }
};

QTEST_GUILESS_MAIN(TstCompare)
#include "tst_compare.moc"
