// The one runner of a child `llmscope dump` (session/child_dump.h), as the command line's hunt,
// quant-report and spread and the window's spread use it: the dump folder of a run, the child's
// stderr line by line, a failed target's status and last words, and a cancel that stops the
// child and its target (no target left running).
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <QCoroTask>

#include <cerrno>
#include <csignal>

#include "app/session/child_dump.h"
#include "tests/engine/engine_run.h"

namespace {
const QString kBin = QStringLiteral(LLMSCOPE_BIN_DIR);

// The runner to its end, what it threw rethrown here (through QCoro::waitFor it would hang).
QString dumpNow(ChildDump d)
{
    auto [folder, thrown] = QCoro::waitFor(runChildDumpCaught(std::move(d)));
    if (thrown)
        std::rethrow_exception(thrown);
    return folder;
}
} // namespace

class TstChildDump : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath("m.gguf");
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "1", "--width", "64", "--ff", "128"}));
    }

    void aRunsDumpFolderAndItsLines()
    {
        QStringList lines;
        const QString out = m_dir.filePath("ok");
        const QString folder = dumpNow(ChildDump{kBin + "/llmscope",
                                                 kBin + "/llmscope-sample-generate -m " + m_model + " -n 2",
                                                 {"--type", "model"},
                                                 out,
                                                 {},
                                                 [&lines](const QString &l) { lines << l; }});
        QVERIFY2(folder.startsWith(out + "/msit_dump_") && QFileInfo(folder).isDir(), qPrintable(folder));
        QVERIFY2(!lines.isEmpty() && lines.first().startsWith(QLatin1String("llmscope dump: running ")),
                 qPrintable(lines.join('\n')));
        QVERIFY(std::any_of(lines.begin(), lines.end(),
                            [](const QString &l) { return l.contains(QLatin1String("on disk:")); }));
    }

    // Lines as the child wrote them: CRLF ends a line, a character stays whole.
    void linesWhole()
    {
        QStringList lines;
        try {
            dumpNow(ChildDump{kBin + "/llmscope",
                              "/bin/sh -c 'printf \"caf\\303\\251 r\\303\\251sum\\303\\251\\r\\n\" >&2; exit 4'",
                              {},
                              m_dir.filePath("lines"),
                              {},
                              [&lines](const QString &l) { lines << l; }});
            QFAIL("a failed target's dump returned");
        } catch (const ChildDumpFailed &f) {
            QCOMPARE(f.status, 4);
            QCOMPARE(f.lastWords, QString::fromUtf8("caf\u00e9 r\u00e9sum\u00e9"));
        }
        QVERIFY2(lines.contains(QString::fromUtf8("caf\u00e9 r\u00e9sum\u00e9")), qPrintable(lines.join('|')));
    }

    void aFailedTargetsStatusAndLastWords()
    {
        try {
            dumpNow(ChildDump{kBin + "/llmscope",
                              "/bin/sh -c 'echo cannot load the model >&2; exit 3'",
                              {},
                              m_dir.filePath("failed"),
                              {},
                              {}});
            QFAIL("a failed target's dump returned");
        } catch (const ChildDumpFailed &f) {
            QCOMPARE(int(f.kind), int(ChildDumpFailed::Kind::Failed));
            QCOMPARE(f.status, 3);
            QCOMPARE(f.lastWords, QStringLiteral("cannot load the model"));
            QVERIFY2(QString::fromStdString(f.what()).contains("failed"), f.what());
        }
        try {
            dumpNow(ChildDump{m_dir.filePath("no-such-llmscope"), "/bin/true", {}, m_dir.filePath("none"), {}, {}});
            QFAIL("a program that cannot start returned");
        } catch (const ChildDumpFailed &f) {
            QCOMPARE(int(f.kind), int(ChildDumpFailed::Kind::NotStarted));
        }
    }

    // Cancelled once its target has started (the target writes its pid first): the runner asks
    // `llmscope dump` to stop, which stops the target and waits for it; when the runner returns
    // the target is gone.
    void aCancelStopsTheChildAndItsTarget()
    {
        const QString pidFile = m_dir.filePath("target.pid");
        bool asked = false;
        try {
            dumpNow(ChildDump{kBin + "/llmscope",
                              "/bin/sh -c 'echo $$ > " + pidFile + "; exec sleep 600'",
                              {"--timeout", "120"},
                              m_dir.filePath("cancelled"),
                              [&] { return asked = QFile::exists(pidFile) && QFileInfo(pidFile).size() > 0; },
                              {}});
            QFAIL("a cancelled dump returned");
        } catch (const ChildDumpCancelled &) {
        }
        QVERIFY(asked);
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const pid_t pid = pid_t(f.readAll().trimmed().toLong());
        QVERIFY(pid > 0);
        QVERIFY2(::kill(pid, 0) == -1 && errno == ESRCH, "the target outlived its cancelled dump");
        // cancelled before it starts: nothing runs
        QVERIFY_THROWS_EXCEPTION(
            ChildDumpCancelled,
            dumpNow(ChildDump{kBin + "/llmscope", "/bin/true", {}, m_dir.filePath("never"), [] { return true; }, {}}));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("never")));
    }
};

QTEST_GUILESS_MAIN(TstChildDump)
#include "tst_childdump.moc"
