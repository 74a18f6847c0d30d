// The program killed (SIGKILL) at many points of a dump: of tensors, of statistics, with
// -symlink, with msit's op CSVs, and as it starts (its status file). Where it is killed is
// wherever the dump has reached a number of files, spread over the run; whatever that moment,
// every time: the dump opens, every tensor file it lists reads whole (a file cut short never
// shows as a tensor), `llmscope info` and compare run on it, and the status, where written,
// says the program did not finish.
#include <QDir>
#include <QMap>
#include <QRegularExpression>
#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

#include <sys/syscall.h>
#include <unistd.h>

#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "core/tensor/bin_file.h"
#include "core/util/error.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

// The program's pid, from its process folder (tensors/{device}_{pid}) or status file, and the
// files under its tensors/ folder so far (what the writer adds round by round).
std::pair<qint64, int> progress(const QString &out)
{
    qint64 pid = 0;
    int files = 0;
    for (QDirIterator it(out, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
         it.hasNext();) {
        const QFileInfo f(it.next());
        if (f.isDir() && f.dir().dirName() == "tensors")
            pid = f.fileName().section('_', 1).toLongLong();
        else if (f.isFile() && f.dir().dirName() == "llmscope" && f.suffix() == "json")
            pid = f.baseName().toLongLong();
        else if (f.isFile() && f.filePath().contains("/tensors/"))
            ++files;
    }
    return {pid, files};
}

const QList<QPair<QString, QStringList>> kKinds{{"tensors", {"--type", "tensor"}},
                                                {"statistics", {"--type", "stats"}},
                                                {"symlink", {"--type", "tensor", "-symlink"}},
                                                {"op csv", {"--type", "op", "kernel", "tensor", "-tiling"}}};
constexpr int kPoints = 14;

// SIGKILL to the program, if pid is still the sample and still running. Through a pidfd: the
// pid of a program that has ended may be another process's by now, and an ended program not
// yet waited for (a zombie) takes the signal without effect.
bool killProgram(qint64 pid)
{
    const int fd = int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
    if (fd < 0)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid)), cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    const bool running = stat.open(QIODevice::ReadOnly) && cmdline.open(QIODevice::ReadOnly) &&
        !stat.readAll().contains(") Z ") && cmdline.readAll().contains("llmscope-sample-generate");
    const bool sent = running && ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0) == 0;
    ::close(fd);
    return sent;
}
} // namespace

class TstKillSweep : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;
    QMap<QString, int> m_total; // each kind's files under tensors/ in a whole run
    int m_kills = 0;

    QStringList command(const QStringList &types, const QString &out, const QString &hold) const
    {
        QString program = kBin + "/llmscope-sample-generate -n 5 -m " + m_model;
        if (!hold.isEmpty()) // held after rounds 0 to 3: it is running whenever the test kills it
            program += " --hold-after 4 --hold-file " + hold;
        return QStringList{"dump", "--exec", program} + types + QStringList{"-er", "0,3", "-o", out};
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
        for (const auto &[name, types] : kKinds) {
            const QString out = m_dir.path() + "/whole-" + QString::number(qHash(name));
            const auto r = engine::llmscope(kBin, command(types, out, {}));
            QVERIFY2(r.code == 0, qPrintable(r.err));
            m_total[name] = progress(out).second;
            QVERIFY2(m_total[name] > 2 * kPoints, qPrintable(name));
        }
    }

    void killedAnywhere_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("point");
        for (const auto &kind : kKinds)
            for (int k = 0; k < kPoints; ++k) // from the start (the status file alone) to late in the run
                QTest::newRow(qPrintable(QString("%1 at %2/%3").arg(kind.first).arg(k).arg(kPoints)))
                    << kind.first << k;
    }
    void killedAnywhere()
    {
        QFETCH(QString, kind);
        QFETCH(int, point);
        // Never the last files: a few may come only as the program ends.
        const int atFiles = point * m_total[kind] / kPoints;
        QStringList types;
        for (const auto &k : kKinds)
            if (k.first == kind)
                types = k.second;
        const QString out = m_dir.path() + "/" + QString::number(qHash(QTest::currentDataTag()));
        QProcess dump;
        dump.start(kBin + "/llmscope", command(types, out, out + "-go"));
        QVERIFY(dump.waitForStarted());
        bool killed = false;
        while (dump.state() != QProcess::NotRunning && !killed) {
            const auto [pid, files] = progress(out);
            if (pid > 0 && files >= atFiles)
                killed = killProgram(pid);
            if (!killed) // a millisecond between looks, which also lets QProcess see the end
                dump.waitForFinished(1);
        }
        // (waitForFinished is false for a process already seen to end, as the loop may have)
        QVERIFY(dump.state() == QProcess::NotRunning || dump.waitForFinished(60000));
        QVERIFY2(killed, qPrintable(QString("the program ended before its dump reached %1 files").arg(atFiles)));
        ++m_kills;
        const QStringList dumps = QDir(out).entryList({"msit_dump_*"}, QDir::Dirs);
        QCOMPARE(dumps.size(), 1);
        const std::string root = (out + "/" + dumps.front()).toStdString();
        const DumpIndex idx = scanDump(root);
        for (const TensorRecord &t : idx.tensors) {
            if (t.path.size() > 4 && t.path.compare(t.path.size() - 4, 4, ".bin") != 0)
                continue; // a CSV's rows
            try {
                readBin(t.path); // header and payload whole
            } catch (const Error &e) {
                QFAIL(e.what());
            }
        }
        const auto statuses = readProbeStatuses(root);
        for (const auto &s : statuses)
            QVERIFY(!s.finished); // it was held, never done
        const auto info = engine::llmscope(kBin, {"info", QString::fromStdString(root)});
        QCOMPARE(info.code, 0);
        if (!statuses.empty())
            QVERIFY2(info.out.contains(QRegularExpression("program:   pid \\d+ did not finish")), qPrintable(info.out));
        if (!idx.tensors.empty()) {
            CompareOptions o;
            o.goldenPath = o.myPath = root;
            try {
                runCompare(o);
            } catch (const Error &e) {
                QFAIL(e.what());
            }
        }
    }

    void cleanupTestCase() { qInfo("killed at %d points", m_kills); }
};

QTEST_GUILESS_MAIN(TstKillSweep)
#include "tst_killsweep.moc"
