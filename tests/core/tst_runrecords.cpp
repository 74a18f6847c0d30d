// What every dump records of the run itself, read back: each round's result (the logits'
// digest, statistics and sketch), the chains computed fused, and the observer check that holds
// a dumped run's results against a run the probe only watched.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/compare/observer_check.h"
#include "core/config/driver_version.h"
#include "core/config/run_config.h"
#include "core/dump/fusion_record.h"
#include "core/dump/output_record.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {

void writeFile(const QString &path, const std::string &text)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

// A run's records under dump/llmscope/: round r consumed tokens[r] and produced logits[r].
void writeRun(const QString &dump, const std::vector<std::vector<int32_t>> &tokens,
              const std::vector<std::vector<float>> &logits)
{
    for (size_t r = 0; r < logits.size(); ++r) {
        OutputRecord o;
        o.name = "result_output";
        o.dtype = "f32";
        o.dims = {1, int64_t(logits[r].size())};
        o.stats = *computeStats(0, reinterpret_cast<const uint8_t *>(logits[r].data()), logits[r].size());
        writeFile(dump + "/llmscope/outputs/42/" + QString::number(r) + ".json", outputRecordJson(int64_t(r), o));
        writeFile(dump + "/llmscope/tokens/42/" + QString::number(r) + ".json",
                  tokenRecordJson(int64_t(r), tokens[r], false));
    }
}

std::vector<float> ramp(size_t n, float scale)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = scale * std::sin(float(i) * 0.37f);
    return v;
}

} // namespace

