// The hunt on faults of ggml's Vulkan backend in its fused kernels (tests/zoo/bugs.py list vulkan,
// built by scripts/kernel_zoo): llama.cpp's own llama-simple from the bundle, on Mesa's software
// Vulkan device, against its CPU backend or the stock Vulkan one. The probe leaves Vulkan's
// chains whole (fusion_rules.h), so a fault only the fused path has is found at its chain and
// blamed on the fused kernel; with the backend's fusion switched off the same program computes
// right, and the hunt says nothing departs; the stock backend, fused against unfused, agrees.
// And a fault of a kernel that moves data (GET_ROWS), which no cross-backend budget may hide,
// and one in a product of quantized weights, held to the path the device's kernel takes.
#include <QDir>
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
// The zoo's fault model's shape (tst_kernelzoo's): 160 wide, heads of 40.
constexpr int kWidth = 160, kHeads = 4, kFfn = 512;
} // namespace

class TstVulkanZoo : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_zoo, m_model;

    // llama-simple on Vulkan with the zoo's backend `backend` ("stock" or a fault).
    QString onVulkan(const QString &backend, bool fusion = true, const QString &model = {},
                     const QString &prompt = "Hello") const
    {
        return "env LD_LIBRARY_PATH=" + m_zoo + "/lib-vulkan/" + backend + " GGML_VK_VISIBLE_DEVICES=0" +
            (fusion ? "" : " GGML_VK_DISABLE_FUSION=1") + " " + m_zoo + "/build-vulkan/bin/llama-simple -m " +
            (model.isEmpty() ? m_model : model) + " -n 3 " + prompt;
    }
    // The same program on the zoo's stock CPU backend: the golden users have.
    QString onCpu() const
    {
        return "env LD_LIBRARY_PATH=" + m_zoo + "/lib/stock " + m_zoo + "/build/bin/llama-simple -m " + m_model +
            " -n 3 Hello";
    }
    engine::LlmscopeRun hunt(const QString &golden, const QString &test, const QString &name)
    {
        return engine::llmscope(kBin, {"hunt", "--golden", golden, "--test", test, "-o", m_dir.path() + "/" + name});
    }

