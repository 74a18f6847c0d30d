// The probe's writer thread on its own: when the target's graph threads fill every core, the
// writer waits for the gap between graphs, but never indefinitely, and loses nothing; each
// round's statistic.csv holds every row given for it exactly once, however the rows come.
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <unistd.h>

#include "core/util/atomic_file.h"
#include "probe/writer_thread.h"

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

// One statistics row for round `round`: a float32 tensor [v, v] of op `op`.
TensorJob csvJob(int64_t round, const std::string &op, float v)
{
    TensorJob j;
    j.round = round;
    j.folders = {"0_Layer", op};
    j.csv = j.statsOnly = true;
    j.opType = "ADD";
    j.tensor.dtype = 0; // float32
    j.tensor.dims = {2};
    j.tensor.hasData = true;
    j.tensor.data.resize(8);
    std::memcpy(j.tensor.data.data(), &v, 4);
    std::memcpy(j.tensor.data.data() + 4, &v, 4);
    return j;
}

std::vector<std::string> lines(const fs::path &p)
{
    const auto bytes = llmscope::readWholeFile(p.string());
    std::vector<std::string> out;
    std::string line;
    for (uint8_t c : bytes) {
        if (c == '\n') {
            out.push_back(line);
            line.clear();
        } else {
            line += char(c);
        }
    }
    return out;
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

    // Rows come round after round, a status is written in the middle of a round, and a round
    // already written gets more rows (another scheduler's graph ran in between): every file
    // ends with its header and each row once.
    void statisticCsvHoldsEveryRowOnce()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        auto submit = [](WriterThread &w, TensorJob j) {
            std::vector<TensorJob> v;
            v.push_back(std::move(j));
            w.submit(std::move(v));
        };
        const fs::path rounds = root / "tensors" / ("0_" + std::to_string(::getpid()));
        // A file an earlier process with the same pid left is replaced, not merged.
        fs::create_directories(rounds / "2");
        std::ofstream(rounds / "2" / "statistic.csv") << llmscope::statisticCsvHeader() << "stale row\n";
        {
            WriterThread w(root.string(), 64 << 20, {});
            submit(w, csvJob(1, "0_ADD", 1.0f));
            submit(w, csvJob(1, "1_ADD", 2.0f));
            w.submitStatus({});
            submit(w, csvJob(1, "2_ADD", 3.0f));
            submit(w, csvJob(2, "0_ADD", 4.0f));
            submit(w, csvJob(1, "3_ADD", 5.0f)); // round 1 again
            submit(w, csvJob(3, "0_ADD", 6.0f)); // the last round: written when the writer stops
        }
        const auto one = lines(rounds / "1" / "statistic.csv"), two = lines(rounds / "2" / "statistic.csv"),
                   three = lines(rounds / "3" / "statistic.csv");
        QCOMPARE(one.size(), size_t(5));
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(three.size(), size_t(2));
        QCOMPARE(QString::fromStdString(one[0]), QString::fromStdString(llmscope::statisticCsvHeader()).trimmed());
        QCOMPARE(one[0], two[0]);
        const char *ops[] = {"0_ADD", "1_ADD", "2_ADD", "3_ADD"};
        const char *maxima[] = {",1.000000,", ",2.000000,", ",3.000000,", ",5.000000,"};
        for (int i = 0; i < 4; ++i) {
            QVERIFY2(one[size_t(i + 1)].find(std::string("0_Layer/") + ops[i]) != std::string::npos,
                     one[size_t(i + 1)].c_str());
            QVERIFY2(one[size_t(i + 1)].find(maxima[i]) != std::string::npos, one[size_t(i + 1)].c_str());
        }
        QVERIFY(two[1].find(",4.000000,") != std::string::npos); // and not the stale row
        // Nothing left behind from the atomic writes.
        for (const auto &e : fs::recursive_directory_iterator(root))
            QVERIFY2(e.path().filename().string().find(".tmp.") == std::string::npos, e.path().c_str());
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

    // At the target's exit: from the moment the exit handler starts, only its own thread is
    // heard (a thread still computing hands over nothing more); closing writes what is queued,
    // the status last, ends the thread, and drops what comes after.
    void closingWritesWhatIsQueuedThenDropsTheRest()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        WriterThread w(root.string(), 64 << 20, {});
        w.graphStarted(true);
        for (int i = 0; i < 5; ++i)
            w.submitText("before" + std::to_string(i) + ".txt", "x");
        w.acceptOnlyThisThread();
        std::thread([&w] {
            w.submitText("other.txt", "x");
            std::vector<TensorJob> jobs{csvJob(0, "0_ADD", 1.0f)};
            w.submit(std::move(jobs));
        }).join();
        w.submitText("mine.txt", "x");
        llmscope::ProbeStatus st;
        st.pid = 99;
        st.finished = true;
        w.close(st);
        w.submitText("after.txt", "x");
        w.drain(); // returns at once: nothing is queued
        std::set<std::string> files;
        for (const auto &e : fs::recursive_directory_iterator(root))
            if (e.is_regular_file())
                files.insert(fs::relative(e.path(), root).string());
        QCOMPARE(files,
                 (std::set<std::string>{"before0.txt", "before1.txt", "before2.txt", "before3.txt", "before4.txt",
                                        "mine.txt", "llmscope/99.json"}));
    }
};

QTEST_GUILESS_MAIN(TstWriterThread)
#include "tst_writerthread.moc"
