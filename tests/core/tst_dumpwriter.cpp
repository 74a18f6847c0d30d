#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/dump/dump_layout.h"
#include "core/dump/dump_writer.h"
#include "core/dump/op_info_csv.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/tensor/bin_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/test_helpers.h"

using namespace llmscope;

namespace {
mode_t modeOf(const QString &path)
{
    struct stat st {};
    ::stat(path.toLocal8Bit().constData(), &st);
    return st.st_mode & 0777;
}

DumpWriter::Options options(const QString &dir)
{
    DumpWriter::Options o;
    o.outDir = dir.toStdString();
    o.timestamp = 1700000000;
    o.minFreeBytes = 0;
    return o;
}
} // namespace

class TstDumpWriter : public QObject {
    Q_OBJECT
private slots:
    // msit's op/kernel info: its header, ';' lists, '|' kept out of values, read back; a file
    // that is not one is refused with the reason.
    void opInfoCsvRoundTrips()
    {
        OpInfoRow r;
        r.caseName = "ffn|out-2";
        r.opName = "MUL_MAT";
        r.opParam = "{}";
        r.inDtypes = {"q8_0", "f32"};
        r.inFormats = {"ND", "ND"};
        r.inShapes = {"512,256", "18,256"};
        r.outDtypes = {"f32"};
        r.outFormats = {"ND"};
        r.outShapes = {"18,512"};
        r.outFiles = {"/d/after/outtensor0.bin"};
        r.testType = "kernel";
        r.fromModel = "3_29";
        r.socVersion = "CUDA0";
        const std::string text = opInfoCsv({r, r}, 7);
        QVERIFY(text.rfind(std::string(kOpInfoHeader) + "\n", 0) == 0);
        QVERIFY(text.find("\n8|ffn/out-2|MUL_MAT|{}|2|q8_0;f32|ND;ND|512,256;18,256|1|f32|") != std::string::npos);
        const auto back = parseOpInfoCsv(text);
        QCOMPARE(back.size(), size_t(2));
        QCOMPARE(back[0].caseName, std::string("ffn/out-2"));
        QCOMPARE(back[1].inShapes, r.inShapes);
        QVERIFY(back[1].inFiles.empty());
        QCOMPARE(back[1].outFiles, r.outFiles);
        QCOMPARE(back[1].socVersion, std::string("CUDA0"));
        QCOMPARE(opInfoPath(true, 42, 3, 1), std::string("kernel_io_tensors/42/kernel_tensors_3_1.csv"));
        QCOMPARE(opInfoPath(false, 42, 3), std::string("operation_io_tensors/42/operation_tensors_3.csv"));
        for (const char *bad : {"a|b\n", "CaseNum|x\n"}) {
            try {
                parseOpInfoCsv(bad);
                QFAIL("accepted");
            } catch (const Error &e) {
                QVERIFY(QString(e.what()).contains("header"));
            }
        }
        try {
            parseOpInfoCsv(std::string(kOpInfoHeader) + "\n1|x|y\n");
            QFAIL("accepted a short row");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).contains("has 3 fields"));
        }
    }

    // The probe's status and token records read back; a number no integer of its field holds
    // (1e300, -1.5, a negative count, a token past int32) is refused, never converted.
    void probeFilesRefuseNumbersNoIntegerHolds()
    {
        ProbeStatus s;
        s.pid = 42;
        s.rounds = 3;
        s.stoppedRounds = {1};
        const ProbeStatus back = parseProbeStatus(writeProbeStatus(s));
        QCOMPARE(back.pid, int64_t(42));
        QCOMPARE(back.rounds, uint64_t(3));
        QCOMPARE(back.stoppedRounds, std::vector<int64_t>{1});
        QCOMPARE(back.firstDumped, int64_t(-1));
        // the program's copies into the KV cache, each field back as written
        s.stateCopies = {StateCopy{.beforeRound = 2,
                                   .cache = "cache_v_l1",
                                   .fromStream = 0,
                                   .toStream = 1,
                                   .bytes = 65536,
                                   .checked = true,
                                   .rows = 128,
                                   .rowsDiffering = 3,
                                   .firstDiffering = 17}};
        const StateCopy copied = parseProbeStatus(writeProbeStatus(s)).stateCopies.at(0);
        QCOMPARE(copied.beforeRound, int64_t(2));
        QCOMPARE(copied.cache, std::string("cache_v_l1"));
        QCOMPARE(copied.fromStream, int64_t(0));
        QCOMPARE(copied.toStream, int64_t(1));
        QCOMPARE(copied.bytes, uint64_t(65536));
        QVERIFY(copied.checked);
        QCOMPARE(copied.rows, uint64_t(128));
        QCOMPARE(copied.rowsDiffering, uint64_t(3));
        QCOMPARE(copied.firstDiffering, int64_t(17));
        s.stateCopiesDropped = 7; // past the list's limit: said, never dropped silently
        QCOMPARE(parseProbeStatus(writeProbeStatus(s)).stateCopiesDropped, uint64_t(7));
        s.stateCopiesDropped = 0;
        {
            nlohmann::json j = nlohmann::json::parse(writeProbeStatus(s));
            j["state_copies"][0]["rows_differing"] = -3;
            try {
                parseProbeStatus(j.dump());
                QFAIL("a negative count of differing rows accepted");
            } catch (const Error &e) {
                QVERIFY2(QString(e.what()).contains("rows_differing"), e.what());
            }
            j["state_copies"] = "none";
            QVERIFY_THROWS_EXCEPTION(Error, parseProbeStatus(j.dump()));
        }
        s.stateCopies.clear();
        // the run's configuration back as written (llmscope config-diff reads it)
        s.workingDirectory = "/srv/model";
        s.objects = {LoadedObject{"/usr/lib/libvulkan_lvp.so", 6918024, "24e14f", "Mesa 22.3.6"}};
        s.devices = {BackendDevice{"Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", "GPU", uint64_t(2) << 30}};
        s.cpuFeatures = {"AVX2=1", "F16C=1"};
        s.cpuThreads = {1, 4};
        {
            const ProbeStatus c = parseProbeStatus(writeProbeStatus(s));
            QCOMPARE(c.workingDirectory, std::string("/srv/model"));
            QCOMPARE(c.objects.size(), size_t(1));
            QCOMPARE(c.objects[0].path, std::string("/usr/lib/libvulkan_lvp.so"));
            QCOMPARE(c.objects[0].bytes, uint64_t(6918024));
            QCOMPARE(c.objects[0].buildId, std::string("24e14f"));
            QCOMPARE(c.objects[0].driver, std::string("Mesa 22.3.6"));
            QCOMPARE(c.devices.size(), size_t(1));
            QCOMPARE(c.devices[0].description, std::string("llvmpipe (LLVM 15.0.6, 256 bits)"));
            QCOMPARE(c.devices[0].memory, uint64_t(2) << 30);
            QCOMPARE(c.cpuFeatures, (std::vector<std::string>{"AVX2=1", "F16C=1"}));
            QCOMPARE(c.cpuThreads, (std::vector<int>{1, 4}));
            nlohmann::json j = nlohmann::json::parse(writeProbeStatus(s));
            j["devices"][0]["memory"] = -1;
            QVERIFY_THROWS_EXCEPTION(Error, parseProbeStatus(j.dump()));
        }
        const std::vector<std::pair<std::string, nlohmann::json>> refused{{"pid", 1e300},
                                                                          {"rounds", -1.5},
                                                                          {"bytes", -1},
                                                                          {"first_dumped", 1e19},
                                                                          {"stopped_rounds", {1e300}},
                                                                          {"cpu_threads", {1e10}}};
        for (const auto &[key, value] : refused) {
            nlohmann::json j = nlohmann::json::parse(writeProbeStatus(s));
            j[key] = value;
            try {
                parseProbeStatus(j.dump());
                QFAIL(qPrintable(QString::fromStdString(key + " " + value.dump() + " accepted")));
            } catch (const Error &e) {
                QVERIFY2(QString(e.what()).contains(QString::fromStdString(key)), e.what());
            }
        }
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        llmscope::makeDirs(root + "/llmscope/tokens/7");
        writeFileAtomic(root + "/" + tokenRecordPath(7, 0), tokenRecordJson(0, {1, 15043}, true));
        const auto records = readTokenRecords(root);
        QCOMPARE(records.size(), size_t(1));
        QCOMPARE(records.at(0).tokens, (std::vector<int32_t>{1, 15043}));
        QVERIFY(records.at(0).replaced);
        for (const char *bad : {R"({"round":0,"tokens":[1e300]})", R"({"round":0,"tokens":[2147483648]})",
                                R"({"round":1e300,"tokens":[1]})", R"({"round":0,"tokens":[1.5]})"}) {
            writeFileAtomic(root + "/" + tokenRecordPath(7, 0), std::string(bad));
            try {
                readTokenRecords(root);
                QFAIL(bad);
            } catch (const Error &e) {
                QVERIFY2(QString(e.what()).contains("is malformed"), e.what());
            }
        }
    }

    // -symlink: the same bytes a second time become a relative link to the first file; the
    // same size with other values, or another header, are written as files.
    void symlinkForIdenticalTensors()
    {
        QTemporaryDir dir;
        DumpWriter::Options o = options(dir.path());
        o.symlink = true;
        DumpWriter w(o);
        const Tensor a = testing::f32Tensor({2, 2}, {1, 2, 3, 4});
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_MUL_MAT"}, true, true, 1, a));
        QVERIFY(w.writeTensor(0, 1, 1, {"1_L", "0_MUL_MAT"}, true, true, 1, a)); // the same
        QVERIFY(w.writeTensor(0, 1, 2, {"1_L", "0_MUL_MAT"}, true, true, 1, testing::f32Tensor({2, 2}, {1, 2, 3, 5})));
        QVERIFY(w.writeTensor(0, 1, 3, {"1_L", "0_MUL_MAT"}, true, true, 1, testing::f32Tensor({4}, {1, 2, 3, 4})));
        QCOMPARE(w.tensorsWritten(), uint64_t(4));
        QCOMPARE(w.tensorsLinked(), uint64_t(1));
        const std::string second = w.tensorPath(0, 1, 1, {"1_L", "0_MUL_MAT"}, true, true, 1);
        QVERIFY(std::filesystem::is_symlink(second));
        QCOMPARE(std::filesystem::read_symlink(second).string(),
                 std::string("../../../../0/1_L/0_MUL_MAT/before/intensor1.bin"));
        QVERIFY(readBin(second).data == a.data);
        for (int round : {2, 3})
            QVERIFY(!std::filesystem::is_symlink(w.tensorPath(0, 1, round, {"1_L", "0_MUL_MAT"}, true, true, 1)));
    }

    // A weight written once a run: its first file holds the bytes, later rounds are relative
    // links to it (indexed like the file), the bytes of later calls not even looked at; a key
    // whose first copy never came is skipped with a warning, not written empty.
    void tensorOnceWrittenThenLinked()
    {
        QTemporaryDir dir;
        DumpWriter::Options o = options(dir.path());
        std::vector<std::string> warnings;
        o.warn = [&](const std::string &m) { warnings.push_back(m); };
        DumpWriter w(o);
        const Tensor a = testing::f32Tensor({2, 2}, {1, 2, 3, 4});
        Tensor header = a;
        header.data.clear();
        header.hasData = false;
        QVERIFY(w.writeTensorOnce(7, 0, 1, 0, {"1_L", "0_MUL_MAT"}, true, true, 0, a));
        QVERIFY(w.writeTensorOnce(7, 0, 1, 1, {"1_L", "0_MUL_MAT"}, true, true, 0, header));
        QVERIFY(w.writeTensorOnce(7, 0, 1, 2, {"1_L", "3_MUL_MAT"}, true, true, 0, header));
        QVERIFY(!w.writeTensorOnce(8, 0, 1, 2, {"1_L", "4_MUL_MAT"}, true, true, 0, header));
        QCOMPARE(w.tensorsWritten(), uint64_t(3));
        QCOMPARE(w.tensorsLinked(), uint64_t(2));
        QCOMPARE(w.tensorsSkipped(), uint64_t(1));
        QCOMPARE(w.bytesWritten(), uint64_t(16));
        QCOMPARE(warnings.size(), size_t(1));
        QVERIFY(warnings[0].find("first copy of this weight was not written") != std::string::npos);
        const std::string third = w.tensorPath(0, 1, 2, {"1_L", "3_MUL_MAT"}, true, true, 0);
        QCOMPARE(std::filesystem::read_symlink(third).string(),
                 std::string("../../../../0/1_L/0_MUL_MAT/before/intensor0.bin"));
        QVERIFY(readBin(third).data == a.data);
        QVERIFY(!std::filesystem::exists(w.tensorPath(0, 1, 2, {"1_L", "4_MUL_MAT"}, true, true, 0)));
        w.finishIndex();
        std::string why;
        QVERIFY2(testing::indexedScanMatchesWalk(w.root(), why), why.c_str());
    }

    // Links planted inside a dump are never written through: a folder that is a link to
    // elsewhere is refused (nothing lands there), and a file that is a link is replaced by the
    // tensor's file, its target untouched.
    void plantedLinksAreNotFollowed()
    {
        QTemporaryDir dir, elsewhere;
        DumpWriter w(options(dir.path()));
        const Tensor a = testing::f32Tensor({2}, {1, 2});
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_ADD"}, false, false, 0, a));
        const std::string round1 = w.root() + "/tensors/0_1/1";
        QVERIFY(QFile::link(elsewhere.path(), QString::fromStdString(round1)));
        QVERIFY_THROWS_EXCEPTION(Error, w.writeTensor(0, 1, 1, {"1_L", "0_ADD"}, false, false, 0, a));
        QVERIFY(QDir(elsewhere.path()).isEmpty());
        const QString target = elsewhere.path() + "/precious.txt";
        QFile t(target);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write("keep");
        t.close();
        const std::string file = w.tensorPath(0, 1, 0, {"1_L", "0_MUL"}, false, false, 0);
        QVERIFY(QDir().mkpath(QFileInfo(QString::fromStdString(file)).path()));
        QVERIFY(QFile::link(target, QString::fromStdString(file)));
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_MUL"}, false, false, 0, a));
        QVERIFY(!QFileInfo(QString::fromStdString(file)).isSymLink());
        QVERIFY(t.open(QIODevice::ReadOnly));
        QCOMPARE(t.readAll(), QByteArray("keep"));
        t.close();
        // the tensor index's folder too: a link planted at llmscope/ is not written through
        QTemporaryDir dir2;
        DumpWriter w2(options(dir2.path()));
        QVERIFY(QFile::link(elsewhere.path(), QString::fromStdString(w2.root()) + "/llmscope"));
        QVERIFY(w2.writeTensor(0, 1, 0, {"1_L", "0_ADD"}, false, false, 0, a));
        w2.finishIndex();
        QCOMPARE(QDir(elsewhere.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{"precious.txt"});
    }

    // During a dump, a folder the writer has used already is swapped for a link to elsewhere
    // (the op's folder, and the round's above it): the next files never land there. Folders
    // the writer keeps open get them where they now are; a link met on the way is refused.
    void linksPlantedDuringTheDumpAreNotFollowed()
    {
        QTemporaryDir dir, elsewhere;
        DumpWriter w(options(dir.path()));
        const Tensor a = testing::f32Tensor({2}, {1, 2});
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_ADD"}, false, false, 0, a));
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "1_MUL"}, false, false, 0, a));
        const QString op = QString::fromStdString(w.root()) + "/tensors/0_1/0/1_L/0_ADD";
        QVERIFY(QDir().rename(op, op + ".moved"));
        QVERIFY(QFile::link(elsewhere.path(), op));
        const QString round = QString::fromStdString(w.root()) + "/tensors/0_1/0";
        // the op's folder, open still: the file goes into the folder where it now is
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_ADD"}, false, true, 0, a));
        QVERIFY(QFile::exists(op + ".moved/after/intensor0.bin"));
        // and a folder below it, made from it
        QVERIFY(w.writeTensor(0, 1, 0, {"1_L", "0_ADD", "2_SUB"}, false, false, 0, a));
        QVERIFY(QFile::exists(op + ".moved/2_SUB/after/outtensor0.bin"));
        // the round's folder swapped too, with many folders opened since (none kept open any longer)
        for (int k = 0; k < 40; ++k)
            QVERIFY(w.writeTensor(0, 1, 1, {"1_L", std::to_string(k) + "_ADD"}, false, false, 0, a));
        QVERIFY(QDir().rename(round, round + ".moved"));
        QVERIFY(QFile::link(elsewhere.path(), round));
        try {
            w.writeTensor(0, 1, 0, {"1_L", "3_ADD"}, false, false, 0, a);
            QFAIL("a link planted as the round's folder was written through");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("is a symbolic link"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, w.writeText("tensors/0_1/0/extra.json", "{}")); // nor any other file
        QVERIFY(QDir(elsewhere.path()).isEmpty());
    }

    // A weight written once, its first copy then swapped for a link to a file outside the dump,
    // and the link to it made impossible (a folder planted at the link's temporary name): the
    // copy that would stand in for the link never reads through that link.
    void aWeightsFirstCopySwappedForALinkIsNotCopied()
    {
        QTemporaryDir dir, elsewhere;
        DumpWriter::Options o = options(dir.path());
        std::vector<std::string> warnings;
        o.warn = [&](const std::string &m) { warnings.push_back(m); };
        DumpWriter w(o);
        const Tensor a = testing::f32Tensor({2}, {1, 2});
        Tensor header = a;
        header.data.clear();
        header.hasData = false;
        QVERIFY(w.writeTensorOnce(7, 0, 1, 0, {"1_L", "0_MUL_MAT"}, true, true, 0, a));
        const QString first = QString::fromStdString(w.tensorPath(0, 1, 0, {"1_L", "0_MUL_MAT"}, true, true, 0));
        const QString secret = elsewhere.path() + "/secret";
        QFile f(secret);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not the dump's");
        f.close();
        QVERIFY(QFile::remove(first) && QFile::link(secret, first));
        const std::string second = w.tensorPath(0, 1, 1, {"1_L", "0_MUL_MAT"}, true, true, 0);
        QVERIFY(QDir().mkpath(QString::fromStdString(second) + ".link.tmp"));
        QVERIFY(!w.writeTensorOnce(7, 0, 1, 1, {"1_L", "0_MUL_MAT"}, true, true, 0, header));
        QVERIFY(!std::filesystem::exists(second));
        QCOMPARE(w.tensorsSkipped(), uint64_t(1));
        QCOMPARE(warnings.size(), size_t(1));
        QVERIFY2(warnings[0].find("could not link or copy") != std::string::npos, warnings[0].c_str());
    }

    void msitLayoutAndModes()
    {
        QTemporaryDir dir;
        DumpWriter w(options(dir.path()));
        QCOMPARE(QString::fromStdString(w.root()),
                 dir.path() + "/" + QString::fromStdString(dumpFolderName(1700000000)));
        QVERIFY(QString::fromStdString(w.root()).contains(QRegularExpression("/msit_dump_\\d{8}_\\d{6}$")));
        QVERIFY(w.writeTensor(0, 1234, 2, {"3_Decoder", "1_Linear"}, false, false, 0, testing::f32Tensor({1}, {5})));
        const QString file =
            QString::fromStdString(w.root()) + "/tensors/0_1234/2/3_Decoder/1_Linear/after/outtensor0.bin";
        QVERIFY(QFile::exists(file));
        QCOMPARE(modeOf(file), mode_t(0640));
        QCOMPARE(modeOf(QFileInfo(file).path()), mode_t(0750));
        QCOMPARE(modeOf(QString::fromStdString(w.root())), mode_t(0750));
        QCOMPARE(w.tensorsWritten(), uint64_t(1));
        QCOMPARE(w.bytesWritten(), uint64_t(4));
        w.writeText("model/1234/Model.json", "{}");
        QVERIFY(QFile::exists(QString::fromStdString(w.root()) + "/model/1234/Model.json"));
        QVERIFY_THROWS_EXCEPTION(Error, w.writeText("../escape.json", "{}"));
        QVERIFY_THROWS_EXCEPTION(Error, w.writeText("/etc/x", "{}"));
    }

    void hostileNamesStayInside_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("dotdot") << "../../../etc";
        QTest::newRow("slash") << "a/b";
        QTest::newRow("newline") << "x\ny";
        QTest::newRow("only dots") << "..";
        QTest::newRow("empty") << "";
        QTest::newRow("backslash") << "a\\..\\b";
        QTest::newRow("long") << QString(500, 'n');
    }
    void hostileNamesStayInside()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        DumpWriter w(options(dir.path()));
        QVERIFY(w.writeTensor(0, 1, 0, {"0_" + name.toStdString()}, true, true, 0, testing::f32Tensor({1}, {1})));
        int files = 0;
        QDirIterator it(QString::fromStdString(w.root()), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            QVERIFY2(f.startsWith(QString::fromStdString(w.root()) + "/tensors/0_1/0/0_"), qPrintable(f));
            QVERIFY(!f.contains("/../") && !f.contains('\n'));
            ++files;
        }
        QCOMPARE(files, 1);
        const std::string s = sanitizeName(name.toStdString());
        QVERIFY(s.size() <= 200 && !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos);
    }

    void refusesToStartOnAFullDisk()
    {
        QTemporaryDir dir;
        auto o = options(dir.path());
        o.minFreeBytes = kMinFreeBytes;
        o.freeBytes = [](const std::string &) { return uint64_t(100) << 20; };
        try {
            DumpWriter w(o);
            QFAIL("started");
        } catch (const Error &e) {
            QVERIFY2(
                QString(e.what()).startsWith("Disk space is not enough, it's must more than 2G, free size(MB) is: 100"),
                e.what());
        }
    }

    void skipsTensorsWhenSpaceRunsOut()
    {
        QTemporaryDir dir;
        auto o = options(dir.path());
        o.minFreeBytes = kMinFreeBytes;
        uint64_t free = 10ull << 30;
        o.freeBytes = [&free](const std::string &) { return free; };
        o.recheckSeconds = 0; // ask for every tensor
        std::vector<std::string> warnings;
        o.warn = [&](const std::string &m) { warnings.push_back(m); };
        DumpWriter w(o);
        QVERIFY(w.writeTensor(0, 1, 0, {"0_A"}, true, true, 0, testing::f32Tensor({1}, {1})));
        free = 1ull << 30; // under 2 GiB
        QVERIFY(!w.writeTensor(0, 1, 0, {"0_A"}, true, true, 1, testing::f32Tensor({1}, {1})));
        QCOMPARE(w.tensorsSkipped(), uint64_t(1));
        QCOMPARE(warnings.size(), size_t(1));
        QVERIFY(QString::fromStdString(warnings[0]).contains("free size(MB) is: 1024"));
        QVERIFY(!QFile::exists(QString::fromStdString(w.tensorPath(0, 1, 0, {"0_A"}, true, true, 1))));
    }

    // Between checks the writer estimates free space from its own writes, so a dump that
    // would cross the minimum is stopped without waiting for the next check.
    void estimatesFreeSpaceBetweenChecks()
    {
        QTemporaryDir dir;
        auto o = options(dir.path());
        o.minFreeBytes = 1 << 20;
        int asked = 0;
        uint64_t used = 0; // what the files took on the (pretend) disk
        o.freeBytes = [&](const std::string &) {
            ++asked;
            return uint64_t(1 << 20) + (256 << 10) - used;
        };
        o.recheckSeconds = 3600;
        DumpWriter w(o);
        asked = 0;
        int written = 0;
        for (int i = 0; i < 200; ++i)
            if (w.writeTensor(0, 1, 0, {"0_A"}, false, false, i, testing::randomTensor(0, {1024}, unsigned(i)))) {
                ++written;
                used += 4096 + 512;
            }
        QVERIFY2(written > 0 && written < 64, qPrintable(QString::number(written)));
        QCOMPARE(w.tensorsSkipped(), uint64_t(200 - written));
        QVERIFY(asked > 0 && asked < 200); // re-asked when the estimate nears the minimum, not per file
    }

    // A write that fails part way (here: the file-size limit) leaves no file that reads as valid.
    // mkdir -p: nested folders with the exact mode, an existing one accepted, a file in the
    // way refused with its name.
    void makeDirsCreatesEachFolderOnce()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        llmscope::makeDirs(base + "/a/b/c/", 0700);
        llmscope::makeDirs(base + "/a/b/c");
        llmscope::makeDirs(base + "/a/b/d");
        for (const char *p : {"/a", "/a/b", "/a/b/c", "/a/b/d"}) {
            struct stat st {};
            QVERIFY(::stat((base + p).c_str(), &st) == 0 && S_ISDIR(st.st_mode));
        }
        struct stat st {};
        QVERIFY(::stat((base + "/a/b/c").c_str(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QVERIFY(::stat((base + "/a/b/d").c_str(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0750);
        llmscope::writeFileAtomic(base + "/a/file", std::string("x"));
        for (const std::string &p : {base + "/a/file", base + "/a/file/x/y"}) {
            try {
                llmscope::makeDirs(p);
                QFAIL("a file in the way was accepted");
            } catch (const llmscope::Error &e) {
                QVERIFY2(std::string(e.what()).find("/a/file") != std::string::npos, e.what());
            }
        }
    }

    void failedWriteLeavesNothing()
    {
        QTemporaryDir dir;
        DumpWriter w(options(dir.path()));
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit old{};
        getrlimit(RLIMIT_FSIZE, &old);
        rlimit small = old;
        small.rlim_cur = 1000;
        setrlimit(RLIMIT_FSIZE, &small);
        bool threw = false;
        try {
            w.writeTensor(0, 1, 0, {"0_Big"}, true, true, 0, testing::randomTensor(0, {4096}));
        } catch (const Error &) {
            threw = true;
        }
        setrlimit(RLIMIT_FSIZE, &old);
        QVERIFY(threw);
        QDirIterator it(QString::fromStdString(w.root()), QDir::Files, QDirIterator::Subdirectories);
        QVERIFY2(!it.hasNext(), "a partial or temporary file was left behind");
    }
};

QTEST_GUILESS_MAIN(TstDumpWriter)
#include "tst_dumpwriter.moc"
