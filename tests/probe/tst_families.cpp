// The model families people run (llama, qwen2, qwen3, qwen3moe, gemma3, phi3, gpt-oss,
// deepseek2), each end to end on llama.cpp's CPU backend and on its Vulkan
// build (Mesa's software device): sample models from llmscope-make-model --arch, tokens the
// same with and without the probe, CPU against Vulkan within the engine standard, a corrupted
// weight found in its layer and named, and opcheck replaying every op that runs a kernel.
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QSet>
#include <QTest>

#include <cstring>

#include "core/tensor/dtype.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kProbe = LLMSCOPE_PROBE;

struct Family {
    QString arch;
    QStringList shape; // llmscope-make-model's shape options
    QString down; // the feed-forward's down projection, which --family corrupts
    QStringList runArgs; // what llmscope-sample-generate adds
};

// Small models: two layers, 128 wide. qwen3moe and gpt-oss run without flash attention on both
// backends: with it, Mesa 22.3's llvmpipe crashes now and then in the decode of their graphs on
// Vulkan (plain, without the probe; the attention's other path runs there every time), and the
// CPU side must run the same graph to be paired node for node. deepseek2's latent attention
// runs with it.
const QList<Family> &families()
{
    static const QStringList small{"--layers", "2", "--width", "128", "--ff", "256", "--context", "128"};
    static const QStringList experts{"--experts", "4", "--experts-used", "2", "--expert-ff", "128"};
    static const QList<Family> f{
        {"llama", small, "ffn_down", {}},
        {"qwen2", small, "ffn_down", {}},
        {"qwen3", small, "ffn_down", {}},
        {"qwen3moe", small + experts, "ffn_down_exps", {"--flash-attn", "off"}},
        {"gemma3", small, "ffn_down", {}},
        {"phi3", small, "ffn_down", {}},
        {"gpt-oss", small + experts, "ffn_down_exps", {"--flash-attn", "off"}},
        {"deepseek2", small + experts, "ffn_down_exps", {}},
    };
    return f;
}

const Family &family(const QString &arch)
{
    for (const Family &f : families())
        if (f.arch == arch)
            return f;
    qFatal("no family %s", qPrintable(arch));
}

// Whether the CPU has AMX, for which ggml's CPU backend offers its AMX buffer type.
bool cpuHasAmx()
{
    QFile f("/proc/cpuinfo");
    return f.open(QIODevice::ReadOnly) && f.readAll().contains(" amx_int8");
}

QJsonObject opcheckReport(const QString &dir)
{
    const QStringList f = QDir(dir).entryList({"opcheck_result_*.json"}, QDir::Files);
    if (f.size() != 1)
        return {};
    QFile file(dir + "/" + f.front());
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}
// The rows of op in an opcheck report, each passed on its float64 reference with ggml's CPU
// kernel not run: how many; -1 when one is otherwise.
int passedWithoutReplay(const QString &dir, const QString &op)
{
    int n = 0;
    for (const auto &v : opcheckReport(dir)["rows"].toArray()) {
        const QJsonObject o = v.toObject();
        if (o["op_type"].toString() != op)
            continue;
        if (o["precision_result"].toString() != "PASS" || !o["cpu_replay_error_over_bound"].isNull())
            return -1;
        ++n;
    }
    return n;
}
} // namespace

class TstFamilies : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QMap<QString, QString> m_dumps; // each model on each device dumped once

    QString model(const QString &arch, const QString &variant) const
    {
        return m_dir.path() + "/" + arch + "/model-" + variant + ".gguf";
    }
    QStringList args(const QString &arch, const QString &variant, const QString &device) const
    {
        QStringList a{"-m", model(arch, variant), "-n", "4", "--device", device};
        return a + family(arch).runArgs;
    }
    QString cmd(const QString &arch, const QString &variant, const QString &device) const
    {
        return kBin + "/llmscope-sample-generate " + args(arch, variant, device).join(' ');
    }
    // A dump of tensors, inputs with the KV cache's and op parameters (what opcheck replays), or
    // of tensors and the topology whose node names pair the two backends' differently ordered
    // graphs (what compare reads).
    QString dump(const QString &arch, const QString &variant, const QString &device, bool forOpcheck = true,
                 const QStringList &more = {})
    {
        const QString out =
            m_dir.path() + "/" + arch + "/dump-" + variant + "-" + device + (forOpcheck ? "-all" : "") + more.join("");
        if (m_dumps.contains(out))
            return m_dumps[out];
        const QStringList options =
            forOpcheck ? QStringList{"-tiling", "--kv-cache", "-er", "0,1"} : QStringList{"model"};
        const QString command = cmd(arch, variant, device) + (more.isEmpty() ? "" : " " + more.join(' '));
        const auto r =
            engine::llmscope(kBin, QStringList{"dump", "--exec", command, "-o", out, "--type", "tensor"} + options);
        if (r.code != 0)
            qWarning("%s", qPrintable(r.err));
        const QStringList d = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
        return m_dumps[out] = r.code == 0 && d.size() == 1 ? out + "/" + d.front() : QString();
    }

    // A copy of arch's float32 CPU dump under name, to rewrite files in; empty when it could
    // not be made.
    QString copyOfCpuDump(const QString &arch, const QString &name)
    {
        const QString root = dump(arch, "f32", "cpu");
        const QString copy = m_dir.path() + "/" + arch + "/" + name;
        if (root.isEmpty() || !QDir().mkpath(copy) || QProcess::execute("cp", {"-a", root, copy}) != 0)
            return {};
        return copy + "/" + QFileInfo(root).fileName();
    }

    static void addFamilies()
    {
        QTest::addColumn<QString>("arch");
        for (const Family &f : families())
            QTest::newRow(qPrintable(f.arch)) << f.arch;
    }

