// llmscope compare on dumps of real llama.cpp runs: F32 golden against Q8_0, against a model
// with one corrupted layer, and against a graph with flash attention off.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "tests/compare_reference.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
constexpr int kCorruptLayer = 1;

using Run = engine::LlmscopeRun;
Run llmscopeRun(const QStringList &args)
{
    return engine::llmscope(kBin, args);
}
} // namespace

class TstCompareRuns : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString dumpOf(const QString &model, const QString &name, const QString &extra = {})
    {
        const QString out = m_dir.path() + "/" + name;
        const Run r = llmscopeRun(
            {"dump", "--exec", kBin + "/llmscope-sample-generate -m " + m_dir.path() + "/" + model + " -n 2 " + extra,
             "--type", "model", "tensor", "-er", "0,1", "-o", out});
        return r.code == 0 ? out : QString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(engine::makeModel(
            kBin, {"--family", m_dir.path(), "--layers", "3", "--corrupt-layer", QString::number(kCorruptLayer)}));
        for (const auto &[model, name, extra] :
             std::vector<std::tuple<QString, QString, QString>>{{"model-f32.gguf", "f32", ""},
                                                                {"model-q8_0.gguf", "q8", ""},
                                                                {"model-corrupt.gguf", "corrupt", ""},
                                                                {"model-f32.gguf", "f32-nofa", "--flash-attn off"}})
            QVERIFY2(!dumpOf(model, name, extra).isEmpty(), qPrintable(name));
    }

    // The first divergent operation is in the corrupted layer; everything before it passes;
    // metric values equal the long-double reference computed from the dumped files.
    void corruptedLayerIsTheFirstDivergence()
    {
        const QString out = m_dir.path() + "/cmp-corrupt";
        const Run r = llmscopeRun(
            {"compare", "--golden-path", m_dir.path() + "/f32", "--my-path", m_dir.path() + "/corrupt", "-o", out});
        QCOMPARE(r.code, 1);
        // Not on a terminal: no progress bar, and the summary is all there is.
        QVERIFY2(r.err.startsWith("llmscope compare: "), qPrintable(r.err.left(200)));
        QVERIFY2(r.err.trimmed().split('\n').last().startsWith("  report: "), qPrintable(r.err.right(200)));
        const QString layer = QString("%1_DecoderLayer").arg(kCorruptLayer + 1); // 0 is the embedding
        QVERIFY2(r.err.contains("first divergent: round 0, op " + QString::number(kCorruptLayer + 1) + "_"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(" in " + layer + "/"), qPrintable(r.err));
        // Named as the program named it: the corrupted weight's first use, ffn_down's product
        const QRegularExpression named("first divergent: round 0, op \\d+_\\d+ ffn_out-" +
                                       QString::number(kCorruptLayer) + " \\(MUL_MAT\\) in ");
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QVERIFY2(r.err.contains("the weight blk." + QString::number(kCorruptLayer) +
                                ".ffn_down.weight differs between golden and test"),
                 qPrintable(r.err));
        const QJsonObject doc = engine::compareReport(out);
        const QJsonArray ops = doc["ops"].toArray();
        const int first = doc["first_divergent"].toInt();
        QVERIFY(first > 0);
        QVERIFY(ops[first].toObject()["op_path"].toString().startsWith(layer + "/"));
        QCOMPARE(ops[first].toObject()["node_name"].toString(), "ffn_out-" + QString::number(kCorruptLayer));
        QVERIFY(ops[first].toObject()["worst_input_is_weight"].toBool());
        const QJsonObject weightRow = doc["rows"].toArray()[ops[first].toObject()["worst_input"].toInt()].toObject();
        QCOMPARE(weightRow["tensor_name"].toString(), "blk." + QString::number(kCorruptLayer) + ".ffn_down.weight");
        for (int i = 0; i < first; ++i)
            QVERIFY(ops[i].toObject()["passed"].toBool());

        CompareOptions o;
        o.goldenPath = (m_dir.path() + "/f32").toStdString();
        o.myPath = (m_dir.path() + "/corrupt").toStdString();
        const CompareResult res = runCompare(o);
        int checked = 0;
        for (const auto &row : res.rows) {
            if (!row.computed || row.golden.dtype != 0 || row.metrics.cosine == 1 || checked >= 6)
                continue;
            const auto g = toFloat(readBin(row.golden.path)), m = toFloat(readBin(row.my.path));
            const auto ref = testing::reference(g, m);
            for (auto [got, want] : {std::pair{row.metrics.cosine, ref.cosine},
                                     {row.metrics.relEuclidean, ref.red},
                                     {row.metrics.klDivergence, ref.kl},
                                     {row.metrics.maxRelErr, ref.maxRel},
                                     {row.metrics.meanAbsErr, ref.meanAbs}})
                QVERIFY2(std::fabs(got - double(want)) <= 1e-6 * std::max(1.0, std::fabs(double(want))),
                         qPrintable(QString("%1: %2 vs %3")
                                        .arg(QString::fromStdString(row.golden.path))
                                        .arg(got)
                                        .arg(double(want))));
            ++checked;
        }
        QCOMPARE(checked, 6);
    }

    // Q8_0 against F32: near but below 1 wherever quantized weights have been used, exactly 1
    // where they have not (the token ids and positions the graph starts from). Every weight is
    // compared (read from both model files, the Q8_0 one dequantized by ggml) and its error is
    // what requantizing golden's gives: quantization, not a kernel, and nothing diverges.
    void quantizedAgainstGolden()
    {
        CompareOptions o;
        o.goldenPath = (m_dir.path() + "/f32").toStdString();
        o.myPath = (m_dir.path() + "/q8").toStdString();
        const CompareResult res = runCompare(o);
        QCOMPARE(res.method.english(), std::string("same topology"));
        int exact = 0, near = 0, weights = 0;
        for (const auto &row : res.rows) {
            // Nothing left out but the KV-cache views, described only (no "cannot be compared").
            QVERIFY2(row.computed || row.skipped,
                     qPrintable(QString::fromStdString(row.golden.path + ": " + row.failReason.english())));
            if (!row.computed)
                continue;
            if (row.quantization) {
                const Quantization &q = *row.quantization;
                QCOMPARE(q.myType, std::string("q8_0"));
                QCOMPARE(row.weightSource, std::string("model files"));
                QVERIFY2(q.error > 1e-4 && q.error < 0.01, qPrintable(QString::number(q.error)));
                QCOMPARE(q.beyond, 0.0); // exactly golden's weight requantized
                QVERIFY(std::fabs(q.expected - q.error) < 1e-9);
                QVERIFY(row.passed);
                QVERIFY(row.failReason.empty());
                ++weights;
                continue;
            }
            if (row.golden.dtype == 3) { // int32: ids and positions
                QCOMPARE(row.metrics.cosine, 1.0);
                ++exact;
            } else if (!row.golden.input && row.metrics.count > 1) {
                QVERIFY2(
                    row.metrics.cosine < 1.0 && row.metrics.cosine > 0.99,
                    qPrintable(QString("%1: %2").arg(QString::fromStdString(row.golden.path)).arg(row.metrics.cosine)));
                ++near;
            }
        }
        QVERIFY(exact >= 2);
        QVERIFY(near > 30);
        QVERIFY(weights >= 2 * (1 + 3 * 7)); // token_embd and 7 matrices a layer, in 2 rounds
        QCOMPARE(res.firstDivergent, -1);
        QCOMPARE(res.standard, Standard::Engine);
    }

    // Flash attention off adds nodes: pairs by layer, node name and op; the extra nodes are
    // listed; what both graphs compute agrees to float rounding; other kernels, so ggml's
    // cross-backend budgets.
    void flashAttentionOffPairsByName()
    {
        CompareOptions o;
        o.goldenPath = (m_dir.path() + "/f32").toStdString();
        o.myPath = (m_dir.path() + "/f32-nofa").toStdString();
        const CompareResult res = runCompare(o);
        QCOMPARE(res.method.english(), std::string("by layer, node name and op"));
        // one backend, but other kernels: held to ggml's cross-backend budgets, not to rounding
        QCOMPARE(res.standard, Standard::Engine);
        QVERIFY2(res.standardWhy.english().find("their graphs differ") != std::string::npos,
                 res.standardWhy.english().c_str());
        QVERIFY(!res.onlyMy.empty());
        bool softmax = false;
        for (const auto &p : res.onlyMy)
            softmax |= QString::fromStdString(p.path).contains("_SOFT_MAX/");
        QVERIFY(softmax);
        int layerOutputs = 0;
        for (const auto &row : res.rows)
            if (row.computed && !row.golden.input && row.golden.opName == "ADD") {
                QVERIFY2(row.metrics.cosine > 0.99999, row.golden.path.c_str());
                ++layerOutputs;
            }
        QVERIFY(layerOutputs >= 2 * 3 * 2); // ffn_inp and l_out, 3 layers, 2 rounds
    }

    // llmscope hunt: statistics of every op, the first divergent from them, then that op's
    // tensors only, compared element by element: it ends on the corrupted weight's op.
    void huntEndsOnTheCorruptedOp()
    {
        const QString gen = kBin + "/llmscope-sample-generate -n 2 -m " + m_dir.path() + "/";
        const QString out = m_dir.path() + "/hunt";
        const Run r =
            llmscopeRun({"hunt", "--golden", gen + "model-f32.gguf", "--test", gen + "model-corrupt.gguf", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString layerOp = "ffn_out-" + QString::number(kCorruptLayer) + " (MUL_MAT)";
        QVERIFY2(r.err.contains(QRegularExpression("first divergent by statistics: round 0, op \\d+_\\d+ " +
                                                   QRegularExpression::escape(layerOp))),
                 qPrintable(r.err));
        QVERIFY2(engine::concludes(
                     r.err,
                     "found: round 0, op \\d+_\\d+ " + QRegularExpression::escape(layerOp) + " in " +
                         QString::number(kCorruptLayer + 1) + "_DecoderLayer/\\d+_MUL_MAT, llama.cpp's layer " +
                         QString::number(kCorruptLayer) + " \\(blk\\." + QString::number(kCorruptLayer) + "\\)$"),
                 qPrintable(r.err));
        QVERIFY2(engine::blamesWeight(engine::huntConclusion(r.err).join('\n'),
                                      "blk." + QString::number(kCorruptLayer) + ".ffn_down.weight"),
                 qPrintable(r.err));
        // Every dump is kept; the second pass dumped that op only, with its data.
        for (const char *d : {"golden-stats", "test-stats", "golden-tensors", "test-tensors"})
            QVERIFY2(!QDir(out + "/" + d).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty(), d);
        const QString tensors =
            out + "/test-tensors/" + QDir(out + "/test-tensors").entryList({"msit_dump_*"}, QDir::Dirs).first();
        std::set<std::string> ops;
        for (const auto &t : scanDump(tensors.toStdString()).tensors) {
            ops.insert(t.opId);
            QVERIFY(t.hasData || t.input); // outputs with data; weights as inputs
        }
        QCOMPARE(ops.size(), size_t(1));
        const Run same = llmscopeRun({"hunt", "--golden", gen + "model-f32.gguf", "--test", gen + "model-f32.gguf",
                                      "-o", m_dir.path() + "/hunt-same"});
        QCOMPARE(same.code, 1);
        QVERIFY2(
            engine::concludes(same.err, "every operation is within its budget in every round: nothing diverges beyond"),
            qPrintable(same.err));
        QVERIFY(!same.err.contains("llmscope hunt: found:"));
    }

    void commandLineErrors()
    {
        const Run missing = llmscopeRun({"compare", "--golden-path", m_dir.path() + "/f32"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.err.contains("--golden-path and --my-path are both required"));
        const Run nowhere = llmscopeRun({"compare", "-gp", m_dir.path() + "/nope", "-mp", m_dir.path() + "/f32"});
        QCOMPARE(nowhere.code, 2);
        QVERIFY(nowhere.err.contains("neither a dump folder nor a tensor file"));
        QFile bad(m_dir.path() + "/bad.json");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"3_1\": 5}");
        bad.close();
        const Run map = llmscopeRun({"compare", "-gp", m_dir.path() + "/f32", "-mp", m_dir.path() + "/f32", "--mapping",
                                     bad.fileName(), "-o", m_dir.path() + "/cmp-bad"});
        QCOMPARE(map.code, 2);
        QVERIFY2(map.err.contains("must be strings"), qPrintable(map.err));
        const Run same = llmscopeRun(
            {"compare", "-gp", m_dir.path() + "/f32", "-mp", m_dir.path() + "/f32", "-o", m_dir.path() + "/cmp-same"});
        QCOMPARE(same.code, 0);
        QVERIFY(same.err.contains("every operation passed"));
        // The standard is chosen by name; anything else is refused with the reason.
        for (const QStringList &args :
             {QStringList{"compare", "-gp", m_dir.path() + "/f32", "-mp", m_dir.path() + "/f32"},
              QStringList{"hunt", "--golden", "x", "--test", "y"}}) {
            const Run bogus = llmscopeRun(args + QStringList{"--standard", "strict"});
            QCOMPARE(bogus.code, 2);
            QVERIFY2(bogus.err.contains("--standard: 'strict' is not exact, rounding, engine or msit"),
                     qPrintable(bogus.err));
        }
        const Run both = llmscopeRun({"compare", "-gp", m_dir.path() + "/f32", "-mp", m_dir.path() + "/f32",
                                      "--standard", "engine", "--rel-tol", "1e-3"});
        QCOMPARE(both.code, 2);
        QVERIFY2(both.err.contains("--standard engine does not use"), qPrintable(both.err));
        const Run msit = llmscopeRun({"compare", "-gp", m_dir.path() + "/f32", "-mp", m_dir.path() + "/corrupt",
                                      "--standard", "msit", "-o", m_dir.path() + "/cmp-msit"});
        QCOMPARE(msit.code, 1);
        QVERIFY2(msit.err.contains("standard msit: as asked (--standard)") &&
                     msit.err.contains("ffn_out-" + QString::number(kCorruptLayer)),
                 qPrintable(msit.err));
    }
};

QTEST_GUILESS_MAIN(TstCompareRuns)
#include "tst_compareruns.moc"
