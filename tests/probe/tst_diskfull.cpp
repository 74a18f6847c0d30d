// A dump into a disk that really fills: a tmpfs mounted by the test (root only) with 32 MiB
// above msit's 2 GiB minimum. The program's output is what it is without the probe; the probe
// skips each tensor it has no room for with msit's message and counts them; no temporary
// file is left behind and every file the dump holds reads whole; compare of it against a
// dump on a roomy disk reports the skipped tensors as missing and passes the rest.
#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

QString onlyDump(const QString &out)
{
    const QStringList d = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
    return d.size() == 1 ? out + "/" + d.front() : QString();
}

QString tokens(const QString &output)
{
    const auto m = QRegularExpression("^tokens: (.*)$", QRegularExpression::MultilineOption).match(output);
    return m.hasMatch() ? m.captured(1) : QString();
}

struct Output {
    int code = -1;
    QString out, err;
};
Output runLlmscope(const QStringList &args)
{
    QProcess p;
    p.start(kBin + "/llmscope", args);
    if (!p.waitForFinished(300000))
        return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

int run(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    return p.waitForFinished(60000) ? p.exitCode() : -1;
}
} // namespace

class TstDiskFull : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_mount;

private slots:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("mounting a tmpfs needs root (CI runs as root)");
        m_mount = m_dir.path() + "/small";
        QVERIFY(QDir().mkpath(m_mount));
        // 2080 MiB: free space starts 32 MiB above the 2 GiB llmscope (as msit) keeps free
        QCOMPARE(run("mount", {"-t", "tmpfs", "-o", "size=2080m", "tmpfs", m_mount}), 0);
    }
    void cleanupTestCase()
    {
        if (!m_mount.isEmpty())
            run("umount", {m_mount});
    }

    void aDiskThatFills()
    {
        const QString model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", model, "--layers", "2"}));
        const QString gen = kBin + "/llmscope-sample-generate -m " + model + " -n 10";
        QProcess plain;
        plain.start("sh", {"-c", gen});
        QVERIFY(plain.waitForFinished(60000) && plain.exitCode() == 0);
        const QString expected = tokens(QString::fromUtf8(plain.readAllStandardOutput()));
        QVERIFY(!expected.isEmpty());
        // ten rounds of every tensor: about 50 MiB, more than the 32 the disk has to give
        const QStringList args{"dump", "--exec", gen, "--type", "tensor", "-er", "0,9"};
        const Output full = runLlmscope(args + QStringList{"-o", m_mount});
        QVERIFY2(full.code == 0, qPrintable(full.err));
        QCOMPARE(tokens(full.out + full.err), expected); // the program's results are its own
        QVERIFY2(full.err.contains("Disk space is not enough, it's must more than 2G"),
                 qPrintable(full.err.right(2000)));
        const QString root = onlyDump(m_mount);
        const auto statuses = readProbeStatuses(root.toStdString());
        QCOMPARE(statuses.size(), size_t(1));
        QVERIFY(statuses[0].finished);
        QVERIFY(statuses[0].skipped > 0);
        QVERIFY(statuses[0].tensors > 0);
        QVERIFY2(full.err.contains(QString("%1 skipped").arg(statuses[0].skipped)), qPrintable(full.err.right(2000)));
        // no temporary file left, and every file there reads whole
        for (const auto &e : QDir(root).entryInfoList(QDir::Files | QDir::NoDotAndDotDot))
            QVERIFY2(!e.fileName().contains(".tmp"), qPrintable(e.filePath()));
        QProcess find;
        find.start("find", {root, "-name", "*.tmp*"});
        QVERIFY(find.waitForFinished(30000));
        QVERIFY2(find.readAllStandardOutput().trimmed().isEmpty(), "temporary files left behind");
        const DumpIndex idx = scanDump(root.toStdString());
        QVERIFY2(idx.problems.empty(), idx.problems.empty() ? "" : idx.problems.front().message.c_str());
        QCOMPARE(idx.tensors.size(), size_t(statuses[0].tensors));
        // against a dump on a roomy disk: the skipped ones missing, the rest the same
        const Output roomy = runLlmscope(args + QStringList{"-o", m_dir.path() + "/roomy"});
        QVERIFY2(roomy.code == 0, qPrintable(roomy.err));
        CompareOptions o;
        o.goldenPath = onlyDump(m_dir.path() + "/roomy").toStdString();
        o.myPath = root.toStdString();
        const CompareResult r = runCompare(o);
        QCOMPARE(r.onlyGolden.size(), size_t(statuses[0].skipped));
        QVERIFY(r.onlyMy.empty());
        QCOMPARE(r.rows.size(), idx.tensors.size()); // every tensor the full disk kept, paired
        for (const auto &row : r.rows)
            QVERIFY2(row.passed, row.failReason.english().c_str());
    }
};

QTEST_GUILESS_MAIN(TstDiskFull)
#include "tst_diskfull.moc"
