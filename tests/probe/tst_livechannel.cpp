// The probe's live channel on real llama.cpp runs, against listeners written here: one that
// talks (a selection applies from the acknowledged round), none at all, one that never reads
// and one that goes away. Whatever the listener does, the program's tokens are those of a
// run without the probe and the dump on disk is complete.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "core/live/live_protocol.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/stats.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kProbe = LLMSCOPE_PROBE;

// A Unix socket server; run() handles its first connection on a thread of its own.
class Listener {
public:
    explicit Listener(const std::string &path, int receiveBuffer = 0)
    {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        if (receiveBuffer)
            ::setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, sizeof receiveBuffer);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        m_ok = ::bind(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 && ::listen(m_fd, 4) == 0;
    }
    ~Listener()
    {
        join();
        ::close(m_fd);
    }
    void join()
    {
        if (m_thread.joinable())
            m_thread.join();
    }
    bool ok() const { return m_ok; }
    // handler(fd) runs once a peer connects (or not at all, within 60 s)
    template <typename F>
    void run(F handler)
    {
        m_thread = std::thread([this, handler] {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 60000) <= 0)
                return;
            const int c = ::accept(m_fd, nullptr, nullptr);
            if (c >= 0)
                handler(c);
        });
    }

private:
    int m_fd = -1;
    bool m_ok = false;
    std::thread m_thread;
};

// Reads lines until the peer closes or `stop` says so; calls onMessage for each.
template <typename F>
void readLines(int fd, F onMessage)
{
    std::string buf;
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            return;
        buf.append(chunk, size_t(n));
        for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
            const std::string line = buf.substr(0, nl);
            buf.erase(0, nl + 1);
            if (!onMessage(live::decode(line)))
                return;
        }
    }
}

void sendLine(int fd, const live::Message &m)
{
    const std::string s = live::encode(m);
    [[maybe_unused]] auto n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
}
} // namespace