private slots:
    void initTestCase()
    {
        // Mesa's software device is a CPU-type device, which ggml's Vulkan backend skips unless told.
        qputenv("GGML_VK_VISIBLE_DEVICES", "0");
        for (const Family &f : families()) {
            const QString dir = m_dir.path() + "/" + f.arch;
            QVERIFY2(engine::makeModel(
                         kBin, QStringList{"--arch", f.arch, "--family", dir, "--corrupt-layer", "1"} + f.shape),
                     qPrintable(f.arch));
        }
        // gpt-oss ships its experts in MXFP4 (the rest in Q8_0)
        QVERIFY(engine::makeModel(
            kBin, {"--quantize", "mxfp4", "--in", model("gpt-oss", "f32"), "--out", model("gpt-oss", "mxfp4")}));
    }

    // A family's sample model is what its name says: the file's architecture, and llama.cpp
    // runs it on both backends to the same greedy tokens, with and without the probe.
    void tokensUnchangedUnderTheProbe_data() { addFamilies(); }
    void tokensUnchangedUnderTheProbe()
    {
        QFETCH(QString, arch);
        QFile f(model(arch, "f32"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        // GGUF's key, the string type (8), the length as 64 bits, the name
        QByteArray key("general.architecture\x08\0\0\0", 24);
        const quint64 n = quint64(arch.size());
        key += QByteArray(reinterpret_cast<const char *>(&n), 8) + arch.toLatin1();
        QVERIFY(f.read(4096).contains(key));
        std::vector<int> cpuTokens;
        for (const QString device : {"cpu", "vulkan"}) {
            const auto plain = engine::run(kBin + "/llmscope-sample-generate", args(arch, "f32", device));
            QVERIFY2(plain.exitCode == 0 && plain.tokens.size() == 4, qPrintable(device + ": " + plain.stderrText));
            QVERIFY(plain.device.startsWith(device == "cpu" ? "CPU" : "Vulkan0"));
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("LD_PRELOAD", QStringLiteral(LLMSCOPE_PRELOAD_FIRST) + kProbe);
            env.insert("LLMSCOPE_DUMP_ROOT", m_dir.path() + "/" + arch + "/probed-" + device);
            env.insert("LLMSCOPE_TYPE", "tensor,model");
            env.insert("LLMSCOPE_ER", "0,1000");
            const auto probed = engine::run(kBin + "/llmscope-sample-generate", args(arch, "f32", device), env);
            QCOMPARE(probed.exitCode, 0);
            QCOMPARE(probed.tokens, plain.tokens);
            if (device == "cpu")
                cpuTokens = plain.tokens;
            else
                QCOMPARE(plain.tokens, cpuTokens); // two layers in float32: the same greedy tokens
        }
    }

    // CPU against Vulkan: every op within the engine standard's budgets, though the backends
    // differ by rounding in most of them.
    void cpuAgainstVulkanIsWithinTolerance_data() { addFamilies(); }
    void cpuAgainstVulkanIsWithinTolerance()
    {
        QFETCH(QString, arch);
        const QString cpu = dump(arch, "f32", "cpu", false), vk = dump(arch, "f32", "vulkan", false);
        QVERIFY(!cpu.isEmpty() && !vk.isEmpty());
        const QString out = m_dir.path() + "/" + arch + "/cmp";
        const auto r = engine::llmscope(kBin, {"compare", "-gp", cpu, "-mp", vk, "-o", out});
        QVERIFY2(r.code == 0 && r.err.contains("every operation passed"), qPrintable(r.err));
        int nonZero = 0, ops = 0;
        for (const auto &v : engine::compareReport(out)["ops"].toArray()) {
            ++ops;
            nonZero += v.toObject()["nmse"].toDouble() > 0;
        }
        QVERIFY2(ops > 40 && nonZero > 10, qPrintable(QString("%1 ops, %2 differ").arg(ops).arg(nonZero)));
        QVERIFY(!r.err.contains("warning:"));
        // without the topology's node names Vulkan's reordered graph pairs other ops: said first
        const auto bare = engine::llmscope(
            kBin,
            {"compare", "-gp", dump(arch, "f32", "cpu"), "-mp", dump(arch, "f32", "vulkan"), "-o", out + "-bare"});
        const QStringList lines = bare.err.split('\n'); // the warning right after the counts
        const int pairs = int(lines.indexOf(QRegularExpression(R"(^  \d+ tensor pairs .*)")));
        QVERIFY2(pairs > 0 &&
                     lines.value(pairs + 1).startsWith("  warning: neither dump has a model topology (--type model)"),
                 qPrintable(bare.err));
    }

    // A corrupted down projection in layer 1 on the Vulkan side: the hunt ends on that layer's
    // product (MUL_MAT_ID where experts compute it) and names the GGUF tensor.
    void corruptedWeightFoundAndNamed_data() { addFamilies(); }
    void corruptedWeightFoundAndNamed()
    {
        QFETCH(QString, arch);
        const Family &f = family(arch);
        const auto r = engine::llmscope(kBin,
                                        {"hunt", "--golden", cmd(arch, "f32", "cpu"), "--test",
                                         cmd(arch, "corrupt", "vulkan"), "-o", m_dir.path() + "/" + arch + "/hunt"});
        const QString product = f.down.endsWith("_exps") ? "MUL_MAT_ID" : "MUL_MAT";
        QVERIFY2(
            r.code == 0 &&
                engine::concludes(r.err, R"(found: round 0, op 2_\d+ \S+ \()" + product + R"(\) in 2_DecoderLayer/)") &&
                engine::blamesWeight(engine::huntConclusion(r.err).join('\n'), "blk.1." + f.down + ".weight"),
            qPrintable(r.err));
    }

    // opcheck replays every op that runs a kernel, on the CPU and on Vulkan, in float32 and
    // with quantized weights, each within the bound a correct kernel keeps: nothing skipped,
    // nothing failed, warnings only for Vulkan's float16 matrix operands.
    void opcheckReplaysEveryOp_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QStringList>("more");
        for (const Family &f : families()) {
            QTest::addRow("%s f32 cpu", qPrintable(f.arch)) << f.arch << "f32"
                                                            << "cpu" << QStringList();
            QTest::addRow("%s f32 vulkan", qPrintable(f.arch)) << f.arch << "f32"
                                                               << "vulkan" << QStringList();
            QTest::addRow("%s q4_0 vulkan", qPrintable(f.arch)) << f.arch << "q4_0"
                                                                << "vulkan" << QStringList();
            // ggml repacks these weights on the CPU: read from the model file. On a CPU with AMX the
            // bundle's AMX kernels take deepseek2's Q4_0 weights and llama.cpp's scheduler aborts
            // on its graph, probe or not (GGML_ASSERT(*cur_backend_id != -1) while reserving):
            // there the weights stay as the file holds them.
            QTest::addRow("%s q4_0 cpu", qPrintable(f.arch))
                << f.arch << "q4_0"
                << "cpu" << (f.arch == "deepseek2" && cpuHasAmx() ? QStringList{"--no-repack"} : QStringList());
        }
        // attention sinks in flash attention; the experts in MXFP4
        QTest::addRow("gpt-oss f32 cpu flash-attn") << "gpt-oss"
                                                    << "f32"
                                                    << "cpu" << QStringList{"--flash-attn", "on"};
        QTest::addRow("gpt-oss mxfp4 vulkan") << "gpt-oss"
                                              << "mxfp4"
                                              << "vulkan" << QStringList();
        QTest::addRow("gpt-oss mxfp4 cpu") << "gpt-oss"
                                           << "mxfp4"
                                           << "cpu" << QStringList();
    }
    void opcheckReplaysEveryOp()
    {
        QFETCH(QString, arch);
        QFETCH(QString, variant);
        QFETCH(QString, device);
        QFETCH(QStringList, more);
        const QString root = dump(arch, variant, device, true, more);
        QVERIFY(!root.isEmpty());
        const QString out = m_dir.path() + "/" + arch + "/opcheck-" + variant + "-" + device + more.join("");
        const auto r = engine::llmscope(kBin, {"opcheck", "-i", root, "-o", out});
        QVERIFY2(r.code == 0 && r.err.contains("coverage 100 %"), qPrintable(r.err));
        const QJsonObject s = opcheckReport(out)["summary"].toObject();
        QCOMPARE(s["skip"].toInt(), 0);
        QCOMPARE(s["fail"].toInt(), 0);
        QCOMPARE(s["error"].toInt(), 0);
        QVERIFY(s["replayed"].toInt() > 40);
        QSet<QString> types;
        for (const auto &v : opcheckReport(out)["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            types.insert(o["op_type"].toString());
            // warned only where Vulkan's matrix kernels round their operands to float16
            if (o["precision_result"].toString() == "WARN")
                QVERIFY2(device == "vulkan" && o["op_type"].toString().startsWith("MUL_MAT") &&
                             o["fail_reason"].toString().contains("float16 operand rounding"),
                         qPrintable(o["op_id"].toString() + " " + o["op_type"].toString() + ": " +
                                    o["fail_reason"].toString()));
        }
        // each family's own ops are among those replayed
        static const QMap<QString, QStringList> own{
            {"qwen3moe", {"MUL_MAT_ID", "ARGSORT", "SUM_ROWS", "CLAMP", "DIV", "GET_ROWS"}},
            {"gemma3", {"GEGLU", "SCALE"}},
            {"gpt-oss",
             {"MUL_MAT_ID", "ADD_ID", "SWIGLU_OAI", "ARGSORT", more.isEmpty() ? "SOFT_MAX" : "FLASH_ATTN_EXT"}},
            {"deepseek2", {"MUL_MAT_ID", "SIGMOID", "CONCAT", "SUM_ROWS", "CLAMP", "SCALE", "FLASH_ATTN_EXT"}},
        };
        for (const QString &op : own.value(arch))
            QVERIFY2(types.contains(op), qPrintable(op));
    }

    // Faults of the shapes llama.cpp has shipped, written into one output of a copy of a real
    // dump (layer 1, round 0): each fails its op, alone. "tail": each row's last element left
    // unwritten (a SIMD tail); "slot": one token's last expert slot left unwritten (a thread's
    // chunk); "swap": two places of a routing sort swapped; "sinks": attention rows summing to 1,
    // as a kernel that drops the sinks gives; "scale": the output 0.1 % off.
    void faultsFail_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("fault");
        QTest::newRow("qwen3moe MUL_MAT_ID slot") << "qwen3moe"
                                                  << "MUL_MAT_ID"
                                                  << "slot";
        QTest::newRow("qwen3moe ARGSORT swap") << "qwen3moe"
                                               << "ARGSORT"
                                               << "swap";
        QTest::newRow("gemma3 GEGLU tail") << "gemma3"
                                           << "GEGLU"
                                           << "tail";
        QTest::newRow("gemma3 GEGLU scale") << "gemma3"
                                            << "GEGLU"
                                            << "scale";
        QTest::newRow("gpt-oss SOFT_MAX sinks") << "gpt-oss"
                                                << "SOFT_MAX"
                                                << "sinks";
        QTest::newRow("gpt-oss ADD_ID scale") << "gpt-oss"
                                              << "ADD_ID"
                                              << "scale";
        QTest::newRow("gpt-oss SWIGLU_OAI scale") << "gpt-oss"
                                                  << "SWIGLU_OAI"
                                                  << "scale";
        QTest::newRow("deepseek2 CONCAT tail") << "deepseek2"
                                               << "CONCAT"
                                               << "tail";
        QTest::newRow("deepseek2 SIGMOID scale") << "deepseek2"
                                                 << "SIGMOID"
                                                 << "scale";
    }
    void faultsFail()
    {
        QFETCH(QString, arch);
        QFETCH(QString, op);
        QFETCH(QString, fault);
        const QString faulty = copyOfCpuDump(arch, "fault-" + op + "-" + fault);
        QVERIFY(!faulty.isEmpty());
        const QString clean = m_dir.path() + "/" + arch + "/fault-clean-" + op + "-" + fault;
        QCOMPARE(engine::llmscope(kBin, {"opcheck", "-i", faulty, "-o", clean}).code, 0);
        QString target, targetId;
        for (const auto &v : opcheckReport(clean)["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            const QString folder = QFileInfo(o["tensor_path"].toString()).path() + "/..";
            if (o["op_type"].toString() == op && o["round"].toInt() == 0 && o["op_id"].toString().startsWith("2_") &&
                (fault != "sinks" || QFileInfo::exists(folder + "/before/intensor2.bin"))) {
                target = o["tensor_path"].toString();
                targetId = o["op_id"].toString();
                break;
            }
        }
        QVERIFY(!target.isEmpty());
        llmscope::Tensor t = llmscope::readBin(target.toStdString());
        QVERIFY(t.data.size() >= 8 && !t.dims.empty());
        auto *v = reinterpret_cast<float *>(t.data.data());
        const size_t n = t.data.size() / 4, row = size_t(t.dims.back());
        if (fault == "slot") { // [tokens, slots, rows] in msit's order: the last token's last slot
            std::fill(v + n - row, v + n, 0.0f);
        } else if (fault == "swap") {
            std::swap_ranges(t.data.begin(), t.data.begin() + 4, t.data.begin() + 4);
        } else if (fault == "tail") {
            for (size_t i = row - 1; i < n; i += row)
                v[i] = 0;
        } else if (fault == "sinks") {
            for (size_t r0 = 0; r0 < n; r0 += row) {
                double sum = 0;
                for (size_t i = 0; i < row; ++i)
                    sum += v[r0 + i];
                for (size_t i = 0; i < row && sum > 0; ++i)
                    v[r0 + i] = float(v[r0 + i] / sum);
            }
        } else {
            for (size_t i = 0; i < n; ++i)
                v[i] *= 1.001f;
        }
        llmscope::writeBin(target.toStdString(), t);
        const QString out = m_dir.path() + "/" + arch + "/fault-check-" + op + "-" + fault;
        const auto r = engine::llmscope(kBin, {"opcheck", "-i", faulty, "-o", out});
        QCOMPARE(r.code, 1);
        QStringList failed;
        for (const auto &x : opcheckReport(out)["rows"].toArray())
            if (x.toObject()["precision_result"].toString() == "FAIL")
                failed << x.toObject()["op_id"].toString() + " " + x.toObject()["op_type"].toString();
        QCOMPARE(failed, QStringList{targetId + " " + op});
    }

    // A CONCAT whose raw parameters name a dimension its op_param.json does not: its float64
    // reference judges it, ggml's CPU kernel (which would read past its input) never runs it.
    void hostileConcatDimension()
    {
        const QString hostile = copyOfCpuDump("deepseek2", "hostile");
        QVERIFY(!hostile.isEmpty());
        int changed = 0;
        for (QDirIterator it(hostile + "/tiling", {"*_CONCAT.bin"}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadWrite));
            QByteArray raw = f.readAll();
            const qint32 bad = 100000;
            std::memcpy(raw.data(), &bad, 4);
            f.seek(0);
            f.write(raw);
            ++changed;
        }
        QVERIFY(changed >= 4);
        const QString out = m_dir.path() + "/deepseek2/hostile-check";
        const auto r = engine::llmscope(kBin, {"opcheck", "-i", hostile, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(passedWithoutReplay(out, "CONCAT") >= changed);
    }

    // A MUL_MAT_ID whose expert ids were rewritten as float32 (whole numbers still, so its
    // float64 reference judges it): ggml's kernel would read the floats' bits as experts, so
    // it is not run there.
    void floatIdsAreNotReplayed()
    {
        const QString hostile = copyOfCpuDump("qwen3moe", "float-ids");
        QVERIFY(!hostile.isEmpty());
        int changed = 0;
        for (QDirIterator it(hostile + "/tensors", {"intensor2.bin"}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString path = it.next();
            if (!path.contains("_MUL_MAT_ID/before/"))
                continue;
            llmscope::Tensor t = llmscope::readBin(path.toStdString());
            QCOMPARE(t.dtype, int32_t(llmscope::DType::Int32));
            for (size_t i = 0; i + 4 <= t.data.size(); i += 4) {
                int32_t id;
                std::memcpy(&id, t.data.data() + i, 4);
                const float f = float(id);
                std::memcpy(t.data.data() + i, &f, 4);
            }
            t.dtype = int32_t(llmscope::DType::Float32);
            llmscope::writeBin(path.toStdString(), t);
            ++changed;
        }
        QVERIFY(changed >= 6);
        const QString out = m_dir.path() + "/qwen3moe/float-ids-check";
        const auto r = engine::llmscope(kBin, {"opcheck", "-i", hostile, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(passedWithoutReplay(out, "MUL_MAT_ID") >= changed);
    }
};

QTEST_GUILESS_MAIN(TstFamilies)
#include "tst_families.moc"
