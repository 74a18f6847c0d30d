// llmscope opcheck on real runs: a CPU dump of the sample model replays every op that runs a
// kernel and passes; a Vulkan dump (Mesa's software device) passes or warns with a reason, and
// one MUL_MAT output scaled by 1.001 fails that op alone; a device whose RMS_NORM rounds
// through float16 is named, its inputs the same as a correct run's. The reports: msit's
// columns as .xlsx, .csv and .json, and options refused with their reason.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <filesystem>

#include "core/tensor/bin_file.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

engine::LlmscopeRun llmscopeRun(const QStringList &args)
{
    return engine::llmscope(kBin, args);
}

QString onlyDump(const QString &out)
{
    const QStringList d = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
    return d.size() == 1 ? out + "/" + d.front() : QString();
}

QJsonObject report(const QString &dir, const QString &suffix = ".json")
{
    const QStringList f = QDir(dir).entryList({"opcheck_result_*" + suffix}, QDir::Files, QDir::Time);
    if (f.isEmpty())
        return {};
    QFile file(dir + "/" + f.front());
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}

QJsonArray rowsWith(const QJsonObject &r, const QString &verdict)
{
    QJsonArray out;
    for (const auto &v : r["rows"].toArray())
        if (v.toObject()["precision_result"].toString() == verdict)
            out.append(v);
    return out;
}
} // namespace

