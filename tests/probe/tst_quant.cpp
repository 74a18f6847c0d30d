// Quantized models on the real engine: weights read from the programs' model files and
// dequantized by ggml, verdicts that name quantization rather than a kernel, the hunt, the
// quantization report, and its choice of weights applied with llmscope-make-model.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <set>

#include "core/compare/quantization.h"
#include "core/compare/tensor_reader.h"
#include "core/dump/dump_layout.h"
#include "core/dump/probe_status.h"
#include "core/ggml/ggml_library.h"
#include "core/quant/quant_report.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

QString generate(const QString &model, int tokens)
{
    return kBin + "/llmscope-sample-generate -m " + model + " -n " + QString::number(tokens) + " -t 1";
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// ||a - b|| / ||a|| of two tensors read whole.
double relativeError(TensorReader &golden, TensorReader &test, std::vector<float> *testValues = nullptr)
{
    std::vector<float> a(golden.count()), b(test.count());
    golden.read(0, a.size(), a.data());
    test.read(0, b.size(), b.data());
    double d = 0, n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        n += double(a[i]) * a[i];
    }
    if (testValues)
        *testValues = std::move(b);
    return std::sqrt(d / n);
}

QString makeModel(const QStringList &args)
{
    QProcess p;
    p.start(kBin + "/llmscope-make-model", args);
    p.waitForFinished(120000);
    return p.exitCode() == 0 && p.exitStatus() == QProcess::NormalExit ? QString()
                                                                       : QString::fromUtf8(p.readAllStandardError());
}
} // namespace

