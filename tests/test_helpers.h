// Builders shared by the suites: tensors with known values and small synthetic dumps.
#pragma once
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <QByteArray>
#include <QTemporaryFile>

#include "core/dump/dump_index.h"
#include "core/dump/dump_writer.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/tensor/tensor.h"

namespace testing {

inline void writeRaw(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

inline llmscope::Tensor f32Tensor(std::vector<int64_t> dims, const std::vector<float> &values)
{
    llmscope::Tensor t;
    t.dtype = 0;
    t.dims = std::move(dims);
    t.hasData = true;
    t.data.resize(values.size() * 4);
    std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
}

// Random payload of the right size for any dtype with a known element size.
inline llmscope::Tensor randomTensor(int32_t dtype, std::vector<int64_t> dims, unsigned seed = 1)
{
    llmscope::Tensor t;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.hasData = true;
    std::mt19937 rng(seed);
    t.data.resize(*llmscope::dtypeBytes(dtype, t.elementCount()));
    for (auto &b : t.data)
        b = static_cast<uint8_t>(rng());
    return t;
}

// Multiplies a float32 tensor file's values by factor, in place (an output a kernel got wrong).
inline void scaleTensorFile(const std::string &path, float factor)
{
    llmscope::Tensor t = llmscope::readBin(path);
    auto *v = reinterpret_cast<float *>(t.data.data());
    for (size_t i = 0; i < t.data.size() / 4; ++i)
        v[i] *= factor;
    llmscope::writeBin(path, t);
}

// The synthetic dumps' time; their folder is named in local time, as msit names its own
// (dumpFolderName), so a test reads the name from there, never from its own time zone.
constexpr std::time_t kSyntheticTime = 1700000000;

// A writer into outDir with a fixed timestamp and no free-space floor.
inline llmscope::DumpWriter::Options writerOptions(const std::string &outDir)
{
    llmscope::DumpWriter::Options o;
    o.outDir = outDir;
    o.minFreeBytes = 0;
    o.timestamp = kSyntheticTime;
    return o;
}

// A msit-layout dump: rounds 0 and 1, ops 0_Embed, 1_Layer/{0_Norm,1_Linear}, 2_Head,
// inputs before and outputs after. Returns the msit_dump_* folder.
inline std::string writeSyntheticDump(const std::string &outDir, int64_t pid = 4242)
{
    llmscope::DumpWriter w(writerOptions(outDir));
    const std::vector<std::vector<std::string>> ops = {
        {"0_Embed"}, {"1_Layer", "0_Norm"}, {"1_Layer", "1_Linear"}, {"2_Head"}};
    for (int64_t round = 0; round < 2; ++round)
        for (size_t k = 0; k < ops.size(); ++k) {
            const float base = float(round * 100 + k);
            w.writeTensor(0, pid, round, ops[k], true, true, 0, f32Tensor({2, 2}, {base, 1, 2, 3}));
            w.writeTensor(0, pid, round, ops[k], false, false, 0, f32Tensor({2, 2}, {base, -1, -2, -3}));
        }
    return w.root();
}

// A dump to replay (llmscope opcheck), pid 5, round 0, under 0_Layer: MUL_MAT outputs exact
// (0_0), scaled by 1.001 (0_1: a bias no rounding explains) and with a NaN (0_2), each with
// its op_param.json; an RMS_NORM without one (0_3); a VIEW (0_4). Returns the msit_dump_* folder.
inline std::string writeReplayDump(const std::string &outDir)
{
    llmscope::DumpWriter w(writerOptions(outDir));
    std::vector<float> a(64 * 32), b(64 * 8);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = float(std::sin(double(i) * 0.37));
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = float(std::cos(double(i) * 0.91));
    std::vector<double> exact(32 * 8);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 32; ++c) {
            double s = 0;
            for (int k = 0; k < 64; ++k)
                s += double(a[size_t(c * 64 + k)]) * double(b[size_t(r * 64 + k)]);
            exact[size_t(r * 32 + c)] = s;
        }
    auto out = [&](double scale, bool nan) {
        std::vector<float> o(exact.size());
        for (size_t i = 0; i < o.size(); ++i)
            o[i] = float(exact[i] * scale);
        if (nan)
            o[3] = NAN;
        return o;
    };
    const std::vector<std::pair<std::string, std::vector<float>>> cases{
        {"0_MUL_MAT", out(1, false)}, {"1_MUL_MAT", out(1.001, false)}, {"2_MUL_MAT", out(1, true)}};
    for (const auto &[folder, values] : cases) {
        w.writeTensor(0, 5, 0, {"0_Layer", folder}, true, true, 0, f32Tensor({32, 64}, a));
        w.writeTensor(0, 5, 0, {"0_Layer", folder}, true, true, 1, f32Tensor({8, 64}, b));
        w.writeTensor(0, 5, 0, {"0_Layer", folder}, false, false, 0, f32Tensor({8, 32}, values));
        w.writeText("tensors/0_5/0/0_Layer/" + folder + "/op_param.json", R"({"id":"0_0","op":"MUL_MAT","param":{}})");
    }
    w.writeTensor(0, 5, 0, {"0_Layer", "3_RMS_NORM"}, true, true, 0, f32Tensor({2}, {3, 4}));
    w.writeTensor(0, 5, 0, {"0_Layer", "3_RMS_NORM"}, false, false, 0, f32Tensor({2}, {0.6f, 0.8f}));
    w.writeTensor(0, 5, 0, {"0_Layer", "4_VIEW"}, true, true, 0, f32Tensor({2}, {3, 4}));
    w.writeTensor(0, 5, 0, {"0_Layer", "4_VIEW"}, false, false, 0, f32Tensor({2}, {3, 4}));
    w.finishIndex();
    return w.root();
}

// Whether the window's scan of root (scanDumpByRound, which takes the writer's index where a
// process folder has one) lists what a walk that opens every file lists: the same files,
// places and headers. why gets the first difference.
inline bool indexedScanMatchesWalk(const std::string &root, std::string &why)
{
    const llmscope::DumpIndex walked = llmscope::scanDump(root);
    const llmscope::DumpIndex indexed =
        llmscope::scanDumpByRound(root, [](const llmscope::DumpIndex &) { return true; });
    if (walked.tensors.size() != indexed.tensors.size()) {
        why = std::to_string(indexed.tensors.size()) + " tensors listed, " + std::to_string(walked.tensors.size()) +
            " walked";
        return false;
    }
    auto stats = [](const llmscope::TensorRecord &t) {
        return t.stats
            ? std::vector<double>{double(t.stats->count), t.stats->max, t.stats->min, t.stats->mean, t.stats->l2norm}
            : std::vector<double>{};
    };
    for (size_t i = 0; i < walked.tensors.size(); ++i) {
        const auto &a = walked.tensors[i], &b = indexed.tensors[i];
        const bool same = a.path == b.path && a.device == b.device && a.pid == b.pid && a.exec == b.exec &&
            a.opId == b.opId && a.opFolders == b.opFolders && a.opName == b.opName && a.before == b.before &&
            a.input == b.input && a.index == b.index && a.param == b.param && a.dtype == b.dtype &&
            a.format == b.format && a.dims == b.dims && a.hasData == b.hasData && a.dataBytes == b.dataBytes &&
            a.dataOffset == b.dataOffset && a.engineType == b.engineType && a.engineDims == b.engineDims &&
            stats(a) == stats(b) && b.headerRead;
        if (!same) {
            why = "differs at " + a.path;
            return false;
        }
    }
    if (walked.problems.size() != indexed.problems.size() || walked.layout != indexed.layout) {
        why = "problems or layout differ";
        return false;
    }
    return true;
}

// A file standing in for the probe library while it lives (LLMSCOPE_PROBE_LIB): a launch's checks
// pass in a build without the probe (the sanitizer builds leave it out), so that a test can make
// a launch fail later, once under way. Never run: such a launch fails before its program starts.
class StandInProbe {
public:
    StandInProbe() : m_had(qEnvironmentVariableIsSet("LLMSCOPE_PROBE_LIB")), m_old(qgetenv("LLMSCOPE_PROBE_LIB"))
    {
        m_file.open();
        qputenv("LLMSCOPE_PROBE_LIB", m_file.fileName().toLocal8Bit());
    }
    ~StandInProbe()
    {
        if (m_had)
            qputenv("LLMSCOPE_PROBE_LIB", m_old);
        else
            qunsetenv("LLMSCOPE_PROBE_LIB");
    }
    StandInProbe(const StandInProbe &) = delete;
    StandInProbe &operator=(const StandInProbe &) = delete;

private:
    bool m_had;
    QByteArray m_old;
    QTemporaryFile m_file;
};

} // namespace testing