class TstLiveChannel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;
    std::vector<int> m_plainTokens;

    QProcessEnvironment env(const QString &root, const QString &socket, const QString &type = "stats,model")
    {
        auto e = QProcessEnvironment::systemEnvironment();
        e.insert("LD_PRELOAD", QStringLiteral(LLMSCOPE_PRELOAD_FIRST) + kProbe);
        e.insert("LLMSCOPE_DUMP_ROOT", root);
        e.insert("LLMSCOPE_TYPE", type);
        e.insert("LLMSCOPE_ER", "0,1000");
        e.insert("LLMSCOPE_LIVE", socket);
        return e;
    }
    // paceMs: a pause between tokens, so a listener's reply reaches the probe while rounds are
    // still to come however busy the machine is (the tokens are the same).
    engine::Generation generate(const QProcessEnvironment &e, int tokens = 24, int paceMs = 0)
    {
        return engine::run(kBin + "/llmscope-sample-generate",
                           {"-m", m_model, "-n", QString::number(tokens), "--pace-ms", QString::number(paceMs)}, e);
    }
    // The dump holds what the status file says it holds, and the program finished.
    void checkComplete(const QString &root, const QString &warning)
    {
        const auto st = readProbeStatuses(root.toStdString());
        QCOMPARE(st.size(), size_t(1));
        QVERIFY(st[0].finished);
        QVERIFY(st[0].tensors > 100);
        QCOMPARE(st[0].tensors, uint64_t(scanDump(root.toStdString()).tensors.size()));
        bool warned = false;
        for (const auto &w : st[0].warnings)
            warned |= QString::fromStdString(w).contains(warning);
        QVERIFY2(warned || warning.isEmpty(), qPrintable(warning));
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
        m_plainTokens = engine::run(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "24"}).tokens;
        QCOMPARE(m_plainTokens.size(), size_t(24));
    }

    // The app's selection applies at the next graph, acknowledged with that round: from it on
    // the dump holds exactly the chosen op; the topology came first, statistics followed.
    void selectionAppliesFromTheAcknowledgedRound()
    {
        const std::string sock = (m_dir.path() + "/talk.sock").toStdString();
        Listener l(sock);
        QVERIFY(l.ok());
        std::atomic<int64_t> ackRound{-1};
        std::atomic<int> topologies{0}, rounds{0}, cpuOps{0};
        std::atomic<int64_t> lastStatsFor12{-1}; // the last round whose statistics held op 1_2
        std::atomic<bool> helloFirst{false}, goodbye{false};
        l.run([&](int fd) {
            bool first = true;
            readLines(fd, [&](const live::Message &m) {
                if (first)
                    helloFirst = std::holds_alternative<live::Hello>(m);
                first = false;
                if (const auto *t = std::get_if<live::Topology>(&m)) {
                    ++topologies;
                    for (const auto &op : t->ops)
                        cpuOps += op.backend == "CPU";
                }
                if (const auto *r = std::get_if<live::Round>(&m); r && ++rounds == 3)
                    sendLine(fd, live::Select{7, true, "1_2", "all", "", true, 3, 2});
                if (const auto *a = std::get_if<live::Ack>(&m))
                    ackRound = a->seq == 7 && a->error.empty() ? a->fromRound : -2;
                if (const auto *s = std::get_if<live::RoundStats>(&m))
                    for (const auto &o : s->stats)
                        if (o.id == "1_2")
                            lastStatsFor12 = std::max(lastStatsFor12.load(), s->round);
                goodbye = goodbye || std::holds_alternative<live::Goodbye>(m);
                return true;
            });
            ::close(fd);
        });
        const QString root = m_dir.path() + "/talk";
        const auto g = generate(env(root, QString::fromStdString(sock)), 24, 30);
        QCOMPARE(g.exitCode, 0);
        QCOMPARE(g.tokens, m_plainTokens);
        l.join(); // everything the probe said has been read
        QVERIFY(helloFirst);
        QVERIFY(topologies >= 2); // the prompt's graph, then decode's
        QVERIFY(cpuOps > 50); // each op with the backend that runs it
        QVERIFY(goodbye);
        QVERIFY2(ackRound >= 3, qPrintable(QString::number(ackRound)));
        // op 1_2's statistics streamed after the selection took effect, not only in the
        // rounds before it (which stream every op)
        QVERIFY2(lastStatsFor12 >= ackRound, qPrintable(QString::number(lastStatsFor12)));
        std::map<int64_t, std::set<std::string>> ops;
        for (const auto &t : scanDump(root.toStdString()).tensors)
            ops[t.exec].insert(t.opId);
        QVERIFY(ops[0].size() > 20); // every op before the selection
        for (const auto &[round, ids] : ops)
            if (round >= ackRound)
                QCOMPARE(ids, std::set<std::string>{"1_2"});
            else
                QVERIFY(ids.size() > 20);
        QCOMPARE(ops.rbegin()->first, int64_t(23)); // every round was dumped: the prompt, 23 decodes
        checkComplete(root, {});
    }

    void noListener()
    {
        const QString root = m_dir.path() + "/none";
        const auto g = generate(env(root, m_dir.path() + "/nobody-listens.sock"));
        QCOMPARE(g.exitCode, 0);
        QCOMPARE(g.tokens, m_plainTokens);
        checkComplete(root, "cannot reach the app's live socket");
        QCOMPARE(g.stderrText.count("live socket"), 1); // warned once
    }

    // A listener that accepts and never reads: the socket fills; the program does not wait.
    void listenerThatNeverReads()
    {
        const std::string sock = (m_dir.path() + "/silent.sock").toStdString();
        Listener l(sock, 4096);
        QVERIFY(l.ok());
        std::atomic<bool> done{false};
        l.run([&](int fd) {
            while (!done)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ::close(fd);
        });
        const QString root = m_dir.path() + "/silent";
        const auto g = generate(env(root, QString::fromStdString(sock), "tensor,model"), 48);
        done = true;
        QCOMPARE(g.exitCode, 0);
        QCOMPARE(g.tokens.size(), size_t(48));
        QVERIFY(std::equal(m_plainTokens.begin(), m_plainTokens.end(), g.tokens.begin()));
        checkComplete(root, {});
    }

    // A dump of tensors without --type stats still streams its outputs' statistics to the app
    // (its heatmap would be empty otherwise), equal to the dumped files' own.
    void tensorDumpsStreamStatistics()
    {
        const std::string sock = (m_dir.path() + "/tstats.sock").toStdString();
        Listener l(sock);
        QVERIFY(l.ok());
        std::map<std::string, live::OpStats> round0;
        l.run([&](int fd) {
            readLines(fd, [&](const live::Message &m) {
                if (const auto *s = std::get_if<live::RoundStats>(&m); s && s->round == 0)
                    for (const auto &o : s->stats)
                        round0[o.id] = o;
                return !std::holds_alternative<live::Goodbye>(m);
            });
            ::close(fd);
        });
        const QString root = m_dir.path() + "/tstats";
        auto e = env(root, QString::fromStdString(sock), "tensor,model");
        e.insert("LLMSCOPE_ER", "0,0");
        const auto g = generate(e, 4);
        QCOMPARE(g.exitCode, 0);
        l.join();
        QVERIFY2(round0.size() > 20, qPrintable(QString::number(round0.size())));
        int checked = 0;
        for (const auto &t : scanDump(root.toStdString()).tensors) {
            if (t.input || t.dtype != 0 || !t.hasData || !round0.count(t.opId))
                continue;
            const auto st = computeStats(readBin(t.path));
            QVERIFY(st);
            QCOMPARE(round0[t.opId].l2norm, st->l2norm);
            QCOMPARE(round0[t.opId].max, st->max);
            ++checked;
        }
        QVERIFY(checked > 20);
    }

    void listenerThatGoesAway()
    {
        const std::string sock = (m_dir.path() + "/away.sock").toStdString();
        Listener l(sock);
        QVERIFY(l.ok());
        // The program holds after its first token until the listener is gone: the probe notices
        // either while the program runs or when its goodbye finds nobody, never not at all.
        const QString gone = m_dir.path() + "/away.gone";
        l.run([&](int fd) {
            char b[256];
            [[maybe_unused]] auto n = ::recv(fd, b, sizeof b, 0); // the hello, then gone
            ::close(fd);
            QFile(gone).open(QIODevice::WriteOnly);
        });
        const QString root = m_dir.path() + "/away";
        const auto g = engine::run(kBin + "/llmscope-sample-generate",
                                   {"-m", m_model, "-n", "24", "--hold-after", "1", "--hold-file", gone},
                                   env(root, QString::fromStdString(sock)));
        QCOMPARE(g.exitCode, 0);
        QCOMPARE(g.tokens, m_plainTokens);
        checkComplete(root, "dumping on without it");
    }

    void listenerThatRefuses()
    {
        const std::string sock = (m_dir.path() + "/refuse.sock").toStdString();
        Listener l(sock);
        QVERIFY(l.ok());
        l.run([&](int fd) {
            sendLine(fd, live::Refused{"protocol 1 is not 2"});
            char b[4096];
            while (::recv(fd, b, sizeof b, 0) > 0) {
            }
            ::close(fd);
        });
        const QString root = m_dir.path() + "/refuse";
        const auto g = generate(env(root, QString::fromStdString(sock)));
        QCOMPARE(g.exitCode, 0);
        QCOMPARE(g.tokens, m_plainTokens);
        checkComplete(root, "the app refused the live channel (protocol 1 is not 2)");
    }
};

QTEST_GUILESS_MAIN(TstLiveChannel)
#include "tst_livechannel.moc"
