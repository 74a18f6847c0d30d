// The hunt on kernel faults of the kinds llama.cpp has shipped (tests/zoo/bugs.py, built by
// scripts/kernel_zoo): llama.cpp's own llama-simple, built from the bundle node-llama-cpp
// ships, run on the stock CPU backend (golden) and on one with a fault (test), four threads.
// For each fault: the first op that departs, element by element (every tensor of every
// round, compared), is the one the statistics compare names, and the one the hunt ends on,
// blaming its kernel; a fault of a fused kernel is found at its chain; the control, which only
// rounds differently, ends clean.
// The zoo builds each backend natively and for AVX2 alone (LLMSCOPE_ZOO_FLAVOUR picks which the
// suite runs on): where a fault's first victim depends on the SIMD width, the expectation is
// derived from what the flavour's code steps by (its simd.txt), never from the machine it was
// written on.
#include <QDir>
#include <QMap>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <utility>

#include "core/compare/compare_run.h"
#include "core/compare/precision_standard.h"
#include "core/dump/dump_layout.h"
#include "core/dump/probe_status.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

using engine::zooDir;

// The fault model's shape: heads of 40, an FFN of 512 rows (more than four threads' 64-row
// chunks).
constexpr int kWidth = 160, kHeads = 4, kFfn = 512;

// The op the SIMD-tail fault breaks first as the program runs, and why, for code whose vector
// loops step by `step` floats. ggml_vec_scale_f32 leaves what is past the last full step of a
// row unscaled. Every RMS_NORM of the model is fused with its MUL on the CPU, and the fused
// kernel scales in a loop of its own: the first op to call ggml_vec_scale_f32 on a row with a
// tail is flash attention's (rows a head wide). Read node by node (fusion off) layer 0's
// RMS_NORM calls it first, on rows the model's width: that is the op observing unfused would
// blame where those rows have a tail (AVX-512), and not what the program computes.
std::pair<QString, QString> simdTailVictim(int step, int width, int head)
{
    const auto tail = [step](int n) {
        return QString("%1 floats = %2 x %3 + %4").arg(n).arg(n / step).arg(step).arg(n % step);
    };
    if (step <= 0 || head % step == 0)
        return {};
    return {"FLASH_ATTN_EXT",
            "flash attention's head rows have a tail (" + tail(head) + "); RMS_NORM runs fused with MUL" +
                (width % step ? " (unfused, its rows of " + tail(width) + " would depart first)" : QString())};
}

// "step N" of the flavour's simd.txt (scripts/kernel_zoo asked its library); 0 when unsaid.
int simdStep(const QString &libs)
{
    QFile f(libs + "/simd.txt");
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const auto m = QRegularExpression(R"((?:^|\n)step (\d+))").match(QString::fromUtf8(f.readAll()));
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}
} // namespace

class TstKernelZoo : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_zoo, m_libs, m_model;
    int m_step = 0; // floats the flavour's vector loops step by

    QString m_wide; // the sample's default shape: 256 wide, heads of 64

    QString program(const QString &backend, const QString &model = {}) const
    {
        return "env LD_LIBRARY_PATH=" + m_libs + "/" + backend + " " + m_zoo + "/build/bin/llama-simple -m " +
            (model.isEmpty() ? m_model : model) + " -n 3 Hello";
    }
    // The dump folder of `llmscope dump` of program with types; empty on failure.
    QString dump(const QString &backend, const QString &name, const QStringList &types)
    {
        const QString out = m_dir.path() + "/" + name;
        const auto r = engine::llmscope(kBin,
                                        QStringList{"dump", "--exec", program(backend), "--type"} + types +
                                            QStringList{"-er", "0,100", "-o", out});
        if (r.code != 0) {
            qWarning("%s", qPrintable(r.err));
            return {};
        }
        const auto dumps = dumpsInside(out.toStdString());
        return dumps.size() == 1 ? QString::fromStdString(dumps[0]) : QString();
    }
    // By ggml's cross-backend budgets unless told otherwise (nullopt: the standard compare
    // chooses from what the two runs were).
    static CompareResult compare(const QString &golden, const QString &test,
                                 std::optional<Standard> standard = Standard::Engine)
    {
        CompareOptions o;
        o.goldenPath = golden.toStdString();
        o.myPath = test.toStdString();
        o.standard = standard;
        return runCompare(o);
    }
    // Stock's dump of kind ("tensor": every tensor, "stats": statistics; made once, the same
    // for every fault) against the fault's (made once too), compared; nullopt when a dump failed. As the
    // programs run (fusion kept, the hunt's view), or read node by node (unfused).
    QMap<QString, QString> m_stock;
    std::optional<CompareResult> againstStock(const QString &bug, const QString &kind, bool asItRuns = true,
                                              std::optional<Standard> standard = Standard::Engine)
    {
        const QStringList types = asItRuns ? QStringList{"model", kind, "--keep-fusion"} : QStringList{"model", kind};
        const QString key = kind + (asItRuns ? "-fused" : "");
        if (!m_stock.contains(key))
            m_stock[key] = dump("stock", "stock-" + key, types);
        const QString testKey = bug + "-" + key;
        if (!m_stock.contains(testKey))
            m_stock[testKey] = dump(bug, testKey, types);
        const QString test = m_stock[testKey];
        if (m_stock[key].isEmpty() || test.isEmpty())
            return std::nullopt;
        return compare(m_stock[key], test, standard);
    }

