// A model split over machines with ggml's RPC backend (scripts/kernel_zoo builds ggml-rpc-server
// and libggml-rpc.so from the bundle with GGML_RPC=ON): the sample program offloads every layer
// to a server on loopback, whose CPU backend is the zoo's stock one or a fault's. The probe reads
// the client's scheduler (the RPC device beside the CPU) after the whole graph, each tensor
// fetched from the server; the dump names the server each op ran on; a hunt with the local CPU
// as golden finds a remote kernel's fault and blames it, and a fault in the server's fused
// RMS_NORM+MUL is blamed on that chain once the probe is told what the server computes on.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

#include "tests/engine/engine_run.h"
#include "tests/engine/loopback.h"

using loopback::connectTo;
using loopback::freePort;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;

// ggml-rpc-server on loopback with the zoo's CPU backend `backend`, two threads (the faults that
// split a product between threads need several). Stopped when destroyed.
class RpcServer {
public:
    RpcServer(const QString &zoo, const QString &backend)
    {
        m_port = freePort();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_LIBRARY_PATH", zoo + "/lib/" + backend);
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(zoo + "/build-rpc/bin/ggml-rpc-server",
                        {"-H", "127.0.0.1", "-p", QString::number(m_port), "-t", "2"});
        // listening once a connection is accepted (the server takes it as a client that leaves)
        for (int tries = 0; tries < 1000 && m_process.state() != QProcess::NotRunning; ++tries) {
            if (const int fd = connectTo(m_port); fd >= 0) {
                close(fd);
                m_ready = true;
                return;
            }
            QThread::msleep(10);
        }
    }
    ~RpcServer()
    {
        m_process.kill();
        m_process.waitForFinished();
    }
    bool ready() const { return m_ready; }
    QString endpoint() const { return "127.0.0.1:" + QString::number(m_port); }
    QString said() { return QString::fromUtf8(m_process.readAll()); }

private:
    QProcess m_process;
    int m_port = 0;
    bool m_ready = false;
};

// A kernel_tensors CSV's SocVersion (the backend) by FromModel (the op id), round 0's.
QMap<QString, QString> backendsOf(const QString &dump)
{
    QMap<QString, QString> out;
    const QString dir = dump + "/kernel_io_tensors";
    for (const QString &pid : QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile f(dir + "/" + pid + "/kernel_tensors_0.csv");
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        const QStringList head = lines.value(0).split('|');
        const qsizetype id = head.indexOf("FromModel"), soc = head.indexOf("SocVersion");
        for (qsizetype i = 1; i < lines.size() && id >= 0 && soc >= 0; ++i) {
            const QStringList cells = lines[i].split('|');
            out.insert(cells.value(id), cells.value(soc));
        }
    }
    return out;
}

QString onlyDumpIn(const QString &dir)
{
    const QStringList d = QDir(dir).entryList({"msit_dump_*"}, QDir::Dirs);
    return d.size() == 1 ? dir + "/" + d[0] : QString();
}
} // namespace

class TstRpcZoo : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_zoo, m_model;

    // The zoo's sample program on the local CPU (the stock backend): golden.
    QString onCpu() const
    {
        return "env LD_LIBRARY_PATH=" + m_zoo + "/lib/stock " + m_zoo + "/build/bin/llmscope-sample-generate -m " +
            m_model + " -n 3";
    }
    // The same program with every layer on the server; `remote` names the server's backend to
    // the probe (LLMSCOPE_RPC_BACKEND), or nothing.
    QString onServer(const RpcServer &s, const QString &remote = {}) const
    {
        return "env LD_LIBRARY_PATH=" + m_zoo + "/lib/stock" +
            (remote.isEmpty() ? "" : " LLMSCOPE_RPC_BACKEND=" + remote) + " " + m_zoo +
            "/build/bin/llmscope-sample-generate -m " + m_model + " -n 3 --device rpc --rpc " + s.endpoint() +
            " --backend-dir " + m_zoo + "/build-rpc/bin";
    }
    engine::LlmscopeRun hunt(const QString &golden, const QString &test, const QString &name)
    {
        return engine::llmscope(kBin, {"hunt", "--golden", golden, "--test", test, "-o", m_dir.path() + "/" + name});
    }

