#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/dump_writer.h"
#include "core/dump/statistic_csv.h"
#include "core/dump/tensor_index.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/sketch.h"
#include "core/tensor/stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
// The window's scan, a round at a time, finds what the whole scan finds: the same tensors in
// the same order, the same problems and topology files; its chunks come in round order.
bool sameByRound(const std::string &root)
{
    const DumpIndex whole = scanDump(root);
    std::vector<int64_t> chunkRounds;
    size_t chunked = 0;
    const DumpIndex byRound = scanDumpByRound(root, [&](const DumpIndex &chunk) {
        chunked += chunk.tensors.size();
        for (const auto &t : chunk.tensors)
            if (chunkRounds.empty() || chunkRounds.back() != t.exec)
                chunkRounds.push_back(t.exec);
        return true;
    });
    auto paths = [](const DumpIndex &i) {
        std::vector<std::string> out;
        for (const auto &t : i.tensors)
            out.push_back(t.path + "#" + std::to_string(t.exec) + t.opId);
        return out;
    };
    bool ok = paths(whole) == paths(byRound) && chunked == whole.tensors.size() && whole.layout == byRound.layout &&
        whole.problems.size() == byRound.problems.size() && whole.modelFiles == byRound.modelFiles &&
        whole.layerFiles == byRound.layerFiles && whole.torchTreeFiles == byRound.torchTreeFiles;
    ok = ok && std::is_sorted(chunkRounds.begin(), chunkRounds.end());
    if (!ok)
        qWarning("by round: %zu tensors (%zu in chunks), layout '%s', %zu problems; whole: %zu, '%s', %zu",
                 byRound.tensors.size(), chunked, byRound.layout.c_str(), byRound.problems.size(), whole.tensors.size(),
                 whole.layout.c_str(), whole.problems.size());
    return ok;
}
} // namespace

class TstDumpIndex : public QObject {
    Q_OBJECT
private slots:
    void msitLayout()
    {
        QTemporaryDir dir;
        const std::string root = testing::writeSyntheticDump(dir.path().toStdString());
        std::vector<std::pair<uint64_t, uint64_t>> calls;
        const DumpIndex idx = scanDump(dir.path().toStdString(), [&](uint64_t d, uint64_t t) {
            calls.emplace_back(d, t);
            return true;
        });
        QCOMPARE(idx.layout, std::string("msit"));
        QCOMPARE(idx.tensors.size(), size_t(16));
        QVERIFY(idx.problems.empty());
        QCOMPARE(idx.rounds(), (std::vector<int64_t>{0, 1}));
        QVERIFY(!calls.empty());
        QCOMPARE(calls.back(), std::make_pair(uint64_t(16), uint64_t(16)));
        // Sorted by round, then op id: 0, 1_0, 1_1, 2; inputs before outputs.
        const TensorRecord &t = idx.tensors[4];
        QCOMPARE(t.exec, int64_t(0));
        QCOMPARE(t.opId, std::string("1_1"));
        QCOMPARE(t.opName, std::string("Linear"));
        QCOMPARE(t.opFolders, (std::vector<std::string>{"1_Layer", "1_Linear"}));
        QVERIFY(t.before && t.input);
        QCOMPARE(t.pid, int64_t(4242));
        QCOMPARE(t.device, 0);
        QCOMPARE(t.dims, (std::vector<int64_t>{2, 2}));
        QCOMPARE(t.dataBytes, uint64_t(16));
        QVERIFY(QFile::exists(QString::fromStdString(t.path)));
        QCOMPARE(readBin(t.path).data.size(), size_t(16));
        QVERIFY(!idx.tensors[5].input && !idx.tensors[5].before);
        // The scan also works from the msit_dump_* folder itself.
        QCOMPARE(scanDump(root).tensors.size(), size_t(16));
        QVERIFY(sameByRound(dir.path().toStdString()));
        QVERIFY(sameByRound(root));
    }

