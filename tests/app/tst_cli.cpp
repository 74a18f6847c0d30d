#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include "../test_helpers.h"

namespace {
struct Run { int code; QString out, err; };

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
        const Run missing = run({"info", "/nonexistent"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.err.contains("is not a folder"));
        QCOMPARE(run({"info"}).code, 2);
    }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
