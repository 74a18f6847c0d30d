#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include "core/dump/probe_status.h"
#include "core/manual/dump_data.h"
#include "tests/test_helpers.h"

namespace {
struct Run {
    int code;
    QString out, err;
};

Run run(const QStringList &args, QProcessEnvironment env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(LLMSCOPE_BIN_DIR "/llmscope", args);
    if (!p.waitForFinished(60000))
        return {-1, {}, "timed out"};
    return {p.exitCode(), QString::fromLocal8Bit(p.readAllStandardOutput()),
            QString::fromLocal8Bit(p.readAllStandardError())};
}
} // namespace

class TstCli : public QObject {
    Q_OBJECT
private slots:
    void helpAndVersionWithoutDisplay()
    {
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        const Run h = run({"--help"}, env);
        QCOMPARE(h.code, 0);
        QVERIFY(h.out.contains("usage:"));
        QVERIFY(h.out.contains("llmscope info DUMP_FOLDER"));
        const Run v = run({"--version"}, env);
        QCOMPARE(v.code, 0);
        QVERIFY(v.out.contains(QRegularExpression("^llmscope \\d+\\.\\d+\\.\\d+\\n$")));
        const Run gui = run({}, env);
        QCOMPARE(gui.code, 2);
        QVERIFY(gui.err.contains("no display"));
        const Run bad = run({"--frobnicate"}, env);
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("unknown option '--frobnicate'"));
    }

    // A hunt whose test program cannot run says so before the golden one runs at all.
    void huntChecksBothProgramsFirst()
    {
        QTemporaryDir out;
        const Run r = run({"hunt", "--golden", "/bin/sleep 30", "--test",
                           "GGML_X=1 /nonexistent/llama-simple -m m.gguf", "-o", out.path() + "/hunt"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("llmscope hunt: the test command cannot run: cannot run '/nonexistent/llama-simple': "
                                "no such executable file"),
                 qPrintable(r.err));
        QVERIFY(!QDir(out.path() + "/hunt").exists()); // nothing ran, nothing written
    }

    // --timeout: a program that hangs ends the hunt, the spread and the quantization report,
    // each saying so, instead of holding them for ever; a value that is no number of seconds
    // is refused before anything runs.
    void commandsStopAProgramThatHangs()
    {
        QTemporaryDir out;
        const QString hang = QStringLiteral("/bin/sleep 600");
        // What stops a program is the dump's, not the probe's: where the probe is not built (the
        // ASan build), a library this process has loaded stands in for it.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!QFileInfo::exists(LLMSCOPE_BIN_DIR "/../lib/libllmscope_probe.so")) {
            QFile maps("/proc/self/maps");
            QVERIFY(maps.open(QIODevice::ReadOnly));
            const QRegularExpressionMatch m =
                QRegularExpression(QStringLiteral("(/\\S*/libm\\.so\\.6)")).match(maps.readAll());
            QVERIFY(m.hasMatch());
            env.insert("LLMSCOPE_PROBE_LIB", m.captured(1));
        }
        for (const QStringList &args :
             {QStringList{"hunt", "--golden", hang, "--test", hang, "--timeout", "2", "-o", out.path() + "/hunt"},
              QStringList{"spread", "--run", hang, "--repeat", "2", "--timeout", "2", "-o", out.path() + "/spread"},
              QStringList{"quant-report", "--golden", hang, "--test", hang, "--timeout", "2", "-o",
                          out.path() + "/quant"}}) {
            const Run r = run(args, env);
            QVERIFY2(r.code == 2, qPrintable(args[0] + ": " + QString::number(r.code) + "\n" + r.err));
            QVERIFY2(r.err.contains("ran past --timeout 2 s"), qPrintable(args[0] + ": " + r.err));
            const Run bad =
                run(QStringList{args[0], args[1], args[2]} + QStringList{args[3], args[4], "--timeout", "soon"});
            QCOMPARE(bad.code, 2);
            QVERIFY2(bad.err.contains("--timeout: 'soon' must be a whole number"), qPrintable(bad.err));
        }
    }

    // The window lives in libllmscope_gui.so, loaded only when one opens: the command-line
    // tools do not load Qt's GUI libraries, and a missing library is a clear error.
    void windowOpensFromItsLibraryAndOnlyThen()
    {
        QProcess ldd;
        ldd.start("ldd", {LLMSCOPE_BIN_DIR "/llmscope"});
        QVERIFY(ldd.waitForFinished(30000));
        const QString libs = QString::fromLocal8Bit(ldd.readAllStandardOutput());
        QVERIFY(libs.contains("libQt6Core"));
        QVERIFY2(!libs.contains("libQt6Gui") && !libs.contains("libQt6Widgets"), qPrintable(libs));

        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        QProcess window;
        window.setProcessEnvironment(env);
        window.start(LLMSCOPE_BIN_DIR "/llmscope", {dir.path()});
        QVERIFY(window.waitForStarted(30000));
        QVERIFY2(!window.waitForFinished(1500), qPrintable(window.readAllStandardError())); // still open
        window.kill();
        window.waitForFinished(30000);

        // The same program away from its lib/ folder.
        QTemporaryDir moved;
        QVERIFY(QDir().mkpath(moved.path() + "/bin"));
        QVERIFY(QFile::copy(LLMSCOPE_BIN_DIR "/llmscope", moved.path() + "/bin/llmscope"));
        QProcess lost;
        lost.setProcessEnvironment(env);
        lost.start(moved.path() + "/bin/llmscope", {dir.path()});
        QVERIFY(lost.waitForFinished(30000));
        QCOMPARE(lost.exitCode(), 2);
        const QString err = QString::fromLocal8Bit(lost.readAllStandardError());
        QVERIFY2(err.contains("cannot load the window from " + moved.path() + "/lib/libllmscope_gui.so"),
                 qPrintable(err));
        // The command-line tools work without it.
        QProcess info;
        info.start(moved.path() + "/bin/llmscope", {"info", dir.path()});
        QVERIFY(info.waitForFinished(30000));
        QCOMPARE(info.exitCode(), 0);
    }

    void infoSummarizesADump()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        const Run r = run({"info", dir.path()});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("layout:    msit"));
        QVERIFY(r.out.contains("tensors:   16 (0 without payload), 256 bytes"));
        QVERIFY(r.out.contains("rounds:    0,1"));
        QVERIFY(r.out.contains("operations: 8"));
        QVERIFY(!r.out.contains("program:")); // no probe wrote it
        // The probe's status: a program that ended two rounds early and did not finish.
        llmscope::ProbeStatus st;
        st.pid = 4242;
        st.rounds = st.roundsDumped = 2;
        st.tensors = 16;
        st.roundsStopped = 2;
        st.stoppedRounds = {0, 1};
        st.warnings = {"the program exited while another thread was computing round 1; that round is left out"};
        QDir(dir.path()).mkpath("llmscope");
        QFile f(dir.path() + "/llmscope/4242.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(llmscope::writeProbeStatus(st)));
        f.close();
        const Run withStatus = run({"info", dir.path()});
        QCOMPARE(withStatus.code, 0);
        QVERIFY2(withStatus.out.contains("program:   pid 4242 did not finish (killed, crashed or still running)"),
                 qPrintable(withStatus.out));
        QVERIFY(withStatus.out.contains("2 rounds seen, 2 dumped; 16 tensors written, 0 skipped"));
        QVERIFY(withStatus.out.contains("stopped:   2 dumped round(s) ended before their graph did: 0, 1"));
        QVERIFY(withStatus.out.contains("warning:   the program exited while another thread was computing round 1"));
        const Run missing = run({"info", "/nonexistent"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.err.contains("is not a folder"));
        QCOMPARE(run({"info"}).code, 2);
    }

    // msit's manual mapping: the golden side dumped from Python (NumPy), the test side from
    // C++, compared by data id and token id into msit's cmp_report.csv.
    void manualMappingAcrossLanguages()
    {
        QTemporaryDir dir;
        QProcess py;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("PYTHONPATH", LLMSCOPE_SOURCE_DIR "/manual");
        env.insert("LLMSCOPE_DUMP_DATA_DIR", dir.path() + "/golden");
        py.setProcessEnvironment(env);
        py.start("/usr/bin/python3",
                 {"-c",
                  "import numpy as np; from llmscope_dump_data import dump_data\n"
                  "dump_data('golden', 'attn', np.arange(12, dtype=np.float32).reshape(3, 4), token_id=0)\n"
                  "dump_data('golden', 'attn', np.ones(4, dtype=np.float16), token_id=1)\n"
                  "dump_data('golden', 'ffn', np.arange(6, dtype=np.float32), token_id=0)\n"
                  "dump_data('golden', 'gone', np.zeros(2, dtype=np.float32))"});
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        llmscope::ManualDumper acl("acl", (dir.path() + "/acl").toStdString());
        std::vector<float> a(12);
        for (int i = 0; i < 12; ++i)
            a[size_t(i)] = float(i);
        acl.dumpData("attn", testing::f32Tensor({3, 4}, a), 0);
        acl.dumpData("attn", testing::f32Tensor({4}, {1, 1, 1, 1.5f}), 1);
        acl.dumpData("ffn", testing::f32Tensor({6}, {0, 1, 2, 3, 4, 5}), 0);
        acl.dumpData("extra", testing::f32Tensor({1}, {1}), 0);
        const QStringList golden = QDir(dir.path() + "/golden").entryList({"*_cmp_dump_data"}, QDir::Dirs);
        QCOMPARE(golden.size(), 1);
        const QString gMeta = dir.path() + "/golden/" + golden[0] + "/golden_tensor/metadata.json";
        const Run r = run(
            {"compare", "-gp", gMeta, "-mp", QString::fromStdString(acl.metadataPath()), "-o", dir.path() + "/out"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("5 data ids and tokens (manual mapping), 2 passed"), qPrintable(r.err));
        QFile csv(dir.path() + "/out/cmp_report.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines[0],
                 QString("data_id,pta_data_path,pta_dtype,pta_shape,pta_max_value,pta_min_value,pta_mean_value,"
                         "acl_data_path,acl_dtype,acl_shape,acl_max_value,acl_min_value,acl_mean_value,cmp_flag,"
                         "cosine_similarity,max_relative_error,mean_relative_error,relative_euclidean_distance,"
                         "cmp_fail_reason"));
        QCOMPARE(lines.size(), 6);
        QVERIFY(lines
                    .filter(QRegularExpression(
                        "^attn,.*golden_tensor/0/attn_tensor.npy,float32,\"\\[3, 4\\]\",11,0,5.5,.*,True,1,0,0,0,$"))
                    .size() == 1);
        // token 1: 1.5 against 1 in one of four elements: max relative error 0.5
        QVERIFY2(lines.filter(QRegularExpression("^attn,.*float16,\\[4\\],.*,True,[0-9.]+,0.5,0.125,")).size() == 1,
                 qPrintable(lines.join("\n")));
        QVERIFY(lines.filter(QRegularExpression("^gone,.*,False,.*only in the golden metadata\"?$")).size() == 1);
        QVERIFY(lines.filter(QRegularExpression("^extra,.*,False,.*only in my metadata\"?$")).size() == 1);
    }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