private slots:
    void initTestCase()
    {
        m_zoo = engine::zooDir();
        if (!QFile::exists(m_zoo + "/build-rpc/bin/ggml-rpc-server") ||
            !QFile::exists(m_zoo + "/build-rpc/bin/libggml-rpc.so"))
            QSKIP(qPrintable("the kernel zoo's RPC server is not built in " + m_zoo + ": run scripts/kernel_zoo"));
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(
            kBin,
            {"--out", m_model, "--layers", "3", "--width", "160", "--heads", "4", "--kv-heads", "2", "--ff", "512"}));
    }

    // Each op's backend in the dump: the layers on the server, named with its address, the
    // embedding on the local CPU. Read after the whole graph, the bytes are those read node by
    // node (each node's graph ended and fetched from the server).
    void theDumpNamesTheServerEachOpRanOn()
    {
        RpcServer server(m_zoo, "stock");
        QVERIFY2(server.ready(), qPrintable(server.said()));
        QStringList summaries;
        for (const QString read : {"auto", "node"}) {
            const QString out = m_dir.path() + "/dump-" + read;
            const auto r = engine::llmscope(kBin,
                                            {"dump", "--exec", onServer(server), "--type", "tensor", "kernel", "-er",
                                             "0,1", "--read", read, "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err + server.said()));
            summaries << r.err;
            const auto backends = backendsOf(onlyDumpIn(out));
            QCOMPARE(backends.value("0_0"), QString("CPU")); // the token embedding's GET_ROWS
            const QString remote = "RPC0[" + server.endpoint() + "]";
            QCOMPARE(backends.value("1_2"), remote); // layer 0's Qcur-0
            int onServer = 0;
            for (const QString &b : backends)
                onServer += b == remote;
            QVERIFY2(onServer >= 60, qPrintable(QString::number(onServer)));
        }
        QVERIFY2(summaries[0].contains("read 0 inline, 2 after the whole graph, 0 node by node"),
                 qPrintable(summaries[0]));
        QVERIFY2(summaries[1].contains(QRegularExpression(
                     R"(read 0 inline, 0 after the whole graph, 2 node by node, the graph ended at \d+ nodes)")),
                 qPrintable(summaries[1]));
        const QString cmp = m_dir.path() + "/cmp";
        const auto c = engine::llmscope(kBin,
                                        {"compare", "-gp", onlyDumpIn(m_dir.path() + "/dump-node"), "-mp",
                                         onlyDumpIn(m_dir.path() + "/dump-auto"), "-o", cmp});
        QVERIFY2(
            c.code == 0 && c.err.contains("standard exact") && c.err.contains("every operation passed") &&
                c.err.contains(QRegularExpression(R"(\n  (\d+) tensor pairs \(same topology\), \1 passed, 0 failed)")),
            qPrintable(c.err));
    }

    // The stock server against the local CPU: rounding only, and observing changed nothing.
    void theStockServerIsClean()
    {
        RpcServer server(m_zoo, "stock");
        QVERIFY2(server.ready(), qPrintable(server.said()));
        const auto r = hunt(onCpu(), onServer(server, "CPU"), "stock");
        QVERIFY2(r.code == 1 && engine::concludes(r.err, "every operation is within its budget in every round"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  observing changed nothing: "), qPrintable(r.err));
        QVERIFY2(r.err.contains("test on CPU, RPC0[" + server.endpoint() + "]"), qPrintable(r.err));
    }

    // llmscope compare, golden the local CPU and test the layers on the server: ggml's
    // cross-backend budgets (the test ran on two backends), every pair within them.
    void aDumpOnTheServerComparesWithTheLocalCpu()
    {
        RpcServer server(m_zoo, "stock");
        QVERIFY2(server.ready(), qPrintable(server.said()));
        const QString golden = m_dir.path() + "/cmp-golden", test = m_dir.path() + "/cmp-test";
        for (const auto &[out, program] : {std::pair{golden, onCpu()}, std::pair{test, onServer(server, "CPU")}}) {
            const auto r = engine::llmscope(kBin,
                                            {"dump", "--exec", program, "--type", "model", "tensor", "kernel", "-er",
                                             "0,1", "--keep-fusion", "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err + server.said()));
        }
        const auto c = engine::llmscope(
            kBin, {"compare", "-gp", onlyDumpIn(golden), "-mp", onlyDumpIn(test), "-o", m_dir.path() + "/cmp-report"});
        QVERIFY2(c.code == 0, qPrintable(c.err));
        QVERIFY2(c.err.contains("standard engine: golden ran on CPU, test on CPU, RPC0[" + server.endpoint() + "]"),
                 qPrintable(c.err));
        const auto pairs = QRegularExpression(R"(\n  (\d+) tensor pairs [^\n]*, (\d+) passed, 0 failed)").match(c.err);
        QVERIFY2(pairs.hasMatch() && pairs.captured(1) == pairs.captured(2) && pairs.captured(1).toInt() >= 100,
                 qPrintable(c.err));
    }

    // ROPE on the server reuses a thread's first position's sin/cos cache for its later ones.
    void aRemoteKernelFaultIsFoundAndBlamed()
    {
        RpcServer server(m_zoo, "rope-cache");
        QVERIFY2(server.ready(), qPrintable(server.said()));
        const auto r = hunt(onCpu(), onServer(server, "CPU"), "rope-cache");
        QVERIFY2(r.code == 0 && engine::concludes(r.err, R"(found: round 0, op 1_\d+ Qcur-0 \(ROPE\) in )"),
                 qPrintable(r.err));
        // the op's backend: the server, by its address
        QVERIFY2(engine::huntConclusion(r.err).value(0).endsWith(", computed on RPC0[" + server.endpoint() + "]"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  replay: on the inputs it was given, the test's kernel is wrong: "),
                 qPrintable(r.err));
    }

    // The server's CPU backend fuses RMS_NORM+MUL, its fused path leaving each row's last 8
    // columns unnormalized. ggml's RPC client sends the probe's flags to the server, so a probe
    // that does not know the server's backend reads the norm unfused there: the hunt says that
    // observing changed the results, never that nothing diverges. Told (LLMSCOPE_RPC_BACKEND),
    // it leaves the chain whole and blames the fused kernel on the server.
    void aRemoteFusedKernelIsBlamedOnceTheServersBackendIsNamed()
    {
        RpcServer server(m_zoo, "fused-norm-tail");
        QVERIFY2(server.ready(), qPrintable(server.said()));
        const auto unnamed = hunt(onCpu(), onServer(server), "norm-unnamed");
        QVERIFY2(unnamed.code == 1 &&
                     engine::concludes(unnamed.err,
                                       "no operation departs beyond its budget as observed, but "
                                       "observing changed the program's results"),
                 qPrintable(unnamed.err));
        QVERIFY2(unnamed.err.contains("\n  the test's probe said: RPC0[" + server.endpoint() +
                                      "]: the probe does not know which backend this RPC "
                                      "server computes on"),
                 qPrintable(unnamed.err));

        const auto r = hunt(onCpu(), onServer(server, "CPU"), "norm-named");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("\n  observing changed nothing: "), qPrintable(r.err));
        QVERIFY2(
            engine::concludes(r.err,
                              R"(found: round 0, the fused chain RMS_NORM\+MUL \(1_\d+ norm-0, 1_\d+ attn_norm-0\), )"
                              R"(computed fused on RPC0\[)" +
                                  QRegularExpression::escape(server.endpoint()) + R"(\]: its end departs)"),
            qPrintable(r.err));
        QVERIFY2(r.err.contains("the fused kernel is wrong"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TstRpcZoo)
#include "tst_rpczoo.moc"
