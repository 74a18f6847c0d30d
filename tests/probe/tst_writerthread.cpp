// The probe's writer thread on its own: when the target's graph threads fill every core, the
// writer waits for the gap between graphs, but never indefinitely, and loses nothing.
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <filesystem>
#include <thread>

#include "writer_thread.h"

using namespace llmscope::probe;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Polls for a file for up to `limit`; returns how long it took, or -1 ms when it never came.
std::chrono::milliseconds appears(const fs::path &p, std::chrono::milliseconds limit)
{
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < limit) {
        if (fs::exists(p))
            return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        std::this_thread::sleep_for(1ms);
    }
    return -1ms;
}

} // namespace

class TstWriterThread : public QObject {
    Q_OBJECT
private slots:
    void waitsForTheGapBetweenCrowdedGraphs()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        WriterThread w(root.string(), 64 << 20, {}, 5000ms);
        w.graphStarted(true);
        w.submitText("a.txt", "a");
        // The writer holds back while the graph runs (here up to 5 s; it would take a few ms).
        std::this_thread::sleep_for(100ms);
        QVERIFY(!fs::exists(root / "a.txt"));
        w.graphEnded();
        QVERIFY(appears(root / "a.txt", 5000ms) >= 0ms);
    }

    void aLongGraphDoesNotStarveTheWriter()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        WriterThread w(root.string(), 64 << 20, {}, 20ms);
        w.graphStarted(true); // and never ends
        for (int i = 0; i < 5; ++i)
            w.submitText("f" + std::to_string(i) + ".txt", "x");
        for (int i = 0; i < 5; ++i)
            QVERIFY(appears(root / ("f" + std::to_string(i) + ".txt"), 5000ms) >= 0ms);
        w.graphEnded();
    }

    void uncrowdedGraphsDoNotHoldTheWriter()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        WriterThread w(root.string(), 64 << 20, {});
        w.graphStarted(false);
        w.submitText("b.txt", "b");
        w.drain(); // returns once written, with the graph still running
        QVERIFY(fs::exists(root / "b.txt"));
        w.graphEnded();
    }

    // At the target's exit a graph may still be marked as running: draining writes at once.
    void drainingDoesNotWaitForTheGraph()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        WriterThread w(root.string(), 64 << 20, {}, 5000ms);
        w.graphStarted(true); // never ends
        for (int i = 0; i < 10; ++i)
            w.submitText("d" + std::to_string(i) + ".txt", "x");
        const auto start = std::chrono::steady_clock::now();
        w.drain();
        QVERIFY(std::chrono::steady_clock::now() - start < 4000ms); // not 10 x 5 s
        for (int i = 0; i < 10; ++i)
            QVERIFY(fs::exists(root / ("d" + std::to_string(i) + ".txt")));
    }

    // Whatever is queued when the writer stops is written, crowded graph or not.
    void stoppingWritesEverything()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        {
            WriterThread w(root.string(), 64 << 20, {});
            w.graphStarted(true);
            for (int i = 0; i < 20; ++i)
                w.submitText("s" + std::to_string(i) + ".txt", "x");
        }
        for (int i = 0; i < 20; ++i)
            QVERIFY(fs::exists(root / ("s" + std::to_string(i) + ".txt")));
    }
};

QTEST_GUILESS_MAIN(TstWriterThread)
#include "tst_writerthread.moc"