class TstOpcheckRuns : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

    QString dump(const QString &name, const QString &command, const QStringList &more = {})
    {
        const QString out = m_dir.path() + "/" + name;
        const auto r =
            llmscopeRun(QStringList{"dump", "--exec", command, "--type", "tensor", "-tiling", "-o", out} + more);
        if (r.code != 0)
            qWarning("%s", qPrintable(r.err));
        return r.code == 0 ? onlyDump(out) : QString();
    }

    // A two-layer model of arch quantized to type, made once; empty when it cannot be made.
    QString quantizedModel(const QString &arch, const QString &type)
    {
        const QString f32 = m_dir.path() + "/" + arch + "-f32.gguf",
                      model = m_dir.path() + "/" + arch + "-" + type + ".gguf";
        if (!QFile::exists(f32) && !engine::makeModel(kBin, {"--arch", arch, "--out", f32, "--layers", "2"}))
            return {};
        if (!QFile::exists(model) && !engine::makeModel(kBin, {"--quantize", type, "--in", f32, "--out", model}))
            return {};
        return model;
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    // Every op that runs a kernel replayed, each within float32's bound; the views skipped as
    // views; the workbook holds msit's sheet and columns.
    void cpuDumpPasses()
    {
        const QString root =
            dump("cpu", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", {"--kv-cache", "-er", "0,1"});
        QVERIFY(!root.isEmpty());
        // -tiling: the inputs op_param.json marks as weights are written in the first round
        // only; round 1's are relative links to those files; every other input is a file.
        int weights = 0, others = 0;
        for (QDirIterator it(root + "/tensors", {"op_param.json"}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString param = it.next();
            const QString dir = QFileInfo(param).path();
            if (!dir.contains("/1/"))
                continue;
            QFile f(param);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonArray inputs = QJsonDocument::fromJson(f.readAll()).object()["inputs"].toArray();
            for (int k = 0; k < inputs.size(); ++k) {
                const QFileInfo in(dir + QString("/before/intensor%1.bin").arg(k));
                if (!in.exists())
                    continue; // a KV-cache view written where --kv-cache is not given
                if (inputs[k].toObject()["weight"].toBool()) {
                    ++weights;
                    QVERIFY2(in.isSymLink(), qPrintable(in.filePath()));
                    QVERIFY(std::filesystem::read_symlink(in.filePath().toStdString()).is_relative());
                    QCOMPARE(in.canonicalFilePath(),
                             QFileInfo(QString(in.filePath()).replace("/1/", "/0/")).canonicalFilePath());
                } else {
                    ++others;
                    QVERIFY2(!in.isSymLink(), qPrintable(in.filePath()));
                }
            }
        }
        QVERIFY(weights >= 14); // the embedding, two norms and seven matrices a layer
        QVERIFY(others > weights);
        const QString out = m_dir.path() + "/cpu-check";
        const auto r = llmscopeRun({"opcheck", "-i", root, "-o", out, "-metric", "abs", "cos_sim", "kl"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("coverage 100 %"), qPrintable(r.err));
        const QJsonObject j = report(out);
        const QJsonObject s = j["summary"].toObject();
        QCOMPARE(s["fail"].toInt(), 0);
        QCOMPARE(s["warn"].toInt(), 0);
        QCOMPARE(s["error"].toInt(), 0);
        QVERIFY(s["replayed"].toInt() >= 80); // 44 kernels a round, two rounds
        QCOMPARE(s["replayed"].toInt() + s["views"].toInt(), s["ops"].toInt());
        QVERIFY(rowsWith(j, "SKIP").isEmpty());
        // ggml's own CPU kernels, replayed on the same inputs, are within every bound: the
        // references and their bounds hold against ggml itself (SET_ROWS writes into the cache:
        // not replayed on ggml)
        int onCpu = 0;
        for (const auto &v : rowsWith(j, "PASS")) {
            const QJsonObject o = v.toObject();
            if (QStringList{"SET_ROWS", "VIEW", "RESHAPE", "PERMUTE"}.contains(o["op_type"].toString()))
                continue;
            QVERIFY2(!o["cpu_replay_error_over_bound"].isNull(), qPrintable(o["op_id"].toString()));
            QVERIFY2(o["cpu_replay_error_over_bound"].toDouble() <= 1, qPrintable(o["op_id"].toString()));
            // and test-backend-ops' measure against it within ggml's budget (the same kernels here)
            QVERIFY2(o["nmse_vs_cpu_replay"].isDouble() && o["cpu_replay_nmse_budget"].isDouble(),
                     qPrintable(o["op_id"].toString()));
            QVERIFY2(o["nmse_vs_cpu_replay"].toDouble() <= o["cpu_replay_nmse_budget"].toDouble() ||
                         o["cpu_replay_nmse_budget"].toDouble() == 0,
                     qPrintable(o["op_id"].toString()));
            ++onCpu;
        }
        QVERIFY(onCpu >= 70);
        QStringList types;
        for (const auto &v : rowsWith(j, "PASS"))
            types << v.toObject()["op_type"].toString();
        types.removeDuplicates();
        types.sort();
        QCOMPARE(types,
                 (QStringList{"ADD", "FLASH_ATTN_EXT", "GET_ROWS", "MUL", "MUL_MAT", "PERMUTE", "RESHAPE", "RMS_NORM",
                              "ROPE", "SET_ROWS", "SWIGLU", "VIEW"}));
        QCOMPARE(s["views_checked"].toInt(), s["views"].toInt()); // every view's output where its strides put it
        // The workbook: msit's sheet, and its header row in msit's order.
        const QStringList xlsx = QDir(out).entryList({"opcheck_result_*.xlsx"}, QDir::Files);
        QCOMPARE(xlsx.size(), 1);
        QProcess py;
        py.start("python3",
                 {"-c",
                  "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
                  "print(z.read('xl/workbook.xml').decode()); print(z.read('xl/sharedStrings.xml').decode())",
                  out + "/" + xlsx.front()});
        QVERIFY(py.waitForFinished(30000));
        const QString text = QString::fromUtf8(py.readAllStandardOutput());
        QVERIFY2(text.contains("name=\"opcheck_result\""), qPrintable(text.left(400)));
        for (const char *c : {"op_id", "precision_standard", "rel_precision_rate(%)", "abs_precision_rate(%)",
                              "cosine_similarity", "kl_divergence", "fail_reason"})
            QVERIFY2(text.contains(QString(">%1<").arg(c)), c);
        const QStringList csv = QDir(out).entryList({"opcheck_result_*.csv"}, QDir::Files);
        QCOMPARE(csv.size(), 1);
    }

    // A dump with fusion kept: the CPU computes each RMS_NORM+MUL fused, and the chain's end
    // holds the chain's inputs. Each chain is replayed whole (float64, the norm's bound carried
    // through the product) and on ggml's CPU kernels unfused, and passes; the chain's end scaled
    // by 1.001 fails, alone, with ggml's unfused kernels within the bound: the fused kernel.
    void aFusedChainIsReplayedWhole()
    {
        const QString root =
            dump("fused", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", {"--keep-fusion", "-er", "0,0"});
        QVERIFY(!root.isEmpty());
        const QString out = m_dir.path() + "/fused-check";
        auto r = llmscopeRun({"opcheck", "-i", root, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = report(out);
        QCOMPARE(j["summary"].toObject()["fail"].toInt(), 0);
        QStringList chains;
        QString target;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["op_type"].toString() != "RMS_NORM+MUL")
                continue;
            chains << o["op_id"].toString();
            QCOMPARE(o["precision_result"].toString(), QString("PASS"));
            QVERIFY2(
                o["precision_standard"].toString().startsWith("100% within the fused chain RMS_NORM+MUL in float64"),
                qPrintable(o["precision_standard"].toString()));
            QVERIFY2(o["cpu_replay_error_over_bound"].isDouble() && o["cpu_replay_error_over_bound"].toDouble() <= 1,
                     qPrintable(o["cpu_replay_not_run"].toString()));
            if (o["op_id"].toString().startsWith("2_"))
                target = o["tensor_path"].toString();
        }
        QCOMPARE(chains.size(), 5); // two norms a layer and the output norm
        QVERIFY(!target.isEmpty()); // its inputs the chain's: the norm's input and the weight
        QVERIFY(QFile::exists(QFileInfo(target).path() + "/../before/intensor0.bin"));
        QVERIFY(QFile::exists(QFileInfo(target).path() + "/../before/intensor1.bin"));
        testing::scaleTensorFile(target.toStdString(), 1.001f);
        const QString out2 = m_dir.path() + "/fused-scaled";
        r = llmscopeRun({"opcheck", "-i", root, "-o", out2, "-opname", "rms_norm"});
        QCOMPARE(r.code, 1);
        j = report(out2);
        QCOMPARE(j["rows"].toArray().size(), 5); // -opname rms_norm: the chains holding one
        const QJsonArray failed = rowsWith(j, "FAIL");
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed[0].toObject()["tensor_path"].toString(), target);
        QVERIFY(failed[0].toObject()["cpu_replay_error_over_bound"].toDouble() <= 1);
    }

    // --standard msprobe: msProbe's rule for each kind of op. ggml's CPU passes every one (the
    // matrix products within 64 ULP on average); one MUL_MAT output scaled by 1.001 fails, alone,
    // on its ULP errors; a device whose RMS_NORM rounds through float16 fails that op against
    // ggml's CPU kernel, and nothing else.
    // The KV cache's writes, dumped as the rows they wrote (no --kv-cache), replayed in the
    // cache's own type: a float16 cache each value rounded, a q8_0 or q4_0 one within its
    // blocks' scales; ggml's CPU stores every row within them, in both rounds.
    void cacheWritesReplayedInTheCachesType_data()
    {
        QTest::addColumn<QString>("type");
        QTest::newRow("f16") << "f16";
        QTest::newRow("q8_0") << "q8_0";
        QTest::newRow("q4_0") << "q4_0";
    }
    void cacheWritesReplayedInTheCachesType()
    {
        QFETCH(QString, type);
        // the rows each write left (the default), then the whole cache before and after it
        for (const QString &whole : {QString(), QString("--kv-cache")}) {
            const QString name = type + whole;
            QStringList options{"-opname", "set_rows", "-er", "0,1"};
            if (!whole.isEmpty())
                options << whole;
            const QString root = dump(
                "cache-" + name,
                kBin + "/llmscope-sample-generate -m " + m_model + " -n 2 -ctk " + type + " -ctv " + type, options);
            QVERIFY(!root.isEmpty());
            const QString out = m_dir.path() + "/cache-check-" + name;
            const auto r = llmscopeRun({"opcheck", "-i", root, "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const QJsonObject j = report(out);
            QCOMPARE(j["rows"].toArray().size(), 8); // K and V of two layers, two rounds
            QCOMPARE(rowsWith(j, "PASS").size(), 8);
            for (const auto &v : j["rows"].toArray()) // a float16 cache dumped whole: the dump's own float16
                QVERIFY2(v.toObject()["precision_standard"].toString().contains(
                             type == "f16" && !whole.isEmpty() ? QString("rounded to its type") : "cache's " + type),
                         qPrintable(v.toObject()["precision_standard"].toString()));
        }
    }

    void msprobeStandard()
    {
        const QString root =
            dump("ms-cpu", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", {"--kv-cache", "-er", "0,0"});
        QVERIFY(!root.isEmpty());
        auto r = llmscopeRun({"opcheck", "-i", root, "-o", m_dir.path() + "/ms-cpu-check", "--standard", "msprobe"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = report(m_dir.path() + "/ms-cpu-check");
        QCOMPARE(j["summary"].toObject()["pass"].toInt(), j["rows"].toArray().size());
        QMap<QString, QString> standards;
        QString target, targetId;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            standards[o["op_type"].toString()] = o["precision_standard"].toString().section(':', 0, 0);
            if (o["op_type"].toString() == "MUL_MAT") {
                QVERIFY(o["mean_ulp_error"].isDouble() && o["mean_ulp_error"].toDouble() < 64);
                QVERIFY(!o["cpu_replay_ulp_error_proportion"].isNull());
                if (target.isEmpty() && o["op_id"].toString().startsWith("2_")) {
                    target = o["tensor_path"].toString();
                    targetId = o["op_id"].toString();
                }
            }
        }
        QCOMPARE(standards["MUL_MAT"], QString("ULP"));
        QCOMPARE(standards["VIEW"], QString("binary consistency"));
        QCOMPARE(standards["ADD"], QString("absolute threshold"));
        QCOMPARE(standards["RMS_NORM"], QString("benchmark"));
        testing::scaleTensorFile(target.toStdString(), 1.001f);
        r = llmscopeRun({"opcheck", "-i", root, "-o", m_dir.path() + "/ms-cpu-scaled", "--standard", "msprobe"});
        QCOMPARE(r.code, 1);
        j = report(m_dir.path() + "/ms-cpu-scaled");
        QJsonArray failed = rowsWith(j, "FAIL");
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed[0].toObject()["op_id"].toString(), targetId);
        QVERIFY2(failed[0].toObject()["fail_reason"].toString().contains("beyond 32 ULP"),
                 qPrintable(failed[0].toObject()["fail_reason"].toString()));
        QVERIFY(failed[0].toObject()["mean_ulp_error"].toDouble() > 1000); // 1e-3 relative: about 8000 ULP
        const QString bad =
            dump("ms-sim-bad", kBin + "/llmscope-two-backend-target 2 --imprecise RMS_NORM", {"-er", "0,1"});
        QVERIFY(!bad.isEmpty());
        r = llmscopeRun({"opcheck", "-i", bad, "-o", m_dir.path() + "/ms-sim-bad-check", "--standard", "msprobe"});
        QCOMPARE(r.code, 1);
        j = report(m_dir.path() + "/ms-sim-bad-check");
        failed = rowsWith(j, "FAIL");
        QCOMPARE(failed.size(), 2);
        for (const auto &v : failed)
            QCOMPARE(v.toObject()["op_type"].toString(), QString("RMS_NORM"));
        QCOMPARE(j["summary"].toObject()["pass"].toInt(), 8);
    }

    // Raw parameters that disagree with op_param.json (a ROPE told 100000 dimensions, a unary op
    // told another op) are not given to ggml, which would abort on them: the float64 replay
    // still judges the op, and opcheck ends normally.
    void hostileRawParameters()
    {
        const QString root =
            dump("hostile", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", {"-er", "0,0"});
        QVERIFY(!root.isEmpty());
        QStringList changed;
        for (QDirIterator it(root + "/tiling", {"*_ROPE.bin", "*_SWIGLU.bin"}, QDir::Files,
                             QDirIterator::Subdirectories);
             it.hasNext();) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadWrite));
            QByteArray raw = f.readAll();
            const qint32 bad = 100000;
            std::memcpy(raw.data() + (f.fileName().endsWith("_ROPE.bin") ? 4 : 0), &bad, 4);
            f.seek(0);
            f.write(raw);
            changed << f.fileName();
        }
        QVERIFY(changed.size() >= 3); // 2 layers: 2 ROPE each, 1 SWIGLU
        const QString out = m_dir.path() + "/hostile-check";
        const auto r = llmscopeRun({"opcheck", "-i", root, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        int judged = 0;
        for (const auto &v : report(out)["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["op_type"].toString() == "ROPE" || o["op_type"].toString() == "SWIGLU") {
                QCOMPARE(o["precision_result"].toString(), QString("PASS"));
                QVERIFY(o["cpu_replay_error_over_bound"].isNull());
                ++judged;
            }
        }
        QVERIFY2(judged >= changed.size(), qPrintable(QString::number(judged))); // every changed op's rows, at least
    }

    // Vulkan's matrix kernels round float32 operands to float16: warned, with the reason; every
    // other op passes. One MUL_MAT output scaled by 1.001 afterwards fails, alone.
    void vulkanPassesOrWarnsAndAScaledOutputFails()
    {
        qputenv("GGML_VK_VISIBLE_DEVICES", "0"); // Mesa's software device is a CPU-type device
        const QString root = dump("vk", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2 --device vulkan",
                                  {"--kv-cache", "-er", "0,1", "--type", "tensor", "kernel"});
        QVERIFY(!root.isEmpty());
        const QString out = m_dir.path() + "/vk-check";
        auto r = llmscopeRun({"opcheck", "-i", root, "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = report(out);
        QCOMPARE(j["summary"].toObject()["fail"].toInt(), 0);
        QVERIFY(j["summary"].toObject()["coverage_percent"].toDouble() >= 95);
        const QJsonArray warned = rowsWith(j, "WARN");
        QVERIFY(!warned.isEmpty()); // the matrix kernels' float16 operands
        for (const auto &v : warned) {
            QCOMPARE(v.toObject()["op_type"].toString(), QString("MUL_MAT"));
            QVERIFY(v.toObject()["fail_reason"].toString().contains("float16 operand rounding"));
        }
        // Scale one MUL_MAT output of round 0 by 1.001.
        QString target, targetId;
        for (const auto &v : j["rows"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["op_type"].toString() == "MUL_MAT" && o["round"].toInt() == 0 &&
                o["op_id"].toString().startsWith("2_")) {
                target = o["tensor_path"].toString();
                targetId = o["op_id"].toString();
                break;
            }
        }
        QVERIFY(!target.isEmpty());
        testing::scaleTensorFile(target.toStdString(), 1.001f);
        const QString out2 = m_dir.path() + "/vk-scaled";
        r = llmscopeRun({"opcheck", "-i", root, "-o", out2});
        QCOMPARE(r.code, 1);
        j = report(out2);
        const QJsonArray failed = rowsWith(j, "FAIL");
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed[0].toObject()["op_id"].toString(), targetId);
        QCOMPARE(failed[0].toObject()["round"].toInt(), 0);
        QVERIFY2(failed[0].toObject()["fail_reason"].toString().contains("systematic error"),
                 qPrintable(failed[0].toObject()["fail_reason"].toString()));
        QVERIFY(failed[0].toObject()["fail_reason"].toString().contains("ggml's CPU kernel on the same inputs"));
        QVERIFY(failed[0].toObject()["cpu_replay_error_over_bound"].toDouble() < 1);
        QVERIFY2(r.err.contains("FAIL        round 0 " + targetId + " MUL_MAT"), qPrintable(r.err));
    }

    // A device that rounds its RMS_NORM outputs through float16: that op fails in every round,
    // nothing else does, and its inputs are what a correct run gives it.
    void anImpreciseKernelIsNamed()
    {
        const QString clean = dump("sim", kBin + "/llmscope-two-backend-target 2", {"-er", "0,1"});
        const QString bad =
            dump("sim-bad", kBin + "/llmscope-two-backend-target 2 --imprecise RMS_NORM", {"-er", "0,1"});
        QVERIFY(!clean.isEmpty() && !bad.isEmpty());
        auto r = llmscopeRun({"opcheck", "-i", clean, "-o", m_dir.path() + "/sim-check"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(report(m_dir.path() + "/sim-check")["summary"].toObject()["pass"].toInt(), 10);
        r = llmscopeRun({"opcheck", "-i", bad, "-o", m_dir.path() + "/sim-bad-check"});
        QCOMPARE(r.code, 1);
        const QJsonObject j = report(m_dir.path() + "/sim-bad-check");
        const QJsonArray failed = rowsWith(j, "FAIL");
        QCOMPARE(failed.size(), 2); // rounds 0 and 1
        for (const auto &v : failed) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o["op_type"].toString(), QString("RMS_NORM"));
            // its input as the correct run had it: the same place under the clean run's process
            const QString in =
                QString(o["tensor_path"].toString()).replace("/after/outtensor0.bin", "/before/intensor0.bin");
            const QString place = in.mid(in.indexOf("/tensors/") + 9).section('/', 1);
            const QString cleanPid = QDir(clean + "/tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).front();
            const QString cleanIn = clean + "/tensors/" + cleanPid + "/" + place;
            QVERIFY2(QFile::exists(cleanIn), qPrintable(cleanIn));
            QCOMPARE(readBin(in.toStdString()).data, readBin(cleanIn.toStdString()).data);
        }
        QCOMPARE(j["summary"].toObject()["pass"].toInt(), 8);
    }

    // The hunt's last step replays its culprit on the test's own inputs: a kernel that rounds
    // through bfloat16 (beyond ggml's budget) is found and called wrong; an op whose weight was
    // corrupted is found, its kernel within its bound, the weight named.
    void theHuntReplaysItsCulprit()
    {
        auto r = llmscopeRun({"hunt", "--golden", kBin + "/llmscope-two-backend-target 2", "--test",
                              kBin + "/llmscope-two-backend-target 2 --imprecise RMS_NORM bf16", "-o",
                              m_dir.path() + "/hunt-kernel"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 1_0 norm-0 \(RMS_NORM\) in )"), qPrintable(r.err));
        QVERIFY2(r.err.contains("replay: on the inputs it was given, the test's kernel is wrong"), qPrintable(r.err));
        QVERIFY(
            engine::makeModel(kBin, {"--family", m_dir.path() + "/family", "--layers", "2", "--corrupt-layer", "1"}));
        const QString gen = kBin + "/llmscope-sample-generate -n 2 -m " + m_dir.path() + "/family/";
        r = llmscopeRun({"hunt", "--golden", gen + "model-f32.gguf", "--test", gen + "model-corrupt.gguf", "-o",
                         m_dir.path() + "/hunt-weight"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(engine::concludes(r.err, R"(found: round 0, op 2_\d+ ffn_out-1 \(MUL_MAT\) in 2_DecoderLayer/)"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("the test's kernel is within its bound (PASS): its error comes in through the weight "
                                "blk.1.ffn_down.weight"),
                 qPrintable(r.err));
    }

    // Weights in Q4_0, Q8_0, Q4_K, MXFP4, F16 and BF16: on Vulkan each is dumped as stored and
    // every op that runs a kernel is replayed and passes (the matrix products on the dequantized
    // weights, and on ggml's CPU on the raw blocks); on the CPU, weights held in ggml's repacked
    // layout (or AMX's) are read from the model file, and every op is covered.
    void weightTypes_data()
    {
        QTest::addColumn<QString>("type");
        for (const char *t : {"q4_0", "q8_0", "q4_k_m", "mxfp4", "f16", "bf16"})
            QTest::newRow(t) << t;
    }
    void weightTypes()
    {
        QFETCH(QString, type);
        const QString model = m_dir.path() + "/w-" + type + ".gguf";
        QVERIFY(engine::makeModel(kBin, {"--quantize", type, "--in", m_model, "--out", model}));
        qputenv("GGML_VK_VISIBLE_DEVICES", "0");
        const QString gen = kBin + "/llmscope-sample-generate -m " + model + " -n 2 --device ";
        const QString vk = dump("w-vk-" + type, gen + "vulkan", {"--kv-cache", "-er", "0,0"});
        QVERIFY(!vk.isEmpty());
        auto r = llmscopeRun({"opcheck", "-i", vk, "-o", m_dir.path() + "/w-vk-check-" + type});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = report(m_dir.path() + "/w-vk-check-" + type);
        QCOMPARE(j["summary"].toObject()["coverage_percent"].toDouble(), 100.0);
        QCOMPARE(j["summary"].toObject()["fail"].toInt(), 0);
        int products = 0;
        for (const auto &v : j["rows"].toArray())
            if (v.toObject()["op_type"].toString() == "MUL_MAT")
                products += !v.toObject()["cpu_replay_error_over_bound"].isNull();
        QVERIFY(products >= 14);
        if (type == "f16" || type == "bf16")
            return;
        // On the CPU the probe cannot read the repacked weights: they are read from the model
        // file the program loaded, for the float64 reference and, as the file stores them, for
        // ggml's CPU kernel (a second opinion on every product); with the file gone, those
        // products are skipped, saying why.
        const QString cpu = dump("w-cpu-" + type, gen + "cpu", {"--kv-cache", "-er", "0,0"});
        r = llmscopeRun({"opcheck", "-i", cpu, "-o", m_dir.path() + "/w-cpu-check-" + type});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject c = report(m_dir.path() + "/w-cpu-check-" + type);
        QCOMPARE(c["summary"].toObject()["coverage_percent"].toDouble(), 100.0);
        QCOMPARE(c["summary"].toObject()["skip"].toInt(), 0);
        int fromModel = 0, cpuProducts = 0;
        for (const auto &v : c["rows"].toArray()) {
            const QJsonObject row = v.toObject();
            if (row["op_type"].toString() != "MUL_MAT")
                continue;
            ++cpuProducts;
            fromModel += !row["weights_from_model"].toString().isEmpty();
            QVERIFY2(row["cpu_replay_error_over_bound"].isDouble(), qPrintable(row["cpu_replay_not_run"].toString()));
            QVERIFY(row["cpu_replay_error_over_bound"].toDouble() < 1);
        }
        QVERIFY(cpuProducts >= 14);
        // x86 repacks q4_0 and q4_K weights on any machine of this kind (AVX2 and up; mxfp4 with
        // AVX-512, q8_0 where AMX takes it): a layer's products at least come from the model file
        if (type != "q4_0" && type != "q4_k_m")
            return;
        QVERIFY2(fromModel >= 7, qPrintable(QString::number(fromModel)));
        QVERIFY(QFile::rename(model, model + ".away"));
        r = llmscopeRun({"opcheck", "-i", cpu, "-o", m_dir.path() + "/w-cpu-check-away-" + type});
        QVERIFY(QFile::rename(model + ".away", model));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("a weight in ggml's repacked CPU layout"), qPrintable(r.err));
    }

    // Quantized products on ggml's CPU kernel are held to what it computes: the activations
    // quantized to the weight type's dot type (q8_1 for q4_1, q8_K for the K-quants) exactly as
    // ggml's reference quantizer does, the integer dots exact. A correct kernel's products of
    // dense layers (MUL_MAT) and of experts (MUL_MAT_ID) all pass, by that reference (the
    // zoo's faults fail it: tst_kernelzoo).
    void quantizedProductsAreHeldToTheCpuKernel_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("dotType");
        QTest::newRow("q4_1") << "llama"
                              << "q4_1"
                              << "mul_mat"
                              << "q8_1";
        QTest::newRow("q4_k_m") << "llama"
                                << "q4_k_m"
                                << "mul_mat"
                                << "q8_K";
        QTest::newRow("q6_k") << "llama"
                              << "q6_k"
                              << "mul_mat"
                              << "q8_K";
        QTest::newRow("experts q8_0") << "qwen3moe"
                                      << "q8_0"
                                      << "mul_mat_id"
                                      << "q8_0";
        QTest::newRow("experts q4_k_m") << "qwen3moe"
                                        << "q4_k_m"
                                        << "mul_mat_id"
                                        << "q8_K";
    }
    void quantizedProductsAreHeldToTheCpuKernel()
    {
        QFETCH(QString, arch);
        QFETCH(QString, type);
        QFETCH(QString, op);
        QFETCH(QString, dotType);
        const QString model = quantizedModel(arch, type);
        QVERIFY(!model.isEmpty());
        // --no-repack: ggml's plain CPU kernels, on every machine (not AMX's or the repacked layouts)
        const QString out = m_dir.path() + "/kq-" + arch + "-" + type;
        auto r = llmscopeRun({"dump", "--exec", kBin + "/llmscope-sample-generate -m " + model + " -n 2 --no-repack",
                              "--type", "model", "tensor", "kernel", "-er", "0,0", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString checks = m_dir.path() + "/kq-check-" + arch + "-" + type;
        r = llmscopeRun({"opcheck", "-i", onlyDump(out), "-opname", op, "-o", checks});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        int held = 0;
        for (const auto &v : report(checks)["rows"].toArray()) {
            const QJsonObject row = v.toObject();
            QVERIFY2(row["precision_result"].toString() == "PASS", qPrintable(row["fail_reason"].toString()));
            held += row["precision_standard"].toString().contains("activations quantized to " + dotType);
        }
        QVERIFY2(held >= 2, qPrintable(QString("%1 products held to the %2 reference").arg(held).arg(dotType)));
    }

    // --weights-in-model: the products' weights described, not written (the hunt's and the
    // quantization report's replay of a large model's products), and read back from the model
    // file the program loaded: every product replayed and within its bound, the dump a fraction
    // of one with the weights; with the file gone, each product skipped, saying why.
    void weightsLeftToTheModelFile_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("op");
        QTest::newRow("q4_1") << "llama"
                              << "q4_1"
                              << "mul_mat";
        QTest::newRow("experts q8_0") << "qwen3moe"
                                      << "q8_0"
                                      << "mul_mat_id";
    }
    void weightsLeftToTheModelFile()
    {
        QFETCH(QString, arch);
        QFETCH(QString, type);
        QFETCH(QString, op);
        const QString model = quantizedModel(arch, type);
        QVERIFY(!model.isEmpty());
        const QString program = kBin + "/llmscope-sample-generate -m " + model + " -n 2 --no-repack";
        auto bytes = [](const QString &dir) {
            qint64 n = 0;
            QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                n += it.fileInfo().isSymLink() ? 0 : it.fileInfo().size();
            }
            return n;
        };
        auto dumped = [&](const QString &name, const QStringList &more) {
            const QString out = m_dir.path() + "/" + name;
            const auto d = llmscopeRun(QStringList{"dump", "--exec", program, "--type", "tensor", "kernel", "-tiling",
                                                   "-opname", op, "-er", "0,0", "-o", out} +
                                       more);
            if (d.code != 0)
                qWarning("%s", qPrintable(d.err));
            return d.code == 0 ? onlyDump(out) : QString();
        };
        const QString with = dumped("wm-with-" + arch, {}), left = dumped("wm-left-" + arch, {"--weights-in-model"});
        QVERIFY(!with.isEmpty() && !left.isEmpty());
        QVERIFY2(bytes(left) * 2 < bytes(with),
                 qPrintable(QString("%1 against %2 bytes").arg(bytes(left)).arg(bytes(with))));
        int described = 0;
        QDirIterator it(left, {"intensor0.bin"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const BinFileInfo f = readBinFile(it.next().toStdString());
            described += f.tensor.attr("llmscope_skipped").value_or("") == "in_model_file" && f.tensor.data.empty();
        }
        QVERIFY2(described >= 2, qPrintable(QString::number(described)));
        const QString checks = m_dir.path() + "/wm-check-" + arch;
        auto r = llmscopeRun({"opcheck", "-i", left, "-opname", op, "-o", checks});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        int fromModel = 0, rows = 0;
        for (const auto &v : report(checks)["rows"].toArray()) {
            const QJsonObject row = v.toObject();
            ++rows;
            QVERIFY2(row["precision_result"].toString() == "PASS", qPrintable(row["fail_reason"].toString()));
            QVERIFY2(row["precision_standard"].toString().contains("activations quantized to q8_"),
                     qPrintable(row["precision_standard"].toString())); // ggml's CPU kernel's own reference
            fromModel += !row["weights_from_model"].toString().isEmpty();
        }
        QVERIFY2(rows >= 2 && fromModel == rows, qPrintable(QString("%1 of %2").arg(fromModel).arg(rows)));
        QVERIFY(QFile::rename(model, model + ".away"));
        r = llmscopeRun({"opcheck", "-i", left, "-opname", op, "-o", checks + "-away"});
        QVERIFY(QFile::rename(model + ".away", model));
        QVERIFY2(r.err.contains("--weights-in-model"), qPrintable(r.err));
    }

    // What opcheck cannot do is refused with its reason, and exits 2.
    void refusals()
    {
        auto r = llmscopeRun({"opcheck", "-i", m_dir.path(), "-c", "ops.csv"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("op_param.json"));
        r = llmscopeRun({"opcheck"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("-i is required"));
        r = llmscopeRun({"opcheck", "-i", m_dir.path() + "/nothing"});
        QCOMPARE(r.code, 2);
        r = llmscopeRun({"opcheck", "-i", m_dir.path(), "--standard", "ulp"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("'ulp' is not one of bounds, msit"));
        r = llmscopeRun({"opcheck", "-i", m_dir.path(), "-metric", "ulp"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("'ulp' is not one of abs, cos_sim, kl"));
    }
};

QTEST_GUILESS_MAIN(TstOpcheckRuns)
#include "tst_opcheckruns.moc"
