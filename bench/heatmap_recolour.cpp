// A heatmap of 32 layers x 40 operation kinds with 200 rounds of statistics in the real
// view (offscreen): how long a threshold change takes until the view has repainted, and a
// change of the statistic shown, measured in one run. Prints the times; asserts nothing.
#include <QApplication>
#include <QDoubleSpinBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QTableView>

#include <cstdio>

#include "document/session_document.h"
#include "views/heatmap_view.h"

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    constexpr int kLayers = 32, kKinds = 40, kRounds = 200;
    std::vector<llmscope::live::TopoOp> groups, ops;
    for (int l = 0; l < kLayers; ++l) {
        groups.push_back({std::to_string(l), "Layer" + std::to_string(l), "DecoderLayer", {}, ""});
        for (int k = 0; k < kKinds; ++k)
            ops.push_back({std::to_string(l) + "_" + std::to_string(k),
                           "op" + std::to_string(k) + "-" + std::to_string(l),
                           "MUL_MAT",
                           {},
                           ""});
    }
    HeatmapView v;
    SessionDocument doc; // the statistics' owner
    v.colours()->follow(&doc);
    v.resize(1800, 1000);
    v.show();
    v.model()->setOps(llmscope::OpGraph(llmscope::live::Topology{0, 0, groups, ops}));
    for (int r = 0; r < kRounds; ++r) {
        llmscope::live::RoundStats s{r, {}};
        for (const auto &o : ops)
            s.stats.push_back(
                {o.id, double((r * 7 + std::stoi(o.id.substr(o.id.find('_') + 1))) % 97), -1, 0, 1, 0, 0});
        doc.addRounds({{}, {s}});
    }
    app.processEvents();
    auto timed = [&](const char *what, auto change) {
        double best = 1e9, worst = 0;
        for (int i = 0; i < 20; ++i) {
            QElapsedTimer t;
            t.start();
            change(i);
            v.table()->viewport()->repaint(); // the recoloured cells painted
            const double ms = double(t.nsecsElapsed()) / 1e6;
            best = std::min(best, ms);
            worst = std::max(worst, ms);
        }
        std::printf("%s: %.2f ms best, %.2f ms worst of 20, until repainted (%d x %d cells, %d rounds kept)\n", what,
                    best, worst, kLayers, kKinds, kRounds);
    };
    timed("threshold change", [&](int i) { v.thresholdBox()->setValue(10.0 + i * 3); });
    timed("statistic change", [&](int i) { v.metricBox()->setCurrentIndex(i % 3); });
    return 0;
}