private slots:
    void initTestCase()
    {
        m_zoo = zooDir();
        m_libs = engine::zooLibs();
        if (!QFile::exists(m_zoo + "/stamp"))
            QSKIP(qPrintable("the kernel zoo is not built in " + m_zoo + ": run scripts/kernel_zoo"));
        m_step = simdStep(m_libs);
        QVERIFY2(m_step > 0, qPrintable(m_libs + "/simd.txt says no SIMD step: run scripts/kernel_zoo again"));
        qInfo("backends in %s: vector loops step by %d floats", qPrintable(m_libs), m_step);
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin,
                                  {"--out", m_model, "--layers", "3", "--width", QString::number(kWidth), "--heads",
                                   QString::number(kHeads), "--kv-heads", "2", "--ff", QString::number(kFfn)}));
        m_wide = m_dir.path() + "/wide.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_wide, "--layers", "3"}));
    }

    // Where the statistics alone (no sketches) miss the first op by ggml's cross-backend
    // budgets (the rounding standard this pair gets names it at once): on the 256-wide model the
    // short chunk leaves Qcur-0's last token part unwritten with values much like the right
    // ones, the statistics name a later op (with fusion kept, the FFN norm's RMS_NORM+MUL; read
    // op by op, SWIGLU) that element by element only carries what it gets, and the hunt walks
    // back through the round's outputs to Qcur-0.
    void theWalkBackFindsWhatStatisticsMiss()
    {
        qputenv("LLMSCOPE_SKETCH", "0");
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--standard", "engine", "--golden", program("stock", m_wide), "--test",
                                         program("chunk", m_wide), "-o", m_dir.path() + "/walk"});
        qunsetenv("LLMSCOPE_SKETCH");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(
            r.err.contains(QRegularExpression(
                R"(\n  first divergent by statistics: round 0, op 1_\d+ (?!Qcur-0)\S+ \(\w+\) \(relative error at least)")),
            qPrintable(r.err));
        QVERIFY2(r.err.contains("llmscope hunt: step 4 of 4, walking back: comparing them element by element"),
                 qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_2 Qcur-0 \(MUL_MAT\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
        // and with the sketches, the statistics name Qcur-0 themselves
        const auto s = engine::llmscope(kBin,
                                        {"hunt", "--golden", program("stock", m_wide), "--test",
                                         program("chunk", m_wide), "-o", m_dir.path() + "/sketched"});
        QVERIFY2(s.code == 0 && !s.err.contains("walking back"), qPrintable(s.err));
        QVERIFY2(engine::concludes(s.err, R"(found: round 0, op 1_2 Qcur-0 \(MUL_MAT\) in )"), qPrintable(s.err));
    }

    void huntNamesTheFirstOpAndBlamesItsKernel_data()
    {
        QTest::addColumn<QString>("bug");
        QTest::addColumn<QString>("opType"); // what the fault breaks first, as a check of the check
        QTest::addColumn<QString>("why");
        const auto [tailOp, tailWhy] = simdTailVictim(m_step, kWidth, kWidth / kHeads);
        QTest::newRow("chunk") << "chunk"
                               << "MUL_MAT"
                               << "Qcur-0's product is layer 0's first";
        QTest::newRow("simd-tail")
            << "simd-tail" << tailOp
            << QString("vector loops step by %1 floats: %2")
                   .arg(m_step)
                   .arg(
                       tailWhy.isEmpty()
                           ? "flash attention's head rows have no tail, so the fault cannot show as the program runs: change its shape"
                           : tailWhy);
        QTest::newRow("rope-cache") << "rope-cache"
                                    << "ROPE"
                                    << "the fault is in ROPE";
        QTest::newRow("mask-row") << "mask-row"
                                  << "FLASH_ATTN_EXT"
                                  << "the fault is in flash attention's mask";
        QTest::newRow("wrong-row") << "wrong-row"
                                   << "GET_ROWS"
                                   << "the embedding's GET_ROWS is the graph's first op";
        QTest::newRow("single-token")
            << "single-token"
            << "MUL_MAT" << QString("the prompt's last layer runs one token through an FFN of %1 rows").arg(kFfn);
        QTest::newRow("single-query") << "single-query"
                                      << "FLASH_ATTN_EXT"
                                      << "a decoded token's round is the first with one query";
        // State: what the prompt's round wrote into the KV cache (read back at its cells), where
        // otherwise only round 1's attention, reading the cache, would depart.
        QTest::newRow("cache-last-row") << "cache-last-row"
                                        << "SET_ROWS"
                                        << "the prompt's round writes layer 0's keys into the cache first";
        QTest::newRow("cache-wrong-cell") << "cache-wrong-cell"
                                          << "SET_ROWS"
                                          << "the prompt's round writes layer 0's keys into the cache first";
    }
    void huntNamesTheFirstOpAndBlamesItsKernel()
    {
        QFETCH(QString, bug);
        QFETCH(QString, opType);
        QFETCH(QString, why);
        // The truth: every tensor of every round as the programs run, element by element.
        const auto truthRun = againstStock(bug, "tensor");
        QVERIFY(truthRun);
        const CompareResult &truth = *truthRun;
        QVERIFY(truth.firstDivergent >= 0);
        const OpResult &first = truth.ops[size_t(truth.firstDivergent)];
        QVERIFY2(QString::fromStdString(first.opType) == opType,
                 qPrintable(QString("element by element the first op departing is %1, expected %2: %3")
                                .arg(QString::fromStdString(first.label()), opType, why)));
        if (bug == "single-query")
            QVERIFY2(first.round >= 1, "a fault of the decode rounds departs after the prompt's");
        if (opType == "SET_ROWS")
            QVERIFY2(first.round == 0 && first.name == "cache_k_l0 (view)", first.label().c_str());
        const QString label = QString::fromStdString(first.label());

        // The statistics (with their sketches) name the same op.
        const auto statsRun = againstStock(bug, "stats");
        QVERIFY(statsRun);
        const CompareResult &stats = *statsRun;
        QVERIFY(stats.firstDivergent >= 0);
        const OpResult &named = stats.ops[size_t(stats.firstDivergent)];
        QCOMPARE(QString::fromStdString(named.label()), label);
        QCOMPARE(named.round, first.round);

        // The hunt ends on it and blames its kernel.
        const auto r = engine::llmscope(
            kBin, {"hunt", "--golden", program("stock"), "--test", program(bug), "-o", m_dir.path() + "/hunt-" + bug});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err,
                                   QString("found: round %1, op ").arg(first.round) +
                                       QRegularExpression::escape(label) + " in "),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
    }

    // State across rounds: the prompt's round leaves its last row out of the KV cache, and the
    // hunt is asked about round 1 alone. There round 1's attention departs on the cache it
    // reads, its kernel right on what it was given; the hunt follows the cache back to the
    // write after which it departs (round 0's, which -er left out), compares and replays it
    // there, and ends on it.
    void aCacheFaultIsFollowedBackToTheRoundThatWroteIt()
    {
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", program("stock"), "--test", program("cache-last-row"),
                                         "-er", "1,1", "-o", m_dir.path() + "/cache-trace"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(first divergent by statistics: round 1, op \S+ \S+ \(FLASH_ATTN_EXT\))")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("following the state back: what departs in op "), qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op \S+ cache_[kv]_l0 \(view\) \(SET_ROWS\) in )"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
        // The rope-cache fault spoils round 0's keys before they are stored (a decoded token's
        // one position is right): followed back, round 0's write is right on what it was
        // given, and the hunt sends the user to round 0, where the keys' producer departs.
        const auto rope = engine::llmscope(kBin,
                                           {"hunt", "--golden", program("stock"), "--test", program("rope-cache"),
                                            "-er", "1,1", "-o", m_dir.path() + "/cache-trace-rope"});
        QCOMPARE(rope.code, 1);
        QVERIFY2(engine::concludes(
                     rope.err,
                     R"(op \S+ cache_k_l0 \(view\) \(SET_ROWS\) stores in the KV cache the rows it )"
                     R"(was given within its budget, and those already depart: hunt round 0 alone \(-er 0,0\))"),
                 qPrintable(rope.err));
    }

    // A quantized cache: the zoo's q4_0 conversion gives each block past a row's first its
    // neighbour's scale. With -ctk/-ctv q4_0 (the sample program built against the zoo's
    // llama.cpp; llama-simple takes no cache type) the prompt's first write into the cache
    // departs beyond what q4_0's own rounding allows, and replayed in q4_0 its kernel is wrong.
    void aQuantizedCacheFaultIsFoundAtItsWrite()
    {
        auto sample = [&](const QString &backend) {
            return "env LD_LIBRARY_PATH=" + m_libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + m_wide + " -n 3 -t 4 -ctk q4_0 -ctv q4_0";
        };
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", sample("stock"), "--test", sample("cache-q4-scale"), "-o",
                                         m_dir.path() + "/cache-q4"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op \S+ cache_k_l0 \(view\) \(SET_ROWS\) in )"),
                 qPrintable(r.err));
        // one backend, the same cache type: held to rounding, which the scale fault is far beyond
        QVERIFY2(r.err.contains("\n  standard rounding: both sides ran on CPU with the same types"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
    }

    // Quantized models whose CPU dot product is wrong: a q8_0 model whose rows' last block takes
    // the previous block's activation scale, a q4_0 model whose last block takes its high nibbles
    // as its first 16 weights, a q4_K_M model whose sub-blocks 4-7 unpack their scales' high
    // bits from the wrong place. The first product departs with its inputs agreeing (one
    // backend, the same types: the rounding standard), and the replay, whose reference quantizes
    // the activations to q8_0 or q8_K as ggml's CPU kernel does, blames the kernel (a bound of k
    // roundings of 8 bits passed the first). The stock backend's products on the same run are
    // within that reference's bound.
    void aQuantizedProductFaultIsBlamedOnItsKernel_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("bug");
        QTest::newRow("q8_0 scale") << "q8_0"
                                    << "q8-dot-scale";
        QTest::newRow("q4_0 nibbles") << "q4_0"
                                      << "q4-nibbles";
        QTest::newRow("q4_K scales") << "q4_k_m"
                                     << "q4k-scales";
    }
    void aQuantizedProductFaultIsBlamedOnItsKernel()
    {
        QFETCH(QString, type);
        QFETCH(QString, bug);
        const QString model = m_dir.path() + "/m-" + type + ".gguf";
        QVERIFY(engine::makeModel(kBin, {"--quantize", type, "--in", m_wide, "--out", model}));
        // --no-repack: the plain CPU path on every machine (an AMX machine's extra buffers would
        // take the products elsewhere, and this llama.cpp's llama-simple crashes there on them;
        // x86 repacks q4_0 weights for the CPU's own layout)
        auto sample = [&](const QString &backend) {
            return "env LD_LIBRARY_PATH=" + m_libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + model + " -n 3 -t 4 --no-repack";
        };
        const auto r = engine::llmscope(
            kBin, {"hunt", "--golden", sample("stock"), "--test", sample(bug), "-o", m_dir.path() + "/hunt-" + bug});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  standard rounding: both sides ran on CPU with the same types"), qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_\d+ \S+ \(MUL_MAT\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
        // the stock kernel's run replayed against the same reference: every product within it
        const QString out = m_dir.path() + "/" + type + "-stock";
        const auto d = engine::llmscope(
            kBin, {"dump", "--exec", sample("stock"), "--type", "model", "tensor", "kernel", "-o", out});
        QVERIFY2(d.code == 0, qPrintable(d.err));
        const auto dumps = dumpsInside(out.toStdString());
        QCOMPARE(dumps.size(), size_t(1));
        const QString stock = QString::fromStdString(dumps[0]);
        const QString reports = m_dir.path() + "/" + type + "-opcheck";
        const auto o = engine::llmscope(kBin, {"opcheck", "-i", stock, "-opname", "mul_mat", "-o", reports});
        QVERIFY2(o.code == 0, qPrintable(o.err + o.out)); // nothing failed
        const QStringList json = QDir(reports).entryList({"*.json"});
        QCOMPARE(json.size(), 1);
        QFile f(reports + "/" + json[0]);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(f.readAll())["rows"].toArray();
        int quantized = 0;
        for (const auto &row : rows) {
            const QJsonObject r = row.toObject();
            QCOMPARE(r["precision_result"].toString(), QString("PASS"));
            quantized +=
                r["precision_standard"].toString().contains(QRegularExpression("activations quantized to q8_[01K]"));
        }
        QVERIFY2(quantized >= 9, qPrintable(QString::number(quantized))); // every layer's products, by the CPU's rule
    }

    // A context shift (the sample program drops 4 cells after the first before generated token
    // 3 and moves the later ones back): ggml re-rotates the cached keys in place, a graph of its
    // own (round 3), which writes the cache without a SET_ROWS. The zoo's shift-rope fault turns
    // float16 ROPE (only the shift's: the model's own ROPE is float32) the wrong way. Round 4's
    // attention departs on the cache; every write into it is right, but the cache round 4
    // writes into already departs where round 2 left it right: the hunt dumps round 3 whole,
    // with the cache, and ends on its ROPE, kernel wrong.
    void aContextShiftIsFollowedIntoItsOwnRound()
    {
        auto sample = [&](const QString &libs, const QString &backend) {
            return "env LD_LIBRARY_PATH=" + libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + m_wide + " -n 6 -t 4 --context-shift 3:4";
        };
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", sample(m_libs, "stock"), "--test",
                                         sample(m_libs, "shift-rope"), "-o", m_dir.path() + "/shift"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(the KV cache cache_[kv]_l0 was 0 % off after round 2's write and \S+ % off )"
                                        R"(when round 4 wrote into it: round 3 changed it without a write)")),
                 qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 3, op \S+ .*\(ROPE\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
        // The stock backend built twice (natively and for AVX2: another build, the same kernels
        // in other vector widths), with the shift, and with q8_0 caches: nothing departs.
        const QString avx2 = zooDir() + "/lib-avx2";
        for (const QString &cache : {QString(), QString(" -ctk q8_0 -ctv q8_0")}) {
            const auto clean = engine::llmscope(kBin,
                                                {"hunt", "--golden", sample(zooDir() + "/lib", "stock") + cache,
                                                 "--test", sample(avx2, "stock") + cache, "-o",
                                                 m_dir.path() + "/shift-clean" + QString::number(cache.size())});
            QCOMPARE(clean.code, 1);
            QVERIFY2(engine::concludes(clean.err, "every operation is within its budget in every round"),
                     qPrintable(clean.err));
        }
    }

    // A sequence copied between parallel slots (the sample program copies sequence 0 to 1 before
    // generated token 2, round 2, and decodes the rest in sequence 1). In one cache the copy only
    // tags cells: the cache-last-row fault hunted from round 3 is followed back by cell, through
    // the copy, to round 0's write. With a cache stream for each sequence llama.cpp copies the
    // cache's bytes outside any graph; the zoo's llama.cpp (seq-copy-values) copies each layer's
    // keys and never its values. The probe notes and checks each copy, so the hunt names the copy
    // golden made and test did not; the stock llama.cpp built twice is clean with streams.
    void aSequenceCopyIsFollowed()
    {
        auto sample = [&](const QString &libs, const QString &backend, const QString &copy) {
            return "env LD_LIBRARY_PATH=" + libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + m_wide + " -n 5 -t 4 --seq-copy " + copy;
        };
        const auto tagged = engine::llmscope(kBin,
                                             {"hunt", "--golden", sample(m_libs, "stock", "2"), "--test",
                                              sample(m_libs, "cache-last-row", "2"), "-er", "3,3", "-o",
                                              m_dir.path() + "/copy-tagged"});
        QVERIFY2(tagged.code == 0, qPrintable(tagged.err));
        QVERIFY2(tagged.err.contains("following the state back: what departs in op "), qPrintable(tagged.err));
        QVERIFY2(engine::concludes(tagged.err, R"(found: round 0, op \S+ cache_[kv]_l0 \(view\) \(SET_ROWS\) in )"),
                 qPrintable(tagged.err));

        const auto streams =
            engine::llmscope(kBin,
                             {"hunt", "--golden", sample(m_libs, "stock", "2:streams"), "--test",
                              sample(m_libs, "seq-copy-values", "2:streams"), "-o", m_dir.path() + "/copy-streams"});
        QVERIFY2(streams.code == 0, qPrintable(streams.err));
        QVERIFY2(engine::concludes(streams.err,
                                   R"(found: golden's run copied the KV cache cache_v_l\d+ before round 2 )"
                                   R"(\(stream 0 -> 1\) outside any graph .* and test's run made no such copy)"),
                 qPrintable(streams.err));
        // what each run's probe noted: golden copied keys and values, test keys only, each exact
        const auto copies = [&](const QString &side, const std::string &cache) {
            const QStringList dumps = QDir(m_dir.path() + "/copy-streams").entryList({side + "-cache*"}, QDir::Dirs);
            return dumps.size() == 1
                ? stateCopiesInto((m_dir.path() + "/copy-streams/" + dumps[0]).toStdString(), cache, 0, 100)
                : std::vector<StateCopy>{};
        };
        for (const std::string cache : {"cache_k_l0", "cache_v_l0"}) {
            for (const QString side : {"golden", "test"}) {
                const auto c = copies(side, cache);
                if (side == "test" && cache == "cache_v_l0") {
                    QVERIFY(c.empty());
                    continue;
                }
                QCOMPARE(c.size(), size_t(1));
                QCOMPARE(c[0].beforeRound, int64_t(2));
                QCOMPARE(c[0].fromStream, int64_t(0));
                QCOMPARE(c[0].toStream, int64_t(1));
                QVERIFY(c[0].checked);
                QCOMPARE(c[0].rowsDiffering, uint64_t(0));
                QVERIFY(c[0].rows > 0);
            }
        }
        const auto clean = engine::llmscope(kBin,
                                            {"hunt", "--golden", sample(zooDir() + "/lib", "stock", "2:streams"),
                                             "--test", sample(zooDir() + "/lib-avx2", "stock", "2:streams"), "-o",
                                             m_dir.path() + "/copy-clean"});
        QCOMPARE(clean.code, 1);
        QVERIFY2(engine::concludes(clean.err, "every operation is within its budget in every round"),
                 qPrintable(clean.err));
    }

    // A fault of the decode rounds, hunted in the prompt's round alone: nothing there departs,
    // but the programs chose other tokens, so the hunt does not say nothing diverges.
    void aFaultAfterThePromptIsNeverNothing()
    {
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", program("stock"), "--test", program("single-query"), "-er",
                                         "0,0", "-o", m_dir.path() + "/prompt-only"});
        QCOMPARE(r.code, 1);
        QVERIFY2(engine::concludes(r.err,
                                   "no operation departs beyond its budget in round 0, yet the two programs chose "
                                   "different tokens from round \\d+ on"),
                 qPrintable(r.err));
        QVERIFY(!r.err.contains("nothing diverges"));
    }

    // A fault only the fused path has (the CPU's RMS_NORM+MUL): observed node by node, as the
    // probe reads without --keep-fusion, the program runs unfused and agrees with golden, yet
    // unobserved it prints other text. The observer check says so; with fusion kept the observed
    // run is the unobserved one bit for bit, and the hunt names the chain and blames the fused
    // kernel. With fusion off (ggml's own switch) the program really is clean.
    void aFusedKernelIsFoundAtItsChain()
    {
        const QString bug = "fused-norm-tail";
        const auto unfused = againstStock(bug, "stats", false);
        QVERIFY(unfused);
        QCOMPARE(unfused->firstDivergent, -1); // what observing node by node alone would conclude

        const auto changed = engine::llmscope(kBin,
                                              {"dump", "--exec", program(bug), "--type", "model", "stats",
                                               "--check-observer", "-o", m_dir.path() + "/observer-unfused"});
        QVERIFY2(changed.code == 4, qPrintable(changed.err));
        QVERIFY2(changed.err.contains("observer:    observing changed the program's results: round 0's result_output "
                                      "differs from the run the probe only watched"),
                 qPrintable(changed.err));
        const auto kept = engine::llmscope(kBin,
                                           {"dump", "--exec", program(bug), "--type", "model", "stats", "--keep-fusion",
                                            "--check-observer", "-o", m_dir.path() + "/observer-kept"});
        QVERIFY2(kept.code == 0, qPrintable(kept.err));
        QVERIFY2(kept.err.contains(
                     QRegularExpression("observer:    observing changed nothing: \\d+ round\\(s\\) computed the "
                                        "same results bit for bit")),
                 qPrintable(kept.err));

        const auto r = engine::llmscope(
            kBin, {"hunt", "--golden", program("stock"), "--test", program(bug), "-o", m_dir.path() + "/hunt-" + bug});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  observing changed nothing: "), qPrintable(r.err));
        QVERIFY2(
            engine::concludes(r.err,
                              R"(found: round 0, the fused chain RMS_NORM\+MUL \(1_\d+ norm-0, 1_\d+ attn_norm-0\), )"
                              R"(computed fused on CPU: its end departs)"),
            qPrintable(r.err));
        QVERIFY2(
            r.err.contains(
                "with fusion off, the same ops agree with golden's (relative error 0 %): the fused kernel is wrong"),
            qPrintable(r.err));
        // the chain replayed whole on its own inputs: float64 and ggml's unfused kernels disagree with it
        QVERIFY2(r.err.contains("replay: on the inputs it was given, the test's kernel is wrong: "), qPrintable(r.err));

        const auto off = engine::llmscope(kBin,
                                          {"hunt", "--golden", program("stock"), "--test",
                                           "env GGML_CPU_DISABLE_FUSION=1 " + program(bug), "-o",
                                           m_dir.path() + "/hunt-fusion-off"});
        QCOMPARE(off.code, 1);
        QVERIFY2(engine::concludes(off.err, "every operation is within its budget in every round: nothing diverges"),
                 qPrintable(off.err));
    }

    // Rounding only: nothing departs element by element, the statistics and the hunt agree,
    // by ggml's cross-backend budgets and by the rounding standard the pair gets (one backend,
    // the same types, another library) alike.
    void theControlEndsClean()
    {
        for (const char *kind : {"tensor", "stats"})
            for (const std::optional<Standard> standard :
                 {std::optional(Standard::Engine), std::optional<Standard>()}) {
                const auto run = againstStock("control-rounding", kind, true, standard);
                QVERIFY2(run && !run->ops.empty(), kind);
                QCOMPARE(standardName(run->standard), standard ? "engine" : "rounding");
                QCOMPARE(run->firstDivergent, -1);
            }
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", program("stock"), "--test", program("control-rounding"),
                                         "-o", m_dir.path() + "/hunt-control"});
        QCOMPARE(r.code, 1);
        QVERIFY2(engine::concludes(r.err, "every operation is within its budget in every round: nothing diverges"),
                 qPrintable(r.err));
    }

    // The standard fits the pair. One backend on both sides with the same types is held to
    // what rounding in another order may change: a fault under ggml's cross-backend budget is
    // found at the op it breaks. On a 2048-wide model the chunk-row fault leaves one of Qcur-0's
    // 2048 output features unwritten: NMSE about 1/2048, under MUL_MAT's 5e-4 (which the
    // engine standard passes in the first round), far above what two correct float32 products
    // differ by.
    void aFaultUnderTheCrossBackendBudgetIsFoundByRounding()
    {
        const QString wide = m_dir.path() + "/w2048.gguf";
        QVERIFY(engine::makeModel(
            kBin,
            {"--out", wide, "--layers", "1", "--width", "2048", "--heads", "16", "--kv-heads", "16", "--ff", "2048"}));
        const QString out = m_dir.path() + "/hunt-chunk-row";
        const auto r = engine::llmscope(
            kBin, {"hunt", "--golden", program("stock", wide), "--test", program("chunk-row", wide), "-o", out});
        QFile::remove(wide);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     "\n  standard rounding: both sides ran on CPU with the same types (differing in libggml-cpu.so"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(\n  first divergent by statistics: round 0, op 1_2 Qcur-0 \(MUL_MAT\))")),
                 qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_2 Qcur-0 \(MUL_MAT\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
        // The same statistics by ggml's cross-backend budgets: round 0's Qcur-0 passes, with
        // an error tens of times the rounding standard's budget (itself some 10^4 times what
        // two correct float32 products of 2048 terms differ by).
        const auto at = [](const CompareResult &c, const std::string &id) -> const OpResult * {
            for (const OpResult &op : c.ops)
                if (op.round == 0 && op.opId == id)
                    return &op;
            return nullptr;
        };
        const CompareResult engineRun = compare(out + "/golden-stats", out + "/test-stats", Standard::Engine);
        const CompareResult rounding = compare(out + "/golden-stats", out + "/test-stats", std::nullopt);
        QCOMPARE(standardName(rounding.standard), "rounding");
        const OpResult *e = at(engineRun, "1_2"), *q = at(rounding, "1_2");
        QVERIFY(e && q);
        QVERIFY2(e->passed && e->budgetShare < 1 && e->ownNmse > 1e-4,
                 qPrintable(QString("engine: adds %1, %2 of its budget").arg(e->ownNmse).arg(e->budgetShare)));
        QVERIFY2(!q->passed && q->ownNmse > 30 * q->budget,
                 qPrintable(QString("rounding: adds %1, budget %2").arg(q->ownNmse).arg(q->budget)));
    }

    // The experts' products (MUL_MAT_ID) of a q8_0 mixture-of-experts model: the fault gives a
    // token's last chosen expert the previous slot's activations in the down projection. Found
    // there, and its replay, held to what ggml's CPU kernel computes for each expert (q8_0
    // activations, exact integer dots), names the kernel; ggml's own kernel on the same inputs is
    // within that bound. The stock backend against itself rebuilt: nothing departs.
    void aFaultInTheExpertsProductsIsBlamedOnItsKernel()
    {
        const QString f32 = m_dir.path() + "/moe-f32.gguf", q8 = m_dir.path() + "/moe-q8_0.gguf";
        QVERIFY(engine::makeModel(kBin, {"--arch", "qwen3moe", "--out", f32, "--layers", "2"}));
        QVERIFY(engine::makeModel(kBin, {"--quantize", "q8_0", "--in", f32, "--out", q8}));
        auto sample = [&](const QString &backend) {
            return "env LD_LIBRARY_PATH=" + m_libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + q8 + " -n 3 -t 4 --no-repack";
        };
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", sample("stock"), "--test", sample("experts-slot"), "-o",
                                         m_dir.path() + "/hunt-experts-slot"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_\d+ ffn_moe_down-0 \(MUL_MAT_ID\) in )"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression(
                     R"(\n  replay: on the inputs it was given, the test's kernel is wrong: \d+ of \d+ )"
                     R"(elements beyond the bound, the largest [0-9.]+ times it; ggml's CPU kernel on )"
                     R"(the same inputs: 0\.\d+ times the bound)")),
                 qPrintable(r.err));
        const auto stock = engine::llmscope(kBin,
                                            {"hunt", "--golden", sample("stock"), "--test", sample("stock"), "-o",
                                             m_dir.path() + "/hunt-experts-stock"});
        QVERIFY2(stock.code == 1 && engine::concludes(stock.err, "every operation is within its budget in every round"),
                 qPrintable(stock.err));
    }

    // A quantized test against its float golden: ggml's budgets for the pair carry the weights'
    // quantization error, and the chunk-row fault's unwritten feature (1/2048 of Qcur-0) hides
    // under them, so every op is within its budget, and before this the hunt put the test's
    // error down to quantization. Each of the test's products is replayed on its own inputs
    // against what its kernel computes (q8_0 activations): Qcur-0's kernel is wrong. The stock
    // backend's products all pass. One round: with several threads the fault's victim depends
    // on how the threads share a decoded token's product, which reading it changes (the
    // observer check says so when the later rounds are read too).
    void aQuantizedFaultUnderTheBudgetIsFoundByItsReplay()
    {
        const QString wide = m_dir.path() + "/w2048-f32.gguf", q8 = m_dir.path() + "/w2048-q8_0.gguf";
        QVERIFY(engine::makeModel(
            kBin,
            {"--out", wide, "--layers", "1", "--width", "2048", "--heads", "16", "--kv-heads", "16", "--ff", "2048"}));
        QVERIFY(engine::makeModel(kBin, {"--quantize", "q8_0", "--in", wide, "--out", q8}));
        auto sample = [&](const QString &backend, const QString &model) {
            return "env LD_LIBRARY_PATH=" + m_libs + "/" + backend + " " + m_zoo +
                "/build/bin/llmscope-sample-generate -m " + model + " -n 3 -t 4 --no-repack";
        };
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", sample("stock", wide), "--test", sample("chunk-row", q8),
                                         "-er", "0,0", "-o", m_dir.path() + "/hunt-q8-chunk-row"});
        const auto stock = engine::llmscope(kBin,
                                            {"hunt", "--golden", sample("stock", wide), "--test", sample("stock", q8),
                                             "-er", "0,0", "-o", m_dir.path() + "/hunt-q8-stock"});
        // the quantization report replays the same products: the fault is named as the kernel's,
        // not ranked as the weight's quantization
        const QString report = m_dir.path() + "/quant-q8-chunk-row";
        const auto q = engine::llmscope(kBin,
                                        {"quant-report", "--golden", sample("stock", wide), "--test",
                                         sample("chunk-row", q8), "-er", "0,0", "-o", report});
        const auto qStock =
            engine::llmscope(kBin,
                             {"quant-report", "--golden", sample("stock", wide), "--test", sample("stock", q8), "-er",
                              "0,0", "-o", m_dir.path() + "/quant-q8-stock"});
        QFile::remove(wide);
        QFile::remove(q8);
        const QString wrong = "round 0, op 1_2 Qcur-0 (MUL_MAT): its kernel is wrong on its own inputs (";
        QVERIFY2(q.code == 0 && q.err.contains("\n  note: " + wrong), qPrintable(q.err + q.out));
        QFile json(report + "/quant_report.json");
        QVERIFY(json.open(QIODevice::ReadOnly));
        QVERIFY2(QString::fromUtf8(json.readAll()).contains(wrong), "the report's notes name the kernel");
        QVERIFY2(qStock.code == 0 && !qStock.err.contains("its kernel is wrong"), qPrintable(qStock.err));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     "\n  a matrix product within ggml's budget for this pair is wrong on its own inputs: its kernel, "
                     "not the quantization, adds the error\n"),
                 qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_2 Qcur-0 \(MUL_MAT\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  within its budget: "), qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(\n  replay: on the inputs it was given, the test's kernel is wrong: \d+ of )"
                                        R"(36864 elements beyond the bound)")),
                 qPrintable(r.err));
        QVERIFY2(stock.code == 1 &&
                     engine::concludes(stock.err, "no kernel adds error beyond what quantization explains in round 0"),
                 qPrintable(stock.err));
        QVERIFY2(stock.err.contains(
                     QRegularExpression(R"(\n  replay: each of the test's [1-9]\d* matrix product\(s\) is within )"
                                        R"(its bound on the inputs it was given)")),
                 qPrintable(stock.err));
    }

    // And a correct pair is not called broken: the stock backend built for AVX-512 and for
    // AVX2 (other vector widths: other summation orders, other elementary functions) agree
    // within the rounding standard, element by element, in every op of every round; the same
    // command twice with the same libraries is held bit for bit, and is.
    void correctPairsPassTheirStandards()
    {
        auto run = [&](const QString &libs, const QString &name) {
            const QString out = m_dir.path() + "/" + name;
            const auto d = engine::llmscope(kBin,
                                            {"dump", "--exec",
                                             "env LD_LIBRARY_PATH=" + libs + "/stock " + m_zoo +
                                                 "/build/bin/llama-simple -m " + m_model + " -n 3 Hello",
                                             "--type", "model", "tensor", "--keep-fusion", "-o", out});
            const auto dumps = dumpsInside(out.toStdString());
            return d.code == 0 && dumps.size() == 1 ? QString::fromStdString(dumps[0]) : QString();
        };
        const QString native = run(m_zoo + "/lib", "pair-native"), avx2 = run(m_zoo + "/lib-avx2", "pair-avx2"),
                      again = run(m_zoo + "/lib", "pair-native-again");
        QVERIFY(!native.isEmpty() && !avx2.isEmpty() && !again.isEmpty());
        const CompareResult widths = compare(native, avx2, std::nullopt);
        QCOMPARE(standardName(widths.standard), "rounding");
        QVERIFY(!widths.ops.empty());
        QVERIFY2(widths.firstDivergent < 0,
                 widths.firstDivergent < 0 ? "" : widths.ops[size_t(widths.firstDivergent)].label().c_str());
        const CompareResult same = compare(native, again, std::nullopt);
        QCOMPARE(standardName(same.standard), "exact");
        QVERIFY2(same.firstDivergent < 0,
                 same.firstDivergent < 0 ? "" : same.ops[size_t(same.firstDivergent)].label().c_str());
        for (const OpResult &op : same.ops)
            QCOMPARE(op.nmse, 0.0);
    }
};

QTEST_GUILESS_MAIN(TstKernelZoo)
#include "tst_kernelzoo.moc"
