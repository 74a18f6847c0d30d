// `llmscope spread` on the real engine: the sample model's runs on one thread are bit-identical
// (nothing reported); a CPU backend with a thread fault made on purpose (the kernel zoo's
// "chunk": the last thread's chunk of a matrix product left short) is named, with the run that
// departs, while the stock backend's thread counts part only within ggml's budgets; CPU
// against Vulkan (Mesa's software device) parts within budget; fusion on against off names a
// fused kernel's fault; bad arguments say why.
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "tests/engine/engine_run.h"

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

using engine::zooDir;

QJsonObject report(const QString &dir)
{
    QFile f(dir + "/spread.json");
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}
} // namespace

class TstSpread : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

    QString sample(const QString &extra = {}) const
    {
        return kBin + "/llmscope-sample-generate -m " + m_model + " -n 3" + (extra.isEmpty() ? "" : " " + extra);
    }
    // The zoo's build of the sample program on a backend (stock or a fault's).
    QString zooSample(const QString &backend) const
    {
        return "env LD_LIBRARY_PATH=" + engine::zooLibs() + "/" + backend + " " + zooDir() +
            "/build/bin/llmscope-sample-generate -m " + m_model + " -n 3";
    }

private slots:
    void initTestCase()
    {
        // Wide enough that four threads split the products into several chunks.
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    void determinismOnOneThread()
    {
        const QString out = m_dir.path() + "/same";
        const auto r = engine::llmscope(kBin, {"spread", "--run", sample("-t 1"), "--repeat", "3", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("no run departs beyond its standard"), qPrintable(r.err));
        // the same command thrice: no setting differs from the first run's
        QVERIFY2(r.err.contains("  configuration, run 3 against run 1: no setting differs among "), qPrintable(r.err));
        const QJsonObject j = report(out);
        QCOMPARE(j["runs"].toArray().size(), 3);
        const QJsonArray configs = j["configurations"].toArray(); // runs 2 and 3 against run 1
        QCOMPARE(configs.size(), 2);
        for (const auto &c : configs)
            QVERIFY2(c.toObject()["summary"].toString().startsWith("no setting differs among "),
                     qPrintable(c.toObject()["summary"].toString()));
        QCOMPARE(j["compared_pairs"].toInt(), 3);
        QVERIFY(j["first_departure"].isNull());
        QVERIFY(j["nondeterministic"].toArray().isEmpty());
        const QJsonArray ops = j["ops"].toArray();
        QVERIFY2(ops.size() > 100, qPrintable(QString::number(ops.size()))); // every op of three rounds
        for (const auto &o : ops) {
            QCOMPARE(o.toObject()["spread"].toDouble(), 0.0);
            QVERIFY(!o.toObject()["from_tensors"].toBool()); // told bit-identical by the digests alone
        }
        QVERIFY(j["second_pass"].toArray().isEmpty()); // nothing to measure: no tensors dumped
        QVERIFY(QFile::exists(out + "/spread.csv"));
        QDirIterator files(out + "/run-0", {"*.bin"}, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY2(!files.hasNext(), "statistics only: no tensor file");
    }

    void aThreadFaultIsNamedWithItsRun()
    {
        if (!QFile::exists(zooDir() + "/build/bin/llmscope-sample-generate"))
            QSKIP(qPrintable("the kernel zoo is not built in " + zooDir() + ": run scripts/kernel_zoo"));
        // The stock backend: one thread against four parts within ggml's budgets, each thread
        // count the same twice.
        const QString clean = m_dir.path() + "/stock";
        auto r = engine::llmscope(
            kBin, {"spread", "--run", zooSample("stock"), "--vary", "-t 1,4", "--repeat", "2", "-o", clean});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = report(clean);
        QCOMPARE(j["runs"].toArray().size(), 4);
        QVERIFY(j["first_departure"].isNull());
        QVERIFY(j["nondeterministic"].toArray().isEmpty());
        // The chunk fault: one thread is right; four leave the last chunk's row unwritten.
        const QString fault = m_dir.path() + "/chunk";
        r = engine::llmscope(kBin,
                             {"spread", "--run", zooSample("chunk"), "--vary", "-t 1,4", "--repeat", "2", "-o", fault});
        QVERIFY2(r.code == 1, qPrintable(r.err));
        j = report(fault);
        const QJsonObject first = j["first_departure"].toObject();
        QVERIFY2(first["label"].toString().endsWith("(MUL_MAT)"), qPrintable(first["label"].toString()));
        QCOMPARE(first["round"].toInt(), 0);
        QCOMPARE(first["run"].toInt(), 2); // the first run on four threads
        QVERIFY(j["runs"].toArray()[2].toObject()["command"].toString().endsWith("-t 4"));
        QVERIFY(first["why"].toString().contains("beyond ggml's budget"));
        QVERIFY2(r.err.contains("first departure: round 0, " + first["label"].toString() +
                                ": run 3 departs"), // counted from 1
                 qPrintable(r.err));
        // Found from the statistics, measured on a second pass from the suspect round's tensors:
        // the same op and distance as every tensor dumped at once.
        QCOMPARE(j["second_pass"].toArray().size(), 4);
        QVERIFY2(r.err.contains("rounds 0 to 0 part by their statistics"), qPrintable(r.err));
        double measured = -1;
        for (const auto &v : j["ops"].toArray())
            if (v.toObject()["op_id"] == first["op_id"] && v.toObject()["round"].toInt() == 0) {
                QVERIFY(v.toObject()["from_tensors"].toBool());
                measured = v.toObject()["spread"].toDouble();
            }
        const QString once = m_dir.path() + "/chunk-tensors";
        r = engine::llmscope(
            kBin,
            {"spread", "--run", zooSample("chunk"), "--vary", "-t 1,4", "--repeat", "2", "--tensors", "-o", once});
        QVERIFY2(r.code == 1, qPrintable(r.err));
        const QJsonObject all = report(once);
        QCOMPARE(all["first_departure"].toObject()["label"], first["label"]);
        QCOMPARE(all["first_departure"].toObject()["run"], first["run"]);
        QVERIFY(all["second_pass"].toArray().isEmpty());
        for (const auto &v : all["ops"].toArray())
            if (v.toObject()["op_id"] == first["op_id"] && v.toObject()["round"].toInt() == 0)
                QCOMPARE(v.toObject()["spread"].toDouble(), measured);
    }

    // The prompt all at once against one token a round: the probe records each round's
    // positions, the one-by-one run is lined up with the batched one by position, and the two
    // part within ggml's budgets, the first difference in a matrix product (the batched kernel
    // rounds otherwise than the one-row one).
    void promptAtOnceAgainstOneByOne()
    {
        const QString out = m_dir.path() + "/batch";
        const auto r = engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "--batch 512,1", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // Statistics of whole rounds cannot be lined up by row: every tensor, dumped again.
        QVERIFY2(r.err.contains("every tensor, to line them up by position"), qPrintable(r.err));
        const QJsonObject j = report(out);
        QVERIFY(j["first_departure"].isNull());
        QVERIFY(
            QFileInfo(j["runs"].toArray()[1].toObject()["dump"].toString()).absoluteFilePath().contains("/tensors-1/"));
        const QJsonArray aligned = j["aligned_by_position"].toArray();
        QCOMPARE(aligned.size(), 1);
        QVERIFY2(aligned[0].toObject()["files_aligned"].toInt() > 50,
                 qPrintable(QJsonDocument(aligned[0].toObject()).toJson()));
        QString firstDiffering;
        int comparedInPrompt = 0, cacheWrites = 0;
        for (const auto &v : j["ops"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["round"].toInt() != 0)
                continue;
            ++comparedInPrompt;
            // the KV cache's writes (the rows each left, by default) lined up by position too:
            // the prompt's at once against one by one, within ggml's budgets
            if (o["op_type"].toString() == "SET_ROWS" && o["op_name"].toString().startsWith("cache_")) {
                ++cacheWrites;
                QVERIFY(o["from_first_run"].toArray()[1].toDouble(-1) >= 0);
            }
            if (firstDiffering.isEmpty() && o["spread"].toDouble() > 0)
                firstDiffering = o["op_type"].toString();
        }
        QVERIFY2(comparedInPrompt > 40, qPrintable(QString::number(comparedInPrompt))); // every layer's ops, lined up
        QCOMPARE(cacheWrites, 4); // K and V of both layers
        QCOMPARE(firstDiffering, QString("MUL_MAT"));
        // The other way round: the one-by-one run as the reference, the batched one lined up
        // with it (the last layer's outputs, kept for the prompt's last token only, compared
        // there alone).
        const QString back = m_dir.path() + "/batch-back";
        const auto rb = engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "--batch 1,512", "-o", back});
        QVERIFY2(rb.code == 0, qPrintable(rb.err));
        QVERIFY(report(back)["first_departure"].isNull());
        QCOMPARE(report(back)["aligned_by_position"].toArray().size(), 1);
        // What lined them up: each round's positions, as the probe recorded them.
        const QString oneByOne = QDir(out + "/run-1").entryList({"msit_dump_*"}, QDir::Dirs).value(0);
        QFile round1(out + "/run-1/" + oneByOne + "/llmscope/tokens/" +
                     QDir(out + "/run-1/" + oneByOne + "/llmscope/tokens")
                         .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                         .value(0) +
                     "/1.json");
        QVERIFY(round1.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(round1.readAll()).object()["positions"].toArray(), QJsonArray{1});
    }

    // The KV cache, where it is dumped (--kv-cache), compared position by position: the prompt
    // round's cache after writing its positions against the one-by-one run's after its last of
    // them, and so each decode round; the keys and values written by the batched and the
    // one-row kernels differ within budget (rounding), in every layer.
    void kvCacheByPosition()
    {
        const QString out = m_dir.path() + "/kv";
        const auto r =
            engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "--batch 512,1", "--kv-cache", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = report(out);
        QVERIFY(j["first_departure"].isNull());
        QMap<int, int> writes; // round -> cache writes (SET_ROWS of cache_k/cache_v) compared
        for (const auto &v : j["ops"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["op_type"].toString() != "SET_ROWS" || !o["op_name"].toString().startsWith("cache_"))
                continue;
            const double d = o["from_first_run"].toArray()[1].toDouble(-1);
            QVERIFY2(d >= 0 && d < 1e-3, qPrintable(o["op_name"].toString() + " " + QString::number(d)));
            ++writes[o["round"].toInt()];
        }
        QCOMPARE(writes.value(0), 4); // K and V of both layers, in the prompt's round
        QCOMPARE(writes.value(1), 4); // and in the first decode round
    }

    // Flash attention on and off: two graphs (one fused op against the softmax path), the ops
    // both have paired by name under run 0's ids, the others reported unpaired; the outputs
    // after the attention differ, within ggml's budgets.
    void flashAttentionOnAndOffWithinBudget()
    {
        const QString out = m_dir.path() + "/flash";
        const auto r =
            engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "--flash-attn on,off", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = report(out);
        QVERIFY(j["first_departure"].isNull());
        QCOMPARE(j["unpaired"].toArray().size(), 1);
        QVERIFY(j["unpaired"].toArray()[0].toObject()["tensors"].toInt() > 0);
        bool ffnDiffers = false;
        for (const auto &v : j["ops"].toArray())
            ffnDiffers = ffnDiffers ||
                (v.toObject()["op_name"].toString() == "ffn_out-0" && v.toObject()["spread"].toDouble() > 0);
        QVERIFY(ffnDiffers);
    }

    // Fusion on against off (the backends' own switches): the stock CPU backend's fused
    // RMS_NORM+MUL parts from its unfused ops within ggml's budgets; the zoo's fused-norm-tail
    // fault (the fused kernel leaves each row's last 8 columns unnormalized, the unfused ops are
    // right) is named at layer 0's chain, the run that computed it fused departing.
    void fusionOnAgainstOffNamesAFusedKernel()
    {
        const QString clean = m_dir.path() + "/fusion-stock"; // the bundle's CPU backend
        auto r = engine::llmscope(kBin, {"spread", "--run", sample(), "--fusion", "on,off", "-o", clean});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = report(clean);
        QVERIFY(j["first_departure"].isNull());
        QCOMPARE(j["runs"].toArray().size(), 2);
        QVERIFY(j["runs"].toArray()[0].toObject()["command"].toString().endsWith("[fusion on]"));
        QVERIFY(j["runs"].toArray()[1].toObject()["command"].toString().endsWith("[fusion off]"));
        int chains = 0;
        for (const auto &v : j["ops"].toArray())
            if (v.toObject()["fused_chain"].toString() == "RMS_NORM+MUL") {
                ++chains;
                QCOMPARE(v.toObject()["fused_runs"].toArray(), QJsonArray({0})); // only fusion on fused it
            }
        QVERIFY2(chains >= 3 * 3,
                 qPrintable(QString::number(chains))); // two layers' norms and the output norm, 3 rounds
        if (!QFile::exists(zooDir() + "/build/bin/llmscope-sample-generate") ||
            !QDir(engine::zooLibs() + "/fused-norm-tail").exists())
            QSKIP(qPrintable("the kernel zoo is not built in " + zooDir() + ": run scripts/kernel_zoo"));
        const QString fault = m_dir.path() + "/fusion-fault";
        r = engine::llmscope(kBin,
                             {"spread", "--run", zooSample("fused-norm-tail"), "--fusion", "on,off", "-o", fault});
        QVERIFY2(r.code == 1, qPrintable(r.err));
        j = report(fault);
        const QJsonObject first = j["first_departure"].toObject();
        QCOMPARE(first["round"].toInt(), 0);
        QCOMPARE(first["fused_chain"].toString(), QString("RMS_NORM+MUL"));
        QVERIFY2(first["label"].toString().startsWith("1_") && first["label"].toString().endsWith("(MUL)"),
                 qPrintable(first["label"].toString())); // layer 0's first norm
        QCOMPARE(first["run"].toInt(), 0); // the fused run
        QVERIFY2(r.err.contains("which the departing run computed fused: its fused kernel parts from the unfused ops"),
                 qPrintable(r.err));
    }

    void cpuAgainstVulkanWithinBudget()
    {
        qputenv("GGML_VK_VISIBLE_DEVICES", "0"); // Mesa's software device
        const QString out = m_dir.path() + "/devices";
        const auto r =
            engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "--device cpu,vulkan", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression("configuration, run 2 against run 1: \\d+ of \\d+ settings differ: [^\\n]*"
                                        "hardware \\d+ \\(device Vulkan0")),
                 qPrintable(r.err));
        const QJsonObject j = report(out);
        QVERIFY(j["first_departure"].isNull());
        const QJsonObject config = j["configurations"].toArray().first().toObject();
        QCOMPARE(config["run"].toInt(), 1);
        // the device, then its drivers where they state a version (which, depends on the machine)
        QVERIFY2(config["summary"].toString().contains(QRegularExpression("hardware \\d+ \\(device Vulkan0")),
                 qPrintable(config["summary"].toString()));
        QVERIFY(!config["diff"].toObject()["differences"].toArray().isEmpty());
        // Mesa's software Vulkan driver, in the Vulkan run's configuration by the version its
        // library states (Debian's Mesa writes "Mesa 22.3.6")
        bool driver = false;
        for (const auto &i : config["diff"].toObject()["test"].toObject()["items"].toArray())
            driver = driver ||
                (i.toObject()["key"].toString() == "driver libvulkan_lvp.so" &&
                 i.toObject()["value"].toString().startsWith("Mesa "));
        QVERIFY2(driver, qPrintable(QJsonDocument(config["diff"].toObject()["test"].toObject()).toJson()));
        int differing = 0;
        for (const auto &o : j["ops"].toArray())
            differing += o.toObject()["spread"].toDouble() > 0;
        QVERIFY2(differing > 10, qPrintable(QString::number(differing))); // two backends round differently
    }

    void badArgumentsSayWhy()
    {
        auto r = engine::llmscope(kBin, {"spread", "--run", sample()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("at least two runs"), qPrintable(r.err));
        r = engine::llmscope(kBin, {"spread", "--run", sample(), "--vary", "-t"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--vary needs a flag and its values"), qPrintable(r.err));
        r = engine::llmscope(kBin, {"spread", "--run", sample(), "--repeat", "0"});
        QCOMPARE(r.code, 2);
        r = engine::llmscope(kBin, {"spread", "--run", sample(), "--fusion", "on,maybe"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--fusion takes on, off or both (on,off), not 'maybe'"), qPrintable(r.err));
        r = engine::llmscope(
            kBin, {"spread", "--run", "/nonexistent/program", "--repeat", "2", "-o", m_dir.path() + "/missing"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("llmscope dump of '/nonexistent/program' failed"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TstSpread)
#include "tst_spread.moc"
