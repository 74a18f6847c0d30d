// Opens a dump folder in the real main window (offscreen) and measures, in one run: when the
// window shows its operations tree, when the first round of tensor files and of heatmap
// statistics is in (the window usable), when every file is in, and the longest gap between
// ticks of a 10 ms timer while it loads (the event loop's worst stall), and the slowest single
// event (LLMSCOPE_BENCH_EVENTS=1 lists each over 20 ms). Prints the figures; asserts nothing.
//   llmscope-bench-window-open DUMP_FOLDER
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <QCoroTask>

#include <cstdio>

#include "app/window/main_window.h"
#include "app/workspace/workspace.h"
#include "core/dump/dump_index.h"
#include "views/dump_tree_model.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"

// Times each event the GUI thread handles at the top of its loop (not nested ones): the
// slowest names what stalled the loop.
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    qint64 slowestMs = 0;
    QString slowest;
    bool notify(QObject *receiver, QEvent *e) override
    {
        if (m_depth++ > 0) {
            const bool r = QApplication::notify(receiver, e);
            --m_depth;
            return r;
        }
        QElapsedTimer t;
        t.start();
        const QString what = QStringLiteral("%1 (%2), event %3")
                                 .arg(QString::fromLatin1(receiver->metaObject()->className()), receiver->objectName())
                                 .arg(int(e->type()));
        const bool r = QApplication::notify(receiver, e);
        --m_depth;
        if (const qint64 ms = t.elapsed(); ms > slowestMs) {
            slowestMs = ms;
            slowest = what;
        }
        if (qEnvironmentVariableIsSet("LLMSCOPE_BENCH_EVENTS") && t.elapsed() >= 20)
            std::fprintf(stderr, "event of %lld ms: %s\n", (long long)t.elapsed(), qPrintable(what));
        return r;
    }

private:
    int m_depth = 0;
};

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: llmscope-bench-window-open DUMP_FOLDER\n");
        return 2;
    }
    MainWindow w;
    w.show();
    Workspace *ws = w.workspace();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, longestGapAt = 0, ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        if (const qint64 gap = tick.restart(); gap > longestGap) {
            longestGap = gap;
            longestGapAt = clock.elapsed();
        }
        ++ticks;
    });
    int tensors = -1, ops = -1, roundsShown = 0;
    qint64 opsMs = -1, firstFilesMs = -1, firstStatsMs = -1, allMs = -1;
    QObject::connect(ws, &Workspace::topologyShown, [&](const QString &, int n) {
        ops = n;
        opsMs = clock.elapsed();
    });
    QObject::connect(ws->document(), &SessionDocument::roundsAdded, [&](const DumpRounds::Chunk &c) {
        if (!c.files.tensors.empty()) {
            ++roundsShown;
            if (firstFilesMs < 0)
                firstFilesMs = clock.elapsed();
        }
        if (!c.stats.empty() && firstStatsMs < 0)
            firstStatsMs = clock.elapsed();
    });
    QObject::connect(ws, &Workspace::dumpLoaded, [&](const QString &, int n) {
        tensors = n;
        allMs = clock.elapsed();
    });
    QObject::connect(ws, &Workspace::dumpFailed, [&](const QString &, const QString &why) {
        std::fprintf(stderr, "cannot open: %s\n", qPrintable(why));
        app.exit(1);
    });
    QTimer::singleShot(300, [&] { // after the window's first layout and paint
        clock.start();
        tick.start();
        timer.start();
        ws->openDump(QString::fromLocal8Bit(argv[1]));
    });
    QObject::connect(ws, &Workspace::dumpLoaded, [&] {
        // a few more ticks: the first paint of the filled views counts too
        QTimer::singleShot(200, [&] {
            std::printf(
                "operations tree (%d ops) after %lld ms; first round's files after %lld ms and statistics "
                "after %lld ms (window usable); all %d tensor files (%d rounds) after %lld ms; heatmap %d x %d; "
                "longest event-loop gap %lld ms, ending %lld ms in (%lld ticks of 10 ms)\n",
                ops, (long long)opsMs, (long long)firstFilesMs, (long long)firstStatsMs, tensors, roundsShown,
                (long long)allMs, w.heatmap()->model()->rowCount(), w.heatmap()->model()->columnCount(),
                (long long)longestGap, (long long)longestGapAt, (long long)ticks);
            std::printf("slowest event handled: %lld ms, %s\n", (long long)app.slowestMs, qPrintable(app.slowest));
            // The scan alone, side by side: what "all files" cannot beat.
            QElapsedTimer scan;
            scan.start();
            const size_t n = llmscope::scanDump(argv[1]).tensors.size();
            std::printf("scanDump alone (no window, every file opened): %zu tensors in %lld ms\n", n,
                        (long long)scan.elapsed());
            scan.restart();
            const size_t listed =
                llmscope::scanDumpByRound(argv[1], [](const llmscope::DumpIndex &) { return true; }).tensors.size();
            std::printf("scanDumpByRound alone (no window, the writer's index where whole): %zu tensors in %lld ms\n",
                        listed, (long long)scan.elapsed());
            app.quit();
        });
    });
    return app.exec();
}
