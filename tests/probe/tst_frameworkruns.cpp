// A PyTorch golden against llama.cpp: the package's reference llama (the same GGUF, Hugging
// Face's modules) dumped by register_hook under `llmscope dump`, compared with llama.cpp's
// dump of the F32 sample model without a mapping file. Every layer's projections (q_proj and
// k_proj un-permuted within heads), norms and residual outputs pair with their ggml nodes and
// pass under the engine standard, on the CPU and on Vulkan; against the GGUF whose layer 1
// ffn_down weight was corrupted the first divergence is that layer's ffn_down output, found by
// compare and by the hunt, which names the weight.
#include <QDir>
#include <QMap>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QRegularExpression>
#include <QTest>

#include <functional>

#include "core/compare/framework_pairing.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

using engine::compareReport;
} // namespace

class TstFrameworkRuns : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString dump(const QString &name, const QString &command, const QStringList &types)
    {
        const QString out = m_dir.path() + "/" + name;
        const auto r = engine::llmscope(
            kBin, QStringList{"dump", "--exec", command, "--type"} + types + QStringList{"-er", "0,2", "-o", out});
        if (r.code != 0)
            qWarning("%s", qPrintable(r.err));
        return r.code == 0 ? out : QString();
    }
    QString torchDump(const QString &name, const QString &model)
    {
        return dump(name, "/usr/bin/python3 -m llmscope.reference.generate -n 3 -m " + model, {"tensor"});
    }

    // Dumps more than one test reads, made by whichever runs first (each test passes alone
    // and in any order); empty when it could not be made.
    QMap<QString, QString> m_made;
    QString once(const QString &name, const std::function<QString()> &make)
    {
        if (!m_made.contains(name))
            m_made[name] = make();
        return m_made[name];
    }
    QString f32Model() const { return m_dir.path() + "/family/model-f32.gguf"; }
    QString torchTensors()
    {
        return once("torch", [&] { return torchDump("torch", f32Model()); });
    }
    QString ggmlTensors(const QString &device)
    {
        return once("ggml-" + device, [&] {
            return dump("ggml-" + device,
                        kBin + "/llmscope-sample-generate -n 3 --device " + device + " -m " + f32Model(),
                        {"model", "tensor"});
        });
    }
    // msProbe's PyTorch dump of the reference's run (dump_tensor_data/Module.{name}.{Class}.
    // forward.{call}.{input|output}.{i}.pt, the call being the token), copied from our own.
    QString msprobeTensors()
    {
        return once("msprobe", [&]() -> QString {
            const QString torch = torchDump("torch-for-msprobe", f32Model());
            if (torch.isEmpty())
                return {};
            const QString data = m_dir.path() + "/msprobe/step0/rank0/dump_tensor_data";
            QDir().mkpath(data);
            int copied = 0;
            for (QDirIterator it(torch, {"*.pth"}, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
                const QFileInfo f(it.next());
                const QString module = f.dir().dirName(), token = f.dir().absolutePath().section('/', -2, -2);
                if (module == "root" || !module.startsWith("root."))
                    continue;
                const QString part = f.baseName() == "output" ? "output.0" : f.baseName().replace('_', '.');
                if (!QFile::copy(f.filePath(),
                                 data + "/Module." + module.mid(5) + ".Cls.forward." + token + "." + part + ".pt"))
                    return {};
                ++copied;
            }
            return copied > 100 ? data : QString();
        });
    }

private slots:
    void initTestCase()
    {
        qputenv("PYTHONPATH", LLMSCOPE_SOURCE_DIR "/python");
        qputenv("GGML_VK_VISIBLE_DEVICES", "0");
        QVERIFY(
            engine::makeModel(kBin, {"--family", m_dir.path() + "/family", "--layers", "2", "--corrupt-layer", "1"}));
        for (const QString arch : {"qwen2", "qwen3"})
            QVERIFY(engine::makeModel(kBin,
                                      {"--arch", arch, "--out", m_dir.path() + "/" + arch + ".gguf", "--layers", "2",
                                       "--width", "128", "--ff", "256"}));
        // three layers: the corrupted one (1) is not the last, whose experts llama.cpp runs on
        // the last token only in the prompt round
        QVERIFY(engine::makeModel(kBin,
                                  {"--arch", "qwen3moe", "--family", m_dir.path() + "/moe", "--layers", "3", "--width",
                                   "128", "--expert-ff", "128", "--corrupt-layer", "1"}));
    }

    // GGUF names and Hugging Face modules, both ways.
    void namesAcrossFrameworks()
    {
        QCOMPARE(hfModuleOfGgufWeight("blk.3.ffn_down.weight"), std::string("model.layers.3.mlp.down_proj"));
        QCOMPARE(hfModuleOfGgufWeight("blk.0.attn_norm.weight"), std::string("model.layers.0.input_layernorm"));
        QCOMPARE(hfModuleOfGgufWeight("output.weight"), std::string("lm_head"));
        QCOMPARE(hfModuleOfGgufWeight("blk.0.attn_q.bias"), std::string());
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.12.self_attn.k_proj"), std::string("blk.12.attn_k.weight"));
        QCOMPARE(ggufWeightOfHfModule("root.lm_head"), std::string("output.weight"));
        // Qwen's: per-head norms, the router, and an expert's slice of the experts' tensor
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.2.self_attn.q_norm"), std::string("blk.2.attn_q_norm.weight"));
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.2.mlp.gate"), std::string("blk.2.ffn_gate_inp.weight"));
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.1.mlp.experts.3.down_proj"),
                 std::string("blk.1.ffn_down_exps.weight"));
        QCOMPARE(hfModuleOfGgufWeight("blk.1.ffn_up_exps.weight"), std::string("model.layers.1.mlp.experts.*.up_proj"));
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.1.mlp.experts.3.act_fn"), std::string());
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.1.mlp.act_fn"), std::string());
        QCOMPARE(ggufWeightOfHfModule("root.mymodel.norm"), std::string());
        // a layer number no int holds, and a name too long for the matcher: no module, no crash
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.99999999999.mlp.down_proj"), std::string());
        QCOMPARE(ggufWeightOfHfModule("root.model.layers.0." + std::string(200000, 'a')), std::string());
    }

    // Qwen's families against the PyTorch reference in Hugging Face's module names: every
    // pair passes; qwen2's projections are their bias adds, its queries and keys as they are
    // (NeoX RoPE: the converter permuted nothing); qwen3's per-head norms; qwen3moe's router,
    // MoE block and each expert's rows of llama.cpp's MUL_MAT_ID.
    void qwenFamiliesPass_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QStringList>("expected"); // node names paired in round 0, layer 0
        QTest::newRow("qwen2") << "qwen2.gguf" << QStringList{"Qcur-0", "Kcur-0", "Vcur-0"};
        QTest::newRow("qwen3") << "qwen3.gguf" << QStringList{"Qcur_normed-0", "Kcur_normed-0"};
        QTest::newRow("qwen3moe") << "moe/model-f32.gguf"
                                  << QStringList{"ffn_moe_logits-0", "ffn_moe_out-0",  "ffn_moe_gate-0",
                                                 "ffn_moe_up-0",     "ffn_moe_down-0", "ffn_moe_down-1"};
    }
    void qwenFamiliesPass()
    {
        QFETCH(QString, model);
        QFETCH(QStringList, expected);
        const QString path = m_dir.path() + "/" + model, name = QString(model).replace('/', '-');
        const QString torch = torchDump("torch-" + name, path);
        const QString ggml =
            dump("ggml-" + name, kBin + "/llmscope-sample-generate -n 3 -m " + path, {"model", "tensor"});
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-" + name;
        const auto r = engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = compareReport(out);
        QVERIFY(j["all_passed"].toBool());
        QSet<QString> round0;
        int queries = 0, experts = 0;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["round"].toInt() == 0 && !o["input"].toBool())
                round0 << o["node_name"].toString();
            const QString by = o["matched_by"].toString();
            if (by.contains(".self_attn.q_proj = ")) {
                QVERIFY2(!by.contains("un-permuted"), qPrintable(by));
                ++queries;
                if (by.startsWith("model.layers.0.")) // layer 0's inputs agree: float32 rounding apart
                    QVERIFY2(o["nmse"].toDouble() < 1e-10,
                             qPrintable(by + " " + QString::number(o["nmse"].toDouble())));
            }
            experts += by.contains("'s rows)");
        }
        QVERIFY(queries >= 6); // two layers, three rounds
        for (const QString &n : expected)
            QVERIFY2(round0.contains(n), qPrintable(n));
        QVERIFY(!model.startsWith("moe") || experts >= 20);
    }

    // A corrupted expert weight in layer 1 of llama.cpp's qwen3moe: against the PyTorch
    // reference, the first op that diverges is that layer's experts' down projection.
    void aCorruptedExpertIsFound()
    {
        const QString torch = torchDump("torch-moe-clean", m_dir.path() + "/moe/model-f32.gguf");
        const QString ggml = dump(
            "ggml-moe-corrupt", kBin + "/llmscope-sample-generate -n 3 -m " + m_dir.path() + "/moe/model-corrupt.gguf",
            {"model", "tensor"});
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-moe-corrupt";
        const auto r = engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.err.contains(QRegularExpression(R"(first divergent: round 0, op 2_\d+ ffn_moe_down-1 \(MUL_MAT_ID\))")),
            qPrintable(r.err));
        QVERIFY2(
            r.err.contains(QRegularExpression(R"(the weight blk\.1\.ffn_down_exps\.weight \(PyTorch's )"
                                              R"(model\.layers\.1\.mlp\.experts\.\d\.down_proj\.weight\) differs)")),
            qPrintable(r.err));
    }

    void cpuAndVulkanPass_data()
    {
        QTest::addColumn<QString>("device");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("vulkan") << "vulkan";
    }
    void cpuAndVulkanPass()
    {
        QFETCH(QString, device);
        const QString torch = torchTensors(), ggml = ggmlTensors(device);
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-" + device;
        const auto r = engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = compareReport(out);
        QVERIFY2(j["matched_by"].toString().startsWith("across frameworks"), qPrintable(j["matched_by"].toString()));
        QCOMPARE(j["standard"].toString(), QString("engine"));
        QVERIFY(j["all_passed"].toBool());
        // Each round pairs every layer's projections, norms and output, and the model's ends.
        QSet<QString> round0;
        int queries = 0;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            QVERIFY2(o["passed"].toBool(), qPrintable(o["node_name"].toString()));
            if (o["round"].toInt() == 0 && !o["input"].toBool())
                round0 << o["node_name"].toString();
            // un-permuted queries and keys agree as closely as the other projections
            if (device == "cpu" && o["node_name"].toString().startsWith("Qcur-0") && !o["input"].toBool()) {
                QVERIFY(o["nmse"].isDouble() && o["nmse"].toDouble() < 1e-10);
                ++queries;
            }
        }
        QVERIFY(device != "cpu" || queries >= 3); // one a round
        // each module's weights, from register_hook's statistics and sketches (no payload),
        // against the weights llama.cpp read: the same to float32's rounding
        int weights = 0;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (!o["matched_by"].toString().contains(".weight = "))
                continue;
            ++weights;
            QVERIFY2(o["stats_error_estimate"].toDouble(1) < 1e-6, qPrintable(o["matched_by"].toString()));
        }
        QVERIFY2(weights >= 3 * 14, qPrintable(QString::number(weights))); // q and k apart (their rows are permuted)
        // PyTorch as the test side: paired and judged the same
        const auto back = engine::llmscope(kBin, {"compare", "-gp", ggml, "-mp", torch, "-o", out + "-back"});
        QVERIFY2(back.code == 0 && back.err.contains("every operation passed"), qPrintable(back.err));
        for (int l = 0; l < 2; ++l)
            for (const char *n : {"attn_norm-", "Qcur-", "Kcur-", "Vcur-", "attn_out-", "ffn_norm-", "ffn_gate-",
                                  "ffn_up-", "ffn_out-", "l_out-"})
                QVERIFY2(round0.contains(n + QString::number(l)), (n + QString::number(l)).toUtf8());
        for (const char *n : {"embd", "result_norm", "result_output"})
            QVERIFY2(round0.contains(n), n);
    }

    // A --mapping file still goes first: a module mapped to another node is paired with it
    // (and fails there); the other modules pair by themselves.
    void aMappingOverrides()
    {
        const QString torch = torchTensors(), ggml = ggmlTensors("cpu");
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        QFile map(m_dir.path() + "/map.json");
        QVERIFY(map.open(QIODevice::WriteOnly));
        map.write(R"({"root.model.layers.0.self_attn.o_proj": "1_29"})");
        map.close();
        const QString out = m_dir.path() + "/cmp-mapped";
        const auto r =
            engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "--mapping", map.fileName(), "-o", out});
        QCOMPARE(r.code, 1);
        int mapped = 0, automatic = 0;
        for (const auto &v : compareReport(out)["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["matched_by"].toString().startsWith("mapping root.model.layers.0.self_attn.o_proj -> 1_29")) {
                ++mapped;
                QCOMPARE(o["node_name"].toString(), QString("ffn_out-0"));
                QVERIFY(!o["passed"].toBool());
            } else if (o["node_name"].toString() == "ffn_out-0") {
                ++automatic; // down_proj still pairs with it by its weight
            }
        }
        QCOMPARE(mapped, 3); // one a round
        QVERIFY(automatic >= 3);
    }

    // msProbe's PyTorch dump of the same run: read and paired the same way.
    void msprobeDumpPairsToo()
    {
        QVERIFY(!msprobeTensors().isEmpty());
        const QString ggml = dump("ggml-for-msprobe",
                                  kBin + "/llmscope-sample-generate -n 3 -m " + m_dir.path() + "/family/model-f32.gguf",
                                  {"model", "tensor"});
        QVERIFY(!ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-msprobe";
        const auto r = engine::llmscope(kBin, {"compare", "-gp", m_dir.path() + "/msprobe", "-mp", ggml, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = compareReport(out);
        QVERIFY(j["matched_by"].toString().startsWith("across frameworks"));
        QVERIFY(j["rows"].toArray().size() >= 130);
    }

    // Statistics only (msit's statistics.csv in each module's folder): read as records without
    // payloads and paired the same way; where llama.cpp kept only the last token's rows the
    // statistics cover other elements, and the pair says so instead of passing.
    void statisticsAcrossFrameworks()
    {
        const QString model = m_dir.path() + "/family/model-f32.gguf";
        const QString torch =
            dump("torch-stats", "/usr/bin/python3 -m llmscope.reference.generate -n 3 -m " + model, {"stats"});
        const QString ggml =
            dump("ggml-stats", kBin + "/llmscope-sample-generate -n 3 -m " + model, {"model", "stats"});
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-stats";
        engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "-o", out});
        int compared = 0, otherRows = 0;
        for (const auto &v : compareReport(out)["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            auto count = [](const QJsonValue &shape) {
                qint64 n = 1;
                for (const auto &d : shape.toArray())
                    n *= d.toInteger();
                return n;
            };
            const bool lastRows = o["matched_by"].toString().contains("the last token's rows");
            if (lastRows && o["round"].toInt() == 0 && count(o["golden_shape"]) != count(o["my_shape"])) {
                ++otherRows;
                QVERIFY(!o["passed"].toBool());
                QVERIFY(o["fail_reason"].toString().startsWith("statistics over different elements"));
            } else {
                ++compared;
                QVERIFY2(o["passed"].toBool(), qPrintable(o["node_name"].toString()));
            }
        }
        QVERIFY(otherRows >= 10); // ffn_norm-1 .. result_output, inputs and outputs
        QVERIFY(compared >= 100);
        // msProbe's statistics-only PyTorch dump (dump.json, no .pt files) of the same tensors
        const QString tensors = msprobeTensors();
        QVERIFY(!tensors.isEmpty());
        const QString statsDump = m_dir.path() + "/msprobe-stats/step0/rank0";
        QVERIFY(QDir().mkpath(statsDump));
        QProcess py;
        py.start("/usr/bin/python3",
                 {"-c", R"(
import json, os, sys, torch
src, out = sys.argv[1], sys.argv[2]
data = {}
for f in sorted(os.listdir(src)):
    name, side, i = f[:-3].rsplit('.', 2)
    t = torch.load(os.path.join(src, f)).float()
    entry = data.setdefault(name, {"input_args": [], "output": []})
    lst = entry["input_args" if side == "input" else "output"]
    while len(lst) <= int(i):
        lst.append(None)
    lst[int(i)] = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": list(t.shape), "Max": t.max().item(),
                   "Min": t.min().item(), "Mean": t.mean().item(), "Norm": t.norm().item()}
json.dump({"task": "statistics", "level": "L0", "framework": "pytorch", "data": data}, open(out + "/dump.json", "w"))
)",
                  tensors, statsDump});
        QVERIFY(py.waitForFinished(120000) && py.exitCode() == 0);
        const QString out2 = m_dir.path() + "/cmp-msprobe-stats";
        engine::llmscope(kBin, {"compare", "-gp", m_dir.path() + "/msprobe-stats", "-mp", ggml, "-o", out2});
        const QJsonObject j2 = compareReport(out2);
        QVERIFY(j2["matched_by"].toString().startsWith("across frameworks"));
        int passed = 0;
        for (const auto &v : j2["rows"].toArray())
            passed += v.toObject()["passed"].toBool();
        QVERIFY2(passed >= 100, qPrintable(QString::number(passed)));
    }

    // The corrupted weight: its layer's ffn_down output is the first divergence.
    void corruptedLayerIsFound()
    {
        const QString torch = torchDump("torch-clean", m_dir.path() + "/family/model-f32.gguf");
        const QString ggml = dump(
            "ggml-corrupt", kBin + "/llmscope-sample-generate -n 3 -m " + m_dir.path() + "/family/model-corrupt.gguf",
            {"model", "tensor"});
        QVERIFY(!torch.isEmpty() && !ggml.isEmpty());
        const QString out = m_dir.path() + "/cmp-corrupt";
        const auto r = engine::llmscope(kBin, {"compare", "-gp", torch, "-mp", ggml, "-o", out});
        QCOMPARE(r.code, 1);
        const QJsonObject j = compareReport(out);
        const QJsonObject first = j["ops"].toArray()[j["first_divergent"].toInt()].toObject();
        QCOMPARE(first["round"].toInt(), 0);
        QCOMPARE(first["node_name"].toString(), QString("ffn_out-1"));
        QVERIFY2(r.err.contains("first divergent: round 0, op 2_31 ffn_out-1 (MUL_MAT)"), qPrintable(r.err));
        // named from the statistics and sketch register_hook wrote: the GGUF tensor and the
        // PyTorch parameter, with the sketch's estimate of the 10 % noise put in it
        const auto named =
            QRegularExpression(R"(the weight blk\.1\.ffn_down\.weight \(PyTorch's model\.layers\.1\.mlp\.)"
                               R"(down_proj\.weight\) differs between golden and test \(relative error about )"
                               R"(([0-9.]+) %\))")
                .match(r.err);
        QVERIFY2(named.hasMatch(), qPrintable(r.err));
        QVERIFY2(named.captured(1).toDouble() > 7 && named.captured(1).toDouble() < 13, qPrintable(named.captured(1)));
        // the other way round (llama.cpp as golden, PyTorch as test): the same op and names
        const auto back =
            engine::llmscope(kBin, {"compare", "-gp", ggml, "-mp", torch, "-o", m_dir.path() + "/cmp-corrupt-back"});
        QCOMPARE(back.code, 1);
        QVERIFY2(back.err.contains("first divergent: round 0, op 2_31 ffn_out-1 (MUL_MAT)") &&
                     back.err.contains(
                         "the weight blk.1.ffn_down.weight (PyTorch's model.layers.1.mlp.down_proj.weight) differs"),
                 qPrintable(back.err));
    }

    // llmscope hunt with the PyTorch reference as golden: the statistics cannot judge what
    // llama.cpp computes on the last token only, so the round is dumped whole; the first op that
    // departs element by element is layer 1's ffn_down, and with the parameters dumped
    // (-tiling gives dump_weight) its weight is named.
    void theHuntWithAPyTorchGolden()
    {
        const QString family = m_dir.path() + "/family/";
        const auto r = engine::llmscope(
            kBin,
            {"hunt", "--golden", "/usr/bin/python3 -m llmscope.reference.generate -n 2 -m " + family + "model-f32.gguf",
             "--test", kBin + "/llmscope-sample-generate -n 2 -m " + family + "model-corrupt.gguf", "-o",
             m_dir.path() + "/hunt"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 2_31 ffn_out-1 \(MUL_MAT\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("its error comes in through the weight blk.1.ffn_down.weight"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TstFrameworkRuns)
#include "tst_frameworkruns.moc"
