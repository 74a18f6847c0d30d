// `llmscope dump --exec` on real llama.cpp runs of both sample targets: msit's layout read
// back by the index, tensors recomputed from their dumped inputs, the end summary, refusals,
// a target stopped mid-dump, and the dynamic config changing a running target.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstring>
#include <filesystem>

#include <cmath>
#include <map>
#include <set>

#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/dump/op_info_csv.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/dump/token_record.h"
#include "core/dump/topology.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/text.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

struct Run {
    int code = -1;
    QString out, err;
};

Run runLlmscope(const QStringList &args, QProcessEnvironment env = QProcessEnvironment::systemEnvironment(),
                int timeoutMs = 180000, const QString &workingDirectory = {})
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(workingDirectory);
    p.start(kBin + "/llmscope", args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The tokens the sample target generates from model without the probe (" 65 65 ...").
QString tokensWithoutProbe(const QString &model, int n)
{
    QProcess p;
    p.start(kBin + "/llmscope-sample-generate", QStringList{"-m", model, "-n", QString::number(n)});
    p.waitForFinished(60000);
    return QString::fromUtf8(p.readAllStandardOutput()).section("\ntokens:", 1, 1).section('\n', 0, 0);
}

QString onlyDump(const QString &out)
{
    const QStringList d = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
    return d.size() == 1 ? out + "/" + d[0] : QString();
}

// Every ADD node's output equals the sum of its two dumped inputs (before or after execution),
// exactly (fp32 addition).
int checkAdds(const DumpIndex &idx)
{
    std::map<std::string, std::vector<const TensorRecord *>> byOp;
    for (const auto &t : idx.tensors)
        if (t.opName == "ADD")
            byOp[std::to_string(t.exec) + "/" + t.opId].push_back(&t);
    int checked = 0;
    for (const auto &[op, recs] : byOp) {
        const TensorRecord *in0 = nullptr, *in1 = nullptr, *out = nullptr;
        for (const auto *r : recs) {
            if (r->before && !r->input)
                continue; // an output before execution holds nothing yet
            if (r->input && r->index == 0)
                in0 = r;
            if (r->input && r->index == 1)
                in1 = r;
            if (!r->input && r->index == 0)
                out = r;
        }
        if (!in0 || !in1 || !out || !in0->hasData)
            continue;
        const auto a = toFloat(readBin(in0->path)), b = toFloat(readBin(in1->path)), c = toFloat(readBin(out->path));
        if (a.size() != c.size() || b.size() != c.size())
            return -1;
        for (size_t i = 0; i < c.size(); ++i)
            if (float(a[i] + b[i]) != c[i])
                return -1;
        ++checked;
    }
    return checked;
}
} // namespace

