// The probe's live channel on its own: what the program queues reaches the app in order, and
// the goodbye comes last, after every round and the final counters, however far behind the
// app is when the program ends.
#include <QTemporaryDir>
#include <QTest>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "probe/live_channel.h"

using namespace llmscope;
using namespace llmscope::probe;

class TstLiveQueue : public QObject {
    Q_OBJECT

private slots:
    void goodbyeComesAfterEverythingQueued()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/q.sock").toStdString();
        const int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
        const int small = 4096; // the app reads nothing until told: the channel falls behind
        ::setsockopt(server, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        QVERIFY(::bind(server, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 && ::listen(server, 1) == 0);
        std::promise<void> go;
        std::vector<std::string> heard; // message kinds, in order
        std::thread app([&, started = go.get_future()]() mutable {
            const int c = ::accept(server, nullptr, nullptr);
            started.wait();
            std::string buf;
            char chunk[65536];
            for (ssize_t n; (n = ::recv(c, chunk, sizeof chunk, 0)) > 0;) {
                buf.append(chunk, size_t(n));
                for (size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
                    const live::Message m = live::decode(buf.substr(0, nl));
                    if (std::holds_alternative<live::Warning>(m))
                        heard.push_back("warning");
                    else if (const auto *r = std::get_if<live::RoundStats>(&m))
                        heard.push_back("stats " + std::to_string(r->round));
                    else if (const auto *k = std::get_if<live::Counters>(&m))
                        heard.push_back("counters " + std::to_string(k->skipped));
                    else if (std::holds_alternative<live::Goodbye>(m))
                        heard.push_back("goodbye");
                }
                if (!heard.empty() && heard.back() == "goodbye")
                    break;
            }
            ::close(c);
        });
        // Left to the process's exit, as a channel whose app is slow is at the program's.
        auto *channel = new LiveChannel(path, live::Hello{live::kProtocolVersion, 1, "test", "CPU", "x"}, {});
        for (int i = 0; i < 1000; ++i) // 16 MiB: far more than the socket holds
            channel->send(live::Warning{std::string(16 << 10, 'w')});
        channel->sendRound(live::RoundStats{7, {}});
        live::Counters c;
        c.skipped = 3;
        channel->sendCounters(c);
        channel->finish(true, std::chrono::milliseconds(0)); // the program ends now
        go.set_value();
        app.join();
        ::close(server);
        QCOMPARE(heard.size(), size_t(1003));
        QCOMPARE(heard[1000], std::string("stats 7"));
        QCOMPARE(heard[1001], std::string("counters 3"));
        QCOMPARE(heard[1002], std::string("goodbye"));
    }
};

QTEST_GUILESS_MAIN(TstLiveQueue)
#include "tst_livequeue.moc"
