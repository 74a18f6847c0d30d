// The probe, compare and hunt on a device backend: llama.cpp's Vulkan build on Mesa's software
// Vulkan device (no GPU needed), against its CPU backend, on one F32 model. The two backends
// differ by rounding and their graphs hold the same nodes in another order.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <optional>

#include "core/compare/precision_standard.h"
#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/fusion_record.h"
#include "core/dump/op_info_csv.h"
#include "core/dump/output_record.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kProbe = LLMSCOPE_PROBE;

using Run = engine::LlmscopeRun;
Run llmscopeRun(const QStringList &args)
{
    return engine::llmscope(kBin, args);
}

QString readAllOf(const QString &dir, const QString &pattern)
{
    QString text;
    for (QDirIterator it(dir, {pattern}, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        QFile f(it.next());
        f.open(QIODevice::ReadOnly);
        text += QString::fromUtf8(f.readAll());
    }
    return text;
}
// The kernels ggml-vulkan launched, by the names its perf logger gives them (a fused chain's by
// the chain: "RMS_NORM_MUL"), summed over the run.
QMap<QString, int> kernelCounts(const QString &log)
{
    QMap<QString, int> counts;
    static const QRegularExpression line(R"(^([A-Z_0-9]+)[ :].*: (\d+) x )", QRegularExpression::MultilineOption);
    for (auto m = line.globalMatch(log); m.hasNext();) {
        const auto x = m.next();
        counts[x.captured(1)] += x.captured(2).toInt();
    }
    return counts;
}
// The kernels program launches with no probe loaded (its perf log); empty when it failed.
QMap<QString, int> unobservedKernels(const QString &program)
{
    QProcess plain;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("GGML_VK_PERF_LOGGER", "1");
    plain.setProcessEnvironment(env);
    plain.start("/bin/sh", {"-c", program});
    if (!plain.waitForFinished(120000) || plain.exitCode() != 0) {
        qWarning("%s failed: %s", qPrintable(program), plain.readAllStandardError().right(400).constData());
        return {};
    }
    return kernelCounts(QString::fromUtf8(plain.readAllStandardError() + plain.readAllStandardOutput()));
}
} // namespace

class TstVulkan : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::vector<int> m_cpuTokens;

    QString model(const QString &name) const { return m_dir.path() + "/" + name; }
    QString cmd(const QString &m, const QString &device) const
    {
        return kBin + "/llmscope-sample-generate -m " + model(m) + " -n 4 --device " + device;
    }
    QString dumpOf(const QString &m, const QString &device, const QString &name)
    {
        const QString out = m_dir.path() + "/" + name;
        const Run r = llmscopeRun({"dump", "--exec", cmd(m, device), "--type", "model", "tensor", "kernel", "-o", out});
        return r.code == 0 ? out : QString();
    }

