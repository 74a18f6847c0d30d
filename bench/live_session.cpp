// The window attached to a program that streams the statistics of every node: the real main
// window (offscreen) launches the sample target under the probe and measures, while the rounds
// and statistics stream in, the longest gap between ticks of a 10 ms timer (latency, which the
// machine's scheduling adds to), the GUI thread's CPU time, and its longest stretch of work
// between two waits of the event loop (what the window itself blocks for). Prints the
// figures; asserts nothing.
//   llmscope-bench-live-session BIN_DIR MODEL TOKENS OUT_DIR
#include <QAbstractEventDispatcher>
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>
#include <ctime>

#include "app/window/main_window.h"
#include "app/workspace/workspace.h"
#include "core/launch/dump_options.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt's own event dispatcher, which signals around each wait (the glib one signals around
    // its source checks instead).
    qputenv("QT_NO_GLIB", "1");
    QApplication app(argc, argv);
    if (argc != 5) {
        std::fprintf(stderr, "usage: llmscope-bench-live-session BIN_DIR MODEL TOKENS OUT_DIR\n");
        return 2;
    }
    const std::string cmd = std::string(argv[1]) + "/llmscope-sample-generate -m " + argv[2] + " -p benchmark -n " +
        argv[3] + " -t 1 --ctx " + std::to_string(std::atoi(argv[3]) + 16);
    const auto options =
        llmscope::parseDumpOptions({"--exec", cmd, "--type", "model", "stats", "-er", "0,1000000", "-o", argv[4]});
    MainWindow w;
    w.show();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, longestAt = 0, ticks = 0, rounds = 0, stats = 0, statsRows = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        const qint64 gap = tick.restart();
        if (gap > longestGap) {
            longestGap = gap;
            longestAt = clock.elapsed();
        }
        ++ticks;
    });
    QObject::connect(w.workspace()->session(), &LiveSession::roundReceived, [&] { ++rounds; });
    QObject::connect(w.workspace()->session(), &LiveSession::statsReceived, [&](const llmscope::live::RoundStats &s) {
        ++stats;
        statsRows += qint64(s.stats.size());
    });
    // The GUI thread's own CPU time: how much of the run it was busy, whatever the machine did.
    auto cpuMs = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
    };
    double cpuAtLaunch = 0;
    // The longest stretch of work between two waits of the event loop, in the GUI thread's
    // CPU time: what the window itself blocks for, apart from the machine taking the core away.
    double awakeCpu = 0, longestWork = 0;
    auto *dispatcher = QAbstractEventDispatcher::instance();
    QObject::connect(dispatcher, &QAbstractEventDispatcher::awake, [&] { awakeCpu = cpuMs(); });
    QObject::connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, [&] {
        if (awakeCpu > 0)
            longestWork = std::max(longestWork, cpuMs() - awakeCpu);
    });
    QObject::connect(
        w.workspace()->session(), &LiveSession::stateChanged, [&](LiveSession::State s, const QString &message) {
            if (s == LiveSession::State::Running || s == LiveSession::State::Connected ||
                s == LiveSession::State::Starting)
                return;
            std::printf("GUI thread busy %.0f ms of CPU while the program ran, at most %.1f ms between two waits; ",
                        cpuMs() - cpuAtLaunch, longestWork);
            std::printf(
                "%s after %.2f s: %lld rounds and %lld statistics messages (%lld op statistics) received, "
                "%d ops in the tree; longest event-loop gap %lld ms, ending %lld ms after the launch (%lld ticks "
                "of 10 ms)\n",
                qPrintable(message), double(clock.elapsed()) / 1000.0, (long long)rounds, (long long)stats,
                (long long)statsRows, w.opPanel()->model()->opCount(), (long long)longestGap, (long long)longestAt,
                (long long)ticks);
            app.quit();
        });
    QTimer::singleShot(0, [&] {
        cpuAtLaunch = cpuMs();
        clock.start();
        tick.start();
        timer.start();
        if (!w.launch(options))
            app.exit(1);
    });
    return app.exec();
}