class TstRunRecords : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void anOutputRecordReadsBackAsWritten()
    {
        const QString dump = m_dir.path() + "/one";
        std::vector<float> v = ramp(1000, 3.0f);
        writeRun(dump, {{1, 2, 3}}, {v});
        v[7] = std::nanf(""); // statistics of a tensor holding NaN: no sketch, NaN kept as msit writes it
        OutputRecord nan;
        nan.name = "result_output";
        nan.dtype = "f32";
        nan.dims = {1000};
        nan.stats = *computeStats(0, reinterpret_cast<const uint8_t *>(v.data()), v.size());
        writeFile(dump + "/llmscope/outputs/42/1.json", outputRecordJson(1, nan));
        const auto records = readOutputRecords(dump.toStdString());
        QCOMPARE(records.size(), size_t(2));
        const OutputRecord &r = records.at(0);
        const auto expected = computeStats(0, reinterpret_cast<const uint8_t *>(ramp(1000, 3.0f).data()), 1000);
        QCOMPARE(r.name, std::string("result_output"));
        QCOMPARE(r.dims, (std::vector<int64_t>{1, 1000}));
        QCOMPARE(r.stats.digest, expected->digest);
        QVERIFY(r.stats.digest != 0);
        QCOMPARE(r.stats.sketch, expected->sketch);
        QCOMPARE(r.stats.l2norm, expected->l2norm);
        QVERIFY(std::isnan(records.at(1).stats.max));
        QCOMPARE(records.at(1).stats.nanCount, uint64_t(1));
        // read from the -o folder above the dump too
        QCOMPARE(readOutputRecords(m_dir.path().toStdString() + "/none").size(), size_t(0));
    }

    void aMalformedRecordIsNamed()
    {
        const QString dump = m_dir.path() + "/bad";
        writeFile(dump + "/llmscope/outputs/7/0.json", "{\"round\": 0, \"name\": \"x\"");
        try {
            readOutputRecords(dump.toStdString());
            QFAIL("a truncated record was read");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("outputs/7/0.json' is malformed"), e.what());
        }
        // fusion records: what each malformed one is refused for
        const auto refused = [&](const char *record, const QString &why) {
            writeFile(dump + "/llmscope/fusion/7/0.json", record);
            try {
                readFusionRecords(dump.toStdString());
            } catch (const Error &e) {
                return QString(e.what()).contains(why);
            }
            return false;
        };
        QVERIFY(refused(R"({"round": 0, "chains": [{"ids": ["1_2"], "names": ["n"], "types": "RMS_NORM"}]})",
                        "two ops or more")); // a chain of one op
        QVERIFY(refused(R"({"round": 0, "chains": [{"ids": ["1_2", "1_3"], "names": ["a", "b"], "types": "RMS_NORM+MUL",
                            "sources": [["in0"], ["op0", "in1"]], "params": [{}, {}], "raw_params": ["0g", "00"]}]})",
                        "raw_params is not hexadecimal"));
        QVERIFY(refused(R"({"round": 0, "chains": [{"ids": ["1_2", "1_3"], "names": ["a", "b"], "types": "RMS_NORM+MUL",
                            "sources": [["in0"]], "params": [{}, {}], "raw_params": ["00", "00"]}]})",
                        "one entry per op")); // sources for one op of two
        QVERIFY(
            refused(R"({"round": 0, "chains": [{"ids": ["1_2", "1_3"], "names": ["a", "b"], "types": "SOFT_MAX+ARGSORT",
                            "outputs": ["1_3"]}]})",
                    "other output '1_3' is not one of its ops before its end")); // the end itself
        QVERIFY(
            refused(R"({"round": 0, "chains": [{"ids": ["1_2", "1_3"], "names": ["a", "b"], "types": "SOFT_MAX+ARGSORT",
                            "outputs": ["9_9"]}]})",
                    "other output '9_9'"));
    }

    void aFusedChainIsFoundByItsEnd()
    {
        const QString dump = m_dir.path() + "/fusion";
        FusedChainRecord c;
        c.ids = {"1_3", "1_4"};
        c.names = {"norm-0", "attn_norm-0"};
        c.types = "RMS_NORM+MUL";
        c.backend = "CPU";
        writeFile(dump + "/llmscope/fusion/9/2.json", fusionRecordJson(2, {c}));
        const auto records = readFusionRecords(dump.toStdString());
        const FusedChainRecord *found = chainEndingAt(records, 2, "1_4");
        QVERIFY(found);
        QCOMPARE(found->names, c.names);
        QCOMPARE(found->backend, std::string("CPU"));
        QVERIFY(!chainEndingAt(records, 2, "1_3")); // an inner op is no chain's end
        QVERIFY(!chainEndingAt(records, 1, "1_4")); // nor another round's
        QVERIFY(found->sources.empty()); // an older record: no way to compute it again
        // How to compute it again: the sources, the parameters decoded and raw, read back
        c.sources = {{"in0"}, {"op0", "in1"}};
        c.params = {R"({"eps":1e-05})", "{}"};
        c.rawParams = {std::string("\xac\xc5\x27\x37\0\xff", 6), std::string(6, '\0')};
        writeFile(dump + "/llmscope/fusion/9/2.json", fusionRecordJson(2, {c}));
        const FusedChainRecord again = *chainEndingAt(readFusionRecords(dump.toStdString()), 2, "1_4");
        QCOMPARE(again.sources, c.sources);
        QCOMPARE(again.params, c.params);
        QCOMPARE(again.rawParams, c.rawParams);
        QVERIFY(again.outputs.empty());
        // a kernel with two outputs (a MoE routing): the inner one read back
        c.ids = {"1_3", "1_4", "1_5"};
        c.names = {"probs", "ffn_moe_topk-0", "ffn_moe_weights-0"};
        c.types = "SOFT_MAX+VIEW+GET_ROWS";
        c.sources.clear();
        c.params.clear();
        c.rawParams.clear();
        c.outputs = {"1_4"};
        writeFile(dump + "/llmscope/fusion/9/2.json", fusionRecordJson(2, {c}));
        const auto routed = readFusionRecords(dump.toStdString());
        QCOMPARE(chainEndingAt(routed, 2, "1_5")->outputs, c.outputs);
        QVERIFY(!chainEndingAt(routed, 2, "1_4")); // not its end
        QCOMPARE(chainWriting(routed, 2, "1_4"), chainEndingAt(routed, 2, "1_5")); // but its kernel writes it
        QCOMPARE(chainWriting(routed, 2, "1_5"), chainEndingAt(routed, 2, "1_5"));
        QVERIFY(!chainWriting(routed, 2, "1_3")); // an inner op that never reached memory
    }

    // The same results bit for bit: nothing changed. One element off in round 1: that round
    // named, its relative error estimated from the sketches. Other tokens: said as such.
    void theObserverCheckFindsTheFirstRoundObservingChanged()
    {
        const QString plain = m_dir.path() + "/plain", same = m_dir.path() + "/same", off = m_dir.path() + "/off",
                      chose = m_dir.path() + "/chose";
        const std::vector<std::vector<int32_t>> tokens{{5, 6, 7}, {8}, {9}};
        const std::vector<std::vector<float>> logits{ramp(512, 1), ramp(512, 2), ramp(512, 3)};
        writeRun(plain, tokens, logits);
        writeRun(same, tokens, logits);
        const ObserverCheck unchanged = checkObserver(plain.toStdString(), same.toStdString());
        QVERIFY(!unchanged.changed());
        QCOMPARE(unchanged.roundsCompared, int64_t(3));
        QVERIFY(
            QString::fromStdString(observerCheckText(unchanged)).startsWith("observing changed nothing: 3 round(s)"));

        auto changed = logits;
        changed[1][100] += 0.5f;
        changed[2][3] += 1.0f; // later rounds differ too: the first is named
        writeRun(off, tokens, changed);
        const ObserverCheck c = checkObserver(plain.toStdString(), off.toStdString());
        QVERIFY(c.changed());
        QCOMPARE(c.resultDiffers.value_or(-1), int64_t(1));
        QCOMPARE(c.roundsCompared, int64_t(2));
        double norm = 0;
        for (float x : logits[1])
            norm += double(x) * x;
        QVERIFY2(std::abs(c.relativeError - 0.5 / std::sqrt(norm)) < 1e-6,
                 qPrintable(QString::number(c.relativeError)));
        QVERIFY(QString::fromStdString(observerCheckText(c))
                    .startsWith("observing changed the program's results: round 1's "
                                "result_output differs"));
        QVERIFY(!c.onlyRounding()); // far beyond rounding
        // a change in the last bits (a value moved by a few units in the last place): said as rounding
        auto nudged = logits;
        nudged[1][100] = std::nextafter(std::nextafter(nudged[1][100], 1e9f), 1e9f);
        writeRun(m_dir.path() + "/nudged", tokens, nudged);
        const ObserverCheck r = checkObserver(plain.toStdString(), (m_dir.path() + "/nudged").toStdString());
        QCOMPARE(r.resultDiffers.value_or(-1), int64_t(1));
        QVERIFY2(r.onlyRounding(), qPrintable(QString::number(r.relativeError)));
        QVERIFY(QString::fromStdString(observerCheckText(r))
                    .startsWith("observing changed the program's results only in "
                                "their last bits: round 1's result_output"));
        // the last bits first, then far more a round later: not rounding
        auto grows = nudged;
        grows[2][3] += 1.0f;
        writeRun(m_dir.path() + "/grows", tokens, grows);
        const ObserverCheck g = checkObserver(plain.toStdString(), (m_dir.path() + "/grows").toStdString());
        QCOMPARE(g.resultDiffers.value_or(-1), int64_t(1));
        QVERIFY(g.relativeError <= ObserverCheck::kRoundingChange);
        QVERIFY2(g.largestRelativeError > 1e-3, qPrintable(QString::number(g.largestRelativeError)));
        QVERIFY(!g.onlyRounding());

        auto otherTokens = tokens;
        otherTokens[2] = {10};
        writeRun(chose, otherTokens, logits);
        const ObserverCheck t = checkObserver(plain.toStdString(), chose.toStdString());
        QCOMPARE(t.tokensDiffer.value_or(-1), int64_t(2));
        QVERIFY(!t.resultDiffers);
        QVERIFY(!t.onlyRounding());
        QVERIFY(QString::fromStdString(observerCheckText(t)).contains("from round 2 it consumed other tokens"));

        // a dump without records (an older probe's): nothing compared, and said so
        const ObserverCheck none = checkObserver(plain.toStdString(), (m_dir.path() + "/empty").toStdString());
        QVERIFY(!none.changed());
        QVERIFY(QString::fromStdString(observerCheckText(none)).contains("compared nothing"));
    }

    // A server's two requests, batched otherwise in the two runs (slot 1's prompt beside slot 0's
    // second token in one, after it in the other): the requests' tokens are held by position,
    // the rounds of the same composition by result, the others counted; a token chosen
    // otherwise is still found.
    void theObserverCheckHoldsRequestsByPosition()
    {
        struct Round {
            std::vector<int32_t> tokens, positions, sequences;
            float scale;
        };
        auto write = [](const QString &dump, const std::vector<Round> &rounds) {
            for (size_t r = 0; r < rounds.size(); ++r) {
                OutputRecord o;
                o.name = "result_output";
                o.dtype = "f32";
                const std::vector<float> v = ramp(256, rounds[r].scale);
                o.dims = {1, 256};
                o.stats = *computeStats(0, reinterpret_cast<const uint8_t *>(v.data()), v.size());
                writeFile(dump + "/llmscope/outputs/42/" + QString::number(r) + ".json",
                          outputRecordJson(int64_t(r), o));
                writeFile(
                    dump + "/llmscope/tokens/42/" + QString::number(r) + ".json",
                    tokenRecordJson(int64_t(r), rounds[r].tokens, false, rounds[r].positions, rounds[r].sequences));
            }
        };
        const QString plain = m_dir.path() + "/server-plain", observed = m_dir.path() + "/server-observed",
                      chose = m_dir.path() + "/server-chose";
        write(plain, {{{1, 2}, {0, 1}, {0, 0}, 1}, {{3, 1, 2}, {2, 0, 1}, {0, 1, 1}, 2}, {{4, 5}, {3, 2}, {0, 1}, 3}});
        write(observed,
              {{{1, 2}, {0, 1}, {0, 0}, 1},
               {{3}, {2}, {0}, 4},
               {{1, 2}, {0, 1}, {1, 1}, 5},
               {{4, 5}, {3, 2}, {0, 1}, 3}});
        const ObserverCheck c = checkObserver(plain.toStdString(), observed.toStdString());
        QVERIFY(!c.changed());
        QCOMPARE(c.roundsCompared, int64_t(2)); // the first and the last: the same tokens, positions and sequences
        QCOMPARE(c.batchedOtherwise, int64_t(2));
        QVERIFY2(QString::fromStdString(observerCheckText(c))
                     .startsWith("observing changed nothing: every request consumed the "
                                 "same tokens"),
                 observerCheckText(c).c_str());
        write(chose,
              {{{1, 2}, {0, 1}, {0, 0}, 1},
               {{3}, {2}, {0}, 4},
               {{1, 2}, {0, 1}, {1, 1}, 5},
               {{4, 6}, {3, 2}, {0, 1}, 3}});
        const ObserverCheck t = checkObserver(plain.toStdString(), chose.toStdString());
        QCOMPARE(t.tokensDiffer.value_or(-1), int64_t(3)); // slot 1's position 2
        QVERIFY(t.changed());
        QVERIFY2(QString::fromStdString(observerCheckText(t)).contains("observing is not shown to be the cause"),
                 observerCheckText(t).c_str());
    }

    // Two runs' configurations as their status files record them: what differs, grouped; a model
    // file of other bytes found by its digest though its name, size and types agree.
    void theConfigurationsDifferWhereTheRunsDo()
    {
        const QString a = m_dir.path() + "/cfg-a", b = m_dir.path() + "/cfg-b";
        QVERIFY(QDir().mkpath(a + "/llmscope") && QDir().mkpath(b + "/llmscope"));
        auto model = [](const QString &path, char fill) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4099, fill)); // not a whole number of words: the tail counts too
        };
        model(a + "/model.gguf", 'x');
        model(b + "/model.gguf", 'y');
        ProbeStatus s;
        s.pid = 10;
        s.rounds = 4;
        s.command = {"llama-cli", "-m", "model.gguf", "-p", "a prompt"};
        s.environment = {"GGML_VK_DISABLE_FUSION=1", "OMP_NUM_THREADS=4"};
        s.objects = {{"/lib/libggml-base.so", 100, "aa", ""}, {"/lib/libvulkan_lvp.so", 200, "bb", "Mesa 22.3.6"}};
        s.devices = {{"Vulkan0", "llvmpipe", "GPU", uint64_t(1) << 31}};
        s.cpuThreads = {4};
        s.models = {(a + "/model.gguf").toStdString()};
        ProbeStatus t = s;
        t.pid = 11;
        t.environment = {"OMP_NUM_THREADS=4"};
        t.objects = {{"/opt/libggml-base.so", 100, "aa", ""}, {"/lib/libvulkan_lvp.so", 200, "cc", "Mesa 23.0.1"}};
        t.cpuThreads = {1};
        t.models = {(b + "/model.gguf").toStdString()};
        writeFileAtomic((a + "/llmscope/10.json").toStdString(), writeProbeStatus(s));
        writeFileAtomic((b + "/llmscope/11.json").toStdString(), writeProbeStatus(t));
        const ConfigDiff d = diffConfigs(readRunConfig(a.toStdString()), readRunConfig(b.toStdString()));
        QStringList said;
        for (const ConfigDifference &x : d.differences)
            said << QString::fromStdString(x.group + "/" + x.key);
        // the same library at another path is the same build; the driver of another build is not
        QCOMPARE(said,
                 QStringList({"environment/GGML_VK_DISABLE_FUSION", "libraries/libvulkan_lvp.so",
                              "hardware/driver libvulkan_lvp.so", "run/CPU threads", "model files/model 1 digest"}));
        QCOMPARE(int(d.differences[0].kind), int(ConfigDifference::Kind::OnlyA));
        QCOMPARE(d.a.pid, int64_t(10));
        const std::string summary = configDiffSummary(d);
        QVERIFY2(summary.rfind("5 of ", 0) == 0 &&
                     summary.find("environment 1 (GGML_VK_DISABLE_FUSION)") != std::string::npos,
                 summary.c_str());
        const auto j = nlohmann::json::parse(configDiffJson(d));
        QCOMPARE(j["differences_by_group"]["run"].get<int>(), 1);
        QCOMPARE(j["differences"].size(), size_t(5));
        QVERIFY(configDiffText(d).find("    test:   1\n") != std::string::npos); // the threads, each side
        // the same run twice: nothing differs
        const ConfigDiff same = diffConfigs(readRunConfig(a.toStdString()), readRunConfig(a.toStdString()));
        QVERIFY(same.differences.empty());
        QCOMPARE(configDiffSummary(same), "no setting differs among " + std::to_string(same.compared));
        QVERIFY(
            configDiffText(d).find("  driver libvulkan_lvp.so\n    golden: Mesa 22.3.6\n    test:   Mesa 23.0.1\n") !=
            std::string::npos);
        // An -o folder: its statuses read once, the root's first (none), then each msit_dump_* folder's
        // in time order; the configuration is the first with statuses', the runs' facts all of them.
        const QString out = m_dir.path() + "/cfg-o";
        QVERIFY(QDir().mkpath(out + "/msit_dump_20261207_000002/llmscope") &&
                QDir().mkpath(out + "/msit_dump_20261207_000001/llmscope") && QDir().mkpath(out + "/llmscope"));
        writeFileAtomic((out + "/msit_dump_20261207_000001/llmscope/10.json").toStdString(), writeProbeStatus(s));
        writeFileAtomic((out + "/msit_dump_20261207_000002/llmscope/11.json").toStdString(), writeProbeStatus(t));
        writeFileAtomic((out + "/llmscope/12.json").toStdString(), "{ not a status");
        const DumpStatuses read = readDumpStatuses(out.toStdString());
        QCOMPARE(read.folders.size(), size_t(3));
        QVERIFY(read.folders[0].statuses.empty());
        QVERIFY(read.folders[1].path.find("000001") != std::string::npos);
        QCOMPARE(read.folders[1].statuses.at(0).pid, int64_t(10));
        QCOMPARE(read.folders[2].statuses.at(0).pid, int64_t(11));
        QCOMPARE(read.problems.size(), size_t(1)); // the malformed one, said
        QCOMPARE(runConfig(read).items.size(), readRunConfig(a.toStdString()).items.size());
        QVERIFY(diffConfigs(runConfig(read), readRunConfig(out.toStdString())).differences.empty());
        // a folder without a status says what to do
        try {
            readRunConfig(m_dir.path().toStdString() + "/nothing-here");
            QFAIL("read a configuration from nothing");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("neither a dump folder"), e.what());
        }
    }

    // A driver's version as it states it: NVIDIA's in its file name, Mesa's in its bytes (found
    // across the reader's chunks); none from a library that states none.
    void aDriversVersionIsReadFromItsLibrary()
    {
        const QString dir = m_dir.path() + "/drivers";
        QVERIFY(QDir().mkpath(dir));
        auto file = [&](const QString &name, const QByteArray &bytes) {
            QFile f(dir + "/" + name);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        QByteArray mesa((1 << 20) - 6, '\x7f'); // "Mesa 22.3.6" across the first megabyte's end
        mesa += QByteArray("Mesa 22.3.6\0more", 16) + QByteArray(1000, '\0');
        file("libvulkan_lvp.so", mesa);
        file("libcuda.so.550.54.15", "elf");
        using namespace std::string_literals; // bytes with zeros in them
        file("libvulkan_radeon.so", QByteArray::fromStdString("Mesa is here, no version\0Mesa 22.H\x01Mesa 22.\x02"s));
        file("libvulkan_intel.so", QByteArray::fromStdString("Mesa 22.\x90Mesa 24.1.0-devel\0"s));
        QVERIFY(isDriverLibrary("libvulkan_lvp.so") && isDriverLibrary("libcuda.so.1") &&
                !isDriverLibrary("libggml-base.so"));
        QCOMPARE(driverVersion((dir + "/libvulkan_lvp.so").toStdString()), std::string("Mesa 22.3.6"));
        QCOMPARE(driverVersion((dir + "/libcuda.so.550.54.15").toStdString()), std::string("550.54.15"));
        QCOMPARE(driverVersion((dir + "/libvulkan_radeon.so").toStdString()), std::string()); // bytes, not versions
        QCOMPARE(driverVersion((dir + "/libvulkan_intel.so").toStdString()), std::string("Mesa 24.1.0-devel"));
        QCOMPARE(driverVersion((dir + "/no-such.so").toStdString()), std::string());
        // as distributions build Mesa; NVIDIA's loaded under its link name; a FIFO is not waited on
        file("libvulkan_dzn.so", QByteArray::fromStdString("x\0Mesa 23.2.1-1ubuntu3.1~22.04.2\0y"s));
        QCOMPARE(driverVersion((dir + "/libvulkan_dzn.so").toStdString()),
                 std::string("Mesa 23.2.1-1ubuntu3.1~22.04.2"));
        QVERIFY(QFile::link(dir + "/libcuda.so.550.54.15", dir + "/libcuda.so.1"));
        QCOMPARE(driverVersion((dir + "/libcuda.so.1").toStdString()), std::string("550.54.15"));
        QCOMPARE(::mkfifo((dir + "/libvulkan_fifo.so").toLocal8Bit().constData(), 0600), 0);
        QCOMPARE(driverVersion((dir + "/libvulkan_fifo.so").toStdString()), std::string());
    }
};

QTEST_GUILESS_MAIN(TstRunRecords)
#include "tst_runrecords.moc"