private slots:
    void initTestCase()
    {
        // Mesa's software device is a CPU-type device, which ggml's Vulkan backend skips
        // unless told; the programs started here inherit this.
        qputenv("GGML_VK_VISIBLE_DEVICES", "0");
        QVERIFY(engine::makeModel(kBin, {"--family", m_dir.path(), "--layers", "2", "--corrupt-layer", "1"}));
        QVERIFY(engine::makeModel(
            kBin,
            {"--out", model("attn_v.gguf"), "--layers", "2", "--corrupt-layer", "1", "--corrupt-tensor", "attn_v"}));
        const auto vk = engine::run(kBin + "/llmscope-sample-generate",
                                    {"-m", model("model-f32.gguf"), "-n", "8", "--device", "vulkan"});
        QVERIFY2(vk.exitCode == 0 && vk.device.startsWith("Vulkan0"),
                 qPrintable("no Vulkan device (scripts/setup installs mesa-vulkan-drivers and node-llama-cpp's Vulkan "
                            "build): " +
                            vk.device + vk.stderrText));
        m_cpuTokens =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", model("model-f32.gguf"), "-n", "8"}).tokens;
        QCOMPARE(m_cpuTokens.size(), size_t(8));
        QCOMPARE(vk.tokens, m_cpuTokens); // a 2-layer F32 model: the same greedy tokens
    }

    // The probe reads tensors out of device memory and never changes what the program computes:
    // tokens are the same with and without it, native and through Node, and the kernel CSV
    // names the device that ran each node.
    void tokensUnchangedUnderTheProbe_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("type");
        QTest::newRow("native, tensors") << "llmscope-sample-generate"
                                         << "tensor,model,kernel";
        QTest::newRow("native, statistics") << "llmscope-sample-generate"
                                            << "stats,model";
        QTest::newRow("node, tensors") << "llmscope-sample-node"
                                       << "tensor,model,kernel";
    }
    void tokensUnchangedUnderTheProbe()
    {
        QFETCH(QString, program);
        QFETCH(QString, type);
        const QStringList args{"-m", model("model-f32.gguf"), "-n", "8", "--device", "vulkan"};
        const auto plain = engine::run(kBin + "/" + program, args);
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(plain.tokens, m_cpuTokens);
        const QString root = m_dir.path() + "/probe-" + program + "-" + type;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_PRELOAD", QStringLiteral(LLMSCOPE_PRELOAD_FIRST) + kProbe);
        env.insert("LLMSCOPE_DUMP_ROOT", root);
        env.insert("LLMSCOPE_TYPE", type);
        env.insert("LLMSCOPE_ER", "0,1000");
        const auto probed = engine::run(kBin + "/" + program, args, env);
        QCOMPARE(probed.exitCode, 0);
        QCOMPARE(probed.tokens, plain.tokens);
        const QString kernels = readAllOf(root, "kernel_tensors_*.csv");
        if (type.contains("kernel")) {
            QVERIFY2(kernels.contains("Vulkan0"), qPrintable(kernels.left(400)));
            QVERIFY(!readAllOf(root, "*.bin").isEmpty());
        }
    }

    // On a device the round's result is read when the program synchronizes (nothing waits for
    // it earlier): every round's logits are recorded, and the observer check compares them.
    void eachRoundsResultIsRecordedOnTheDevice()
    {
        const QString out = m_dir.path() + "/observer";
        const auto r = engine::llmscope(
            kBin,
            {"dump", "--exec",
             kBin + "/llmscope-sample-generate -m " + model("model-f32.gguf") + " -n 4 --device vulkan", "--type",
             "model", "stats", "-er", "0,100", "--check-observer", "-o", out});
        QVERIFY2(r.code == 0 || r.code == 4, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression("observer:    observing changed (nothing: 4 round\\(s\\)|the program's)")),
                 qPrintable(r.err));
        const auto dumps = dumpsInside(out.toStdString());
        QCOMPARE(dumps.size(), size_t(1));
        const auto records = readOutputRecords(dumps[0]);
        QCOMPARE(records.size(), size_t(4)); // the prompt and three generated tokens
        for (const auto &[round, rec] : records) {
            QCOMPARE(rec.name, std::string("result_output"));
            QVERIFY(rec.stats.digest != 0 && rec.stats.l2norm > 0);
        }
    }

    // Same model, CPU against Vulkan: within the engine standard's budgets everywhere (msit's
    // per-element rule fails most pairs over rounding), paired by identity though the two
    // graphs order their nodes differently.
    // With --keep-fusion the probe reads Vulkan's fused chains only at their ends, as ggml-vulkan
    // decides them (fusion_rules.h): the kernels it launches under the probe are those of the
    // run nobody watches, the chains the dump records are its fused kernels, and observing
    // changes no result. Read node by node, the fused kernels are gone.
    void keepFusionLeavesVulkansKernelsAsTheyRun()
    {
        const QString program = cmd("model-f32.gguf", "vulkan");
        const auto unobserved = unobservedKernels(program);
        for (const char *fused : {"RMS_NORM_MUL", "ROPE_VIEW_SET_ROWS", "MUL_MAT_ADD"})
            QVERIFY2(unobserved.value(fused) > 0, fused);

        const QString out = m_dir.path() + "/kept";
        const Run kept = llmscopeRun({"dump", "--exec", "GGML_VK_PERF_LOGGER=1 " + program, "--type", "model", "stats",
                                      "-er", "0,100", "--keep-fusion", "-o", out});
        QVERIFY2(kept.code == 0, qPrintable(kept.err));
        QCOMPARE(kernelCounts(kept.err + kept.out), unobserved);
        const Run checked = llmscopeRun({"dump", "--exec", program, "--type", "model", "stats", "-er", "0,100",
                                         "--keep-fusion", "--check-observer", "-o", m_dir.path() + "/kept-checked"});
        QVERIFY2(checked.code == 0 &&
                     checked.err.contains(QRegularExpression(
                         "observer:    observing changed nothing: 4 round\\(s\\) computed the same")),
                 qPrintable(checked.err));
        const auto dumps = dumpsInside(out.toStdString());
        QCOMPARE(dumps.size(), size_t(1));
        QMap<QString, int> recorded;
        for (const auto &[round, chains] : readFusionRecords(dumps[0]))
            for (const FusedChainRecord &c : chains) {
                QCOMPARE(c.backend, std::string("Vulkan0"));
                recorded[QString::fromStdString(c.types).replace('+', '_')] += 1;
            }
        for (auto it = recorded.begin(); it != recorded.end(); ++it)
            QCOMPARE(it.value(), unobserved.value(it.key()));
        QCOMPARE(recorded.keys(), (QStringList{"MUL_MAT_ADD", "RMS_NORM_MUL", "ROPE_VIEW_SET_ROWS"}));

        const Run unfused = llmscopeRun({"dump", "--exec", "GGML_VK_PERF_LOGGER=1 " + program, "--type", "model",
                                         "stats", "-er", "0,100", "-o", m_dir.path() + "/unfused"});
        QVERIFY2(unfused.code == 0, qPrintable(unfused.err));
        const auto split = kernelCounts(unfused.err + unfused.out);
        for (const char *fused : {"RMS_NORM_MUL", "ROPE_VIEW_SET_ROWS", "MUL_MAT_ADD"})
            QCOMPARE(split.value(fused), 0);
    }

    // A mixture of experts (qwen3moe): in a decoded token's rounds Vulkan multiplies the chosen
    // experts' products by their routing weights in the product's own kernel (MUL_MAT_ID+MUL),
    // and computes the routing (softmax, the experts chosen, their weights normalized) in one
    // kernel with two outputs (TOPK_MOE). With fusion kept the probe reads each chain at its end,
    // the routing's experts chosen there too, so the program launches those kernels as often as
    // unobserved, the fusion records say so, and the experts chosen are dumped as the fused kernel
    // wrote them: the same as computed op by op. Without it none runs.
    void keepFusionLeavesTheExpertsKernelsAsTheyRun()
    {
        const QString moe = model("moe.gguf");
        if (!QFile::exists(moe))
            QVERIFY(engine::makeModel(kBin, {"--arch", "qwen3moe", "--layers", "2", "--out", moe}));
        // without flash attention, as tst_families runs qwen3moe: Mesa's device crashes in its
        // flash attention there
        const QString program = cmd("moe.gguf", "vulkan") + " --flash-attn off";
        const auto plain = unobservedKernels(program);
        const int unobserved = plain.value("MUL_MAT_ID_MUL"), routings = plain.value("TOPK_MOE_EARLY_SOFTMAX_NORM");
        QVERIFY(unobserved > 0);
        QVERIFY(routings > 0);
        const QString out = m_dir.path() + "/experts-kept";
        const Run kept = llmscopeRun({"dump", "--exec", "GGML_VK_PERF_LOGGER=1 " + program, "--type", "model", "stats",
                                      "-er", "0,100", "--keep-fusion", "-o", out});
        QVERIFY2(kept.code == 0, qPrintable(kept.err));
        // read after the whole graph: the experts chosen and their weights, whose memory only
        // the routing's inner nodes hold (flagging those would unfuse it), are read as each
        // routing ends (the graph ended there, one node a layer), the rest when the graph is done
        QVERIFY2(
            kept.err.contains(QRegularExpression(R"(read 0 inline, [1-9]\d* after the whole graph, 0 node by node, )"
                                                 R"(the graph ended at [1-9]\d* nodes)")),
            qPrintable(kept.err));
        QCOMPARE(kernelCounts(kept.err + kept.out).value("MUL_MAT_ID_MUL"), unobserved);
        QCOMPARE(kernelCounts(kept.err + kept.out).value("TOPK_MOE_EARLY_SOFTMAX_NORM"), routings);
        const Run checked = llmscopeRun({"dump", "--exec", program, "--type", "model", "stats", "-er", "0,100",
                                         "--keep-fusion", "--check-observer", "-o", m_dir.path() + "/experts-checked"});
        // reading where the chains end, and each residual sum where its norm's chain ends (the
        // sum hands the norm its partial sums), leaves the device computing as unobserved
        QVERIFY2(checked.code == 0 && checked.err.contains("observer:    observing changed nothing:"),
                 qPrintable(checked.err));
        // the same bytes as read node by node, fusion kept there too
        const QString byNode = m_dir.path() + "/experts-node";
        const Run node = llmscopeRun({"dump", "--exec", program, "--type", "model", "stats", "-er", "0,100",
                                      "--keep-fusion", "--read", "node", "-o", byNode});
        QVERIFY2(node.code == 0 && node.err.contains(" 0 after the whole graph, "), qPrintable(node.err));
        const Run same =
            llmscopeRun({"compare", "-gp", QString::fromStdString(dumpsInside(byNode.toStdString()).at(0)), "-mp",
                         QString::fromStdString(dumpsInside((m_dir.path() + "/experts-checked").toStdString()).at(0)),
                         "-o", m_dir.path() + "/experts-cmp"});
        QVERIFY2(same.code == 0 && same.err.contains("standard exact") && same.err.contains(" 0 failed"),
                 qPrintable(same.err));

        const auto dumps = dumpsInside(out.toStdString());
        QVERIFY(!dumps.empty());
        int recorded = 0, recordedRoutings = 0;
        std::vector<std::pair<int64_t, std::string>> chosen; // (round, op id) of the experts chosen
        for (const auto &dump : dumps)
            for (const auto &[round, chains] : readFusionRecords(dump))
                for (const FusedChainRecord &c : chains) {
                    recorded += c.types == "MUL_MAT_ID+MUL";
                    if (c.types == "SOFT_MAX+RESHAPE+ARGSORT+VIEW+GET_ROWS+RESHAPE+SUM_ROWS+CLAMP+DIV+RESHAPE") {
                        ++recordedRoutings;
                        QCOMPARE(c.outputs.size(), size_t(1));
                        const auto at = std::find(c.ids.begin(), c.ids.end(), c.outputs[0]);
                        QVERIFY(at != c.ids.end());
                        QVERIFY(c.names[size_t(at - c.ids.begin())].rfind("ffn_moe_topk-", 0) == 0);
                        chosen.emplace_back(round, c.outputs[0]);
                    }
                }
        QCOMPARE(recorded, unobserved);
        QCOMPARE(recordedRoutings, routings);
        const QString unfusedOut = m_dir.path() + "/experts-unfused";
        const Run unfused = llmscopeRun({"dump", "--exec", "GGML_VK_PERF_LOGGER=1 " + program, "--type", "model",
                                         "stats", "-er", "0,100", "-o", unfusedOut});
        QVERIFY2(unfused.code == 0, qPrintable(unfused.err));
        QCOMPARE(kernelCounts(unfused.err + unfused.out).value("MUL_MAT_ID_MUL"), 0);
        QCOMPARE(kernelCounts(unfused.err + unfused.out).value("TOPK_MOE_EARLY_SOFTMAX_NORM"), 0);
        // the experts the fused kernel chose, dumped from its second output: those chosen op by op,
        // and compared as an op of their own
        const DumpIndex keptIndex = scanDump(dumps[0]),
                        unfusedIndex = scanDump(dumpsInside(unfusedOut.toStdString())[0]);
        auto chosenStats = [](const DumpIndex &index, int64_t round,
                              const std::string &op) -> std::optional<TensorStats> {
            for (const TensorRecord &t : index.tensors)
                if (t.exec == round && t.opId == op && !t.input && !t.before)
                    return t.stats;
            return std::nullopt;
        };
        QVERIFY(!chosen.empty());
        for (const auto &[round, op] : chosen) {
            const auto fused = chosenStats(keptIndex, round, op), alone = chosenStats(unfusedIndex, round, op);
            QVERIFY2(fused && alone && fused->digest != 0, op.c_str());
            QCOMPARE(fused->digest, alone->digest); // bit for bit, in their order
        }
    }

    // The q4_0 model on Vulkan against the F32 model on the CPU: the quantization explains what
    // departs, and observing the device changed nothing, bit for bit: the probe reads each
    // residual sum where its norm's chain ends, as Vulkan hands the norm the sum's partial sums
    // of squares (reading the sum where it is computed ended the graph there, and the norm
    // summed its input in another order: a few units in the last place of the result).
    void aQuantizedTestOnTheDeviceIsNotBlamedOnTheObserver()
    {
        // four layers, as the sample family a user makes
        const QString four = m_dir.path() + "/four";
        if (!QFile::exists(four + "/model-q4_0.gguf"))
            QVERIFY(engine::makeModel(kBin, {"--family", four, "--layers", "4"}));
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", cmd("four/model-f32.gguf", "cpu"), "--test",
                                         cmd("four/model-q4_0.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-q4"});
        QVERIFY2(r.code == 1, qPrintable(r.err));
        QVERIFY2(!r.err.contains("the fault lies where observing changes what runs"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("observing changed the program's results:"), qPrintable(r.err)); // beyond rounding
        QVERIFY2(r.err.contains("\n  observing changed nothing: 4 round(s)"), qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, "(no kernel adds error|every operation is within its budget)"),
                 qPrintable(r.err));
    }

    // A device's weights, copied out with ggml's own read: their digests are those the CPU's dump
    // takes of the same file's weights, bit for bit (the products' weights, matched as a
    // multiset: the two graphs order their nodes differently).
    void theDevicesWeightsAreTheFilesWeights()
    {
        auto weightDigests = [&](const QString &device) {
            const QString out = m_dir.path() + "/weights-" + device;
            const Run r = llmscopeRun({"dump", "--exec", cmd("model-f32.gguf", device), "--type", "model", "stats",
                                       "--stats-csv", "-er", "0,0", "-o", out});
            std::vector<uint64_t> digests;
            if (r.code != 0) {
                qWarning("%s", qPrintable(r.err));
                return digests;
            }
            for (const TensorRecord &t : scanDump(dumpsInside(out.toStdString()).at(0)).tensors)
                if (t.input && t.index == 0 && t.opFolders.back().ends_with("MUL_MAT") && t.stats)
                    digests.push_back(t.stats->digest);
            std::sort(digests.begin(), digests.end());
            return digests;
        };
        const auto cpu = weightDigests("cpu"), vk = weightDigests("vulkan");
        QVERIFY(cpu.size() >= 8);
        QVERIFY(std::find(cpu.begin(), cpu.end(), uint64_t(0)) == cpu.end());
        QCOMPARE(vk, cpu);
    }

    // Llama.cpp's scheduler holds the CPU beside the device: its rounds are read after the whole
    // graph, the tensors kept as graph outputs. With fusion kept, every tensor's bytes (payloads,
    // decoded tokens' rounds included) are those read node by node: the same command, compared
    // bit for bit. A device's addresses are offsets from one base all its buffers share: a weight
    // and a node's output at the same offset are two tensors (a decoded token's output norm and
    // its weight were once written as one).
    void afterTheGraphReadsWhatNodeByNodeReads()
    {
        QStringList dumps;
        for (const QString &read : {QString("auto"), QString("node")}) {
            const QString out = m_dir.path() + "/read-" + read;
            const Run r = llmscopeRun({"dump", "--exec", cmd("model-f32.gguf", "vulkan"), "--type", "model", "tensor",
                                       "--keep-fusion", "-er", "0,3", "--read", read, "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains(read == "auto" ? "read 0 inline, 4 after the whole graph, 0 node by node"
                                                   : "read 0 inline, 0 after the whole graph, 4 node by node"),
                     qPrintable(r.err));
            dumps << QString::fromStdString(dumpsInside(out.toStdString()).at(0));
        }
        const Run cmp = llmscopeRun({"compare", "-gp", dumps[1], "-mp", dumps[0], "-o", m_dir.path() + "/cmp-read"});
        QVERIFY2(cmp.code == 0 && cmp.err.contains("standard exact") && cmp.err.contains(" 0 failed"),
                 qPrintable(cmp.err));
    }

    void cpuAgainstVulkanIsWithinTolerance()
    {
        const QString cpu = dumpOf("model-f32.gguf", "cpu", "cpu"), vk = dumpOf("model-f32.gguf", "vulkan", "vk");
        QVERIFY(!cpu.isEmpty() && !vk.isEmpty());
        const Run engineRun = llmscopeRun({"compare", "-gp", cpu, "-mp", vk, "-o", m_dir.path() + "/cmp-engine"});
        QVERIFY2(engineRun.code == 0, qPrintable(engineRun.err));
        QVERIFY2(engineRun.err.contains("standard engine: golden ran on CPU, test on CPU, Vulkan0") &&
                     engineRun.err.contains("every operation passed") &&
                     engineRun.err.contains("most error added for its budget:"),
                 qPrintable(engineRun.err));
        const QJsonObject doc = engine::compareReport(m_dir.path() + "/cmp-engine");
        QCOMPARE(doc["standard"].toString(), QString("engine"));
        int reordered = 0, nonZero = 0;
        for (const auto &v : doc["ops"].toArray()) {
            const QJsonObject op = v.toObject();
            reordered += op["op_id"] != op["my_op_id"];
            nonZero += op["nmse"].toDouble() > 0;
            QVERIFY(op["budget_share"].toDouble() <= 1);
        }
        QVERIFY2(reordered > 0, "the two graphs were expected to order some nodes differently");
        QVERIFY(nonZero > 10); // the backends do differ
        QVERIFY(doc["most_added"].toInt() >= 0);
        // The window's tree shows each op's backend from the kernel CSV: the device runs the
        // layers' matrix products; the embedding's row lookup stays on the CPU.
        const auto backends = readOpBackends(vk.toStdString());
        QVERIFY(backends.size() > 40);
        int onDevice = 0;
        for (const auto &[id, backend] : backends)
            onDevice += backend == "Vulkan0";
        QVERIFY2(onDevice > 30, qPrintable(QString::number(onDevice)));
        QCOMPARE(readOpBackends(cpu.toStdString()).at("1_2"), std::string("CPU"));
        // The configurations say where the runs differ: the device that computed, its driver
        // among the libraries the test loaded, its command; compare opens with it.
        QVERIFY2(engineRun.err.contains("configuration: ") && engineRun.err.contains("hardware") &&
                     engineRun.err.contains("device Vulkan0"),
                 qPrintable(engineRun.err));
        const Run config = llmscopeRun({"config-diff", cpu, vk});
        QCOMPARE(config.code, 1);
        QVERIFY2(config.out.contains(QRegularExpression(
                     R"(  device Vulkan0\n    golden: \(none\)\n    test:   llvmpipe[^\n]*, GPU, )")),
                 qPrintable(config.out));
        QVERIFY2(config.out.contains(QRegularExpression(R"(only test's \(\d+\): [^\n]*libvulkan_lvp\.so)")),
                 qPrintable(config.out));

        const Run msit =
            llmscopeRun({"compare", "-gp", cpu, "-mp", vk, "--standard", "msit", "-o", m_dir.path() + "/cmp-msit"});
        QCOMPARE(msit.code, 1);
        const QJsonObject m = engine::compareReport(m_dir.path() + "/cmp-msit");
        int failed = 0;
        for (const auto &v : m["rows"].toArray())
            failed += !v.toObject()["passed"].toBool();
        QVERIFY2(failed > m["rows"].toArray().size() / 2, qPrintable(QString::number(failed)));
    }

    // A q8_0 KV cache on the CPU and on Vulkan: each backend quantizes the rows it stores its
    // own way, so their caches differ by the type's rounding (more than float16's budget for a
    // copy, 1e-7); every write into the cache is judged by that rounding and passes.
    void aQuantizedCacheIsJudgedByItsTypesRounding()
    {
        const QString cache = " -ctk q8_0 -ctv q8_0";
        const QString cpu = m_dir.path() + "/q8cache-cpu", vk = m_dir.path() + "/q8cache-vk";
        for (const auto &[device, out] : {std::pair{QString("cpu"), cpu}, std::pair{QString("vulkan"), vk}}) {
            const Run r = llmscopeRun({"dump", "--exec", cmd("model-f32.gguf", device) + cache, "--type", "model",
                                       "tensor", "-opname", "set_rows", "-er", "0,1", "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
        llmscopeRun({"compare", "-gp", cpu, "-mp", vk, "-o", m_dir.path() + "/cmp-q8cache"});
        const QJsonObject doc = engine::compareReport(m_dir.path() + "/cmp-q8cache");
        int writes = 0, beyondF16 = 0;
        for (const auto &v : doc["ops"].toArray()) {
            const QJsonObject op = v.toObject();
            QCOMPARE(op["op_type"].toString(), QString("SET_ROWS"));
            ++writes;
            QVERIFY2(op["passed"].toBool(), qPrintable(op["label"].toString()));
            QCOMPARE(op["budget"].toDouble(), cacheTypeNmse("q8_0"));
            beyondF16 += op["own_nmse"].toDouble() > 1e-7;
        }
        QVERIFY2(writes >= 8, qPrintable(QString::number(writes))); // K and V of each layer, two rounds
        QVERIFY2(beyondF16 > 0, "the two backends were expected to round some rows differently");
        QVERIFY(cacheTypeNmse("q8_0") < 1e-4 && cacheTypeNmse("q4_0") > cacheTypeNmse("q8_0"));
        // The whole program: llama.cpp rotates the keys and queries it stores in a quantized
        // cache, nodes without names of their own that Vulkan computes in another order; paired
        // by their shapes, the hunt finds nothing beyond the budgets.
        const Run hunt = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu") + cache, "--test",
                                      cmd("model-f32.gguf", "vulkan") + cache, "-o", m_dir.path() + "/hunt-q8cache"});
        QCOMPARE(hunt.code, 1);
        QVERIFY2(engine::concludes(hunt.err, "every operation is within its budget in every round"),
                 qPrintable(hunt.err));
    }

    // The hunt on CPU against Vulkan ends on nothing, naming the op adding the most for its
    // budget; with a corrupted weight on the Vulkan side it ends on that weight's op, each side
    // dumping its own id of the op (attn_v's product is 2_5 on the CPU, another on Vulkan).
    void huntAcrossBackends()
    {
        const Run clean = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu"), "--test",
                                       cmd("model-f32.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-clean"});
        QVERIFY2(clean.code == 1, qPrintable(clean.err));
        QVERIFY2(engine::concludes(clean.err,
                                   "every operation is within its budget in every round: nothing diverges beyond "
                                   "what two engines of one model may differ by$") &&
                     engine::huntConclusion(clean.err).value(1).contains(
                         QRegularExpression("^the most error for its budget: round \\d+, op ")),
                 qPrintable(clean.err));

        const Run ffn = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu"), "--test",
                                     cmd("model-corrupt.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-ffn"});
        QVERIFY2(
            ffn.code == 0 &&
                engine::concludes(ffn.err, R"(found: round 0, op 2_31 ffn_out-1 \(MUL_MAT\) in 2_DecoderLayer/)") &&
                engine::blamesWeight(engine::huntConclusion(ffn.err).join('\n'), "blk.1.ffn_down.weight"),
            qPrintable(ffn.err));

        const Run v = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu"), "--test",
                                   cmd("attn_v.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-v"});
        QVERIFY2(v.code == 0 &&
                     engine::concludes(v.err, R"(found: round 0, op 2_5 Vcur-1 \(MUL_MAT\) in 2_DecoderLayer/)") &&
                     engine::blamesWeight(engine::huntConclusion(v.err).join('\n'), "blk.1.attn_v.weight"),
                 qPrintable(v.err));
        QVERIFY2(v.err.contains("dumping only op 2_5 (test's 2_"), qPrintable(v.err));
    }

    // A quantized model on the device (its weights in device memory, read from the model file):
    // F32 on the CPU against Q4_0 on Vulkan blames quantization, not a kernel; with a corrupted
    // layer under Q4_0 the hunt still ends on that layer and names its weight.
    void quantizedOnTheDevice()
    {
        QCOMPARE(
            engine::makeModel(
                kBin, {"--quantize", "q4_0", "--in", model("model-corrupt.gguf"), "--out", model("corrupt-q4_0.gguf")}),
            true);
        const Run q = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu"), "--test",
                                   cmd("model-q4_0.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-q4"});
        QVERIFY2(q.code == 1 &&
                     engine::concludes(q.err, "no kernel adds error beyond what quantization explains in every round;"),
                 qPrintable(q.err));
        // each product replayed on its own inputs, held to the paths Vulkan's kernels take
        QVERIFY2(q.err.contains(
                     QRegularExpression(R"(\n  replay: each of the test's [1-9]\d* matrix product\(s\) is within its )"
                                        R"(bound on the inputs it was given)")),
                 qPrintable(q.err));
        const Run c = llmscopeRun({"hunt", "--golden", cmd("model-f32.gguf", "cpu"), "--test",
                                   cmd("corrupt-q4_0.gguf", "vulkan"), "-o", m_dir.path() + "/hunt-cq4"});
        QVERIFY2(c.code == 0 &&
                     engine::concludes(c.err, R"(found: round 0, op 2_31 ffn_out-1 \(MUL_MAT\) in 2_DecoderLayer/)") &&
                     engine::huntConclusion(c.err).indexOf(QRegularExpression(
                         R"(^blk\.1\.ffn_down\.weight \(q4_0\) differs from golden's by [0-9.]+ %, more than its )"
                         R"(quantization explains \([0-9.]+ %\))")) > 0 &&
                     c.err.contains(
                         QRegularExpression(R"(\n  first divergent: round 0, op 2_31 ffn_out-1 \(MUL_MAT\) .*: )"
                                            R"(blk\.1\.ffn_down\.weight \(q4_0\) differs from golden's by [0-9.]+ %, )"
                                            R"(more than its quantization explains)")),
                 qPrintable(c.err));
    }
};

QTEST_GUILESS_MAIN(TstVulkan)
#include "tst_vulkan.moc"