private slots:
    void initTestCase()
    {
        m_zoo = engine::zooDir();
        if (!QFile::exists(m_zoo + "/lib-vulkan/stock/libggml-vulkan.so"))
            QSKIP(qPrintable("the kernel zoo's Vulkan backend is not built in " + m_zoo +
                             ": run scripts/kernel_zoo (it needs glslc, libvulkan-dev and spirv-headers)"));
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin,
                                  {"--out", m_model, "--layers", "3", "--width", QString::number(kWidth), "--heads",
                                   QString::number(kHeads), "--kv-heads", "2", "--ff", QString::number(kFfn)}));
    }

    // The stock backend computing its chains fused agrees with itself unfused, and with the CPU.
    void theStockBackendIsClean()
    {
        const auto unfused = hunt(onVulkan("stock", false), onVulkan("stock"), "stock-fusion");
        QVERIFY2(unfused.code == 1 &&
                     engine::concludes(unfused.err, "every operation is within its budget in every round"),
                 qPrintable(unfused.err));
        QVERIFY2(unfused.err.contains("\n  observing changed nothing: "), qPrintable(unfused.err));
        const auto cpu = hunt(onCpu(), onVulkan("stock"), "stock-cpu");
        QVERIFY2(cpu.code == 1 && engine::concludes(cpu.err, "every operation is within its budget in every round"),
                 qPrintable(cpu.err));
    }

    // #14540: the fused RMS_NORM+MUL's epsilon taken from the MUL. Golden the CPU, as users run it.
    void aFusedNormFaultIsFoundAtItsChain()
    {
        const auto r = hunt(onCpu(), onVulkan("vk-fused-norm-eps"), "norm-eps");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  observing changed nothing: "), qPrintable(r.err));
        QVERIFY2(
            engine::concludes(r.err,
                              R"(found: round 0, the fused chain RMS_NORM\+MUL \(1_\d+ norm-0, 1_\d+ attn_norm-0\), )"
                              R"(computed fused on Vulkan0: its end departs)"),
            qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression(
                     R"(with fusion off, the same ops agree with golden's \(relative error 0(\.\d+)? %\): )"
                     R"(the fused kernel is wrong)")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("replay: on the inputs it was given, the test's kernel is wrong: "), qPrintable(r.err));

        // the backend's own switch: the same program unfused computes right
        const auto off = hunt(onCpu(), onVulkan("vk-fused-norm-eps", false), "norm-eps-off");
        QVERIFY2(off.code == 1 && engine::concludes(off.err, "every operation is within its budget in every round"),
                 qPrintable(off.err));
    }

    // The rotated keys written straight into the cache, a prompt's last row into the cell before.
    void aFusedCacheWriteFaultIsFoundAtItsChain()
    {
        const auto r = hunt(onVulkan("stock"), onVulkan("vk-rope-cache-cell"), "rope-cell");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(
                     r.err,
                     R"(found: round 0, the fused chain ROPE\+VIEW\+SET_ROWS \(1_\d+ Kcur-0, 1_\d+ Kcur-0 \(view\), )"
                     R"(1_\d+ cache_k_l0 \(view\)\), computed fused on Vulkan0: its end departs)"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("the fused kernel is wrong"), qPrintable(r.err));

        const auto off = hunt(onVulkan("stock"), onVulkan("vk-rope-cache-cell", false), "rope-cell-off");
        QVERIFY2(off.code == 1 && engine::concludes(off.err, "every operation is within its budget in every round"),
                 qPrintable(off.err));
    }

    // A data-movement kernel with a wrong row on the device: the prompt's last layer picks the
    // token before the last out of the batch. Against the CPU, GET_ROWS may add nothing, and a
    // cross-backend budget does not hide it.
    void aWrongRowOnTheDeviceIsFound()
    {
        const auto r = hunt(onCpu(), onVulkan("vk-get-rows-small"), "get-rows");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op \d+_\d+ \S+ \(GET_ROWS\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("GET_ROWS moves data and must add none"), qPrintable(r.err));
        QVERIFY2(r.err.contains("replay: on the inputs it was given, the test's kernel is wrong: "), qPrintable(r.err));
    }

    // A product of quantized weights on the device: Vulkan's matrix-vector shader takes a row's
    // last q8_0 block with its neighbour's scale. Golden the float model on the CPU. The replay
    // holds the kernel to the path it takes (weights dequantized to float32), which a bound
    // sized for 8-bit operands (k 2^-8 sum|w x|, as wide as the product) let through: the error
    // was put down to the inputs. The stock shader, a prompt of more than eight tokens among its
    // rounds (matrix kernels on float16 tiles), is within its paths in every product.
    void aQuantizedProductOnTheDeviceIsHeldToItsPath()
    {
        const QString q8 = m_dir.path() + "/m-q8_0.gguf";
        QVERIFY(engine::makeModel(kBin, {"--quantize", "q8_0", "--in", m_model, "--out", q8}));
        const auto r = hunt(onCpu(), onVulkan("vk-q8-mmv-scale", true, q8), "q8-mmv");
        QVERIFY2(r.code == 0 && engine::concludes(r.err, R"(found: round 0, op 1_\d+ Qcur-0 \(MUL_MAT\) in )"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression(R"(\n  replay: on the inputs it was given, the test's kernel is wrong: \d+ of )"
                                        R"(\d+ elements beyond the bound, the largest [0-9.]+ times it; ggml's CPU )"
                                        R"(kernel on the same inputs: 0\.\d+ times the bound)")),
                 qPrintable(r.err));
        const auto stock = hunt(onCpu(), onVulkan("stock", true, q8), "q8-stock");
        QVERIFY2(stock.code == 1 &&
                     engine::concludes(stock.err, "no kernel adds error beyond what quantization explains"),
                 qPrintable(stock.err));

        const QString prompt = "\"one two three four five six seven eight nine ten\"";
        auto opcheck = [&](const QString &backend) {
            const QString out = m_dir.path() + "/replayed-q8-" + backend;
            const auto d = engine::llmscope(kBin,
                                            {"dump", "--exec", onVulkan(backend, true, q8, prompt), "--type", "tensor",
                                             "kernel", "-opname", "mul_mat", "-er", "0,2", "-o", out});
            if (d.code != 0)
                qWarning("%s", qPrintable(d.err));
            const auto o = engine::llmscope(kBin, {"opcheck", "-i", out, "-opname", "mul_mat", "-o", out + "-opcheck"});
            QFile f(out + "-opcheck/" + QDir(out + "-opcheck").entryList({"*.json"}).value(0));
            if (!f.open(QIODevice::ReadOnly))
                qWarning("%s", qPrintable(o.err + o.out));
            return QJsonDocument::fromJson(f.readAll())["rows"].toArray();
        };
        QMap<QString, int> verdicts, paths;
        QString notPassed;
        for (const auto &row : opcheck("stock")) {
            const QJsonObject o = row.toObject();
            ++verdicts[o["precision_result"].toString()];
            if (o["precision_result"].toString() != "PASS")
                notPassed += o["op_id"].toString() + " " + o["fail_reason"].toString() + "\n";
            const QString standard = o["precision_standard"].toString();
            paths["tiles"] +=
                standard.contains("the one this output fits best: Vulkan's matrix kernel on float16 tiles");
            paths["float32"] +=
                standard.contains("the one this output fits best: Vulkan's matrix-vector kernel on weights "
                                  "dequantized to float32");
        }
        QVERIFY2(verdicts.size() == 1 && verdicts["PASS"] >= 60,
                 qPrintable(QString::number(verdicts["PASS"]) + " passed\n" + notPassed));
        QVERIFY2(paths["tiles"] >= 18 && paths["float32"] >= 40,
                 qPrintable(QString("%1 %2").arg(paths["tiles"]).arg(paths["float32"])));
        int failed = 0, rows = 0;
        for (const auto &row : opcheck("vk-q8-mmv-scale")) {
            const QJsonObject o = row.toObject();
            ++rows;
            failed += o["precision_result"].toString() == "FAIL";
            // the decoded rounds' products: matrix-vector, every one wrong
            if (o["round"].toInt() > 0)
                QVERIFY2(o["precision_result"].toString() == "FAIL", qPrintable(QJsonDocument(o).toJson()));
        }
        QVERIFY2(rows >= 60 && failed >= 40, qPrintable(QString("%1 of %2").arg(failed).arg(rows)));
    }

    // The spread of the faulty program with Vulkan's fusion on and off: the fused run departs at
    // the chain; each run's observer check ran (the probe reading nothing) and found no change.
    void aSpreadPartsTheFusedRunFromTheUnfused()
    {
        const QString out = m_dir.path() + "/spread-eps";
        const auto r =
            engine::llmscope(kBin, {"spread", "--run", onVulkan("vk-fused-norm-eps"), "--fusion", "on,off", "-o", out});
        QVERIFY2(r.code == 1, qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression(
                     R"(first departure: round 0, 1_\d+ attn_norm-0 \(MUL\): run 1 departs .*\[fusion on\]\))")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("it ends the chain RMS_NORM+MUL, which the departing run computed fused"),
                 qPrintable(r.err));
        QFile f(out + "/spread.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(j["observer_changed_run"].toInt(), -1);
        const QJsonArray runs = j["runs"].toArray();
        QCOMPARE(runs.size(), 2);
        for (const auto &run : runs) {
            const QJsonObject o = run.toObject()["observer"].toObject();
            QVERIFY2(!o.isEmpty() && !o["changed"].toBool() && o["rounds_compared"].toInt() == 3,
                     qPrintable(QJsonDocument(run.toObject()).toJson()));
        }
    }
};

QTEST_GUILESS_MAIN(TstVulkanZoo)
#include "tst_vulkanzoo.moc"
