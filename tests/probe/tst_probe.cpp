// The preload probe on real llama.cpp runs: unchanged results, ggml's own node count,
// msit's filters, and dumped tensors recomputed from their dumped inputs.
#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <set>

#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "core/dump/tensor_index.h"
#include "core/dump/topology.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/stats.h"
#include "core/util/text.h"
#include "tests/engine/engine_run.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kProbe = LLMSCOPE_PROBE;

QProcessEnvironment probeEnv(const QString &root, const QMap<QString, QString> &vars)
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("LD_PRELOAD", QStringLiteral(LLMSCOPE_PRELOAD_FIRST) + kProbe); // TSan's runtime first, in that build
    env.insert("LLMSCOPE_DUMP_ROOT", root);
    for (auto it = vars.begin(); it != vars.end(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

std::set<std::string> opFolders(const DumpIndex &idx)
{
    std::set<std::string> s;
    for (const auto &t : idx.tensors)
        s.insert(t.opFolders.back());
    return s;
}
} // namespace

class TstProbe : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

    engine::Generation native(const QString &root, const QMap<QString, QString> &vars, QStringList extra = {})
    {
        return engine::run(kBin + "/llmscope-sample-generate", QStringList{"-m", m_model, "-n", "3"} + extra,
                           probeEnv(root, vars));
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    void resultsUnchangedAndEveryNodeSeen()
    {
        const auto plain =
            engine::run(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "3", "--count-nodes", "--logits"});
        const QString root = m_dir.path() + "/all";
        const auto probed = native(root,
                                   {{"LLMSCOPE_ER", "all"},
                                    {"LLMSCOPE_KV", "1"},
                                    {"LLMSCOPE_TIME", "1"},
                                    {"LLMSCOPE_STP", "1"},
                                    {"LLMSCOPE_TYPE", "stats"}},
                                   {"--count-nodes", "--logits"});
        QVERIFY2(probed.exitCode == 0, qPrintable(probed.stderrText));
        QCOMPARE(probed.tokens, plain.tokens);
        QCOMPARE(probed.logits, plain.logits); // bit for bit
        // ggml offered the application's callback one ask per node: one output file per node.
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY(idx.problems.empty());
        size_t outputs = 0;
        for (const auto &t : idx.tensors)
            outputs += !t.input;
        QVERIFY(outputs > 0);
        QCOMPARE(plain.evalAsks.size(), size_t(1));
        QCOMPARE(double(outputs), plain.evalAsks[0]);
        QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1, 2})); // one prefill graph, then one per decoded token

        // msit's default moments (inputs before, outputs after) of every node but the KV-cache
        // views, statistics of every round, each way of reading: still bit for bit, and each
        // round read the way expected.
        auto statsRun = [&](const QString &name, QMap<QString, QString> vars, uint64_t wholeGraphRounds,
                            uint64_t inlineRounds, QStringList args = {}) {
            vars.insert("LLMSCOPE_ER", "all");
            vars.insert("LLMSCOPE_TYPE", "stats");
            const QString dir = m_dir.path() + "/" + name;
            const auto r = native(dir, vars, QStringList{"--logits"} + args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
            const auto want = args.isEmpty() ? plain
                                             : engine::run(kBin + "/llmscope-sample-generate",
                                                           QStringList{"-m", m_model, "-n", "3", "--logits"} + args);
            QCOMPARE(r.tokens, want.tokens);
            QCOMPARE(r.logits, want.logits);
            const auto st = readProbeStatuses(dir.toStdString());
            QCOMPARE(st.size(), size_t(1));
            QCOMPARE(st[0].roundsDumped, uint64_t(3));
            QCOMPARE(st[0].roundsWholeGraph, wholeGraphRounds);
            QCOMPARE(st[0].roundsInline, inlineRounds);
            QVERIFY(st[0].warnings.empty());
        };
        // By default, as ggml's CPU backend computes each node (one thread), which also turns
        // off the fusing while the graph runs.
        statsRun("inline", {}, 0, 3);
        if (QTest::currentTestFailed())
            return;
        // After the whole graph, the tensors kept as graph outputs (which turns off ggml's
        // fusing of RMS norm and multiply).
        statsRun("whole", {{"LLMSCOPE_READ", "graph"}}, 3, 0);
        if (QTest::currentTestFailed())
            return;
        // As the scheduler hands over each node.
        statsRun("nodes", {{"LLMSCOPE_READ", "node"}}, 0, 0);
        if (QTest::currentTestFailed())
            return;
        // Two threads: ggml-cpu's callback comes before the other thread has finished the
        // node, so by default rounds are read after the whole graph instead, but the prompt's:
        // its graph was allocated before llama.cpp set the thread count, so the probe expected
        // one thread and kept nothing, and read it node by node (with a persistent pool)...
        statsRun("threads", {}, 2, 0, {"-t", "2"});
        if (QTest::currentTestFailed())
            return;
        // ...as it reads any graph whose wanted tensors would grow ggml's compute buffer by
        // more than LLMSCOPE_KEEP_MB (64): with 0, every one.
        statsRun("capped", {{"LLMSCOPE_KEEP_MB", "0"}}, 0, 0, {"-t", "2"});
    }

    // ffn_inp-0 = attn_out-0 + layer input, and RMS norm, from the dumped tensors alone.
    void dumpedTensorsRecompute()
    {
        const QString root = m_dir.path() + "/layer0";
        const auto r = native(root, {{"LLMSCOPE_IDS", "1"}, {"LLMSCOPE_TYPE", "model,tensor"}});
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        const DumpIndex idx = scanDump(root.toStdString());
        QCOMPARE(idx.layerFiles.size(), size_t(4)); // embedding, 2 layers, output head
        const TopoNode model = readTopologyFile(idx.modelFiles.at(0));
        const TopoNode &layer0 = model.children.at(1);
        QCOMPARE(layer0.name, std::string("Layer0"));
        int add = -1, norm = -1;
        for (size_t k = 0; k < layer0.children.size(); ++k) {
            if (layer0.children[k].name == "ffn_inp-0")
                add = int(k);
            if (layer0.children[k].name == "norm-0" && norm < 0)
                norm = int(k);
        }
        QVERIFY(add >= 0 && norm >= 0);
        const QString dir =
            QString::fromStdString(idx.tensors.front().path).section("/1_DecoderLayer/", 0, 0) + "/1_DecoderLayer/";
        auto load = [&](int k, const QString &type, const char *file) {
            return toFloat(readBin((dir + QString("%1_%2/%3").arg(k).arg(type, file)).toStdString()));
        };
        const auto a = load(add, "ADD", "before/intensor0.bin"), b = load(add, "ADD", "before/intensor1.bin"),
                   sum = load(add, "ADD", "after/outtensor0.bin");
        QCOMPARE(a.size(), sum.size());
        for (size_t i = 0; i < sum.size(); ++i)
            QCOMPARE(sum[i], a[i] + b[i]);
        const auto x = load(norm, "RMS_NORM", "before/intensor0.bin"),
                   y = load(norm, "RMS_NORM", "after/outtensor0.bin");
        const size_t width = 256, rows = x.size() / width;
        QVERIFY(rows >= 1);
        for (size_t r0 = 0; r0 < rows; ++r0) {
            double ss = 0;
            for (size_t i = 0; i < width; ++i)
                ss += double(x[r0 * width + i]) * x[r0 * width + i];
            const double scale = 1.0 / std::sqrt(ss / width + 1e-5);
            for (size_t i = 0; i < width; ++i)
                QVERIFY(std::abs(y[r0 * width + i] - x[r0 * width + i] * scale) <=
                        1e-5 * (1 + std::abs(y[r0 * width + i])));
        }
        // Only layer 0's operation (id 1) was selected.
        for (const auto &t : idx.tensors)
            QCOMPARE(t.opFolders.front(), std::string("1_DecoderLayer"));
    }

    void filtersFollowMsit()
    {
        const QString byName = m_dir.path() + "/mulmat";
        QCOMPARE(native(byName, {{"LLMSCOPE_OPNAME", "mul_mat"}, {"LLMSCOPE_TYPE", "stats"}}).exitCode, 0);
        const auto names = opFolders(scanDump(byName.toStdString()));
        QVERIFY(!names.empty());
        for (const auto &f : names)
            QVERIFY2(QString::fromStdString(f).endsWith("_MUL_MAT"), f.c_str());
        const QString byId = m_dir.path() + "/one";
        QCOMPARE(native(byId, {{"LLMSCOPE_IDS", "2_22"}, {"LLMSCOPE_ER", "1,1"}, {"LLMSCOPE_TYPE", "stats"}}).exitCode,
                 0);
        const DumpIndex one = scanDump(byId.toStdString());
        QVERIFY(!one.tensors.empty());
        for (const auto &t : one.tensors) {
            QCOMPARE(t.opId, std::string("2_22"));
            QCOMPARE(t.exec, int64_t(1));
            QVERIFY(t.stats && !t.hasData);
        }
        // Nothing selected: an empty dump, and the target still runs.
        const QString none = m_dir.path() + "/none";
        QCOMPARE(native(none, {{"LLMSCOPE_ER", "99,99"}}).exitCode, 0);
        QVERIFY(scanDump(none.toStdString()).tensors.empty());
        const auto st = readProbeStatuses(none.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QVERIFY(st[0].finished);
        QVERIFY(st[0].rounds >= 3); // prefill plus decodes, all seen
        QCOMPARE(st[0].roundsDumped, uint64_t(0));
        QCOMPARE(st[0].tensors, uint64_t(0));
    }

    void statisticsMatchFullTensors()
    {
        const QString full = m_dir.path() + "/full", stats = m_dir.path() + "/stats";
        QCOMPARE(native(full, {{"LLMSCOPE_IDS", "1"}, {"LLMSCOPE_TYPE", "tensor"}}).exitCode, 0);
        QCOMPARE(native(stats, {{"LLMSCOPE_IDS", "1"}, {"LLMSCOPE_TYPE", "stats"}}).exitCode, 0);
        const DumpIndex f = scanDump(full.toStdString()), s = scanDump(stats.toStdString());
        QCOMPARE(f.tensors.size(), s.tensors.size());
        int compared = 0;
        for (size_t i = 0; i < f.tensors.size(); ++i) {
            if (!s.tensors[i].stats)
                continue;
            const auto want = computeStats(readBin(f.tensors[i].path));
            QVERIFY(want);
            const TensorStats &got = *s.tensors[i].stats;
            QCOMPARE(QString::fromStdString(formatStat(got.mean)), QString::fromStdString(formatStat(want->mean)));
            QCOMPARE(QString::fromStdString(formatStat(got.max)), QString::fromStdString(formatStat(want->max)));
            QCOMPARE(QString::fromStdString(formatStat(got.min)), QString::fromStdString(formatStat(want->min)));
            QCOMPARE(QString::fromStdString(formatStat(got.l2norm)), QString::fromStdString(formatStat(want->l2norm)));
            ++compared;
        }
        QVERIFY(compared > 20);
    }

    // Node loads ggml with RTLD_LOCAL: the probe finds it by walking the loaded objects.
    void nodeTarget()
    {
        const auto plain = engine::run(kBin + "/llmscope-sample-node", {"-m", m_model, "-n", "3"});
        const QString root = m_dir.path() + "/node";
        const auto probed = engine::run(kBin + "/llmscope-sample-node", {"-m", m_model, "-n", "3"},
                                        probeEnv(root, {{"LLMSCOPE_IDS", "1"}, {"LLMSCOPE_TYPE", "stats"}}));
        QVERIFY2(probed.exitCode == 0, qPrintable(probed.stderrText));
        QCOMPARE(probed.tokens, plain.tokens);
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY(idx.tensors.size() > 20);
        QVERIFY(idx.problems.empty());
        // Node's exit still drains the writer: the status file counts every tensor on disk.
        const auto st = readProbeStatuses(root.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QVERIFY(st[0].finished);
        QCOMPARE(st[0].tensors, uint64_t(idx.tensors.size()));
    }

    // Only the interposed ggml functions, llama.cpp's sampler constructors and llama_decode, and the C ABI leave
    // the library: core and the C++ runtime stay hidden, so they cannot clash with the target's
    // own.
    void exportsOnlyItsInterface()
    {
        QProcess nm;
        nm.start("nm", {"-D", "--defined-only", kProbe});
        QVERIFY(nm.waitForFinished(30000) && nm.exitCode() == 0);
        QStringList exported;
        for (const QString &line : QString::fromUtf8(nm.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
            const QStringList f = line.split(' ', Qt::SkipEmptyParts);
            if (f.size() == 3 && (f[1] == "T" || f[1] == "W" || f[1] == "D" || f[1] == "B"))
                exported << f[2];
        }
        exported.sort();
        QCOMPARE(exported,
                 (QStringList{"ggml_backend_buffer_free", "ggml_backend_graph_compute_async",
                              "ggml_backend_reg_get_proc_address", "ggml_backend_sched_alloc_graph",
                              "ggml_backend_sched_free", "ggml_backend_sched_graph_compute_async",
                              "ggml_backend_sched_new", "ggml_backend_sched_set_eval_callback",
                              "ggml_backend_sched_synchronize", "ggml_backend_tensor_copy", "gguf_init_from_file",
                              "llama_decode", // each token's sequence (decode_batches.cpp)
                              // llama.cpp's sampler constructors (sampling.cpp)
                              "llama_sampler_init_dist", "llama_sampler_init_greedy", "llama_sampler_init_min_p",
                              "llama_sampler_init_mirostat", "llama_sampler_init_mirostat_v2",
                              "llama_sampler_init_temp", "llama_sampler_init_temp_ext", "llama_sampler_init_top_k",
                              "llama_sampler_init_top_p", "llama_sampler_init_typical", "llmscope_probe_begin_round",
                              "llmscope_probe_end_round", "llmscope_probe_op_info", "llmscope_probe_tensor",
                              "llmscope_probe_version", "llmscope_probe_wants", "munmap"}));
    }

    // The probe's tensor index (llmscope/index/) is closed when the program ends and lists what
    // a walk opening every file finds: statistics of every round, and tensors with payloads.
    void indexListsWhatWasWritten_data()
    {
        QTest::addColumn<QString>("type");
        QTest::newRow("stats") << "stats";
        QTest::newRow("tensors") << "tensor";
    }
    void indexListsWhatWasWritten()
    {
        QFETCH(QString, type);
        const QString root = m_dir.path() + "/indexed-" + type;
        const auto r = native(root, {{"LLMSCOPE_ER", "all"}, {"LLMSCOPE_TYPE", type}});
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        const DumpIndex walked = scanDump(root.toStdString());
        QVERIFY(!walked.tensors.empty());
        QCOMPARE(walked.rounds(), (std::vector<int64_t>{0, 1, 2}));
        const std::string dump = walked.tensors.front().path.substr(0, walked.tensors.front().path.find("/tensors/"));
        const auto listed =
            readTensorIndex(dump + "/" + tensorIndexPath(walked.tensors.front().device, walked.tensors.front().pid));
        QVERIFY(listed);
        QCOMPARE(listed->size(), walked.tensors.size());
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(root.toStdString(), why), why.c_str());
    }

    // A program whose other thread calls exit() while its compute thread is inside a dumped
    // graph (from the 5th node of generated token 2's decode on, node by node, until the graph's
    // last node, where it parks). The probe's exit handler must leave that round alone: the
    // thread still writes it (under ThreadSanitizer, any touch of it is a race), and handing
    // it over would write half a round that reads as whole.
    void exitFromAnotherThreadMidGraph_data()
    {
        QTest::addColumn<QString>("read");
        QTest::addColumn<QString>("ids");
        QTest::addColumn<bool>("whole"); // the round was handed over whole before the exit
        QTest::newRow("inline") << "inline"
                                << "" << false;
        QTest::newRow("node by node") << "node"
                                      << "" << false;
        QTest::newRow("after the graph") << "graph"
                                         << "" << false;
        // node by node, the first layer's ops only: handed over at the last of them, long
        // before the graph's end where the program exits
        QTest::newRow("node by node, handed over") << "node"
                                                   << "1" << true;
    }
    void exitFromAnotherThreadMidGraph()
    {
        QFETCH(QString, read);
        QFETCH(QString, ids);
        QFETCH(bool, whole);
        const QString root = m_dir.path() + "/exit-" + QString::number(qHash(QTest::currentDataTag()));
        QMap<QString, QString> vars{{"LLMSCOPE_ER", "all"}, {"LLMSCOPE_READ", read}};
        if (!ids.isEmpty())
            vars.insert("LLMSCOPE_IDS", ids);
        const auto r = engine::run(kBin + "/llmscope-sample-generate",
                                   {"-m", m_model, "-n", "4", "--exit-mid-graph", "2:5"}, probeEnv(root, vars));
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        QVERIFY(r.tokens.empty()); // it never got to print them
        const auto st = readProbeStatuses(root.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QVERIFY(st[0].finished);
        QCOMPARE(st[0].rounds, uint64_t(3));
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY(idx.problems.empty());
        if (whole) { // nothing left out, nothing to say
            QVERIFY(st[0].stoppedRounds.empty());
            QVERIFY(st[0].warnings.empty());
            QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1, 2}));
        } else {
            QCOMPARE(st[0].stoppedRounds, std::vector<int64_t>{2});
            QCOMPARE(st[0].warnings.size(), size_t(1));
            QVERIFY(st[0].warnings[0].find("exited while another thread was computing round 2") != std::string::npos);
            QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1})); // the rounds before, whole
        }
        std::map<int64_t, size_t> perRound;
        for (const auto &t : idx.tensors)
            ++perRound[t.exec];
        QVERIFY(perRound[0] > 0);
        for (const auto &[round, n] : perRound)
            QCOMPARE(n, perRound[0]);
        QCOMPARE(uint64_t(idx.tensors.size()), st[0].tensors);
        for (QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
            QVERIFY2(!it.next().contains(".tmp."), qPrintable(it.filePath())); // nothing half-written left
    }

    void badSettingsPassThrough()
    {
        const QString root = m_dir.path() + "/bad";
        const auto r = native(root, {{"LLMSCOPE_IDS", "x_y"}});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.stderrText.contains("[llmscope] invalid setting (ids:"));
        QVERIFY(!QDir(root).exists());
        QCOMPARE(r.tokens.size(), size_t(3));
        const auto m = native(root, {{"LLMSCOPE_READ", "sometimes"}});
        QCOMPARE(m.exitCode, 0);
        QVERIFY(m.stderrText.contains("[llmscope] invalid setting (LLMSCOPE_READ must be auto, inline, graph or node"));
        QVERIFY(!QDir(root).exists());
        QCOMPARE(m.tokens, r.tokens);
    }
};

QTEST_GUILESS_MAIN(TstProbe)
#include "tst_probe.moc"
