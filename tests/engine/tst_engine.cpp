// The sample engine itself: generated models load in both targets, generation is
// deterministic, and the model family differs from F32 by small, nonzero amounts.
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

#include <gguf.h>

#include "tests/engine/engine_run.h"

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

double relativeRms(const std::vector<double> &test, const std::vector<double> &golden)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < golden.size(); ++i) {
        num += (test[i] - golden[i]) * (test[i] - golden[i]);
        den += golden[i] * golden[i];
    }
    return std::sqrt(num / den);
}

// Every tensor's bytes, by name, read through ggml's own GGUF reader.
std::map<std::string, QByteArray> tensorBytes(const QString &path)
{
    gguf_init_params p{true, nullptr};
    gguf_context *g = gguf_init_from_file(path.toLocal8Bit().constData(), p);
    std::map<std::string, QByteArray> out;
    if (!g)
        return out;
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    const QByteArray all = f.readAll();
    const size_t base = gguf_get_data_offset(g);
    for (int64_t i = 0; i < gguf_get_n_tensors(g); ++i)
        out[gguf_get_tensor_name(g, i)] =
            all.mid(qsizetype(base + gguf_get_tensor_offset(g, i)), qsizetype(gguf_get_tensor_size(g, i)));
    gguf_free(g);
    return out;
}
} // namespace

class TstEngine : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString model(const QString &name) const { return m_dir.path() + "/" + name; }

private slots:
    void initTestCase()
    {
        QProcess p;
        p.start(kBin + "/llmscope-make-model", {"--family", m_dir.path(), "--layers", "3", "--corrupt-layer", "1"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        for (const char *f : {"model-f32.gguf", "model-q8_0.gguf", "model-q4_0.gguf", "model-corrupt.gguf"})
            QVERIFY2(QFile::exists(model(f)), f);
    }

    void nativeGenerationIsDeterministic()
    {
        const auto a = engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-f32.gguf"), "-n", "12"});
        const auto b = engine::run(kBin + "/llmscope-sample-generate",
                                   {"-m", model("model-f32.gguf"), "-n", "12", "--token-times"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.stderrText));
        QCOMPARE(a.tokens.size(), size_t(12));
        QCOMPARE(a.tokens, b.tokens);
        QCOMPARE(a.promptTokens.front(), 1); // BOS
        // The benchmarks' per-token clock: one decode per generated token but the last.
        QVERIFY(a.tokenMs.empty());
        QCOMPARE(b.tokenMs.size(), size_t(11));
        for (double ms : b.tokenMs)
            QVERIFY(ms > 0 && ms < 10000);
    }

    void nodeTargetMatchesNative()
    {
        const auto native = engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-f32.gguf"), "-n", "8"});
        const auto node1 = engine::run(kBin + "/llmscope-sample-node", {"-m", model("model-f32.gguf"), "-n", "8"});
        const auto node2 = engine::run(kBin + "/llmscope-sample-node", {"-m", model("model-f32.gguf"), "-n", "8"});
        QVERIFY2(node1.exitCode == 0, qPrintable(node1.stderrText));
        QCOMPARE(node1.tokens.size(), size_t(8));
        QCOMPARE(node1.tokens, node2.tokens);
        QCOMPARE(node1.promptTokens, native.promptTokens);
        QCOMPARE(node1.tokens, native.tokens);
    }

    void variantsDifferSlightly_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::newRow("q8_0") << "model-q8_0.gguf" << 1e-4 << 0.15;
        QTest::newRow("q4_0") << "model-q4_0.gguf" << 1e-3 << 1.0;
        QTest::newRow("corrupt") << "model-corrupt.gguf" << 1e-4 << 1.0;
    }
    void variantsDifferSlightly()
    {
        QFETCH(QString, variant);
        QFETCH(double, low);
        QFETCH(double, high);
        // The logits after the prompt alone: generated text diverges too early to compare.
        const auto golden =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-f32.gguf"), "-n", "1", "--logits"});
        const auto test =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model(variant), "-n", "1", "--logits"});
        QVERIFY2(test.exitCode == 0, qPrintable(test.stderrText));
        QCOMPARE(golden.logits.size(), size_t(259));
        QCOMPARE(test.logits.size(), golden.logits.size());
        const double err = relativeRms(test.logits, golden.logits);
        qInfo("%s: relative RMS error of the logits %.4f", qPrintable(variant), err);
        QVERIFY2(err > low && err < high, qPrintable(QString::number(err)));
    }

    void q4IsWorseThanQ8()
    {
        const auto g =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-f32.gguf"), "-n", "1", "--logits"});
        const auto q8 =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-q8_0.gguf"), "-n", "1", "--logits"});
        const auto q4 =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-q4_0.gguf"), "-n", "1", "--logits"});
        QVERIFY(relativeRms(q4.logits, g.logits) > relativeRms(q8.logits, g.logits));
    }

    void corruptionTouchesOnlyTheChosenWeight()
    {
        QProcess p;
        p.start(kBin + "/llmscope-make-model",
                {"--out", model("zero.gguf"), "--layers", "3", "--corrupt-layer", "1", "--corrupt-amount", "0"});
        QVERIFY(p.waitForFinished(60000) && p.exitCode() == 0);
        const auto golden = tensorBytes(model("model-f32.gguf"));
        const auto zero = tensorBytes(model("zero.gguf"));
        const auto corrupt = tensorBytes(model("model-corrupt.gguf"));
        QCOMPARE(golden.size(), size_t(2 + 3 * 9 + 1));
        QVERIFY(golden == zero); // a zero perturbation is byte for byte the original
        int differing = 0;
        for (const auto &[name, bytes] : golden)
            if (corrupt.at(name) != bytes) {
                ++differing;
                QCOMPARE(name, std::string("blk.1.ffn_down.weight"));
            }
        QCOMPARE(differing, 1);
    }

    void badInputsSayWhy()
    {
        QProcess p;
        p.start(kBin + "/llmscope-make-model", {"--out", model("x.gguf"), "--width", "100"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(p.readAllStandardError().contains("multiple"));
        p.start(kBin + "/llmscope-make-model",
                {"--out", model("x.gguf"), "--corrupt-layer", "1", "--corrupt-tensor", "nope"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.readAllStandardError().contains("is not a layer weight"));
        QVERIFY(!QFile::exists(model("x.gguf")));
        const auto missing = engine::run(kBin + "/llmscope-sample-generate", {"-m", model("nope.gguf")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.stderrText.contains("cannot load model"));
    }
};

QTEST_GUILESS_MAIN(TstEngine)
#include "tst_engine.moc"
