// Compares two dumps in the real main window (offscreen) and prints how long until the Diff
// table shows the result, and until the comparison has finished filling the other views
// (heatmap, curves), with the longest event-loop gap meanwhile. Asserts nothing.
//   llmscope-bench-diff-open GOLDEN TEST
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <QCoroTask>

#include <cstdio>

#include "app/window/main_window.h"
#include "app/workspace/workspace.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: llmscope-bench-diff-open GOLDEN TEST\n");
        return 2;
    }
    MainWindow w;
    w.show();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, tableMs = -1;
    int ops = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] { longestGap = std::max(longestGap, tick.restart()); });
    QObject::connect(&w, &MainWindow::diffShown, [&](int n) {
        tableMs = clock.elapsed();
        ops = n;
    });
    QObject::connect(w.workspace(), &Workspace::compareFinished, [&](bool ok, const QString &message) {
        const qint64 doneMs = clock.elapsed();
        if (!ok) {
            std::fprintf(stderr, "cannot compare: %s\n", qPrintable(message));
            app.exit(1);
            return;
        }
        std::printf("diff table (%d ops) after %lld ms; every view filled after %lld ms; longest event-loop gap "
                    "%lld ms\n",
                    ops, (long long)tableMs, (long long)doneMs, (long long)longestGap);
        app.quit();
    });
    QTimer::singleShot(0, [&] {
        clock.start();
        tick.start();
        timer.start();
        w.workspace()->compare(QString::fromLocal8Bit(argv[1]), QString::fromLocal8Bit(argv[2]));
    });
    return app.exec();
}