class TstDumpCommand : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

    QString gen(const QString &extra = {}) const
    {
        return kBin + "/llmscope-sample-generate -m " + m_model + " -n 3 " + extra;
    }

    // The prompt's tokens, as the probe recorded round 0's.
    static int64_t promptTokens(const DumpIndex &idx)
    {
        const auto rounds = readTokenRecords(idx.root);
        const auto r0 = rounds.find(0);
        return r0 == rounds.end() ? -1 : int64_t(r0->second.tokens.size());
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    void nativeTargetDumpsMsitLayout()
    {
        const QString out = m_dir.path() + "/native";
        const Run r = runLlmscope(
            {"dump", "--exec", gen(), "--type", "model", "tensor", "stats", "-o", out, "-ids", "1", "-er", "0,1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString root = onlyDump(out);
        QVERIFY(!root.isEmpty());
        QVERIFY2(r.err.contains("dump:        " + root), qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     QRegularExpression("2 dumped \\(0-1; read 2 inline, 0 after the whole graph, 0 node by node\\); "
                                        "\\d+ operations seen, \\d+ selected")),
                 qPrintable(r.err));
        QVERIFY(r.out.contains("tokens:")); // the target's own output passes through
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY(idx.problems.empty());
        QCOMPARE(idx.layout, std::string("msit"));
        QCOMPARE(idx.modelFiles.size(), size_t(1));
        QVERIFY(idx.layerFiles.size() >= 4); // embedding, 2 layers, output head
        QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1}));
        int withStats = 0, described = 0, cacheWrites = 0;
        for (const auto &t : idx.tensors) {
            QVERIFY2(t.opId.rfind("1_", 0) == 0, t.opId.c_str());
            // msit's `tensor stats`: statistics only, never a payload
            QVERIFY2(!t.hasData && t.dataBytes == 0, t.path.c_str());
            // a header: msit's four statistics and the sketch's 345 characters
            QVERIFY(QFileInfo(QString::fromStdString(t.path)).size() < 800);
            if (!t.stats) { // the KV cache attention reads and the writes write into: described only
                QVERIFY2(t.input &&
                             (t.opName == "FLASH_ATTN_EXT" ? t.index == 1 || t.index == 2
                                                           : t.opName == "SET_ROWS" && t.index == 2),
                         t.path.c_str());
                ++described;
                continue;
            }
            // what a write into the cache put there: its rows alone, in the cells of their
            // positions (the prompt's tokens from cell 0, then the decoded token after them)
            if (t.opName == "SET_ROWS" && !t.input) {
                QCOMPARE(t.kvRowsType, std::string("f16"));
                QCOMPARE(t.dims.size(), size_t(2));
                const int64_t prompt = promptTokens(idx);
                QCOMPARE(t.dims[0], t.exec == 0 ? prompt : int64_t(1));
                std::string cells;
                for (int64_t c = t.exec == 0 ? 0 : prompt; c < (t.exec == 0 ? prompt : prompt + 1); ++c)
                    cells += (cells.empty() ? "" : ",") + std::to_string(c);
                const Tensor h = readBinFile(t.path, true).tensor;
                QCOMPARE(h.attr("llmscope_kv_cells").value_or(""), cells);
                QCOMPARE(h.attr("llmscope_kv_positions").value_or(""), cells);
                ++cacheWrites;
            }
            ++withStats;
        }
        QVERIFY(withStats > 20);
        QCOMPARE(described, 8); // K and V, two rounds, as attention reads them and as the writes write into them
        QCOMPARE(cacheWrites, 4); // K and V, two rounds
        QVERIFY2(r.err.contains("statistics only, no payloads"), qPrintable(r.err));
        // The summary's count matches the files on disk.
        const auto st = readProbeStatuses(root.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QCOMPARE(st[0].tensors, uint64_t(idx.tensors.size()));
        QVERIFY(st[0].finished);
    }

    // Flash attention off: llama.cpp stores V transposed, one element a row and an index entry
    // for each; such a write is left out as the rest of the cache is (read back element by
    // element it would cost a device read each; --kv-cache dumps it whole), while the keys'
    // write still gives the rows it wrote.
    void aTransposedValueCacheIsLeftOut()
    {
        const QString out = m_dir.path() + "/fa-off";
        const Run r = runLlmscope({"dump", "--exec", gen("--flash-attn off"), "--type", "model", "stats", "-o", out,
                                   "-ids", "1", "-er", "0,0"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const DumpIndex idx = scanDump(onlyDump(out).toStdString());
        int keys = 0, values = 0;
        for (const auto &t : idx.tensors) {
            if (t.opName != "SET_ROWS" || t.input)
                continue;
            const Tensor h = readBinFile(t.path, true).tensor;
            QVERIFY2(h.attr("llmscope_kv_rows") && t.stats && t.dims.size() == 2 && t.dims[1] > 1, t.path.c_str());
            ++keys;
            values += h.attr("llmscope_kv_cells").value_or("").size() > 0 && t.dims[1] == 1;
        }
        QCOMPARE(keys, 1); // the keys' write alone
        QCOMPARE(values, 0);
    }

    // A sequence copied between parallel slots (--seq-copy: sequence 0 to 1 before generated
    // token 2, round 2). With a cache stream for each sequence llama.cpp copies each layer's keys
    // and values into the other stream outside any graph: the status notes each copy, before
    // which round, from which stream to which, and checks it against its source row by row. In
    // one cache the copy only tags cells and nothing is noted. The program's tokens are its own
    // either way (the probe reads after the copy, never in its place).
    void aSequenceCopyIsNotedAndChecked()
    {
        const QString streams = m_dir.path() + "/copy-streams";
        const Run r = runLlmscope(
            {"dump", "--exec", gen("--seq-copy 2:streams"), "--type", "model", "stats", "-o", streams, "-er", "1,1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("copied: sequence 0 to 1 before token 2 (streams)"));
        const auto st = readProbeStatuses(onlyDump(streams).toStdString());
        QCOMPARE(st.size(), size_t(1));
        QCOMPARE(st[0].stateCopies.size(), size_t(4)); // keys and values of 2 layers
        QStringList caches;
        for (const StateCopy &c : st[0].stateCopies) {
            caches << QString::fromStdString(c.cache);
            QCOMPARE(c.beforeRound, int64_t(2)); // noted whether or not round 2 is dumped
            QCOMPARE(c.fromStream, int64_t(0));
            QCOMPARE(c.toStream, int64_t(1));
            QVERIFY(c.checked);
            QCOMPARE(c.rowsDiffering, uint64_t(0));
            QVERIFY(c.rows > 0 && c.bytes % c.rows == 0);
        }
        caches.sort();
        QCOMPARE(caches, (QStringList{"cache_k_l0", "cache_k_l1", "cache_v_l0", "cache_v_l1"}));
        QVERIFY(stateCopiesInto(streams.toStdString(), "cache_v_l1", 2, 2).size() == 1); // an -o folder is looked into
        QVERIFY(stateCopiesInto(streams.toStdString(), "cache_v_l1", 0, 1).empty());
        // the same program unprobed prints the same tokens
        QProcess plain;
        plain.start(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "3", "--seq-copy", "2:streams"});
        QVERIFY(plain.waitForFinished(60000));
        const QString tokens =
            QString::fromUtf8(plain.readAllStandardOutput()).section("tokens:", 1, 1).section('\n', 0, 0);
        QVERIFY(!tokens.isEmpty());
        QCOMPARE(r.out.section("tokens:", 1, 1).section('\n', 0, 0), tokens);

        const QString one = m_dir.path() + "/copy-one-cache";
        const Run u = runLlmscope({"dump", "--exec", gen("--seq-copy 2"), "--type", "model", "stats", "-o", one});
        QVERIFY2(u.code == 0, qPrintable(u.err));
        QVERIFY(u.out.contains("copied: sequence 0 to 1 before token 2 (one cache)"));
        const auto tagged = readProbeStatuses(onlyDump(one).toStdString());
        QCOMPARE(tagged.size(), size_t(1));
        QVERIFY(tagged[0].stateCopies.empty());
    }

    // --type op kernel and -tiling: msit's op and kernel CSVs list every dumped node (its op,
    // decoded parameters, types, shapes, files and the backend that ran it), checked against
    // the topology and the tensor files; op_param.json and the raw op_params beside them.
    void opKernelAndTilingDescribeEachNode()
    {
        const QString out = m_dir.path() + "/opinfo";
        const Run r = runLlmscope({"dump", "--exec", gen(), "--type", "model", "op", "kernel", "tensor", "-tiling",
                                   "-ids", "1", "-er", "0,0", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString root = onlyDump(out);
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY(idx.problems.empty());
        const TopoNode model = readTopologyFile(idx.modelFiles.at(0));
        const TopoNode *layer = model.find("1");
        QVERIFY(layer && layer->children.size() > 20);
        const QString pid = QDir(root + "/operation_io_tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
        auto read = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
        };
        const auto ops = parseOpInfoCsv(read(root + "/operation_io_tensors/" + pid + "/operation_tensors_0.csv"));
        const auto kernels = parseOpInfoCsv(read(root + "/kernel_io_tensors/" + pid + "/kernel_tensors_0.csv"));
        std::map<std::string, const TensorRecord *> outputs; // op id -> its output file
        for (const auto &t : idx.tensors)
            if (!t.input && t.index == 0)
                outputs[t.opId] = &t;
        QCOMPARE(ops.size(), outputs.size()); // a row for every node dumped (layer 0's, but the KV cache's)
        QVERIFY(ops.size() > 20);
        QCOMPARE(kernels.size(), ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const OpInfoRow &o = ops[i];
            const TopoNode *found = model.find(o.fromModel);
            QVERIFY2(found, o.fromModel.c_str());
            const TopoNode &node = *found;
            QCOMPARE(o.fromModel, node.id);
            QCOMPARE(o.caseName, node.name);
            QCOMPARE(o.opName, node.type);
            QCOMPARE(o.testType, std::string("operation"));
            QCOMPARE(o.inDtypes.size(), node.inTensors.size());
            QCOMPARE(o.outFiles.size(), size_t(1));
            QVERIFY2(QFile::exists(QString::fromStdString(o.outFiles[0])), o.outFiles[0].c_str());
            for (const auto &f : o.inFiles)
                QVERIFY2(QFile::exists(QString::fromStdString(f)), f.c_str());
            const TensorRecord *t = outputs.at(o.fromModel); // the shape written is the file's
            std::string dims;
            for (int64_t d : t->dims)
                dims += (dims.empty() ? "" : ",") + std::to_string(d);
            if (t->kvRowsType.empty()) // a write into the KV cache: the op's is the cache's, the file the rows written
                QCOMPARE(o.outShapes.at(0), dims);
            QCOMPARE(kernels[i].socVersion, std::string("CPU"));
            QCOMPARE(kernels[i].testType, std::string("kernel"));
            QCOMPARE(kernels[i].fromModel, o.fromModel);
        }
        // The parameters, decoded: RMS norm's eps and rope's dims, the same in the raw bytes.
        const auto norm = std::find_if(ops.begin(), ops.end(), [](const auto &o) { return o.opName == "RMS_NORM"; });
        const auto rope = std::find_if(ops.begin(), ops.end(), [](const auto &o) { return o.opName == "ROPE"; });
        QVERIFY(norm != ops.end() && rope != ops.end());
        const QJsonObject eps = QJsonDocument::fromJson(QByteArray::fromStdString(norm->opParam)).object();
        QVERIFY(eps["eps"].toDouble() > 0 && eps["eps"].toDouble() < 1e-3);
        QVERIFY(QJsonDocument::fromJson(QByteArray::fromStdString(rope->opParam)).object()["n_dims"].toInt() > 0);
        const QString normFolder = QFileInfo(QString::fromStdString(norm->outFiles[0])).dir().absolutePath() + "/..";
        const QJsonObject param =
            QJsonDocument::fromJson(QByteArray::fromStdString(read(normFolder + "/op_param.json"))).object();
        QCOMPARE(param["id"].toString().toStdString(), norm->fromModel);
        QCOMPARE(param["param"].toObject()["eps"].toDouble(), eps["eps"].toDouble());
        const std::string raw =
            read(root + "/tiling/" + pid + "/0/" + QString::fromStdString(norm->fromModel) + "_RMS_NORM.bin");
        QCOMPARE(raw.size(), size_t(64));
        float rawEps;
        std::memcpy(&rawEps, raw.data(), 4);
        QCOMPARE(rawEps, float(eps["eps"].toDouble())); // %.9g: a float round-trips exactly

        // op alone: the CSV without tensor files.
        const QString infoOnly = m_dir.path() + "/opinfo-only";
        const Run r2 =
            runLlmscope({"dump", "--exec", gen(), "--type", "op", "-ids", "1_3", "-er", "0,0", "-o", infoOnly});
        QVERIFY2(r2.code == 0, qPrintable(r2.err));
        const QString root2 = onlyDump(infoOnly);
        QVERIFY(!QDir(root2 + "/tensors").exists() || scanDump(root2.toStdString()).tensors.empty());
        const auto alone = parseOpInfoCsv(
            read(root2 + "/operation_io_tensors/" +
                 QDir(root2 + "/operation_io_tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0) +
                 "/operation_tensors_0.csv"));
        QCOMPARE(alone.size(), size_t(1));
        QCOMPARE(alone[0].fromModel, std::string("1_3"));
        QVERIFY(alone[0].inFiles.empty() && alone[0].outFiles.empty());
    }

    // cpu_profiling: each selected node's host time per round, the nodes the op info lists,
    // and the program's tokens the same as without the probe (node by node changes nothing).
    void cpuProfilingTimesEachSelectedNode()
    {
        const QString out = m_dir.path() + "/profile";
        const Run r = runLlmscope(
            {"dump", "--exec", gen(), "--type", "op", "cpu_profiling", "-ids", "1", "-er", "0,1", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("\ntokens:" + tokensWithoutProbe(m_model, 3) + "\n"), qPrintable(r.out));
        const QString root = onlyDump(out);
        const QString pid = QDir(root + "/cpu_profiling").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
        for (int round : {0, 1}) {
            QFile prof(root + "/cpu_profiling/" + pid + QString("/operation_statistic_%1.csv").arg(round));
            QVERIFY(prof.open(QIODevice::ReadOnly));
            QStringList lines = QString::fromUtf8(prof.readAll()).split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.takeFirst(), QString("opname,execute_us"));
            std::set<std::string> timed;
            double matmul = 0;
            for (const QString &l : lines) {
                const double us = l.section(',', 1, 1).toDouble();
                QVERIFY2(us >= 0 && us < 1e7, qPrintable(l));
                timed.insert(l.section(',', 0, 0).toStdString());
                if (l.startsWith("MUL_MAT_"))
                    matmul += us;
            }
            QVERIFY(matmul > 0);
            QFile info(root + "/operation_io_tensors/" + pid + QString("/operation_tensors_%1.csv").arg(round));
            QVERIFY(info.open(QIODevice::ReadOnly));
            std::set<std::string> listed;
            for (const auto &row : parseOpInfoCsv(info.readAll().toStdString()))
                listed.insert(row.opName + "_" + row.fromModel);
            QCOMPARE(timed, listed);
        }
        QVERIFY(!QFile::exists(root + "/cpu_profiling/" + pid + "/operation_statistic_2.csv")); // -er 0,1
    }

    // --watch: layer 0's attn_norm output is written over once its last reader has run (ggml's
    // allocator reuses its memory), the graph's last output never is; the tokens stay the same.
    void watchFindsReusedOutputs()
    {
        const QString out = m_dir.path() + "/watch";
        const Run r =
            runLlmscope({"dump", "--exec", gen(), "--type", "model", "--watch", "1_1,3_2", "-er", "0,0", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("\ntokens:" + tokensWithoutProbe(m_model, 3) + "\n"), qPrintable(r.out));
        const QString root = onlyDump(out);
        const QString pid = QDir(root + "/watch").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
        QFile csv(root + "/watch/" + pid + "/watch_0.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QString("watched_op,watched_name,changed_after_op,changed_after_name,changed_after_type"));
        QVERIFY2(lines[1].startsWith("1_1,attn_norm-0,1_"), qPrintable(lines[1])); // written over within layer 0
        QVERIFY(lines[1].section(',', 2, 2).section('_', 1).toInt() > 1); // after it ran
        QCOMPARE(lines[2], QString("3_2,result_output,,,"));
        QVERIFY2(r.err.contains(QRegularExpression("round 0: 1_1 attn_norm-0 changed after 1_\\d+ ")),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(root + "/watch/" + pid + "/watch_1.csv")); // -er 0,0
    }

    // --nan-inf-only on a model with an Inf in layer 1's ffn_down weight: exactly the ops whose
    // outputs hold NaN or Inf (checked against a statistics dump of every op), from that
    // weight's first use on, with their inputs; the summary names ffn_out-1 first.
    void nanInfOnlyDumpsFromTheInfOn()
    {
        const QString model = m_dir.path() + "/inf.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", model, "--layers", "2", "--corrupt-layer", "1", "--corrupt-inf"}));
        const QString cmd = kBin + "/llmscope-sample-generate -m " + model + " -n 2";
        const Run all = runLlmscope(
            {"dump", "--exec", cmd, "--type", "model", "stats", "-er", "0,0", "-o", m_dir.path() + "/inf-all"});
        QVERIFY2(all.code == 0, qPrintable(all.err));
        std::set<std::string> nonFinite; // op ids whose output's statistics are not finite
        for (const auto &t : scanDump(onlyDump(m_dir.path() + "/inf-all").toStdString()).tensors)
            if (!t.input && !t.before && t.stats && !std::isfinite(t.stats->mean))
                nonFinite.insert(t.opId);
        QVERIFY(nonFinite.size() >= 3);
        const QString out = m_dir.path() + "/inf-only";
        const Run r = runLlmscope(
            {"dump", "--exec", cmd, "--type", "model", "tensor", "--nan-inf-only", "-er", "0,0", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression("NaN/Inf: +1 dumped round\\(s\\) had an output with NaN or Inf")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QRegularExpression("round 0: \\d+_\\d+ ffn_out-1 \\(MUL_MAT\\)")), qPrintable(r.err));
        std::set<std::string> dumped;
        bool weightInput = false;
        for (const auto &t : scanDump(onlyDump(out).toStdString()).tensors) {
            dumped.insert(t.opId);
            if (t.input && t.hasData) { // the Inf weight comes with ffn_out-1's inputs
                const auto v = toFloat(readBin(t.path));
                weightInput |= std::any_of(v.begin(), v.end(), [](float x) { return std::isinf(x); });
            }
        }
        QCOMPARE(dumped, nonFinite);
        QVERIFY(weightInput);
    }

    // -symlink: the weight an op reads every round is written once and linked after; links read
    // back as the file they point to, the dump compares equal to one written without links,
    // and a link that leads outside the dump is reported, not read.
    void symlinkLinksIdenticalTensors()
    {
        const QString linkedOut = m_dir.path() + "/symlink", plainOut = m_dir.path() + "/nosymlink";
        const QStringList common{"dump", "--exec", gen(), "--type", "tensor", "-ids", "2_29", "-er", "0,2"};
        const Run r = runLlmscope(common + QStringList{"-symlink", "-o", linkedOut});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Run plain = runLlmscope(common + QStringList{"-o", plainOut});
        QVERIFY2(plain.code == 0, qPrintable(plain.err));
        const QString root = onlyDump(linkedOut);
        QVERIFY2(r.err.contains(QRegularExpression("linked: +2 of the tensors")), qPrintable(r.err));
        int links = 0;
        const QString realRoot = QFileInfo(root).canonicalFilePath();
        for (const auto &t : scanDump(root.toStdString()).tensors) {
            const QFileInfo f(QString::fromStdString(t.path));
            if (!f.isSymLink())
                continue;
            ++links;
            QVERIFY2(f.canonicalFilePath().startsWith(realRoot + "/"), qPrintable(f.filePath()));
            QVERIFY(std::filesystem::read_symlink(t.path).is_relative()); // the dump can move
            QVERIFY(readBin(t.path).data == readBin(f.canonicalFilePath().toStdString()).data);
        }
        QCOMPARE(links, 2); // rounds 1 and 2's weight input
        std::string why; // the writer's index lists the links as the walk finds them
        QVERIFY2(testing::indexedScanMatchesWalk(root.toStdString(), why), why.c_str());
        QCOMPARE(readProbeStatuses(root.toStdString()).at(0).linked, uint64_t(2));
        CompareOptions o; // read through the links, the same numbers as the plain dump
        o.goldenPath = onlyDump(plainOut).toStdString();
        o.myPath = root.toStdString();
        const CompareResult res = runCompare(o);
        QCOMPARE(res.rows.size(), scanDump(o.goldenPath).tensors.size());
        QVERIFY(res.allPassed());
        // A hostile link to a file outside the dump, named as a tensor: reported, not read.
        const DumpIndex before = scanDump(root.toStdString());
        const QString outside = m_dir.path() + "/outside.bin";
        QVERIFY(QFile::copy(QString::fromStdString(before.tensors.front().path), outside));
        const QString hostile =
            QFileInfo(QString::fromStdString(before.tensors.front().path)).dir().filePath("intensor7.bin");
        QVERIFY(QFile::link(outside, hostile));
        const DumpIndex after = scanDump(root.toStdString());
        QCOMPARE(after.tensors.size(), before.tensors.size());
        QVERIFY(std::any_of(after.problems.begin(), after.problems.end(), [](const DumpProblem &p) {
            return p.message.find("leads outside the dump") != std::string::npos;
        }));
    }

    // --type onnx: the model and each layer as ONNX files (no weights) that onnx's own checker
    // (Debian's python3-onnx) accepts, with one node per ggml node of the topology.
    void onnxFilesPassOnnxsChecker()
    {
        const QString out = m_dir.path() + "/onnx";
        const Run r = runLlmscope({"dump", "--exec", gen(), "--type", "model", "onnx", "-er", "0,0", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString root = onlyDump(out);
        QVERIFY2(r.err.contains(QRegularExpression("onnx: +\\d+ file\\(s\\)")), qPrintable(r.err));
        const DumpIndex idx = scanDump(root.toStdString());
        const TopoNode model = readTopologyFile(idx.modelFiles.at(0));
        size_t nodes = 0;
        for (const auto &g : model.children)
            nodes += g.children.size();
        QProcess check; // prints "file nodes" for each file it accepts; fails on the first it does not
        check.start("/usr/bin/python3",
                    {"-c",
                     "import glob, onnx, sys\n"
                     "for f in sorted(glob.glob(sys.argv[1] + '/onnx/*/*.onnx')):\n"
                     "    m = onnx.load(f)\n"
                     "    onnx.checker.check_model(m)\n"
                     "    print(f.rsplit('/', 1)[1], len(m.graph.node))\n",
                     root});
        QVERIFY(check.waitForFinished(60000));
        const QString printed = QString::fromUtf8(check.readAllStandardOutput());
        QVERIFY2(check.exitCode() == 0, qPrintable(QString::fromUtf8(check.readAllStandardError())));
        QVERIFY2(printed.contains(QString("GgmlGraph.onnx %1\n").arg(nodes)), qPrintable(printed));
        QVERIFY2(printed.contains(QString("Layer1.onnx %1\n").arg(model.find("2")->children.size())),
                 qPrintable(printed));
        QCOMPARE(printed.count(".onnx"), int(idx.modelFiles.size() + idx.layerFiles.size()));
    }

    // Every dump records each round's tokens; --follow-tokens makes a heavily corrupted model,
    // whose own tokens differ from golden's, consume golden's round by round: its recorded
    // inputs equal golden's and every round pairs in compare. A golden dump without records
    // is refused, and a round of another token count stops the following, saying so.
    void followTokensKeepsRoundsComparable()
    {
        const QString golden = m_dir.path() + "/follow-g.gguf", broken = m_dir.path() + "/follow-c.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", golden, "--layers", "2"}));
        QVERIFY(engine::makeModel(
            kBin, {"--out", broken, "--layers", "2", "--corrupt-layer", "1", "--corrupt-amount", "20"}));
        QVERIFY2(tokensWithoutProbe(golden, 6) != tokensWithoutProbe(broken, 6),
                 "the corrupted model must choose other tokens");
        const QString gOut = m_dir.path() + "/follow-golden";
        QCOMPARE(runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-generate -m " + golden + " -n 6", "--type",
                              "model", "stats", "-er", "0,5", "-o", gOut})
                     .code,
                 0);
        const QString tOut = m_dir.path() + "/follow-test";
        const Run r = runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-generate -m " + broken + " -n 6",
                                   "--type", "model", "stats", "-er", "0,5", "--follow-tokens", gOut, "-o", tOut});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("token inputs were golden's") && r.err.contains("in 6 round(s)"), qPrintable(r.err));
        const auto g = readTokenRecords(gOut.toStdString()), t = readTokenRecords(tOut.toStdString());
        QCOMPARE(g.size(), size_t(6));
        QCOMPARE(t.size(), size_t(6));
        int replaced = 0;
        for (const auto &[round, rec] : t) {
            QCOMPARE(rec.tokens, g.at(round).tokens);
            replaced += rec.replaced;
        }
        QVERIFY(replaced >= 1); // the program would have fed its own other tokens
        CompareOptions o;
        o.goldenPath = onlyDump(gOut).toStdString();
        o.myPath = onlyDump(tOut).toStdString();
        const CompareResult res = runCompare(o);
        std::set<int64_t> rounds;
        for (const auto &row : res.rows)
            rounds.insert(row.golden.exec);
        QCOMPARE(rounds, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
        QVERIFY(res.onlyGolden.empty() && res.onlyMy.empty());

        const Run none =
            runLlmscope({"dump", "--exec", gen(), "--follow-tokens", m_dir.path(), "-o", m_dir.path() + "/x"});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("records no tokens"), qPrintable(none.err));
        const Run other =
            runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-generate -m " + broken + " -n 3 -p other", "--type",
                         "stats", "--follow-tokens", gOut, "-o", m_dir.path() + "/follow-other"});
        QCOMPARE(other.code, 0);
        QVERIFY2(other.err.contains("round 0 takes") && other.err.contains("later rounds are not comparable"),
                 qPrintable(other.err));
        QVERIFY2(other.err.contains("in 0 round(s)"), qPrintable(other.err));
    }

    // llmscope's extension: the payload kept, its statistics in the same file.
    void statsWithDataKeepsPayloads()
    {
        const QString out = m_dir.path() + "/withdata";
        const Run r = runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "stats", "--stats-with-data", "-o", out,
                                   "-ids", "1", "-er", "0,1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const DumpIndex idx = scanDump(onlyDump(out).toStdString());
        QVERIFY(idx.problems.empty());
        int withStats = 0;
        for (const auto &t : idx.tensors) {
            if (!t.hasData)
                continue; // KV-cache views
            QVERIFY2(t.stats, t.path.c_str());
            const auto want = computeStats(readBin(t.path));
            QCOMPARE(formatStat(t.stats->l2norm), formatStat(want->l2norm));
            ++withStats;
        }
        QVERIFY(withStats > 20);
        QVERIFY(checkAdds(idx) >= 4); // ffn_inp-0 and l_out-0, two rounds
    }

    void nodeTargetDumpsMsitLayout()
    {
        const QString out = m_dir.path() + "/node";
        const Run r = runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-node -m " + m_model + " -n 3", "--type",
                                   "model", "tensor", "-o", out, "-ids", "1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const DumpIndex idx = scanDump(onlyDump(out).toStdString());
        QVERIFY(idx.problems.empty());
        QCOMPARE(idx.modelFiles.size(), size_t(1));
        QVERIFY(idx.tensors.size() > 20);
        QVERIFY(checkAdds(idx) >= 2);
        // The Node target too: op and kernel rows for the dumped nodes, -tiling's parameters,
        // and the tokens each round consumed.
        const QString info = m_dir.path() + "/node-info";
        const Run ri = runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-node -m " + m_model + " -n 3", "--type",
                                    "op", "kernel", "tensor", "-tiling", "-ids", "1_0", "-er", "0,1", "-o", info});
        QVERIFY2(ri.code == 0, qPrintable(ri.err));
        const QString root = onlyDump(info);
        const QString pid = QDir(root + "/kernel_io_tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
        for (int round : {0, 1}) {
            QFile csv(root + "/kernel_io_tensors/" + pid + QString("/kernel_tensors_%1.csv").arg(round));
            QVERIFY(csv.open(QIODevice::ReadOnly));
            const auto rows = parseOpInfoCsv(csv.readAll().toStdString());
            QCOMPARE(rows.size(), size_t(1));
            QCOMPARE(rows[0].opName, std::string("RMS_NORM"));
            QCOMPARE(rows[0].socVersion, std::string("CPU"));
            QVERIFY(QJsonDocument::fromJson(QByteArray::fromStdString(rows[0].opParam)).object()["eps"].toDouble() > 0);
        }
        // cpu_profiling, --watch and onnx on the Node target: the same folders as natively.
        const QString more = m_dir.path() + "/node-more";
        const Run rm =
            runLlmscope({"dump", "--exec", kBin + "/llmscope-sample-node -m " + m_model + " -n 3", "--type", "model",
                         "cpu_profiling", "onnx", "--watch", "1_1", "-ids", "1", "-er", "0,0", "-o", more});
        QVERIFY2(rm.code == 0, qPrintable(rm.err));
        const QString mroot = onlyDump(more);
        QCOMPARE(QDir(mroot + "/cpu_profiling").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 1);
        QVERIFY2(rm.err.contains(QRegularExpression("round 0: 1_1 attn_norm-0 changed after 1_\\d+ ")),
                 qPrintable(rm.err));
        QVERIFY2(rm.err.contains(QRegularExpression("onnx: +[1-9]\\d* file")), qPrintable(rm.err));
        const auto tokens = readTokenRecords(root.toStdString());
        QVERIFY(tokens.size() >= 3);
        QVERIFY(tokens.at(0).tokens.size() > 1); // the prompt
        QCOMPARE(tokens.at(1).tokens.size(), size_t(1));
    }

    // With --read graph, rounds whose graph was allocated for them are read after the whole
    // graph has run (the wanted tensors kept as graph outputs); rounds on a graph the host
    // reuses from an unselected round, "before" outputs, and every round with --read node, are
    // read node by node. By default every round of the one-thread target is read inline, as
    // ggml's CPU backend computes each node, "before" outputs too. Every way gives the same
    // files.
    void wholeGraphAndNodeByNodeReadTheSame()
    {
        const QString whole = m_dir.path() + "/whole", nodes = m_dir.path() + "/nodes", both = m_dir.path() + "/both",
                      byNode = m_dir.path() + "/bynode", inl = m_dir.path() + "/inline",
                      inlBoth = m_dir.path() + "/inline-both";
        QCOMPARE(runLlmscope(
                     {"dump", "--exec", gen("-n 5"), "--type", "tensor", "-o", whole, "-er", "0,3", "--read", "graph"})
                     .code,
                 0);
        QCOMPARE(runLlmscope(
                     {"dump", "--exec", gen("-n 5"), "--type", "tensor", "-o", nodes, "-er", "2,3", "--read", "graph"})
                     .code,
                 0);
        QCOMPARE(runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "-o", both, "-er", "0,0", "-time", "2",
                              "--read", "graph"})
                     .code,
                 0);
        QCOMPARE(runLlmscope(
                     {"dump", "--exec", gen("-n 5"), "--type", "tensor", "-o", byNode, "-er", "0,3", "--read", "node"})
                     .code,
                 0);
        QCOMPARE(runLlmscope({"dump", "--exec", gen("-n 5"), "--type", "tensor", "-o", inl, "-er", "0,3"}).code, 0);
        QCOMPARE(
            runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "-o", inlBoth, "-er", "0,0", "-time", "2"}).code,
            0);
        const QString w = onlyDump(whole), n = onlyDump(nodes), b = onlyDump(both), a = onlyDump(byNode),
                      l = onlyDump(inl), lb = onlyDump(inlBoth);
        auto status = [](const QString &root) { return readProbeStatuses(root.toStdString()).at(0); };
        QCOMPARE(status(w).roundsDumped, uint64_t(4));
        QCOMPARE(status(w).roundsWholeGraph, uint64_t(4));
        QCOMPARE(status(n).roundsDumped, uint64_t(2));
        QCOMPARE(status(n).roundsWholeGraph, uint64_t(0)); // decode graph allocated in round 1, unselected
        QCOMPARE(status(b).roundsWholeGraph, uint64_t(0)); // outputs before execution
        QCOMPARE(status(a).roundsDumped, uint64_t(4));
        QCOMPARE(status(a).roundsWholeGraph, uint64_t(0)); // --read node
        QCOMPARE(status(a).roundsInline, uint64_t(0));
        QCOMPARE(status(l).roundsDumped, uint64_t(4));
        QCOMPARE(status(l).roundsInline, uint64_t(4));
        QCOMPARE(status(lb).roundsInline, uint64_t(1));
        QVERIFY(status(l).warnings.empty() && status(lb).warnings.empty());
        const DumpIndex wi = scanDump(w.toStdString()), ni = scanDump(n.toStdString()), bi = scanDump(b.toStdString()),
                        ai = scanDump(a.toStdString()), li = scanDump(l.toStdString()),
                        lbi = scanDump(lb.toStdString());
        auto key = [](const TensorRecord &t) {
            return std::to_string(t.exec) + "/" + t.opId + (t.before ? "/b" : "/a") + (t.input ? "/i" : "/o") +
                std::to_string(t.index);
        };
        std::map<std::string, const TensorRecord *> byKey;
        for (const auto &t : wi.tensors)
            byKey[key(t)] = &t;
        auto sameFiles = [&](const DumpIndex &other, bool afterOutputsOnly) {
            int compared = 0;
            for (const auto &t : other.tensors) {
                if (afterOutputsOnly && (t.before || t.input))
                    continue; // the output before execution exists only node by node
                auto it = byKey.find(key(t));
                if (it == byKey.end() || !t.hasData)
                    continue;
                const Tensor x = readBin(it->second->path), y = readBin(t.path);
                if (x.dims != y.dims || x.dtype != y.dtype || x.data != y.data) {
                    qWarning("differs: %s", t.path.c_str());
                    return -1;
                }
                ++compared;
            }
            return compared;
        };
        QVERIFY(sameFiles(ni, false) > 100); // rounds 2 and 3: inputs before, outputs after
        QCOMPARE(ai.tensors.size(), wi.tensors.size());
        QCOMPARE(
            sameFiles(ai, false),
            int(std::count_if(ai.tensors.begin(), ai.tensors.end(), [](const TensorRecord &t) { return t.hasData; })));
        QVERIFY(sameFiles(bi, true) > 40); // round 0 (the prompt): outputs after
        QCOMPARE(li.tensors.size(), wi.tensors.size());
        QCOMPARE(
            sameFiles(li, false),
            int(std::count_if(li.tensors.begin(), li.tensors.end(), [](const TensorRecord &t) { return t.hasData; })));
        // Before and after, inputs and outputs: inline and node by node byte for byte.
        QCOMPARE(lbi.tensors.size(), bi.tensors.size());
        std::map<std::string, const TensorRecord *> nodeWise;
        for (const auto &t : bi.tensors)
            nodeWise[key(t)] = &t;
        int same = 0;
        for (const auto &t : lbi.tensors) {
            auto it = nodeWise.find(key(t));
            QVERIFY2(it != nodeWise.end(), t.path.c_str());
            if (!t.hasData)
                continue;
            const Tensor x = readBin(it->second->path), y = readBin(t.path);
            QVERIFY2(x.dims == y.dims && x.dtype == y.dtype && x.data == y.data, t.path.c_str());
            ++same;
        }
        QVERIFY(same > 100);
        const auto decodeFiles =
            std::count_if(wi.tensors.begin(), wi.tensors.end(), [](const TensorRecord &t) { return t.exec >= 2; });
        QCOMPARE(size_t(decodeFiles), ni.tensors.size());
    }

    // Inputs after execution are what the node read, also where ggml's allocator let the node
    // compute in place over an input (RMS norm into its multiply, the residual adds): read
    // node by node and inline they are taken before the node runs, read after the whole graph
    // they are kept from being overwritten. Every way gives the same files, and every ADD adds
    // up.
    void inputsAfterExecutionAreWhatTheNodeRead()
    {
        const QString whole = m_dir.path() + "/after-whole", nodes = m_dir.path() + "/after-nodes",
                      both = m_dir.path() + "/after-both";
        QCOMPARE(runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "-o", whole, "-er", "0,1", "-time", "1",
                              "--read", "graph"})
                     .code,
                 0);
        QCOMPARE(runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "-o", nodes, "-er", "0,1", "-time", "1",
                              "--read", "node"})
                     .code,
                 0);
        QCOMPARE(
            runLlmscope({"dump", "--exec", gen(), "--type", "tensor", "-o", both, "-er", "0,1", "-time", "2"}).code, 0);
        const QString w = onlyDump(whole), n = onlyDump(nodes), b = onlyDump(both);
        QCOMPARE(readProbeStatuses(w.toStdString()).at(0).roundsWholeGraph, uint64_t(2));
        QCOMPARE(readProbeStatuses(n.toStdString()).at(0).roundsWholeGraph, uint64_t(0));
        QCOMPARE(readProbeStatuses(b.toStdString()).at(0).roundsWholeGraph, uint64_t(0));
        QCOMPARE(readProbeStatuses(b.toStdString()).at(0).roundsInline, uint64_t(2)); // by default
        const DumpIndex wi = scanDump(w.toStdString()), ni = scanDump(n.toStdString()), bi = scanDump(b.toStdString());
        QVERIFY(wi.problems.empty() && ni.problems.empty() && bi.problems.empty());
        std::map<std::string, const TensorRecord *> byKey;
        auto key = [](const TensorRecord &t) {
            return std::to_string(t.exec) + "/" + t.opId + (t.before ? "/b" : "/a") + (t.input ? "/i" : "/o") +
                std::to_string(t.index);
        };
        for (const auto &t : wi.tensors)
            byKey[key(t)] = &t;
        auto differing = [&](const DumpIndex &other) {
            QStringList out;
            int compared = 0;
            for (const auto &t : other.tensors) {
                auto it = byKey.find(key(t));
                if (t.before || !t.hasData || it == byKey.end())
                    continue;
                const Tensor x = readBin(it->second->path), y = readBin(t.path);
                if (x.dims != y.dims || x.dtype != y.dtype || x.data != y.data)
                    out << QString::fromStdString(t.path);
                ++compared;
            }
            return std::make_pair(compared, out);
        };
        const auto withData =
            std::count_if(wi.tensors.begin(), wi.tensors.end(), [](const TensorRecord &t) { return t.hasData; });
        QVERIFY(withData > 100);
        const auto [nCompared, nDiffer] = differing(ni);
        QVERIFY2(nDiffer.isEmpty(), qPrintable(nDiffer.join(", ")));
        QCOMPARE(nCompared, int(withData));
        const auto [bCompared, bDiffer] = differing(bi);
        QVERIFY2(bDiffer.isEmpty(), qPrintable(bDiffer.join(", ")));
        QCOMPARE(bCompared, int(withData));
        QVERIFY(checkAdds(wi) >= 4); // two residual adds per layer, two layers, two rounds
        QVERIFY(checkAdds(ni) >= 4);
        QVERIFY(checkAdds(bi) >= 4);
    }

    void statsCsvMatchesPerTensorFiles()
    {
        const QString bins = m_dir.path() + "/statbins", csv = m_dir.path() + "/statcsv";
        QCOMPARE(runLlmscope({"dump", "--exec", gen(), "--type", "stats", "-o", bins, "-er", "0,2"}).code, 0);
        QCOMPARE(runLlmscope({"dump", "--exec", gen(), "--type", "stats", "--stats-csv", "-o", csv, "-er", "0,2"}).code,
                 0);
        const DumpIndex a = scanDump(onlyDump(bins).toStdString()), b = scanDump(onlyDump(csv).toStdString());
        QVERIFY(a.problems.empty() && b.problems.empty());
        QCOMPARE(a.tensors.size(), b.tensors.size());
        QVERIFY(a.tensors.size() > 100);
        for (size_t i = 0; i < a.tensors.size(); ++i) {
            const auto &x = a.tensors[i], &y = b.tensors[i];
            QCOMPARE(y.opFolders, x.opFolders);
            QCOMPARE(y.before, x.before);
            QCOMPARE(y.input, x.input);
            QCOMPARE(y.dims, x.dims);
            QCOMPARE(bool(y.stats), bool(x.stats));
            if (x.stats)
                QCOMPARE(formatStat(y.stats->mean), formatStat(x.stats->mean));
        }
    }

    // An engine that is not ggml reports itself through llmscope_probe.h; without the probe
    // the same binary runs unchanged.
    void cAbiEngineIsDumpedToo()
    {
        QProcess plain;
        plain.start(kBin + "/llmscope-abi-target");
        QVERIFY(plain.waitForFinished(30000) && plain.exitCode() == 0);
        const QString alone = QString::fromUtf8(plain.readAllStandardOutput());
        QVERIFY(alone.contains("probe: absent"));
        const QString out = m_dir.path() + "/abi";
        const Run r = runLlmscope({"dump", "--exec", kBin + "/llmscope-abi-target", "-er", "0,2", "-o", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("probe: active") && r.out.contains("bad call: -1"));
        QCOMPARE(r.out.count("round "), 3);
        for (const QString &line : alone.split('\n', Qt::SkipEmptyParts))
            if (line.startsWith("round"))
                QVERIFY2(r.out.contains(line), qPrintable(line)); // same results under the probe
        QCOMPARE(r.err.count("3 bytes do not match"), 2); // warned once, and repeated in the summary
        const DumpIndex idx = scanDump(onlyDump(out).toStdString());
        QVERIFY(idx.problems.empty());
        QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1, 2}));
        QCOMPARE(idx.tensors.size(), size_t(3 * 6));
        // Recompute both operations from their dumped inputs.
        for (int64_t round = 0; round < 3; ++round) {
            std::map<std::string, std::vector<float>> t;
            for (const auto &rec : idx.tensors)
                if (rec.exec == round)
                    t[rec.opId + (rec.input ? "/in" : "/out") + std::to_string(rec.index)] = toFloat(readBin(rec.path));
            const auto &x = t["0/in0"], &w = t["0/in1"], &b = t["0/in2"], &y = t["0/out0"];
            QCOMPARE(y.size(), size_t(4));
            for (int rr = 0; rr < 2; ++rr)
                for (int c = 0; c < 2; ++c) {
                    float s = b[c];
                    for (int k = 0; k < 3; ++k)
                        s += x[rr * 3 + k] * w[k * 2 + c];
                    QCOMPARE(y[rr * 2 + c], s);
                }
            QCOMPARE(t["1/in0"], y);
            for (size_t i = 0; i < 4; ++i)
                QCOMPARE(t["1/out0"][i], std::max(y[i], 0.0f));
        }
        // msit's filters apply to reported operations as to ggml's.
        const QString relu = m_dir.path() + "/abirelu";
        QCOMPARE(runLlmscope({"dump", "--exec", kBin + "/llmscope-abi-target", "-er", "1,1", "-opname", "relu", "-stp",
                              "1", "--type", "stats", "-o", relu})
                     .code,
                 0);
        const DumpIndex only = scanDump(onlyDump(relu).toStdString());
        QCOMPARE(only.tensors.size(), size_t(1));
        QCOMPARE(only.tensors[0].opId, std::string("1"));
        QCOMPARE(only.tensors[0].exec, int64_t(1));
        QVERIFY(!only.tensors[0].input && only.tensors[0].stats && !only.tensors[0].hasData);
        QCOMPARE(only.tensors[0].stats->max, 6.0);

        // Version 2: the engine's backend and parameters in msit's op and kernel info, and
        // op_param.json (-tiling); a parameter text that is not a JSON object is refused.
        const QString info = m_dir.path() + "/abiinfo";
        const Run ri = runLlmscope({"dump", "--exec", kBin + "/llmscope-abi-target", "-er", "0,0", "--type", "op",
                                    "kernel", "tensor", "-tiling", "-o", info});
        QVERIFY2(ri.code == 0, qPrintable(ri.err));
        QVERIFY(ri.out.contains("bad op info: -1"));
        const QString root = onlyDump(info);
        const QString pid = QDir(root + "/kernel_io_tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
        QFile csv(root + "/kernel_io_tensors/" + pid + "/kernel_tensors_0.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const auto rows = parseOpInfoCsv(csv.readAll().toStdString());
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].opName, std::string("Linear"));
        QCOMPARE(rows[0].socVersion, std::string("my-cpu"));
        QCOMPARE(rows[0].opParam, std::string("{\"bias\":true,\"transpose_b\":false}"));
        QCOMPARE(rows[0].inShapes, (std::vector<std::string>{"2,3", "3,2", "2"}));
        QCOMPARE(rows[0].outShapes, (std::vector<std::string>{"2,2"}));
        QCOMPARE(rows[1].fromModel, std::string("1"));
        QCOMPARE(rows[1].opParam, std::string("{}"));
        for (const auto &f : rows[0].inFiles)
            QVERIFY2(QFile::exists(QString::fromStdString(f)), f.c_str());
        QFile param(root + "/tensors/0_" + pid + "/0/0_Linear/op_param.json");
        QVERIFY(param.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(param.readAll()).object()["param"].toObject()["bias"].toBool(), true);
        QVERIFY(QFile::exists(root + "/operation_io_tensors/" + pid + "/operation_tensors_0.csv"));
    }

    // A scheduler with a second device, as a GPU run's: ggml splits the graph and copies the
    // CPU's inp_embd to the device. The probe reads it node by node, never re-planning the
    // host's graph (that left the split pointing at copies the allocation had discarded, and
    // changed the results), and the results stay the same.
    // A scheduler with two backends (the host assigns inp_embd to the CPU by hand, as llama.cpp
    // does its norms): read after the whole graph (the probe splits and plans the graph again
    // with the tensors kept), or node by node. Both read the same bytes.
    void twoBackendSchedulerIsReadAfterTheGraphOrNodeByNode()
    {
        QProcess plain;
        plain.start(kBin + "/llmscope-two-backend-target", {"3"});
        QVERIFY(plain.waitForFinished(30000) && plain.exitCode() == 0);
        const QString alone = QString::fromUtf8(plain.readAllStandardOutput());
        QVERIFY(alone.contains("splits: 2"));
        std::map<QString, std::vector<std::vector<char>>> bytes; // per way of reading: every payload
        for (const QString &read : {QString("auto"), QString("graph"), QString("node")}) {
            const QString out = m_dir.path() + "/two-" + read;
            const Run r = runLlmscope({"dump", "--exec", kBin + "/llmscope-two-backend-target 3", "--read", read, "-er",
                                       "0,2", "--type", "model", "tensor", "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QCOMPARE(r.out, alone); // the same splits and outputs under the probe
            const bool nodes = read == "node";
            QVERIFY2(r.err.contains(nodes ? "read 0 inline, 0 after the whole graph, 3 node by node"
                                          : "read 0 inline, 3 after the whole graph, 0 node by node"),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains("warning"), qPrintable(r.err));
            const Run one = runLlmscope({"dump", "--exec", kBin + "/llmscope-two-backend-target 3", "--read", read,
                                         "-er", "0,2", "--type", "model", "tensor", "-ids", "0_0", "-o", out + "-one"});
            QVERIFY2(one.code == 0, qPrintable(one.err));
            if (nodes) {
                // every node read: the scheduler ended its graph at each (its tensors after it runs, the
                // next one's before), as many as the ops read a round, three rounds
                const QRegularExpressionMatch ended =
                    QRegularExpression("the graph ended at (\\d+) nodes\\); (\\d+) operations seen, (\\d+) selected")
                        .match(r.err);
                QVERIFY2(ended.hasMatch(), qPrintable(r.err));
                QCOMPARE(ended.captured(1).toInt(), 3 * ended.captured(3).toInt()); // 5 ops, 3 rounds
                // one op read: the graph ended at it alone, once a round
                QVERIFY2(one.err.contains("node by node, the graph ended at 3 nodes); 5 operations seen, 1 selected"),
                         qPrintable(one.err));
            } else {
                QVERIFY2(one.err.contains("3 after the whole graph, 0 node by node); 5 operations seen, 1 selected"),
                         qPrintable(one.err));
            }
            const DumpIndex all = scanDump(onlyDump(out).toStdString());
            for (const auto &rec : all.tensors) {
                QFile f(QString::fromStdString(rec.path));
                QVERIFY(f.open(QIODevice::ReadOnly));
                const QByteArray b = f.readAll();
                bytes[read].emplace_back(b.begin(), b.end());
            }
            const DumpIndex idx = scanDump(onlyDump(out).toStdString());
            QVERIFY(idx.problems.empty());
            QCOMPARE(checkAdds(idx), 3); // l_out = ffn_up + the device's copy of inp_embd
            // The copy the device read holds what the CPU computed.
            for (int64_t round = 0; round < 3; ++round) {
                std::vector<float> embd, added;
                for (const auto &rec : idx.tensors) {
                    if (rec.exec != round || rec.before != rec.input)
                        continue;
                    if (rec.opName == "SCALE" && !rec.input)
                        embd = toFloat(readBin(rec.path));
                    if (rec.opName == "ADD" && rec.input && rec.index == 1)
                        added = toFloat(readBin(rec.path));
                }
                QCOMPARE(embd.size(), size_t(64));
                QCOMPARE(added, embd);
            }
            // The topology names the add's inputs as the program did, not by the device's copy.
            const QStringList models =
                QDir(onlyDump(out) + "/model").entryList({"*"}, QDir::Dirs | QDir::NoDotAndDotDot);
            QCOMPARE(models.size(), 1);
            QFile f(onlyDump(out) + "/model/" + models[0] + "/GgmlGraph.json");
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString json = QString::fromUtf8(f.readAll());
            QVERIFY(!json.contains("Sim#"));
            QVERIFY(QRegularExpression(R"("inTensors":\s*\[\s*"ffn_up-0",\s*"inp_embd"\s*\])").match(json).hasMatch());
        }
        QCOMPARE(bytes["auto"].size(), size_t(39)); // 13 tensors a round (5 ops, their inputs), three rounds
        QVERIFY(bytes["auto"] == bytes["node"]);
        QVERIFY(bytes["graph"] == bytes["node"]);
        // --type kernel says which backend ran each node: the scaled input on the CPU, the rest on the device.
        const QString kernels = m_dir.path() + "/two-kernel";
        QCOMPARE(runLlmscope({"dump", "--exec", kBin + "/llmscope-two-backend-target 3", "--type", "kernel", "-er",
                              "0,0", "-o", kernels})
                     .code,
                 0);
        const QString root = onlyDump(kernels);
        QFile csv(root + "/kernel_io_tensors/" +
                  QDir(root + "/kernel_io_tensors").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0) +
                  "/kernel_tensors_0.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        std::map<std::string, std::string> ranOn;
        for (const auto &row : parseOpInfoCsv(csv.readAll().toStdString()))
            ranOn[row.caseName] = row.socVersion;
        QCOMPARE(ranOn.at("inp_embd"), std::string("CPU"));
        QCOMPARE(ranOn.at("ffn_up-0"), std::string("Sim"));
        QCOMPARE(ranOn.size(), size_t(5));
    }

    // Hosts that rebuild each round's graph in the same memory and never wait for the scheduler,
    // or never call alloc_graph (the scheduler allocates inside its compute): read after the
    // whole graph where it can, every tensor holds the bytes read node by node, and each round's
    // recorded result is the output dumped for it (not the next graph's tensor at the same
    // address, nor memory reused).
    void twoBackendHostsOwnWaysKeepTheBytes()
    {
        for (const QString &ways : {QString("--reuse-memory --no-sync"), QString("--implicit"),
                                    QString("--reuse-memory --implicit --no-sync")}) {
            std::map<QString, std::vector<std::vector<char>>> bytes;
            for (const QString &read : {QString("auto"), QString("node")}) {
                const QString out = m_dir.path() + "/ways-" + QString(ways).replace(' ', '_') + "-" + read;
                const Run r = runLlmscope({"dump", "--exec", kBin + "/llmscope-two-backend-target 3 " + ways, "--read",
                                           read, "-er", "1,2", "--type", "tensor", "-o", out});
                QVERIFY2(r.code == 0, qPrintable(r.err));
                if (read == "auto" && !ways.contains("--implicit"))
                    QVERIFY2(r.err.contains("2 after the whole graph"), qPrintable(r.err));
                const QString root = onlyDump(out);
                const DumpIndex idx = scanDump(root.toStdString());
                QVERIFY(idx.problems.empty());
                // every result recorded (round 0's too, not dumped) is a computed one: none of zeros
                QDirIterator results(root + "/llmscope/outputs", {"*.json"}, QDir::Files, QDirIterator::Subdirectories);
                while (results.hasNext()) {
                    QFile rf(results.next());
                    QVERIFY(rf.open(QIODevice::ReadOnly));
                    QVERIFY2(QJsonDocument::fromJson(rf.readAll()).object()["l2norm"].toDouble() > 0,
                             qPrintable(ways + ": " + rf.fileName()));
                }
                for (const auto &rec : idx.tensors) {
                    QFile f(QString::fromStdString(rec.path));
                    QVERIFY(f.open(QIODevice::ReadOnly));
                    const QByteArray b = f.readAll();
                    bytes[read].emplace_back(b.begin(), b.end());
                    if (read != "auto" || rec.opName != "ADD" || rec.input)
                        continue;
                    // the round's result, where it was recorded: that of the output dumped
                    const QString result = root + "/llmscope/outputs/" +
                        QDir(root + "/llmscope/outputs").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0) + "/" +
                        QString::number(rec.exec) + ".json";
                    QFile rf(result);
                    if (!rf.open(QIODevice::ReadOnly))
                        continue; // never waited for on the device: not recorded
                    double l2 = 0;
                    for (float v : toFloat(readBin(rec.path)))
                        l2 += double(v) * double(v);
                    const double recorded = QJsonDocument::fromJson(rf.readAll()).object()["l2norm"].toDouble();
                    QVERIFY2(recorded > 0 && std::abs(recorded - std::sqrt(l2)) <= 1e-6 * recorded,
                             qPrintable(QString("%1: round %2 recorded %3, dumped %4")
                                            .arg(ways)
                                            .arg(rec.exec)
                                            .arg(recorded)
                                            .arg(std::sqrt(l2))));
                }
            }
            QCOMPARE(bytes["auto"].size(), size_t(26)); // 13 tensors a round, two rounds
            QVERIFY2(bytes["auto"] == bytes["node"], qPrintable(ways));
        }
    }

    // The program's own abort callback stops the decode of token 2 after 20 nodes, and the
    // program decodes that token again (round 3). Its tokens are those of a run without the
    // probe; the stopped round holds part of what its retry holds, byte for byte; the summary
    // names it. Read inline, node by node and after the whole graph (round 1 is
    // dumped too: its graph allocation is where the probe keeps what it reads after the graph).
    void programStoppingARoundKeepsWhatRan()
    {
        QProcess plain;
        plain.start(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "3"});
        QVERIFY(plain.waitForFinished(60000) && plain.exitCode() == 0);
        const QString tokens = QRegularExpression("tokens: [0-9 ]+\n").match(plain.readAllStandardOutput()).captured();
        QVERIFY(!tokens.isEmpty());
        struct Mode {
            QString threads, read;
            int stoppedOutputs;
        }; // -1: some, fewer than the retry's
        for (const Mode &m : {Mode{"1", "auto", -1}, Mode{"2", "node", -1}, Mode{"1", "graph", 0}}) {
            const QString out = m_dir.path() + "/abort-" + m.threads + m.read;
            const Run r = runLlmscope({"dump", "--exec", gen("-t " + m.threads + " --abort-once 2:20"), "--read",
                                       m.read, "-er", "1,3", "--type", "tensor", "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.out.contains("aborted: token 2 after 20 nodes"), qPrintable(r.out));
            QVERIFY2(r.out.contains(tokens), qPrintable(r.out + "\nwithout the probe:\n" + tokens));
            QVERIFY2(r.err.contains("the program stopped 1 dumped round(s) before the graph finished (2)"),
                     qPrintable(r.err));
            const DumpIndex idx = scanDump(onlyDump(out).toStdString());
            QVERIFY(idx.problems.empty());
            std::map<std::string, const TensorRecord *> retry; // round 3 by its path below the round
            auto below = [](const TensorRecord &t) {
                const std::string round = "/" + std::to_string(t.exec) + "/";
                return t.path.substr(t.path.rfind(round) + round.size());
            };
            for (const auto &t : idx.tensors)
                if (t.exec == 3)
                    retry[below(t)] = &t;
            int stoppedOutputs = 0, retryOutputs = 0;
            std::set<std::string> opsWithInputs, opsWithOutputs;
            for (const auto &t : idx.tensors) {
                if (!t.input && !t.before && t.exec != 1)
                    (t.exec == 2 ? stoppedOutputs : retryOutputs) += 1;
                if (t.exec != 2)
                    continue;
                (t.input ? opsWithInputs : opsWithOutputs).insert(t.opId);
                const auto same = retry.find(below(t));
                QVERIFY2(same != retry.end(), t.path.c_str());
                QVERIFY2(readWholeFile(t.path) == readWholeFile(same->second->path), t.path.c_str());
            }
            QVERIFY(retryOutputs > 0);
            if (m.stoppedOutputs < 0)
                QVERIFY2(stoppedOutputs > 10 && stoppedOutputs < retryOutputs / 2,
                         qPrintable(QString("%1 of %2").arg(stoppedOutputs).arg(retryOutputs)));
            else
                QCOMPARE(stoppedOutputs, m.stoppedOutputs);
            if (m.stoppedOutputs == 0)
                QVERIFY(opsWithInputs.empty());
            // Inline, a stopped round holds whole operations: no inputs of one that never ran.
            if (m.threads == "1" && m.read == "auto")
                for (const auto &op : opsWithInputs)
                    QVERIFY2(opsWithOutputs.count(op), op.c_str());
        }
    }

    void refusesShellSyntax()
    {
        const Run r = runLlmscope({"dump", "--exec", gen("> out.txt"), "-o", m_dir.path() + "/redir"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("'>' needs a shell") && r.err.contains("bash script.sh"), qPrintable(r.err));
        QVERIFY(!QDir(m_dir.path() + "/redir").exists());
    }

    // Settings before the program are its environment, as in a shell (or after env); a setting
    // with no program says so.
    void settingsBeforeTheProgramAreItsEnvironment()
    {
        const Run r = runLlmscope({"dump", "--exec",
                                   "LLMSCOPE_T1='a b' env LLMSCOPE_T2=2 /usr/bin/printenv LLMSCOPE_T1 LLMSCOPE_T2",
                                   "-o", m_dir.path() + "/settings"});
        QCOMPARE(r.out.trimmed(), QString("a b\n2"));
        QVERIFY2(r.err.contains("The probe never reported"), qPrintable(r.err)); // printenv runs no graph
        const Run none =
            runLlmscope({"dump", "--exec", "GGML_VK_VISIBLE_DEVICES=0", "-o", m_dir.path() + "/settings2"});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("sets GGML_VK_VISIBLE_DEVICES but names no program"), qPrintable(none.err));
    }

    // Each dump records the run's configuration; config-diff names what two runs differ in (the
    // threads, a steering variable), compare opens with it, and the same run twice differs in
    // nothing.
    void theRunsConfigurationIsRecordedAndCompared()
    {
        auto dump = [&](const QString &name, const QString &extra, const QString &omp) {
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("OMP_NUM_THREADS", omp);
            const QString out = m_dir.path() + "/config-" + name;
            const Run r = runLlmscope({"dump", "--exec", gen(extra), "--type", "stats", "-o", out}, env);
            return r.code == 0 ? onlyDump(out) : QString();
        };
        const QString a = dump("a", "-t 1", "1"), again = dump("again", "-t 1", "1"), b = dump("b", "-t 2", "2");
        QVERIFY(!a.isEmpty() && !again.isEmpty() && !b.isEmpty());
        const auto statuses = readProbeStatuses(a.toStdString());
        QCOMPARE(statuses.size(), size_t(1));
        const ProbeStatus &s = statuses.front();
        QCOMPARE(s.cpuThreads, std::vector<int>{1});
        QCOMPARE(QString::fromStdString(s.workingDirectory), QDir::currentPath());
        QVERIFY(
            std::any_of(s.devices.begin(), s.devices.end(), [](const BackendDevice &d) { return d.type == "CPU"; }));
        QVERIFY(std::any_of(s.cpuFeatures.begin(), s.cpuFeatures.end(),
                            [](const std::string &f) { return f.rfind("SSE3=", 0) == 0; }));
        // ggml's own version string, as the bundle's ggml.h declares it: "X.Y.Z, commit C"
        QVERIFY2(QRegularExpression("^[0-9]+\\.[0-9]+\\.[0-9]+, commit \\S+$")
                     .match(QString::fromStdString(s.ggmlVersion))
                     .hasMatch(),
                 s.ggmlVersion.c_str());
        QVERIFY(std::any_of(s.objects.begin(), s.objects.end(), [](const LoadedObject &o) {
            return o.path.find("libggml-base") != std::string::npos && o.buildId != "-" && o.bytes > 0;
        }));

        const Run same = runLlmscope({"config-diff", a, again});
        QCOMPARE(same.code, 0);
        QVERIFY2(same.out.contains("no setting differs among"), qPrintable(same.out));
        const QString json = m_dir.path() + "/config.json", xlsx = m_dir.path() + "/config.xlsx";
        const Run d = runLlmscope({"config-diff", a, b, "--json", json, "--xlsx", xlsx});
        QCOMPARE(d.code, 1);
        QVERIFY2(d.out.contains("3 of ") && d.out.contains("environment 1 (OMP_NUM_THREADS)") &&
                     d.out.contains("run 2 (command, CPU threads)"),
                 qPrintable(d.out));
        QVERIFY2(d.out.contains("  CPU threads\n    golden: 1\n    test:   2\n"), qPrintable(d.out));
        QFile j(json), x(xlsx);
        QVERIFY(j.open(QIODevice::ReadOnly) && x.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(j.readAll()).object()["differences"].toArray().size(), 3);
        QCOMPARE(x.read(2), QByteArray("PK")); // a workbook is a zip archive
        // compare says it before any tensor; its report keeps it beside
        const Run c =
            runLlmscope({"compare", "--golden-path", a, "--my-path", b, "-o", m_dir.path() + "/config-report"});
        QVERIFY2(c.err.startsWith("llmscope compare: configuration: 3 of "), qPrintable(c.err));
        QCOMPARE(QDir(m_dir.path() + "/config-report").entryList({"config_diff_*.json"}).size(), 1);
        // the context as the graphs say it: the KV cache's types, flash attention, the tokens
        QVERIFY2(std::find(s.context.begin(), s.context.end(), "KV cache K type=f16") != s.context.end(),
                 qPrintable(QString::fromStdString(s.context.empty() ? "" : s.context.front())));
        QVERIFY(std::any_of(s.context.begin(), s.context.end(),
                            [](const std::string &c) { return c.rfind("flash attention=", 0) == 0; }));
        // RoPE as the model file sets it (llmscope-make-model: llama's NeoX-less mode 0, base 10000)
        for (const char *want : {"RoPE mode=0", "RoPE frequency base=10000", "RoPE frequency scale=1"})
            QVERIFY2(std::find(s.context.begin(), s.context.end(), want) != s.context.end(), want);
        const QString q8 = dump("q8", "-t 1 -ctk q8_0", "1");
        QVERIFY(!q8.isEmpty());
        const Run k = runLlmscope({"config-diff", a, q8});
        QCOMPARE(k.code, 1);
        QVERIFY2(k.out.contains("\ncontext\n  KV cache K type\n    golden: f16\n    test:   q8_0\n"),
                 qPrintable(k.out));
        QVERIFY2(!k.out.contains("prompt tokens"), qPrintable(k.out)); // the same prompt
        // the samplers the program made through llama.cpp, in order; none where it takes the most
        // likely token by itself
        QVERIFY(s.sampling.empty());
        const QString sampled = dump("sampled", "-t 1 --temp 0.7 --top-k 20 --seed 5", "1"),
                      warmer = dump("warmer", "-t 1 --temp 0.9 --top-k 20 --seed 5", "1");
        QVERIFY(!sampled.isEmpty() && !warmer.isEmpty());
        QCOMPARE(readProbeStatuses(sampled.toStdString()).front().sampling,
                 (std::vector<std::string>{"top_k 20", "temp 0.7", "dist seed 5"}));
        { // the samplers are the program's, passed through: the tokens it samples are its own
            auto tokensOf = [](const QString &out) { return out.section("\ntokens:", 1, 1).section('\n', 0, 0); };
            QProcess plain;
            plain.start("/bin/sh", {"-c", gen("-t 1 --temp 0.7 --top-k 20 --seed 5")});
            QVERIFY(plain.waitForFinished(60000) && plain.exitCode() == 0);
            const Run probed = runLlmscope({"dump", "--exec", gen("-t 1 --temp 0.7 --top-k 20 --seed 5"), "--type",
                                            "stats", "-o", m_dir.path() + "/config-sampled-again"});
            const QString want = tokensOf("\n" + QString::fromUtf8(plain.readAllStandardOutput()));
            QVERIFY2(!want.isEmpty() && tokensOf("\n" + probed.out) == want,
                     qPrintable(probed.out + " against" + want));
        }
        const Run t = runLlmscope({"config-diff", sampled, warmer});
        QCOMPARE(t.code, 1);
        QVERIFY2(t.out.contains("sampling 1 (sampler 2)") &&
                     t.out.contains("\nsampling\n  sampler 2\n    golden: temp 0.7\n    "
                                    "test:   temp 0.9\n"),
                 qPrintable(t.out));
        { // a variable the user names is recorded too
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("OMP_NUM_THREADS", "1");
            env.insert("MYAPP_FLAG", "on");
            const QString out = m_dir.path() + "/config-named";
            const Run named = runLlmscope(
                {"dump", "--exec", gen("-t 1"), "--type", "stats", "--record-env", "MYAPP_FLAG", "-o", out}, env);
            QVERIFY2(named.code == 0, qPrintable(named.err));
            const Run n = runLlmscope({"config-diff", a, onlyDump(out)});
            QVERIFY2(n.out.contains("\nenvironment\n  MYAPP_FLAG\n    golden: (none)\n    test:   on\n"),
                     qPrintable(n.out));
            const Run bad = runLlmscope({"dump", "--exec", gen(), "--record-env", "A=1", "-o", out});
            QCOMPARE(bad.code, 2);
            QVERIFY2(bad.err.contains("--record-env: 'A=1' is not a list of variable names"), qPrintable(bad.err));
        }
        // a folder with no dump says what to do
        const Run none = runLlmscope({"config-diff", a, m_dir.path()});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("holds no probe status"), qPrintable(none.err));
    }

    void missingProgramSaysSo()
    {
        const Run r = runLlmscope({"dump", "--exec", "no-such-program-xyz -v", "-o", m_dir.path() + "/missing"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("cannot run 'no-such-program-xyz': not found in PATH; give its path"),
                 qPrintable(r.err));
        // a program of that name in the working folder: run as a shell would not, but named
        const QString here = m_dir.path() + "/here";
        QVERIFY(QDir().mkpath(here));
        QVERIFY(QFile::copy("/usr/bin/true", here + "/my-program-xyz"));
        const Run local = runLlmscope({"dump", "--exec", "my-program-xyz", "-o", m_dir.path() + "/missing2"},
                                      QProcessEnvironment::systemEnvironment(), 180000, here);
        QCOMPARE(local.code, 2);
        QVERIFY2(local.err.contains("not found in PATH; the one in the working folder runs as ./my-program-xyz"),
                 qPrintable(local.err));
    }

    void keepsAnExistingPreload()
    {
        auto env = QProcessEnvironment::systemEnvironment();
        const QString libm = "/lib/x86_64-linux-gnu/libm.so.6";
        QVERIFY(QFile::exists(libm));
        env.insert("LD_PRELOAD", libm);
        const Run r = runLlmscope({"dump", "--exec", "/usr/bin/env", "-o", m_dir.path() + "/preload"}, env);
        const QRegularExpression line("^LD_PRELOAD=(.*)$", QRegularExpression::MultilineOption);
        const auto m = line.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QVERIFY2(m.captured(1).startsWith(libm + ":") && m.captured(1).endsWith("/libllmscope_probe.so"),
                 qPrintable(m.captured(1)));
        QVERIFY2(r.err.contains("The probe never reported"), qPrintable(r.err)); // env runs no graph
    }

    // The probe takes itself out of LD_PRELOAD in a program that is no launcher, so the
    // processes it starts run without it (printenv shows the environment it passes on);
    // --children keeps it.
    void childrenRunWithoutTheProbeUnlessAsked()
    {
        auto env = QProcessEnvironment::systemEnvironment();
        const QString libm = "/lib/x86_64-linux-gnu/libm.so.6";
        env.insert("LD_PRELOAD", libm);
        const Run plain =
            runLlmscope({"dump", "--exec", "/usr/bin/printenv LD_PRELOAD", "-o", m_dir.path() + "/kids"}, env);
        QCOMPARE(plain.out.trimmed(), libm);
        const Run asked = runLlmscope(
            {"dump", "--exec", "/usr/bin/printenv LD_PRELOAD", "--children", "-o", m_dir.path() + "/kids2"}, env);
        QVERIFY2(asked.out.trimmed().startsWith(libm + ":") && asked.out.trimmed().endsWith("/libllmscope_probe.so"),
                 qPrintable(asked.out));
        env.remove("LD_PRELOAD");
        const Run alone =
            runLlmscope({"dump", "--exec", "/usr/bin/printenv LD_PRELOAD", "-o", m_dir.path() + "/kids3"}, env);
        QVERIFY2(alone.out.trimmed().isEmpty(), qPrintable(alone.out)); // unset, not left empty
    }

    void nothingSelectedSaysSoPlainly()
    {
        const Run r = runLlmscope({"dump", "--exec", gen(), "-er", "99,99", "-o", m_dir.path() + "/none"});
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains("Nothing was dumped: the target ran 3 rounds (0 to 2) and -er 99,99 chose none"),
                 qPrintable(r.err));
        const Run ids = runLlmscope({"dump", "--exec", gen(), "-ids", "77", "-o", m_dir.path() + "/noids"});
        QCOMPARE(ids.code, 3);
        QVERIFY2(ids.err.contains("no operation matched -ids '77'"), qPrintable(ids.err));
    }

    // Stopped part way through writing full tensors of every round: every file in the dump
    // is whole, the index reads it without a problem, and the status says it did not finish.
    // The program holds after two rounds until their hundred-odd files are on disk (however
    // slowly a busy machine writes them), then goes on a token every 10 ms (30 s for all):
    // --timeout (25 s) stops it while it is still producing and writing rounds.
    void targetStoppedMidDumpLeavesAReadableDump()
    {
        const QString out = m_dir.path() + "/stopped", hold = m_dir.path() + "/stopped-go";
        QProcess p;
        p.start(kBin + "/llmscope",
                {"dump", "--exec",
                 kBin + "/llmscope-sample-generate -m " + m_model +
                     " -n 3000 --ctx 4096 --pace-ms 10 --hold-after 2 --hold-file " + hold,
                 "--type", "tensor", "-er", "0,100000", "--timeout", "25", "-o", out});
        auto tensorFiles = [&] {
            int n = 0;
            for (QDirIterator it(out, {"*.bin"}, QDir::Files, QDirIterator::Subdirectories); it.hasNext(); it.next())
                ++n;
            return n;
        };
        // Waits on the program's own signs (its hold file, then its files); ends if it ends.
        int written = 0;
        while (p.state() != QProcess::NotRunning &&
               !(QFile::exists(hold + ".waiting") && (written = tensorFiles()) > 100))
            p.waitForFinished(50);
        QVERIFY2(written > 100, qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QFile go(hold);
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(err.contains("was stopped") && err.contains("did not exit normally"), qPrintable(err));
        const QString root = onlyDump(out);
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY2(idx.problems.empty(), idx.problems.empty() ? "" : idx.problems[0].message.c_str());
        QVERIFY2(idx.tensors.size() >= size_t(written),
                 qPrintable(QString("%1 of %2").arg(idx.tensors.size()).arg(written)));
        for (size_t i = 0; i < idx.tensors.size(); i += 97)
            QCOMPARE(readBin(idx.tensors[i].path).data.size(), size_t(idx.tensors[i].dataBytes));
        const auto st = readProbeStatuses(root.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QVERIFY(!st[0].finished);
    }

    // msit's -config: the file overrides the command line, and an edit reaches the running
    // target at its next graph compute.
    void dynamicConfigChangesARunningTarget()
    {
        const QString out = m_dir.path() + "/dynamic", cfg = m_dir.path() + "/dump.json", hold = m_dir.path() + "/go";
        QFile f(cfg);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"dump_enable": "false", "er": "0,1000", "ids": "1"})");
        f.close();
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("LLMSCOPE_CONFIG_INTERVAL_MS", "0"); // msit waits 5 s between reads
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(kBin + "/llmscope",
                {"dump", "--exec",
                 kBin + "/llmscope-sample-generate -m " + m_model + " -n 6 --hold-after 3 --hold-file " + hold,
                 "--type", "stats", "-config", cfg, "-ids", "2", "-o", out});
        for (int i = 0; i < 3000 && !QFile::exists(hold + ".waiting"); ++i)
            QThread::msleep(10);
        QVERIFY(QFile::exists(hold + ".waiting"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(R"({"dump_enable": "true", "er": "0,1000", "ids": "1"})");
        f.close();
        QFile g(hold);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.close();
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const DumpIndex idx = scanDump(onlyDump(out).toStdString());
        QVERIFY(!idx.tensors.empty());
        // Rounds 0..2 (the prefill and two decodes before the hold) ran with dumping off.
        QCOMPARE(idx.rounds().front(), int64_t(3));
        for (const auto &t : idx.tensors)
            QVERIFY2(t.opId.rfind("1_", 0) == 0, t.opId.c_str()); // the file's ids, not -ids 2
    }
};

QTEST_GUILESS_MAIN(TstDumpCommand)
#include "tst_dumpcommand.moc"
