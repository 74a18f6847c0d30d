// One layer of chained ops written as a probe would dump them, for the suites that judge ops
// (tst_compare) and run the hunt on dumps (tst_huntrunner): op k's input 0 is op k-1's output
// (the first op's is the graph input "inp"), and ops listed in `weights` also read a weight
// ("w{k}.weight") as input 1. Each side's values: base(k, i) * (1 + rel(k) * noise(i)), so
// rel(k) is the relative euclidean error of op k's output; weights get wrel(k) likewise.
#pragma once
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/dump/dump_writer.h"
#include "core/dump/topology.h"
#include "core/tensor/stats.h"
#include "tests/test_helpers.h"

namespace testing {

struct Chain {
    std::vector<std::pair<std::string, std::string>> ops; // {node name, op type}
    std::set<size_t> weights;
};

struct ChainDumpOptions {
    bool statsOnly = false; // statistics in the headers, no payload (--type stats)
    bool scaled = false; // the error as a scale, base * (1 + rel): statistics see it whole
    std::optional<size_t> onlyOp; // -ids: that op's tensors alone
    bool noSketch = false; // statistics without their sketch (as before sketches)
    // Changes op k's output values after they are made (and so its successor's input).
    std::function<void(size_t k, std::vector<float> &)> change;
};

inline std::vector<float> chainValues(size_t k, double r, bool scaled)
{
    std::vector<float> v(256);
    double n2 = 0, e2 = 0;
    std::vector<double> noise(256);
    for (int i = 0; i < 256; ++i) {
        v[size_t(i)] = float(std::sin(double(i) * 0.37 + double(k)) * (1 + double(i % 7)));
        noise[size_t(i)] = scaled ? v[size_t(i)] : std::cos(double(i) * 1.93 + double(k) * 0.5);
        n2 += double(v[size_t(i)]) * v[size_t(i)];
        e2 += noise[size_t(i)] * noise[size_t(i)];
    }
    const double scale = r * std::sqrt(n2 / e2); // ||noise * scale|| = r ||v||
    for (int i = 0; i < 256; ++i)
        v[size_t(i)] += float(noise[size_t(i)] * scale);
    return v;
}

// Writes the chain's dump (round 0, pid 7) under dir; the msit_dump_* folder.
inline std::string writeChain(
    const std::string &dir, const Chain &c, const std::function<double(size_t)> &rel,
    const std::function<double(size_t)> &wrel = [](size_t) { return 0.0; }, const ChainDumpOptions &opt = {})
{
    llmscope::DumpWriter w(writerOptions(dir));
    auto tensor = [&](const std::vector<float> &v) {
        llmscope::Tensor t = f32Tensor({16, 16}, v);
        if (opt.statsOnly) {
            llmscope::setStatsAttrs(t, llmscope::computeStats(t, !opt.noSketch));
            t.hasData = false;
            t.data.clear();
        }
        return t;
    };
    llmscope::TopoNode model;
    model.name = "GgmlGraph";
    llmscope::TopoNode layer;
    layer.name = "Layer0";
    layer.type = "DecoderLayer";
    auto output = [&](size_t k) {
        auto v = chainValues(k, rel(k), opt.scaled);
        if (opt.change)
            opt.change(k, v);
        return v;
    };
    for (size_t k = 0; k < c.ops.size(); ++k) {
        const std::vector<std::string> folders{"0_DecoderLayer", std::to_string(k) + "_" + c.ops[k].second};
        const bool written = !opt.onlyOp || *opt.onlyOp == k;
        const auto in = k ? output(k - 1) : chainValues(99, 0, opt.scaled);
        if (written)
            w.writeTensor(0, 7, 0, folders, true, true, 0, tensor(in));
        llmscope::TopoNode n;
        n.name = c.ops[k].first;
        n.type = c.ops[k].second;
        n.inTensors = {k ? c.ops[k - 1].first : std::string("inp")};
        if (c.weights.count(k)) {
            if (written)
                w.writeTensor(0, 7, 0, folders, true, true, 1, tensor(chainValues(50 + k, wrel(k), opt.scaled)));
            n.inTensors.push_back("w" + std::to_string(k) + ".weight");
        }
        n.outTensors = {c.ops[k].first};
        if (written)
            w.writeTensor(0, 7, 0, folders, false, false, 0, tensor(output(k)));
        layer.children.push_back(n);
    }
    model.children.push_back(layer);
    w.writeText("model/7/GgmlGraph.json", writeModelTopology(model));
    return w.root();
}

} // namespace testing