    void fileNameVariants_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("input");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("param");
        QTest::newRow("lower") << "intensor3.bin" << true << 3 << "";
        QTest::newRow("camel") << "outTensor1.bin" << false << 1 << "";
        QTest::newRow("param") << "outtensor0_output.bin" << false << 0 << "output";
        QTest::newRow("param camel") << "inTensor2_Query_States.bin" << true << 2 << "Query_States";
    }
    void fileNameVariants()
    {
        QFETCH(QString, file);
        QFETCH(bool, input);
        QFETCH(int, index);
        QFETCH(QString, param);
        QTemporaryDir dir;
        const QString folder = dir.path() + "/msit_dump_x/tensors/1_77/5/2_Attention/After";
        QDir().mkpath(folder);
        writeBin((folder + "/" + file).toStdString(), testing::f32Tensor({1}, {1}));
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.tensors.size(), size_t(1));
        const auto &t = idx.tensors[0];
        QCOMPARE(t.input, input);
        QCOMPARE(t.index, index);
        QCOMPARE(QString::fromStdString(t.param), param);
        QCOMPARE(t.device, 1);
        QCOMPARE(t.exec, int64_t(5));
        QVERIFY(!t.before);
        QVERIFY(!parseTensorFileName("intensor.bin"));
        QVERIFY(!parseTensorFileName("weights.bin"));
        // a tensor's file by its name, as std::filesystem's extension() reads it, in any case
        for (const char *yes : {"a/after/outtensor0.bin", "x.NPY", "d/w.Bin", "a..bin"})
            QVERIFY2(isTensorFile(yes), yes);
        for (const char *no : {"a/statistic.csv", "a/.bin", ".npy", "bin", "a/x.bint", "a/xbin", ""})
            QVERIFY2(!isTensorFile(no), no);
    }

    void statsOnlyFilesCarryTheirStats()
    {
        QTemporaryDir dir;
        const QString folder = dir.path() + "/tensors/0_1/0/0_Op/after";
        QDir().mkpath(folder);
        Tensor h;
        h.dims = {3};
        setStatsAttrs(h, computeStats(testing::f32Tensor({3}, {1, 2, 6})));
        writeBin((folder + "/outtensor0.bin").toStdString(), h);
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.tensors.size(), size_t(1));
        QVERIFY(!idx.tensors[0].hasData);
        QVERIFY(idx.tensors[0].stats);
        QCOMPARE(idx.tensors[0].stats->mean, 3.0);
    }

    // llmscope's statistic.csv carries each tensor's sketch and digest in their columns; a header
    // without the column (msProbe's own) reads as before.
    void statisticCsvCarriesTheSketch()
    {
        QTemporaryDir dir;
        StatisticRow r;
        r.pid = 9;
        r.exec = 2;
        r.opFolders = {"1_DecoderLayer", "3_MUL_MAT"};
        r.opType = "MUL_MAT";
        r.dims = {4};
        r.stats = computeStats(testing::f32Tensor({4}, {1, -2, 3, 0.5f}));
        r.tensorPath = dir.path().toStdString() + "/tensors/0_9/2/1_DecoderLayer/3_MUL_MAT/after/outtensor0.bin";
        QVERIFY(QDir().mkpath(dir.path() + "/tensors/0_9/2"));
        const std::string csv = dir.path().toStdString() + "/tensors/0_9/2/statistic.csv";
        writeFileAtomic(csv, statisticCsvHeader() + statisticCsvLine(r));
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QVERIFY(idx.problems.empty());
        QCOMPARE(idx.tensors.size(), size_t(1));
        QVERIFY(idx.tensors[0].stats);
        QCOMPARE(idx.tensors[0].stats->sketch, r.stats->sketch);
        QCOMPARE(idx.tensors[0].stats->sketch.size(), size_t(kSketchBuckets));
        QVERIFY(r.stats->digest);
        QCOMPARE(idx.tensors[0].stats->digest, r.stats->digest); // and its digest in the Digest column
    }

    // A PyTorch dump's weights/statistics.csv (register_hook's): a record a parameter, no
    // round, its statistics and sketch; a line whose shape no tensor has is a problem, alone.
    void torchWeightStatistics()
    {
        QTemporaryDir dir;
        const QString weights = dir.path() + "/torch_tensors/cpu_7/weights";
        QVERIFY(QDir().mkpath(weights));
        const auto stats = computeStats(testing::f32Tensor({4}, {1, -2, 3, 0.5f}));
        const std::string sketch = encodeSketch(stats->sketch);
        writeFileAtomic(
            weights.toStdString() + "/statistics.csv",
            "NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm,Parameter,Sketch\n"
            "root.model.layers.0.mlp.down_proj,Linear,Input,0,torch.float32,\"(2, 2)\",3,-2,0.625,3.8406,weight," +
                sketch +
                "\n"
                "root.model.norm,Norm,Input,0,torch.float32,\"(4294967296, 4294967296, 4294967296)\",1,1,1,1,weight,\n");
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.layout, std::string("torch"));
        QCOMPARE(idx.tensors.size(), size_t(1));
        const TensorRecord &r = idx.tensors[0];
        QCOMPARE(r.exec, int64_t(-1));
        QCOMPARE(r.param, std::string("weight"));
        QCOMPARE(r.opName, std::string("root.model.layers.0.mlp.down_proj"));
        QVERIFY(!r.hasData && r.stats);
        QCOMPARE(r.stats->count, uint64_t(4));
        QCOMPARE(r.stats->sketch, stats->sketch);
        QCOMPARE(idx.problems.size(), size_t(1));
        QVERIFY(idx.problems[0].message.find("a shape no tensor has") != std::string::npos);
    }

    void msprobeLayout()
    {
        QTemporaryDir dir;
        const QString base = dir.path() + "/atb_dump_data";
        const QString folder = base + "/data/0_99/3/1_Decoder/0_Linear/after";
        QDir().mkpath(folder);
        QDir().mkpath(base + "/info/model/0_99");
        writeBin((folder + "/outtensor0.bin").toStdString(), testing::f32Tensor({2}, {1, 2}));
        QFile::copy(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json",
                    base + "/info/model/0_99/Bloom7BFlashAttentionModel.json");
        writeFileAtomic((base + "/data/0_99/3/statistic.csv").toStdString(),
                        "Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,"
                        "Max,Min,Mean,Norm,Tensor Path\n"
                        "0_99,3,Linear_1_0,LinearOperation,1_0,input,0,float16,ND,2x8,4.5,-1,0.25,9.75,/x/in0.bin\n"
                        "0_99,3,Linear_1_0,LinearOperation,1_0,output,0,float16,ND,2x8,N/A,N/A,N/A,N/A,/x/out0.bin\n");
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.layout, std::string("msprobe"));
        QCOMPARE(idx.tensors.size(), size_t(3));
        QCOMPARE(idx.modelFiles.size(), size_t(1));
        const auto it = std::find_if(idx.tensors.begin(), idx.tensors.end(),
                                     [](const TensorRecord &r) { return r.path == "/x/in0.bin"; });
        QVERIFY(it != idx.tensors.end());
        QCOMPARE(it->dims, (std::vector<int64_t>{2, 8}));
        QCOMPARE(it->dtype, int32_t(1));
        QVERIFY(it->stats && it->stats->l2norm == 9.75);
        QCOMPARE(it->exec, int64_t(3));
        QVERIFY(idx.problems.empty());
        QVERIFY(sameByRound(dir.path().toStdString())); // statistic.csv lies in the round's folder
    }

    void topologyFilesAreListed()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        const QString root = QDir(dir.path()).entryList({"msit_dump_*"}, QDir::Dirs).value(0);
        QDir().mkpath(dir.path() + "/" + root + "/model/4242");
        QDir().mkpath(dir.path() + "/" + root + "/layer/4242");
        QDir().mkpath(dir.path() + "/" + root + "/torch_tensors/cpu_1");
        QVERIFY(QFile::copy(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json",
                            dir.path() + "/" + root + "/model/4242/Bloom7BFlashAttentionModel.json"));
        QVERIFY(QFile::copy(LLMSCOPE_TESTDATA "/msit/model_tree.json",
                            dir.path() + "/" + root + "/torch_tensors/cpu_1/model_tree.json"));
        writeFileAtomic((dir.path() + "/" + root + "/layer/4242/Layer_0.json").toStdString(),
                        R"({"opName":"Layer_0","opType":"Layer","nodes":[]})");
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.modelFiles.size(), size_t(1));
        QCOMPARE(idx.layerFiles.size(), size_t(1));
        QCOMPARE(idx.torchTreeFiles.size(), size_t(1));
        QCOMPARE(readTopologyFile(idx.modelFiles[0]).name, std::string("Bloom7BFlashAttentionModel"));
        QCOMPARE(readTopologyFile(idx.torchTreeFiles[0]).type, std::string("BloomLayer"));
        QVERIFY(sameByRound(dir.path().toStdString()));
    }

    // Unreadable files are reported and the rest of the dump still opens.
    void corruptFilesAreProblemsNotFailures()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        const QString folder = dir.path() + "/msit_dump_y/tensors/0_5/0/0_Op/after";
        QDir().mkpath(folder);
        std::ofstream((folder + "/outtensor0.bin").toStdString()) << "$Version=1.0\n$Object.Length=99\n";
        std::ofstream((folder + "/outtensor1.bin").toStdString()) << "";
        QDir().mkpath(dir.path() + "/msit_dump_y/tensors/notapid/0/0_Op/after");
        writeBin((dir.path() + "/msit_dump_y/tensors/notapid/0/0_Op/after/outtensor0.bin").toStdString(),
                 testing::f32Tensor({1}, {1}));
        // A leftover temporary file from a killed writer is not a tensor.
        std::ofstream((folder + "/outtensor2.bin.tmp.123.0").toStdString()) << "$Version=1.0\n";
        const DumpIndex idx = scanDump(dir.path().toStdString());
        QCOMPARE(idx.tensors.size(), size_t(16));
        QCOMPARE(idx.problems.size(), size_t(3));
        QVERIFY(sameByRound(dir.path().toStdString()));
    }

    // Two processes' rounds in one dump: each round's folders of both, in round order.
    void byRoundOverProcesses()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString(), 4242);
        testing::writeSyntheticDump(dir.path().toStdString(), 777);
        std::vector<size_t> sizes;
        const DumpIndex idx = scanDumpByRound(dir.path().toStdString(), [&](const DumpIndex &chunk) {
            sizes.push_back(chunk.tensors.size());
            return true;
        });
        QCOMPARE(idx.tensors.size(), size_t(32));
        QCOMPARE(sizes, (std::vector<size_t>{16, 16})); // rounds 0 and 1, both processes in each
        QVERIFY(sameByRound(dir.path().toStdString()));
        // Cancel from the round sink or from the progress.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 scanDumpByRound(dir.path().toStdString(), [](const DumpIndex &) { return false; }));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 scanDumpByRound(
                                     dir.path().toStdString(), [](const DumpIndex &) { return true; },
                                     [](uint64_t, uint64_t) { return false; }));
    }

    // The writer's index lists what a walk that opens every file finds, and the window's scan
    // takes it: a line altered in a closed index shows in the scan (so the index is read), the
    // same line in an index that cannot be trusted does not (so the folder is walked).
    void writersIndexStandsForTheWalk_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<bool>("used");
        QTest::newRow("closed") << "" << true;
        QTest::newRow("no end line (killed)") << "drop-end" << false;
        QTest::newRow("a line after the end") << "after-end" << false;
        QTest::newRow("end line miscounts") << "miscount" << false;
        QTest::newRow("unreadable line") << "garbage" << false;
        QTest::newRow("path outside its folder") << "escape" << false;
        QTest::newRow("path of another process") << "other-pid" << false;
        QTest::newRow("wrong first line") << "first-line" << false;
    }
    void writersIndexStandsForTheWalk()
    {
        QFETCH(QString, damage);
        QFETCH(bool, used);
        QTemporaryDir dir;
        const std::string root = testing::writeSyntheticDump(dir.path().toStdString());
        const std::string indexFile = root + "/llmscope/index/0_4242.tsv";
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
        const auto listed = readTensorIndex(indexFile);
        QVERIFY(listed);
        QCOMPARE(listed->size(), size_t(16));

        // The first tensor line gets other dims (2x2 -> 4): a scan that reads the index says 4.
        std::ifstream in(indexFile);
        std::vector<std::string> lines;
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
        const size_t tab = lines[1].find("\t2,2\t");
        QVERIFY(tab != std::string::npos);
        lines[1].replace(tab, 5, "\t4\t");
        if (damage == "drop-end")
            lines.pop_back();
        else if (damage == "after-end")
            lines.push_back(lines[2]);
        else if (damage == "miscount")
            lines.back() = "# end 15";
        else if (damage == "garbage")
            lines[3] = "tensors/0_4242/0/0_Embed/after\tnot a number";
        else if (damage == "escape")
            lines[3].replace(0, lines[3].find("/0/"), "tensors/0_4242/../0_4242");
        else if (damage == "other-pid")
            lines[3].replace(0, lines[3].find("/0/"), "tensors/0_17");
        else if (damage == "first-line")
            lines[0] = "# llmscope tensor index 2";
        std::ofstream out(indexFile, std::ios::trunc);
        for (const auto &l : lines)
            out << l << '\n';
        out.close();
        const DumpIndex scanned = scanDumpByRound(root, [](const DumpIndex &) { return true; });
        const auto first = std::find_if(scanned.tensors.begin(), scanned.tensors.end(), [&](const TensorRecord &t) {
            return t.path == root + "/" + lines[1].substr(0, lines[1].find('\t'));
        });
        QVERIFY(first != scanned.tensors.end());
        QCOMPARE(first->dims, used ? std::vector<int64_t>({4}) : std::vector<int64_t>({2, 2}));
        if (!used)
            QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
    }

    // What the index does not list is walked: a round written after it was closed (marked,
    // so the index is no longer used), and a round folder it lists that is gone.
    void roundsBesideTheIndex()
    {
        QTemporaryDir dir;
        DumpWriter w(testing::writerOptions(dir.path().toStdString()));
        for (int64_t round = 0; round < 3; ++round)
            w.writeTensor(0, 7, round, {"0_Embed"}, false, false, 0, testing::f32Tensor({2}, {float(round), 1}));
        w.finishIndex();
        const std::string root = w.root(), indexFile = root + "/llmscope/index/0_7.tsv";
        QVERIFY(readTensorIndex(indexFile));
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
        QDir(QString::fromStdString(root + "/tensors/0_7/1")).removeRecursively();
        QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
        QCOMPARE(scanDumpByRound(root, [](const DumpIndex &) { return true; }).tensors.size(), size_t(2));
        w.writeTensor(0, 7, 3, {"0_Embed"}, false, false, 0, testing::f32Tensor({2}, {3, 1}));
        QVERIFY(!readTensorIndex(indexFile));
        QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
        QCOMPARE(scanDumpByRound(root, [](const DumpIndex &) { return true; }).tensors.size(), size_t(3));
    }

    // An index larger than any real one (here a sparse file of 1 GiB and a byte) is not read
    // into memory: the folder is walked.
    void oversizedIndexIsWalked()
    {
        QTemporaryDir dir;
        const std::string root = testing::writeSyntheticDump(dir.path().toStdString());
        const std::string index = root + "/llmscope/index/0_4242.tsv";
        std::filesystem::resize_file(index, (std::uintmax_t(1) << 30) + 1);
        QVERIFY(!readTensorIndex(index));
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(root, why), why.c_str());
    }

    // Hostile names (a tab, a line break, "..") reach the index as the folders they were
    // written to: one line each, and the scan that reads it finds what the walk finds.
    void hostileNamesInTheIndex()
    {
        QTemporaryDir dir;
        DumpWriter w(testing::writerOptions(dir.path().toStdString()));
        w.writeTensor(0, 9, 0, {"0_Embed"}, false, false, 0, testing::f32Tensor({1}, {1}));
        w.writeTensor(0, 9, 0, {"1_a\tb\nc"}, false, false, 0, testing::f32Tensor({1}, {2}));
        w.writeTensor(0, 9, 0, {"2_..", "0_/x"}, false, false, 0, testing::f32Tensor({1}, {3}));
        w.finishIndex();
        const auto listed = readTensorIndex(w.root() + "/llmscope/index/0_9.tsv");
        QVERIFY(listed);
        QCOMPARE(listed->size(), size_t(3));
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(w.root(), why), why.c_str());
    }

    void cancelAndBadRoots()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        QVERIFY_THROWS_EXCEPTION(Error, scanDump(dir.path().toStdString(), [](uint64_t, uint64_t) { return false; }));
        QVERIFY_THROWS_EXCEPTION(Error, scanDump("/nonexistent/dump"));
        QVERIFY_THROWS_EXCEPTION(Error, scanDump(LLMSCOPE_TESTDATA "/msit/model_tree.json"));
        QTemporaryDir empty;
        const DumpIndex e = scanDump(empty.path().toStdString());
        QVERIFY(e.tensors.empty());
        QCOMPARE(e.layout, std::string());
    }
};

QTEST_GUILESS_MAIN(TstDumpIndex)
#include "tst_dumpindex.moc"
