// Opens a 100-million-element float32 tensor file (400 MB, written here) in the real tensor
// inspector, offscreen, and measures in one run how long until its values table shows, how
// long until the statistics and histogram (computed off the GUI thread) are in, and the
// longest event-loop gap meanwhile. Prints the figures; asserts nothing.
//   llmscope-bench-inspector-open FOLDER
#include <QApplication>
#include <QElapsedTimer>
#include <QTableView>
#include <QTimer>

#include <cstdio>

#include "core/tensor/bin_file.h"
#include "core/util/atomic_file.h"
#include "views/tensor_inspector.h"
#include "views/tensor_slice_model.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: llmscope-bench-inspector-open FOLDER\n");
        return 2;
    }
    const std::string dir = std::string(argv[1]) + "/after";
    llmscope::makeDirs(dir);
    const std::string path = dir + "/outtensor0.bin";
    {
        llmscope::Tensor t;
        t.dtype = 0;
        t.dims = {100, 1000, 1000};
        t.hasData = true;
        t.data.resize(400'000'000);
        auto *f = reinterpret_cast<float *>(t.data.data());
        for (size_t i = 0; i < 100'000'000; ++i)
            f[i] = float(i % 1000) * 0.001f;
        llmscope::writeBin(path, t);
    }
    TensorInspector w;
    w.resize(1000, 800);
    w.show();
    QElapsedTimer clock, tick;
    qint64 longestGap = 0, tableMs = -1;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] { longestGap = std::max(longestGap, tick.restart()); });
    QObject::connect(&w, &TensorInspector::tensorLoaded, [&] {
        std::printf("100,000,000 elements: values table after %lld ms (%d x %d cells), statistics and histogram "
                    "after %lld ms, longest event-loop gap %lld ms\n",
                    (long long)tableMs, w.sliceModel()->rowCount(), w.sliceModel()->columnCount(),
                    (long long)clock.elapsed(), (long long)longestGap);
        app.quit();
    });
    QTimer::singleShot(0, [&] {
        clock.start();
        tick.start();
        timer.start();
        w.setOp(QStringLiteral("big"), 0, {QString::fromStdString(path)});
        w.table()->repaint(); // the visible cells read and painted
        tableMs = clock.elapsed();
    });
    return app.exec();
}
