// Opens a dump folder in the real main window (offscreen) and measures, in one run, how long
// until the window shows its operations tree and its tensor files, and the longest gap
// between ticks of a 10 ms timer while it loads (the event loop's worst stall). Prints the
// figures; asserts nothing.
//   llmscope-bench-window-open DUMP_FOLDER
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <QCoroTask>

#include <cstdio>

#include "main_window.h"
#include "workspace.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: llmscope-bench-window-open DUMP_FOLDER\n");
        return 2;
    }
    MainWindow w;
    w.show();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        longestGap = std::max(longestGap, tick.restart());
        ++ticks;
    });
    int tensors = -1, ops = -1;
    qint64 shownMs = -1, opsMs = -1;
    QObject::connect(w.workspace(), &Workspace::topologyShown, [&](const QString &, int n) {
        ops = n;
        opsMs = clock.elapsed();
    });
    QObject::connect(w.workspace(), &Workspace::dumpLoaded, [&](const QString &, int n) {
        tensors = n;
        shownMs = clock.elapsed();
    });
    QObject::connect(w.workspace(), &Workspace::dumpFailed, [&](const QString &, const QString &why) {
        std::fprintf(stderr, "cannot open: %s\n", qPrintable(why));
        app.exit(1);
    });
    QTimer::singleShot(0, [&] {
        clock.start();
        tick.start();
        timer.start();
        w.workspace()->openDump(QString::fromLocal8Bit(argv[1]));
    });
    QObject::connect(w.workspace(), &Workspace::dumpLoaded, [&] {
        // a few more ticks: the first paint of the filled views counts too
        QTimer::singleShot(200, [&] {
            std::printf("operations tree (%d ops) after %lld ms; tensor files (%d) after %lld ms; longest event-loop "
                        "gap %lld ms (%lld ticks of 10 ms)\n",
                        ops, (long long)opsMs, tensors, (long long)shownMs, (long long)longestGap, (long long)ticks);
            app.quit();
        });
    });
    return app.exec();
}
