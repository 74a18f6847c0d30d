// The window attached to a program that streams the statistics of every node: the real main
// window (offscreen) launches the sample target under the probe and measures the longest gap
// between ticks of a 10 ms timer while the rounds and statistics stream in. Prints the
// figures; asserts nothing.
//   llmscope-bench-live-session BIN_DIR MODEL TOKENS OUT_DIR
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

#include "launch/dump_options.h"
#include "main_window.h"
#include "op_tree_model.h"
#include "op_tree_panel.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 5) {
        std::fprintf(stderr, "usage: llmscope-bench-live-session BIN_DIR MODEL TOKENS OUT_DIR\n");
        return 2;
    }
    const std::string cmd = std::string(argv[1]) + "/llmscope-sample-generate -m " + argv[2] + " -p benchmark -n " +
                            argv[3] + " -t 1 --ctx " + std::to_string(std::atoi(argv[3]) + 16);
    const auto options = llmscope::parseDumpOptions({"--exec", cmd, "--type", "model", "stats", "-er", "0,1000000",
                                                     "-o", argv[4]});
    MainWindow w;
    w.show();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, ticks = 0, rounds = 0, stats = 0, statsRows = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        longestGap = std::max(longestGap, tick.restart());
        ++ticks;
    });
    QObject::connect(w.session(), &LiveSession::roundReceived, [&] { ++rounds; });
    QObject::connect(w.session(), &LiveSession::statsReceived, [&](const llmscope::live::RoundStats &s) {
        ++stats;
        statsRows += qint64(s.stats.size());
    });
    QObject::connect(w.session(), &LiveSession::stateChanged, [&](LiveSession::State s, const QString &message) {
        if (s == LiveSession::State::Running || s == LiveSession::State::Connected || s == LiveSession::State::Starting)
            return;
        std::printf("%s after %.2f s: %lld rounds and %lld statistics messages (%lld op statistics) received, "
                    "%d ops in the tree; longest event-loop gap %lld ms (%lld ticks of 10 ms)\n",
                    qPrintable(message), double(clock.elapsed()) / 1000.0, (long long)rounds, (long long)stats,
                    (long long)statsRows, w.opPanel()->model()->opCount(), (long long)longestGap, (long long)ticks);
        app.quit();
    });
    QTimer::singleShot(0, [&] {
        clock.start();
        tick.start();
        timer.start();
        if (!w.launch(options))
            app.exit(1);
    });
    return app.exec();
}