class TstQuant : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString model(const QString &name) const { return m_dir.path() + "/model-" + name + ".gguf"; }

    // quant-report of golden F32 against `test`; its JSON, empty on failure.
    QJsonObject quantReport(const QString &test, const QString &out, const QStringList &extra = {})
    {
        const auto r = engine::llmscope(kBin,
                                        QStringList{"quant-report", "--golden", generate(model("f32"), 16), "--test",
                                                    generate(test, 16), "-o", out} +
                                            extra);
        if (r.code != 0)
            qWarning("%s", qPrintable(r.err));
        return r.code == 0 ? readJson(out + "/quant_report.json") : QJsonObject{};
    }

    // On the report's own figures: each weight's share is its estimate over their sum, and the
    // choice goes down the ranking taking each weight that gains and still fits, passing over
    // one that does not fit (a budget the second one misses while a later, smaller one fits).
    static void checkSharesAndChoice(const QString &out)
    {
        QFile f(out + "/quant_report.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QuantReport r = parseQuantReport(f.readAll().toStdString());
        QVERIFY(r.weights.size() > 3 && r.estimatedNmse > 0);
        double shares = 0;
        for (const auto &c : r.weights) {
            shares += c.share;
            QVERIFY2(std::fabs(c.share - c.logitsNmse / r.estimatedNmse) <= 1e-9 * std::max(c.share, 1e-12),
                     c.name.c_str());
        }
        QVERIFY2(std::fabs(shares - 1) < 1e-9, qPrintable(QString::number(shares, 'g', 17)));
        auto extra = [](const WeightCost &c) { return c.keepBytes > c.myBytes ? c.keepBytes - c.myBytes : 0; };
        uint64_t spent = 0;
        for (const auto &c : r.weights) {
            const bool take = extra(c) > 0 && c.gainPerMiB > 0 && spent + extra(c) <= r.budgetBytes;
            QVERIFY2(c.chosen == take, c.name.c_str());
            spent += take ? extra(c) : 0;
        }
        QCOMPARE(r.chosenBytes, spent);
        // The first weight b with a smaller one c after it: a budget of the weights above b and
        // c's bytes leaves b out and takes c (stopping at b would leave c's bytes unspent).
        size_t b = 0, c = 0;
        for (size_t i = 0; i < r.weights.size() && !c; ++i)
            for (size_t j = i + 1; j < r.weights.size() && !c; ++j)
                if (extra(r.weights[j]) < extra(r.weights[i]) && r.weights[j].gainPerMiB > 0)
                    b = i, c = j;
        QVERIFY2(c > 0, "no weight in the ranking is followed by a smaller one");
        uint64_t tight = extra(r.weights[c]);
        for (size_t i = 0; i < b; ++i)
            tight += r.weights[i].gainPerMiB > 0 ? extra(r.weights[i]) : 0;
        QCOMPARE(chooseWithinBudget(r.weights, tight), tight);
        for (size_t i = 0; i < r.weights.size(); ++i)
            QVERIFY2(r.weights[i].chosen ==
                         ((i < b && r.weights[i].gainPerMiB > 0 && extra(r.weights[i]) > 0) || i == c),
                     r.weights[i].name.c_str());
    }

private slots:
    void initTestCase()
    {
        QVERIFY(engine::makeModel(kBin, {"--family", m_dir.path(), "--corrupt-layer", "1"}));
        QCOMPARE(makeModel({"--quantize", "q4_0", "--in", model("corrupt"), "--out", model("corrupt-q4_0")}),
                 QString());
    }

    // The probe notes the model file the program loaded; ggml reads it back, and its Q8_0 and
    // Q4_0 weights dequantize to golden's within their formats' errors.
    void modelFilesAndDequantization()
    {
        const QString out = m_dir.path() + "/noted";
        const auto r = engine::llmscope(
            kBin, {"dump", "--exec", generate(model("q8_0"), 1), "--type", "model", "stats", "-o", out});
        QCOMPARE(r.code, 0);
        const auto dumps = dumpsInside(out.toStdString());
        QCOMPARE(dumps.size(), size_t(1));
        const auto statuses = readProbeStatuses(dumps[0]);
        QCOMPARE(statuses.size(), size_t(1));
        QCOMPARE(statuses[0].models,
                 std::vector<std::string>{QFileInfo(model("q8_0")).canonicalFilePath().toStdString()});
        // The same through Node, which loads llama.cpp privately (RTLD_LOCAL).
        const QString nodeOut = m_dir.path() + "/noted-node";
        QCOMPARE(engine::llmscope(kBin,
                                  {"dump", "--exec", kBin + "/llmscope-sample-node -m " + model("q4_0") + " -n 1",
                                   "--type", "model", "stats", "-o", nodeOut})
                     .code,
                 0);
        const auto nodeDumps = dumpsInside(nodeOut.toStdString());
        QCOMPARE(nodeDumps.size(), size_t(1));
        QCOMPARE(readProbeStatuses(nodeDumps[0]).at(0).models,
                 std::vector<std::string>{QFileInfo(model("q4_0")).canonicalFilePath().toStdString()});

        const auto &lib = ggml::Library::get();
        const auto f32 = lib.model(model("f32").toStdString());
        for (const auto &[type, low, high] :
             std::vector<std::tuple<QString, double, double>>{{"q8_0", 1e-3, 1e-2}, {"q4_0", 0.05, 0.15}}) {
            const auto q = lib.model(model(type).toStdString());
            const ggml::ModelTensor *gt = f32->find("blk.0.ffn_down.weight"), *qt = q->find("blk.0.ffn_down.weight");
            QVERIFY(gt && qt);
            QCOMPARE(qt->typeName, type.toStdString());
            QCOMPARE(qt->dims, gt->dims);
            TensorReader g(f32->path, *gt), m(q->path, *qt);
            QCOMPARE(g.count(), m.count());
            std::vector<float> b;
            const double rel = relativeError(g, m, &b);
            QVERIFY2(rel > low && rel < high, qPrintable(type + ": " + QString::number(rel)));
            // A chunk read from the middle of a block equals the same elements read whole.
            std::vector<float> part(45);
            m.read(1000, 45, part.data());
            QVERIFY(std::equal(part.begin(), part.end(), b.begin() + 1000));

            // The same blocks dumped as the probe writes them (bytes with engine_dtype and
            // engine_dims, as from device memory) read back to the same floats.
            Tensor dumped;
            dumped.dtype = int32_t(DType::UInt8);
            dumped.dims = {int64_t(qt->bytes)};
            dumped.hasData = true;
            dumped.data.resize(qt->bytes);
            QFile model(QString::fromStdString(q->path));
            QVERIFY(model.open(QIODevice::ReadOnly) && model.seek(qint64(qt->offset)));
            QCOMPARE(model.read(reinterpret_cast<char *>(dumped.data.data()), qint64(qt->bytes)), qint64(qt->bytes));
            dumped.setAttr(kEngineDTypeAttr, type.toStdString());
            dumped.setAttr(kEngineDimsAttr, joinDims(qt->dims));
            const std::string bin = (m_dir.path() + "/dumped-" + type + ".bin").toStdString();
            writeBin(bin, dumped);
            TensorReader fromDump(bin);
            QCOMPARE(fromDump.count(), m.count());
            std::vector<float> c(fromDump.count());
            fromDump.read(0, c.size(), c.data());
            QVERIFY(c == b);
        }
    }

    // Every family of ggml's formats comes back through ggml's own to_float: legacy, K-quants,
    // IQ, BF16. Without an importance matrix llama-quantize rounds legacy and K-quants as ggml's
    // reference quantizer does, so golden requantized to the test's type is the test's weight
    // exactly; IQ4_NL's quantizer searches further and does a little better than the reference,
    // which the 1.25 room takes as quantization, as it must.
    void everyFormatDequantizes_data()
    {
        QTest::addColumn<QString>("ftype");
        QTest::addColumn<QString>("type"); // blk.0.ffn_down.weight's type in that file
        QTest::addColumn<double>("high"); // its relative error is below this
        QTest::addColumn<bool>("exact"); // the same bytes as golden requantized by the reference
        QTest::newRow("q4_1") << "q4_1"
                              << "q4_1" << 0.15 << true;
        QTest::newRow("q5_0") << "q5_0"
                              << "q5_0" << 0.08 << true;
        QTest::newRow("q5_1") << "q5_1"
                              << "q5_1" << 0.08 << true;
        QTest::newRow("q2_k") << "q2_k"
                              << "q3_K" << 0.2 << true; // Q2_K's mixture keeps ffn_down at Q3_K
        QTest::newRow("q3_k_m") << "q3_k_m"
                                << "q4_K" << 0.08 << true;
        QTest::newRow("q4_k_m") << "q4_k_m"
                                << "q4_K" << 0.08 << true;
        QTest::newRow("q6_k") << "q6_k"
                              << "q6_K" << 0.05 << true;
        QTest::newRow("iq4_nl") << "iq4_nl"
                                << "iq4_nl" << 0.15 << false;
        QTest::newRow("bf16") << "bf16"
                              << "bf16" << 0.01 << true;
    }

    void everyFormatDequantizes()
    {
        QFETCH(QString, ftype);
        QFETCH(QString, type);
        QFETCH(double, high);
        QFETCH(bool, exact);
        const QString out = m_dir.path() + "/model-" + ftype + ".gguf";
        QCOMPARE(makeModel({"--quantize", ftype, "--in", model("f32"), "--out", out}), QString());
        const auto &lib = ggml::Library::get();
        const auto f32 = lib.model(model("f32").toStdString());
        const auto q = lib.model(out.toStdString());
        const ggml::ModelTensor *gt = f32->find("blk.0.ffn_down.weight"), *qt = q->find("blk.0.ffn_down.weight");
        QVERIFY(gt && qt);
        QCOMPARE(QString::fromStdString(qt->typeName), type);
        TensorReader g(f32->path, *gt), m(q->path, *qt);
        Quantization quant;
        quant.error = relativeError(g, m);
        measureQuantization(quant, g, m);
        QCOMPARE(QString::fromStdString(quant.myType), type);
        QVERIFY2(quant.error > 0 && quant.error < high, qPrintable(QString::number(quant.error)));
        QVERIFY(quant.explained());
        if (exact) {
            QVERIFY2(quant.beyond < 1e-6, qPrintable(QString::number(quant.beyond)));
            QVERIFY(std::fabs(quant.expected - quant.error) < 1e-6);
        } else {
            QVERIFY(quant.beyond > 0 && quant.error <= quant.expected);
        }
    }

    // A model file cut short is refused with a reason, not read past its end.
    void truncatedModelIsRefused()
    {
        const QString cut = m_dir.path() + "/cut.gguf";
        QFile::remove(cut);
        QVERIFY(QFile::copy(model("q4_0"), cut));
        QFile f(cut);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() / 2));
        f.close();
        try {
            ggml::Library::get().model(cut.toStdString());
            QFAIL("a truncated model was read");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(cut), e.what());
        }
    }

    // F32 against Q4_0: no kernel is blamed; the hunt says quantization explains the error and
    // names the weights whose quantization costs most.
    void huntBlamesQuantization()
    {
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", generate(model("f32"), 2), "--test",
                                         generate(model("q4_0"), 2), "-o", m_dir.path() + "/hunt-q4"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("statistics cannot tell a kernel's error from quantization's"), qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, "no kernel adds error beyond what quantization explains in every round;"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression(R"(blk\.\d\.\w+\.weight \(q4_0, relative error [0-9.]+ %\))")),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains("found:"), qPrintable(r.err));
    }

    // A corrupted layer under quantization is still found, and its weight named.
    void huntFindsCorruptionUnderQuantization()
    {
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", generate(model("f32"), 2), "--test",
                                         generate(model("corrupt-q4_0"), 2), "-o", m_dir.path() + "/hunt-cq4"});
        QCOMPARE(r.code, 0);
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op \d+_\d+ ffn_out-1 \(MUL_MAT\) in 2_DecoderLayer/)"),
                 qPrintable(r.err));
        QVERIFY2(
            engine::huntConclusion(r.err).indexOf(QRegularExpression(
                R"(^blk\.1\.ffn_down\.weight \(q4_0\) differs from golden's by [0-9.]+ %, more than its quantization )"
                R"(explains \([0-9.]+ %\)$)")) > 0,
            qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(\n  first divergent: round 0, op \d+_\d+ ffn_out-1 \(MUL_MAT\) .*: )"
                                        R"(blk\.1\.ffn_down\.weight \(q4_0\) differs from golden's by [0-9.]+ %, )"
                                        R"(more than its quantization explains)")),
                 qPrintable(r.err));
    }

    // The report: every quantized weight ranked with its figures, the logits' divergence per
    // round, and a choice within the budget in llama-quantize's syntax.
    void reportRanksAndChooses()
    {
        const QString out = m_dir.path() + "/report";
        const QJsonObject j = quantReport(model("q4_0"), out);
        QVERIFY(!j.isEmpty());
        const QJsonArray weights = j["weights"].toArray();
        QCOMPARE(weights.size(), 2 + 4 * 7); // token_embd, output, 7 matrices in each of 4 layers
        double previous = INFINITY;
        std::set<QString> names;
        for (const auto &v : weights) {
            const QJsonObject w = v.toObject();
            names.insert(w["name"].toString());
            QVERIFY(w["gain_per_mib"].toDouble() <= previous);
            previous = w["gain_per_mib"].toDouble();
            const double e = w["quantization_error"].toDouble();
            if (w["type"].toString() == "q4_0")
                QVERIFY2(e > 0.05 && e < 0.15, qPrintable(w["name"].toString()));
            QVERIFY(w["keep_error"].toDouble() < e);
            QVERIFY(w["added_nmse"].toDouble() >= 0);
            QVERIFY(w["bytes"].toDouble() < w["keep_bytes"].toDouble());
        }
        QVERIFY(names.count("blk.3.ffn_down.weight") && names.count("token_embd.weight"));
        const QJsonArray rounds = j["rounds"].toArray();
        QCOMPARE(rounds.size(), 16);
        for (const auto &v : rounds) {
            QVERIFY(v.toObject()["kl_divergence"].toDouble() > 0);
            QVERIFY(v.toObject()["top1_agreement"].toDouble() >= 0 && v.toObject()["top1_agreement"].toDouble() <= 1);
        }
        const QJsonObject logits = j["logits"].toObject();
        const double measured = logits["nmse"].toDouble(), estimated = logits["estimated_nmse"].toDouble();
        QVERIFY2(estimated > measured / 3 && estimated < measured * 3,
                 qPrintable(QString("%1 against %2").arg(estimated).arg(measured)));
        const QJsonObject budget = j["budget"].toObject();
        QVERIFY(budget["extra_bytes_chosen"].toDouble() > 0);
        QVERIFY(budget["extra_bytes_chosen"].toDouble() <= budget["extra_bytes_allowed"].toDouble());
        QFile tt(out + "/tensor-types.txt");
        QVERIFY(tt.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(tt.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.isEmpty());
        for (const QString &l : lines)
            QVERIFY2(QRegularExpression(R"(^(\^?[\w.\\]+\$?)=q8_0$)").match(l).hasMatch(), qPrintable(l));
        QVERIFY(QFileInfo(out + "/quant_report.csv").size() > 0);
        checkSharesAndChoice(out);
        // A budget argument that is no share is refused.
        QCOMPARE(engine::llmscope(kBin, {"quant-report", "--golden", "x", "--test", "y", "--budget", "lots"}).code, 2);
    }

    // The report's choice beats as many weights, each at least as large, from the bottom of its
    // ranking: lower KL divergence of the logits for no more bytes.
    void choiceBeatsTheBottom()
    {
        const QString out = m_dir.path() + "/choice";
        const QJsonObject j = quantReport(model("q4_0"), out);
        QVERIFY(!j.isEmpty());
        const QJsonArray weights = j["weights"].toArray();
        std::set<QString> used;
        QStringList bottom;
        for (const auto &v : weights)
            if (v.toObject()["chosen"].toBool())
                used.insert(v.toObject()["name"].toString());
        for (const auto &v : weights) {
            const QJsonObject w = v.toObject();
            if (!w["chosen"].toBool())
                continue;
            const double extra = w["keep_bytes"].toDouble() - w["bytes"].toDouble();
            for (int i = weights.size() - 1; i >= 0; --i) {
                const QJsonObject c = weights[i].toObject();
                if (!used.count(c["name"].toString()) && c["keep_bytes"].toDouble() - c["bytes"].toDouble() >= extra) {
                    used.insert(c["name"].toString());
                    bottom << c["pattern"].toString() + "=" + c["keep_type"].toString();
                    break;
                }
            }
        }
        QFile b(m_dir.path() + "/bottom.txt");
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write((bottom.join('\n') + '\n').toUtf8());
        b.close();
        QCOMPARE(makeModel({"--quantize", "q4_0", "--in", model("f32"), "--out", model("top"), "--tensor-types",
                            out + "/tensor-types.txt"}),
                 QString());
        QCOMPARE(makeModel({"--quantize", "q4_0", "--in", model("f32"), "--out", model("bottom"), "--tensor-types",
                            b.fileName()}),
                 QString());
        const double klTop =
            quantReport(model("top"), m_dir.path() + "/r-top")["logits"].toObject()["mean_kl_divergence"].toDouble();
        const double klBottom = quantReport(model("bottom"), m_dir.path() + "/r-bottom")["logits"]
                                    .toObject()["mean_kl_divergence"]
                                    .toDouble();
        const double klPlain = j["logits"].toObject()["mean_kl_divergence"].toDouble();
        QVERIFY2(klTop > 0 && klTop < klBottom && klTop < klPlain,
                 qPrintable(QString("top %1, bottom %2, plain %3").arg(klTop).arg(klBottom).arg(klPlain)));
        QVERIFY(QFileInfo(model("top")).size() <= QFileInfo(model("bottom")).size());
    }

    // --tensor-types applies each line through the quantizer's overrides, an anchored pattern
    // only where it says; a line that is no PATTERN=TYPE is refused with its place.
    void makeModelTensorTypes()
    {
        const QString tt = m_dir.path() + "/tt.txt";
        QFile f(tt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("# keep these\nblk.1.ffn_down.weight=q8_0\n^output\\.weight$=f16\n");
        f.close();
        QCOMPARE(makeModel({"--quantize", "q4_0", "--in", model("f32"), "--out", model("tt"), "--tensor-types", tt}),
                 QString());
        const auto m = ggml::Library::get().model(model("tt").toStdString());
        QCOMPARE(m->find("blk.1.ffn_down.weight")->typeName, std::string("q8_0"));
        QCOMPARE(m->find("blk.2.ffn_down.weight")->typeName, std::string("q4_0"));
        QCOMPARE(m->find("output.weight")->typeName, std::string("f16"));
        QCOMPARE(m->find("blk.1.attn_output.weight")->typeName, std::string("q4_0"));

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("blk.1.ffn_down.weight q8_0\n");
        f.close();
        const QString err =
            makeModel({"--quantize", "q4_0", "--in", model("f32"), "--out", model("bad"), "--tensor-types", tt});
        QVERIFY2(err.contains(":1: not PATTERN=TYPE"), qPrintable(err));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("blk.1.ffn_down.weight=q9_9\n");
        f.close();
        QVERIFY(makeModel({"--quantize", "q4_0", "--in", model("f32"), "--out", model("bad"), "--tensor-types", tt})
                    .contains("'q9_9' is not a ggml type"));
        QVERIFY(!QFileInfo::exists(model("bad")));
    }
};

QTEST_GUILESS_MAIN(TstQuant)
#include "tst_quant.moc"
