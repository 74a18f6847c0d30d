// The float64 references opcheck replays ops on: each op's values on inputs worked by hand,
// its bound, and what is skipped and why; then the verdicts of a dump written here, where one
// output is exact, one rounded as float32 would, one scaled by 1.001.
#include <QTemporaryDir>
#include <QTest>
#include <QtCore/qfloat16.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/compare/metrics.h"
#include "core/dump/dump_writer.h"
#include "core/opcheck/msprobe_standard.h"
#include "core/opcheck/opcheck_report.h"
#include "core/opcheck/opcheck_run.h"
#include "core/opcheck/ref_ops.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/convert.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "tests/test_helpers.h"

using namespace llmscope;
using opcheck::RefTensor;

namespace {
RefTensor ref(std::array<int64_t, 4> ne, std::vector<double> v, int32_t dtype = 0)
{
    RefTensor t;
    t.ne = ne;
    t.v = std::move(v);
    t.dtype = dtype;
    return t;
}

opcheck::Reference run(const std::string &op, const nlohmann::json &p, std::vector<RefTensor> in,
                       std::array<int64_t, 4> outNe)
{
    std::string skip;
    auto r = opcheck::reference(op, p, in, outNe, 0, skip);
    if (!r)
        qFatal("%s not replayed: %s", op.c_str(), skip.c_str());
    return *r;
}

void near(const std::vector<double> &got, const std::vector<double> &want)
{
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        if (std::fabs(got[i] - want[i]) > 1e-12 * (1 + std::fabs(want[i])))
            QFAIL(
                qPrintable(QString("element %1: %2, want %3").arg(i).arg(got[i], 0, 'g', 17).arg(want[i], 0, 'g', 17)));
}
} // namespace

// Activations as ggml-cpu's vectorized quantizer makes them (arch/x86/quants.c): each block of
// 32 scaled by 127 / max|x| and rounded to even; d its float16 scale, s (q8_1) float16 of d sum(q).
struct KernelActivations {
    std::vector<float> d, s;
    std::vector<int> q;
};
KernelActivations quantizeAsTheKernel(const std::vector<double> &x)
{
    KernelActivations a;
    const int64_t k = int64_t(x.size());
    a.q.resize(x.size());
    for (int64_t b = 0; b < k; b += 32) {
        float amax = 0;
        for (int64_t j = b; j < b + 32; ++j)
            amax = std::max(amax, std::fabs(float(x[size_t(j)])));
        const float id = amax != 0 ? 127.f / amax : 0.f;
        const float d = amax / 127.f;
        int sum = 0;
        for (int64_t j = b; j < b + 32; ++j) {
            a.q[size_t(j)] = int(std::nearbyint(float(x[size_t(j)]) * id));
            sum += a.q[size_t(j)];
        }
        a.d.push_back(float(qfloat16(d)));
        a.s.push_back(float(qfloat16(d * float(sum))));
    }
    return a;
}

// The worst error over bound of out (rows x cols) on the path of r it fits best.
double fitted(const opcheck::Reference &r, const std::vector<double> &out, int64_t cols = 1)
{
    const RefTensor o = ref({int64_t(out.size()) / cols, cols, 1, 1}, out);
    const opcheck::Reference &f = opcheck::fittedPath(r, o);
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i)
        worst = std::max(worst, std::fabs(out[i] - f.out.v[i]) / f.bound[i]);
    return worst;
}

class TstOpcheck : public QObject {
    Q_OBJECT
private slots:
    // Where the window opens a replay: the earliest round, then the op first in the graph,
    // ids compared as numbers (rows come by folder name, where 2_10 sorts before 2_9).
    void firstFailingIsFirstInTheGraph()
    {
        llmscope::OpcheckResult r;
        auto row = [](const char *id, int64_t round, const char *verdict) {
            llmscope::OpcheckRow x;
            x.opId = id;
            x.round = round;
            x.verdict = *parseVerdict(verdict);
            return x;
        };
        QVERIFY(!llmscope::firstFailing(r));
        r.rows = {row("1_0", 0, "PASS"), row("2_10", 0, "FAIL"), row("2_9", 0, "FAIL"), row("0_0", 1, "FAIL")};
        const llmscope::OpcheckRow *first = llmscope::firstFailing(r);
        QVERIFY(first);
        QCOMPARE(first->opId, std::string("2_9"));
        QCOMPARE(first->round, int64_t(0));
        r.rows = {row("0_0", 1, "FAIL"), row("3_1", 0, "WARN")};
        QCOMPARE(llmscope::firstFailing(r)->opId, std::string("0_0"));

        // An op's worst output per round and over its rounds, as the window shows it: FAIL over
        // ERROR over WARN over PASS over SKIP, the earliest round of equals.
        r.rows = {row("1_0", 0, "PASS"), row("1_0", 0, "ERROR"), row("1_0", 1, "WARN"), row("1_0", 2, "ERROR"),
                  row("2_0", 3, "SKIP")};
        r.indexWorst();
        QCOMPARE(r.worstOf("1_0", 0), &r.rows[1]);
        QCOMPARE(r.worstOf("1_0", 1), &r.rows[2]);
        QCOMPARE(r.worstOf("1_0"), &r.rows[1]); // ERROR in rounds 0 and 2: round 0's
        QCOMPARE(r.worstOf("2_0", 3)->verdict, Verdict::Skip);
        QVERIFY(!r.worstOf("2_0", 0));
        QVERIFY(!r.worstOf("9_9"));
        QCOMPARE(r.rounds(), (std::vector<int64_t>{0, 1, 2, 3}));
        QCOMPARE(std::string(verdictName(Verdict::Warn)), std::string("WARN"));
        QVERIFY(!parseVerdict("pass")); // msit's words, as written
    }

    void elementWise()
    {
        // b repeats over a's rows
        near(run("ADD", {}, {ref({2, 2, 1, 1}, {1, 2, 3, 4}), ref({2, 1, 1, 1}, {10, 20})}, {2, 2, 1, 1}).out.v,
             {11, 22, 13, 24});
        near(run("MUL", {}, {ref({2, 2, 1, 1}, {1, 2, 3, 4}), ref({2, 1, 1, 1}, {10, 20})}, {2, 2, 1, 1}).out.v,
             {10, 40, 30, 80});
        const auto add = run("ADD", {}, {ref({1, 1, 1, 1}, {1e8}), ref({1, 1, 1, 1}, {-1e8 + 1})}, {1, 1, 1, 1});
        QVERIFY(add.bound[0] > 1); // a sum's rounding is relative to its terms, not its tiny result
        near(run("SILU", {}, {ref({2, 1, 1, 1}, {0, 1})}, {2, 1, 1, 1}).out.v, {0, 1 / (1 + std::exp(-1.0))});
        near(run("SCALE", {{"scale", 2.0}, {"bias", 1.0}}, {ref({2, 1, 1, 1}, {1, 3})}, {2, 1, 1, 1}).out.v, {3, 7});
        // SWIGLU: silu(a) * b, from two inputs or the halves of one; swapped swaps them
        const double s2 = 2 / (1 + std::exp(-2.0));
        near(run("SWIGLU", {{"swapped", 0}}, {ref({1, 1, 1, 1}, {2}), ref({1, 1, 1, 1}, {3})}, {1, 1, 1, 1}).out.v,
             {s2 * 3});
        near(run("SWIGLU", {{"swapped", 0}}, {ref({2, 1, 1, 1}, {2, 3})}, {1, 1, 1, 1}).out.v, {s2 * 3});
        near(run("SWIGLU", {{"swapped", 1}}, {ref({2, 1, 1, 1}, {3, 2})}, {1, 1, 1, 1}).out.v, {s2 * 3});
    }

    void normsAndSoftmax()
    {
        const double eps = 1e-5, rms = 1 / std::sqrt((9.0 + 16.0) / 2 + eps);
        near(run("RMS_NORM", {{"eps", eps}}, {ref({2, 1, 1, 1}, {3, 4})}, {2, 1, 1, 1}).out.v, {3 * rms, 4 * rms});
        near(run("NORM", {{"eps", 0.0}}, {ref({2, 1, 1, 1}, {1, 3})}, {2, 1, 1, 1}).out.v, {-1, 1});
        // softmax(x * scale + mask), the masked element 0
        const auto sm = run("SOFT_MAX", {{"scale", 0.5}, {"max_bias", 0.0}},
                            {ref({3, 1, 1, 1}, {0, 2, 4}), ref({3, 1, 1, 1}, {0, 0, -INFINITY})}, {3, 1, 1, 1});
        const double e1 = std::exp(1.0);
        near(sm.out.v, {1 / (1 + e1), e1 / (1 + e1), 0});
    }

    void matricesAndRows()
    {
        // out[i1][i0] = row i0 of a . row i1 of b
        const auto mm = run("MUL_MAT", {}, {ref({2, 2, 1, 1}, {1, 2, 3, 4}), ref({2, 1, 1, 1}, {5, 6})}, {2, 1, 1, 1});
        near(mm.out.v, {17, 39});
        QCOMPARE(mm.f16Noise.size(), size_t(2));
        QVERIFY(mm.bound[0] > 0 && mm.bound[0] < 1e-4);
        near(run("GET_ROWS", {}, {ref({2, 3, 1, 1}, {1, 2, 3, 4, 5, 6}), ref({2, 1, 1, 1}, {2, 0}, 3)}, {2, 2, 1, 1})
                 .out.v,
             {5, 6, 1, 2});
        // SET_ROWS: b's rows into the destination at c's indices, its other rows kept
        const auto set = run("SET_ROWS", {},
                             {ref({2, 1, 1, 1}, {7, 8}), ref({1, 1, 1, 1}, {1}, 9), ref({2, 2, 1, 1}, {1, 2, 3, 4}, 1)},
                             {2, 2, 1, 1});
        near(set.out.v, {1, 2, 7, 8});
        QVERIFY(set.unchecked.empty());
        // Into float16, a value near zero rounds to a subnormal: half its spacing, absolutely.
        std::string skip;
        const auto tiny = opcheck::reference("SET_ROWS", {}, {ref({1, 1, 1, 1}, {1e-6}), ref({1, 1, 1, 1}, {0}, 9)},
                                             {1, 1, 1, 1}, 1, skip);
        QVERIFY(tiny && tiny->bound[0] >= std::ldexp(1.0, -25));
    }

    // A write into the KV cache dumped as the rows it wrote: each row given, as the cache's type
    // stores it. ggml's q8_0 and q4_0 blocks, done here as ggml does them (a float16 scale):
    // every stored value within its block's bound, which is no looser than the scale itself.
    // A product of q8_0 weights on ggml's CPU kernel: the reference quantizes the activations
    // to q8_0 as ggml does and bounds the float rounding of the block sums, so a kernel that
    // takes a block's scale from its neighbour fails where the generic bound (k roundings of
    // 8 bits over sum |a b|) passed it; a correct kernel, vectorized quantizer and all, passes.
    void quantizedProductAsTheCpuKernelComputesIt()
    {
        const int64_t k = 160, rows = 6; // five blocks, as the sample model's width
        std::vector<double> w(static_cast<size_t>(k * rows)), x(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j)
            x[size_t(j)] = float(std::sin(0.71 * double(j)) * (j >= 128 ? 0.2 : 1.0) + 0.01 * double(j % 7));
        for (int64_t r = 0; r < rows; ++r) // a q8_0 weight: each block d q, d a float16
            for (int64_t b = 0; b < k; b += 32) {
                const double d = double(qfloat16(float(0.004 * double(r + 1) + 0.001 * double(b / 32))));
                for (int64_t j = b; j < b + 32; ++j)
                    w[size_t(r * k + j)] = d * double((j * 37 + r * 11) % 255 - 127);
            }
        // the kernel, as arch/x86/quants.c computes it: the vectorized quantizer (127 / max|x|,
        // rounded to even), each block's integer dot, float scales fused into float lanes
        auto kernel = [&](bool neighbourScale) {
            std::vector<double> out(static_cast<size_t>(rows));
            const KernelActivations a = quantizeAsTheKernel(x);
            const std::vector<float> &dx = a.d;
            const std::vector<int> &qx = a.q;
            for (int64_t r = 0; r < rows; ++r) {
                float lanes[8] = {};
                for (int64_t b = 0; b < k; b += 32) {
                    const float dw =
                        float(w[size_t(r * k + b)] / double((b * 37 + r * 11) % 255 - 127)); // its float16 d
                    const int64_t scaleBlock = neighbourScale && b == k - 32 ? b / 32 - 1 : b / 32;
                    const float d = dw * dx[size_t(scaleBlock)];
                    for (int lane = 0; lane < 8; ++lane) {
                        int isum = 0;
                        for (int64_t j = b + lane * 4; j < b + lane * 4 + 4; ++j)
                            isum += int(std::lround(w[size_t(r * k + j)] / double(dw))) * qx[size_t(j)];
                        lanes[lane] = std::fma(d, float(isum), lanes[lane]);
                    }
                }
                float sum = 0;
                for (float l : lanes)
                    sum += l;
                out[size_t(r)] = sum;
            }
            return out;
        };
        const RefTensor weight = [&] {
            RefTensor t = ref({k, rows, 1, 1}, w, opcheck::kQuantizedDtype);
            t.blockType = "q8_0";
            return t;
        }();
        std::string skip;
        const auto cpu = opcheck::reference("MUL_MAT", {{"backend", "CPU"}}, {weight, ref({k, 1, 1, 1}, x)},
                                            {rows, 1, 1, 1}, 0, skip);
        const auto generic = opcheck::reference("MUL_MAT", nlohmann::json::object(), {weight, ref({k, 1, 1, 1}, x)},
                                                {rows, 1, 1, 1}, 0, skip);
        QVERIFY2(cpu && generic, skip.c_str());
        QVERIFY2(QString::fromStdString(cpu->standard).contains("quantized to q8_0"), cpu->standard.c_str());
        const auto right = kernel(false), wrong = kernel(true);
        double worstRight = 0, worstWrong = 0, worstWrongGeneric = 0;
        for (int64_t r = 0; r < rows; ++r) {
            const size_t i = size_t(r);
            worstRight = std::max(worstRight, std::fabs(right[i] - cpu->out.v[i]) / cpu->bound[i]);
            worstWrong = std::max(worstWrong, std::fabs(wrong[i] - cpu->out.v[i]) / cpu->bound[i]);
            worstWrongGeneric =
                std::max(worstWrongGeneric, std::fabs(wrong[i] - generic->out.v[i]) / generic->bound[i]);
        }
        QVERIFY2(worstRight <= 1, qPrintable(QString("a correct kernel at %1 of its bound").arg(worstRight)));
        QVERIFY2(worstWrong > 10, qPrintable(QString("the neighbour's scale only %1 of the bound").arg(worstWrong)));
        QVERIFY2(worstWrongGeneric < 1,
                 qPrintable(QString("the generic bound: %1").arg(worstWrongGeneric))); // why it is needed
        // a backend not known: the generic bound still
        QVERIFY(generic->paths.empty() && !QString::fromStdString(generic->standard).contains("q8_0"));
    }

    // A device's product of q8_0 weights (ggml-vulkan, ggml-cuda): a matrix-vector kernel on the
    // weights dequantized to float32 (or on activations quantized to q8_1); past eight activation
    // rows, matrix kernels on float16 tiles (or q8_1). Each kernel, computed here as the shader
    // does, fits its path; with a row's last block scaled by its neighbour's, none.
    void quantizedProductOnADevice()
    {
        const int64_t k = 256, rows = 6, cols = 12;
        std::vector<double> w(static_cast<size_t>(k * rows)), x(static_cast<size_t>(k * cols));
        std::vector<float> scale(static_cast<size_t>(rows * k / 32));
        for (int64_t c = 0; c < cols; ++c)
            for (int64_t j = 0; j < k; ++j)
                x[size_t(c * k + j)] = float(std::sin(0.71 * double(j) + 0.3 * double(c)) + 0.01 * double(j % 7));
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t b = 0; b < k; b += 32) {
                const float d = float(qfloat16(float(0.004 * double(r + 1) * double(1 + (b / 32) % 3))));
                scale[size_t(r * k / 32 + b / 32)] = d;
                for (int64_t j = b; j < b + 32; ++j)
                    w[size_t(r * k + j)] = double(d) * double((j * 37 + r * 11) % 255 - 127);
            }
        const RefTensor weight = [&] {
            RefTensor t = ref({k, rows, 1, 1}, w, opcheck::kQuantizedDtype);
            t.blockType = "q8_0";
            return t;
        }();
        // the weight as a shader dequantizes it: q times its block's scale (or the one before)
        auto dequantized = [&](int64_t r, int64_t j, bool neighbour) {
            const int64_t b = j / 32, blocks = k / 32;
            const float q = float((j * 37 + r * 11) % 255 - 127);
            return q * scale[size_t(r * blocks + (neighbour && b == blocks - 1 ? b - 1 : b))];
        };
        // mul_mat_vec: float32 products, each thread's partial sums, then a tree
        auto matrixVector = [&](int64_t c, bool neighbour) {
            std::vector<double> out(static_cast<size_t>(rows));
            for (int64_t r = 0; r < rows; ++r) {
                float part[32] = {};
                for (int64_t j = 0; j < k; ++j)
                    part[j % 32] = std::fma(dequantized(r, j, neighbour), float(x[size_t(c * k + j)]), part[j % 32]);
                for (int n = 16; n > 0; n /= 2)
                    for (int t = 0; t < n; ++t)
                        part[t] += part[t + n];
                out[size_t(r)] = part[0];
            }
            return out;
        };
        // mul_mm with float16 sums: float16 tiles, each product added in float16, in k's order
        auto halfTiles = [&](bool neighbour) {
            std::vector<double> out(static_cast<size_t>(rows * cols));
            for (int64_t c = 0; c < cols; ++c)
                for (int64_t r = 0; r < rows; ++r) {
                    qfloat16 sum(0.f);
                    for (int64_t j = 0; j < k; ++j)
                        sum = qfloat16(float(sum) +
                                       float(qfloat16(dequantized(r, j, neighbour))) *
                                           float(qfloat16(float(x[size_t(c * k + j)]))));
                    out[size_t(c * rows + r)] = float(sum);
                }
            return out;
        };
        std::string skip;
        const nlohmann::json vulkan{{"backend", "Vulkan0"}};
        const auto one = opcheck::reference("MUL_MAT", vulkan, {weight, ref({k, 1, 1, 1}, {x.begin(), x.begin() + k})},
                                            {rows, 1, 1, 1}, 0, skip);
        const auto many =
            opcheck::reference("MUL_MAT", vulkan, {weight, ref({k, cols, 1, 1}, x)}, {rows, cols, 1, 1}, 0, skip);
        QVERIFY2(one && many, skip.c_str());
        QCOMPARE(one->paths.size(), size_t(3)); // float32 matrix-vector, q8_1, float16 tiles
        QCOMPARE(many->paths.size(), size_t(3));
        const auto right = matrixVector(0, false), wrong = matrixVector(0, true);
        QVERIFY2(fitted(*one, right) <= 0.05, qPrintable(QString::number(fitted(*one, right))));
        QVERIFY2(QString::fromStdString(opcheck::fittedPath(*one, ref({rows, 1, 1, 1}, right)).standard)
                     .contains("weights dequantized to float32"),
                 opcheck::fittedPath(*one, ref({rows, 1, 1, 1}, right)).standard.c_str());
        QVERIFY2(fitted(*one, wrong) > 10, qPrintable(QString::number(fitted(*one, wrong))));
        const auto tiles = halfTiles(false), tilesWrong = halfTiles(true);
        qInfo(
            "matrix-vector: a correct kernel at %g of its path's bound, the neighbour's scale at %g; float16 tiles: %g, %g",
            fitted(*one, right), fitted(*one, wrong), fitted(*many, tiles, cols), fitted(*many, tilesWrong, cols));
        QVERIFY2(fitted(*many, tiles, cols) <= 1, qPrintable(QString::number(fitted(*many, tiles, cols))));
        QVERIFY2(fitted(*many, tilesWrong, cols) > 3, qPrintable(QString::number(fitted(*many, tilesWrong, cols))));
        QVERIFY(QString::fromStdString(opcheck::fittedPath(*many, ref({rows, cols, 1, 1}, tiles)).standard)
                    .contains("float16 tiles"));
    }

    // Vulkan's MMVQ on q4_0 weights (a device with integer dot products), at a model's width: the
    // activations quantized as quantize_q8_1.comp does (d = max|x| / 127, q = round(x / d), d and
    // the block's d sum(q) stored as float16), each block da (q_sum d - 8 s) in float
    // (mul_mat_vecq_funcs.glsl). The offset's rounding through s is in the q8_1 path's bound.
    void quantizedProductAsVulkansMmvqComputesIt()
    {
        const int64_t k = 896, rows = 64, blocks = k / 32;
        std::vector<double> x(static_cast<size_t>(k)), w(static_cast<size_t>(k * rows));
        std::vector<int> nib(static_cast<size_t>(k * rows));
        std::vector<float> dw(static_cast<size_t>(rows * blocks));
        for (int64_t j = 0; j < k; ++j)
            x[size_t(j)] = float(std::sin(0.37 * double(j)) + 0.3 * std::cos(0.011 * double(j * j)) + 0.05);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t b = 0; b < blocks; ++b) {
                const float d = float(qfloat16(float(0.01 + 0.002 * double((r * 7 + b * 3) % 11))));
                dw[size_t(r * blocks + b)] = d;
                for (int64_t j = b * 32; j < b * 32 + 32; ++j) {
                    const int q = int((j * 13 + r * 5) % 16);
                    nib[size_t(r * k + j)] = q;
                    w[size_t(r * k + j)] = double(d) * double(q - 8);
                }
            }
        auto mmvq = [&](bool neighbour) {
            std::vector<int> qx(static_cast<size_t>(k));
            std::vector<float> dx(static_cast<size_t>(blocks)), sx(static_cast<size_t>(blocks));
            for (int64_t b = 0; b < blocks; ++b) {
                float amax = 0;
                for (int64_t j = b * 32; j < b * 32 + 32; ++j)
                    amax = std::max(amax, std::fabs(float(x[size_t(j)])));
                const float d = amax / 127.0f, inv = d != 0 ? 1.0f / d : 0.0f;
                float sum = 0;
                for (int64_t j = b * 32; j < b * 32 + 32; ++j) {
                    qx[size_t(j)] = int(std::round(float(x[size_t(j)]) * inv));
                    sum += float(qx[size_t(j)]);
                }
                dx[size_t(b)] = float(qfloat16(d));
                sx[size_t(b)] = float(qfloat16(sum * d));
            }
            std::vector<double> out(static_cast<size_t>(rows));
            for (int64_t r = 0; r < rows; ++r) {
                float acc = 0;
                for (int64_t b = 0; b < blocks; ++b) {
                    int qsum = 0;
                    for (int64_t j = b * 32; j < b * 32 + 32; ++j)
                        qsum += nib[size_t(r * k + j)] * qx[size_t(j)];
                    const float da = dw[size_t(r * blocks + (neighbour && b == blocks - 1 ? b - 1 : b))];
                    acc += da * (float(qsum) * dx[size_t(b)] - 8.0f * sx[size_t(b)]);
                }
                out[size_t(r)] = acc;
            }
            return out;
        };
        RefTensor weight = ref({k, rows, 1, 1}, w, opcheck::kQuantizedDtype);
        weight.blockType = "q4_0";
        std::string skip;
        const auto r = opcheck::reference("MUL_MAT", {{"backend", "Vulkan0"}}, {weight, ref({k, 1, 1, 1}, x)},
                                          {rows, 1, 1, 1}, 0, skip);
        QVERIFY2(r, skip.c_str());
        const auto right = mmvq(false), wrong = mmvq(true);
        qInfo("q4_0 MMVQ at k = %d: a correct kernel at %g of its path's bound, the neighbour's scale at %g", int(k),
              fitted(*r, right), fitted(*r, wrong));
        QVERIFY2(fitted(*r, right) <= 1, qPrintable(QString::number(fitted(*r, right))));
        QVERIFY(QString::fromStdString(opcheck::fittedPath(*r, ref({rows, 1, 1, 1}, right)).standard)
                    .contains("quantized to q8_1"));
        QVERIFY2(fitted(*r, wrong) > 3, qPrintable(QString::number(fitted(*r, wrong))));
    }

    // CUDA's kernels as they compute q4_0 and q4_1 (MMVQ, vecdotq.cuh) and q8_0 (MMQ's D4 layout,
    // mmq.cuh) at a model's width: the activations quantized as quantize.cu does (d = max|x| / 127,
    // q = roundf(x / d), d and the raw sum(x) stored as float16; MMQ's D4 keeps d in float32);
    // q4_0's block d4 (sumi d8 - 8 s), q4_1's sumi f16(d4 d8) + f16(m4 s) with float16 products
    // (FAST_FP16), q8_0's d8_0 d sumi. CUDA's q8_1 path holds each correct kernel, and a row's last
    // block scaled by its neighbour's fails it, which passed the 8-bit operands' bound CUDA had
    // before. The offset is bounded, not known (twice the block's largest |w|): CUDA's bound is
    // wider than Vulkan's, and this small fault (one block of 28) 1.6 to 2.6 times it.
    void quantizedProductAsCudasKernelsComputeIt()
    {
        const int64_t k = 896, rows = 64, blocks = k / 32;
        std::vector<double> x(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j)
            x[size_t(j)] = float(std::sin(0.37 * double(j)) + 0.3 * std::cos(0.011 * double(j * j)) + 0.05);
        std::vector<int> qx(static_cast<size_t>(k));
        std::vector<float> dx(static_cast<size_t>(blocks)), dxFloat(dx.size()), sx(dx.size());
        for (int64_t b = 0; b < blocks; ++b) {
            float amax = 0, sum = 0;
            for (int64_t j = b * 32; j < b * 32 + 32; ++j) {
                amax = std::max(amax, std::fabs(float(x[size_t(j)])));
                sum += float(x[size_t(j)]);
            }
            const float d = amax / 127.0f;
            for (int64_t j = b * 32; j < b * 32 + 32; ++j)
                qx[size_t(j)] = amax == 0 ? 0 : int(std::round(float(x[size_t(j)]) / d));
            dx[size_t(b)] = float(qfloat16(d));
            dxFloat[size_t(b)] = d;
            sx[size_t(b)] = float(qfloat16(sum));
        }
        auto half = [](float v) { return float(qfloat16(v)); };
        for (const std::string type : {"q4_0", "q4_1", "q8_0"}) {
            const bool q41 = type == "q4_1", q80 = type == "q8_0";
            std::vector<double> w(static_cast<size_t>(k * rows));
            std::vector<int> nib(w.size());
            std::vector<float> dw(static_cast<size_t>(rows * blocks)), mw(dw.size());
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t b = 0; b < blocks; ++b) {
                    const size_t blk = size_t(r * blocks + b);
                    dw[blk] = half(float(0.01 + 0.002 * double((r * 7 + b * 3) % 11)));
                    mw[blk] = half(float(-0.09 - 0.01 * double((r + b) % 5)));
                    for (int64_t j = b * 32; j < b * 32 + 32; ++j) {
                        const int q = q80 ? int((j * 37 + r * 11) % 255 - 127) : int((j * 13 + r * 5) % 16);
                        nib[size_t(r * k + j)] = q;
                        w[size_t(r * k + j)] = q41 ? double(dw[blk] * float(q) + mw[blk])
                            : q80                  ? double(dw[blk]) * double(q)
                                                   : double(dw[blk]) * double(q - 8);
                    }
                }
            auto mmvq = [&](bool neighbour) {
                std::vector<double> out(static_cast<size_t>(rows));
                for (int64_t r = 0; r < rows; ++r) {
                    float acc = 0;
                    for (int64_t b = 0; b < blocks; ++b) {
                        int sumi = 0;
                        for (int64_t j = b * 32; j < b * 32 + 32; ++j)
                            sumi += nib[size_t(r * k + j)] * qx[size_t(j)];
                        const size_t blk = size_t(r * blocks + (neighbour && b == blocks - 1 ? b - 1 : b));
                        acc += q41 ? float(sumi) * half(dw[blk] * dx[size_t(b)]) + half(mw[blk] * sx[size_t(b)])
                            : q80  ? dw[blk] * dxFloat[size_t(b)] * float(sumi)
                                   : dw[blk] * (float(sumi) * dx[size_t(b)] - 8.0f * sx[size_t(b)]);
                    }
                    out[size_t(r)] = acc;
                }
                return out;
            };
            RefTensor weight = ref({k, rows, 1, 1}, w, opcheck::kQuantizedDtype);
            weight.blockType = type;
            std::string skip;
            const auto cuda = opcheck::reference("MUL_MAT", {{"backend", "CUDA0"}}, {weight, ref({k, 1, 1, 1}, x)},
                                                 {rows, 1, 1, 1}, 0, skip);
            const auto generic = opcheck::reference("MUL_MAT", nlohmann::json::object(), {weight, ref({k, 1, 1, 1}, x)},
                                                    {rows, 1, 1, 1}, 0, skip);
            QVERIFY2(cuda && generic, skip.c_str());
            QCOMPARE(cuda->paths.size(), size_t(3));
            const auto right = mmvq(false), wrong = mmvq(true);
            const std::string path = opcheck::fittedPath(*cuda, ref({rows, 1, 1, 1}, right)).standard;
            qInfo(
                "%s CUDA %s at k = %d: a correct kernel at %g of CUDA's q8_1 path's bound, the neighbour's scale at %g "
                "(%g of the 8-bit bound)",
                type.c_str(), q80 ? "MMQ" : "MMVQ", int(k), fitted(*cuda, right), fitted(*cuda, wrong),
                fitted(*generic, wrong));
            QVERIFY2(fitted(*cuda, right) <= 1, qPrintable(QString::number(fitted(*cuda, right))));
            QVERIFY2(QString::fromStdString(path).contains("CUDA's kernels on activations quantized to q8_1"),
                     path.c_str());
            QVERIFY2(fitted(*generic, wrong) < 1,
                     qPrintable(QString::number(fitted(*generic, wrong)))); // why it is needed
            QVERIFY2(fitted(*cuda, wrong) > 1.2, qPrintable(QString::number(fitted(*cuda, wrong))));
        }
    }

    // q4_1 (and q5_1) weights meet activations quantized to q8_1: q8_0's integers and scale, plus
    // each block's s = d sum(q) in float16, which the kernel multiplies by the weight block's
    // offset m. A kernel that takes the neighbour block's s is far beyond the bound; a correct one
    // within it, whose s rounds in float16.
    void quantizedProductWithOffsetsAsTheCpuKernelComputesIt()
    {
        const int64_t k = 160, rows = 6;
        std::vector<double> w(static_cast<size_t>(k * rows)), x(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j)
            x[size_t(j)] =
                float(std::sin(0.53 * double(j)) * (j >= 96 ? 0.3 : 1.0) + (j >= 128 ? 0.4 : 0.02 * double(j % 5)));
        std::vector<float> dw(static_cast<size_t>(rows * k / 32)), mw(dw.size());
        std::vector<int> nib(w.size());
        for (int64_t r = 0; r < rows; ++r) // a q4_1 weight: each block d nib + m, d and m float16
            for (int64_t b = 0; b < k; b += 32) {
                const size_t blk = size_t((r * k + b) / 32);
                dw[blk] = float(qfloat16(float(0.003 * double(r + 1) + 0.0007 * double(b / 32))));
                mw[blk] = float(qfloat16(float(-0.02 * double(r + 2) + 0.004 * double(b / 32))));
                for (int64_t j = b; j < b + 32; ++j) {
                    nib[size_t(r * k + j)] = int((j * 7 + r * 3) % 16);
                    w[size_t(r * k + j)] =
                        double(dw[blk] * float(nib[size_t(r * k + j)]) + mw[blk]); // as ggml dequantizes
                }
            }
        // the kernel: activations quantized to q8_1 (the vectorized quantizer), each block's
        // d_w d_x sum(nib q) + m s, in float lanes
        auto kernel = [&](bool neighbourSum) {
            std::vector<double> out(static_cast<size_t>(rows));
            const KernelActivations a = quantizeAsTheKernel(x);
            const std::vector<float> &dx = a.d, &sx = a.s;
            const std::vector<int> &qx = a.q;
            for (int64_t r = 0; r < rows; ++r) {
                float acc = 0;
                for (int64_t b = 0; b < k; b += 32) {
                    const size_t blk = size_t((r * k + b) / 32);
                    int isum = 0;
                    for (int64_t j = b; j < b + 32; ++j)
                        isum += nib[size_t(r * k + j)] * qx[size_t(j)];
                    const int64_t sBlock = neighbourSum && b == k - 32 ? b / 32 - 1 : b / 32;
                    acc = std::fma(dw[blk] * dx[size_t(b / 32)], float(isum), acc);
                    acc = std::fma(mw[blk], sx[size_t(sBlock)], acc);
                }
                out[size_t(r)] = acc;
            }
            return out;
        };
        RefTensor weight = ref({k, rows, 1, 1}, w, opcheck::kQuantizedDtype);
        weight.blockType = "q4_1";
        std::string skip;
        const auto cpu = opcheck::reference("MUL_MAT", {{"backend", "CPU"}}, {weight, ref({k, 1, 1, 1}, x)},
                                            {rows, 1, 1, 1}, 0, skip);
        QVERIFY2(cpu, skip.c_str());
        QVERIFY2(QString::fromStdString(cpu->standard).contains("quantized to q8_1"), cpu->standard.c_str());
        const auto right = kernel(false), wrong = kernel(true);
        double worstRight = 0, worstWrong = 0;
        for (int64_t r = 0; r < rows; ++r) {
            const size_t i = size_t(r);
            worstRight = std::max(worstRight, std::fabs(right[i] - cpu->out.v[i]) / cpu->bound[i]);
            worstWrong = std::max(worstWrong, std::fabs(wrong[i] - cpu->out.v[i]) / cpu->bound[i]);
        }
        QVERIFY2(worstRight <= 1, qPrintable(QString("a correct kernel at %1 of its bound").arg(worstRight)));
        QVERIFY2(worstWrong > 10, qPrintable(QString("the neighbour's sum only %1 of the bound").arg(worstWrong)));
        qInfo("q4_1: a correct kernel at %.3g of the bound, the neighbour's sum at %.3g", worstRight, worstWrong);
    }

    void cacheRowsInTheCachesType()
    {
        std::vector<double> row(64);
        for (size_t i = 0; i < row.size(); ++i)
            row[i] = std::sin(0.37 * double(i)) * (i < 32 ? 1.0 : 40.0);
        auto stored = [&](const std::string &type) {
            std::vector<double> out(row.size());
            for (size_t b = 0; b < row.size(); b += 32) {
                double amax = 0, max = 0;
                for (size_t j = b; j < b + 32; ++j)
                    if (std::fabs(row[j]) > amax)
                        amax = std::fabs(row[j]), max = row[j];
                const double d = type == "q8_0" ? amax / 127 : max / -8;
                const double d16 = double(qfloat16(float(d)));
                for (size_t j = b; j < b + 32; ++j) {
                    const double q =
                        type == "q8_0" ? std::nearbyint(row[j] / d) : double(std::min(15, int(row[j] / d + 8.5))) - 8;
                    out[j] = q * d16;
                }
            }
            return out;
        };
        for (const std::string type : {"q8_0", "q4_0"}) {
            std::string skip;
            const auto r =
                opcheck::reference("SET_ROWS", {{"kv_rows", type}},
                                   {ref({32, 2, 1, 1}, row), ref({2, 1, 1, 1}, {4, 5}, 9)}, {32, 2, 1, 1}, 0, skip);
            QVERIFY2(r, skip.c_str());
            const auto q = stored(type);
            double worst = 0;
            for (size_t i = 0; i < row.size(); ++i) {
                QVERIFY2(std::fabs(q[i] - r->out.v[i]) <= r->bound[i],
                         qPrintable(QString::fromStdString(type) + " " + QString::number(i)));
                worst = std::max(worst, std::fabs(q[i] - r->out.v[i]) / r->bound[i]);
            }
            QVERIFY2(worst > 0.3,
                     qPrintable(QString::fromStdString(type) + " bound too loose: " + QString::number(worst)));
            QVERIFY(r->bound[40] > 30 * r->bound[0]); // each block its own scale
        }
        // a float16 cache: each value rounded; a type without a known bound is said, not passed
        std::string skip;
        const auto f16 =
            opcheck::reference("SET_ROWS", {{"kv_rows", "f16"}},
                               {ref({2, 1, 1, 1}, {1, -3}), ref({1, 1, 1, 1}, {0}, 9)}, {2, 1, 1, 1}, 0, skip);
        QVERIFY(f16 && std::fabs(f16->bound[1] - 3 * std::ldexp(1.0, -11)) < 1e-9);
        QVERIFY(!opcheck::reference("SET_ROWS", {{"kv_rows", "q5_1"}},
                                    {ref({32, 1, 1, 1}, std::vector<double>(32, 1.0)), ref({1, 1, 1, 1}, {0}, 9)},
                                    {32, 1, 1, 1}, 0, skip));
        QVERIFY(skip.find("q5_1") != std::string::npos);
    }

    void ropeRotatesPairs()
    {
        // Position 0 leaves x; position 1 turns the first pair by 1 radian and the second by
        // base^(-2/4) in normal mode; NeoX pairs element j with j + n_dims/2.
        const nlohmann::json p{{"n_dims", 4},       {"mode", 0},         {"freq_base", 100.0},
                               {"freq_scale", 1.0}, {"ext_factor", 0.0}, {"attn_factor", 1.0}};
        const RefTensor x = ref({4, 1, 2, 1}, {1, 0, 1, 0, 1, 0, 1, 0});
        const auto r = run("ROPE", p, {x, ref({2, 1, 1, 1}, {0, 1}, 3)}, {4, 1, 2, 1});
        const double t2 = std::pow(100.0, -0.5);
        near(r.out.v, {1, 0, 1, 0, std::cos(1.0), std::sin(1.0), std::cos(t2), std::sin(t2)});
        nlohmann::json neox = p;
        neox["mode"] = 2;
        const auto n = run("ROPE", neox, {ref({4, 1, 1, 1}, {1, 1, 0, 0}), ref({1, 1, 1, 1}, {1}, 3)}, {4, 1, 1, 1});
        near(n.out.v, {std::cos(1.0), std::cos(t2), std::sin(1.0), std::sin(t2)});
    }

    // Views move elements: where ggml's shape and strides put them, exactly.
    void dataMovement()
    {
        const RefTensor a = ref({3, 2, 1, 1}, {0, 1, 2, 3, 4, 5}); // rows {0,1,2}, {3,4,5}
        near(run("TRANSPOSE", {}, {a}, {2, 3, 1, 1}).out.v, {0, 3, 1, 4, 2, 5});
        near(run("PERMUTE", {{"axes", {1, 0, 2, 3}}}, {a}, {2, 3, 1, 1}).out.v, {0, 3, 1, 4, 2, 5});
        near(run("RESHAPE", {}, {a}, {2, 3, 1, 1}).out.v, {0, 1, 2, 3, 4, 5});
        // the second row's last two elements: offset one row and one element, float32
        const auto v =
            run("VIEW", {{"offset", 16}, {"nb", {12, 24, 24}}, {"_src_contiguous", true}}, {a}, {2, 1, 1, 1});
        near(v.out.v, {4, 5});
        QCOMPARE(v.bound, (std::vector<double>{std::ldexp(1.0, -150), std::ldexp(1.0, -150)}));
        std::string skip;
        QVERIFY(!opcheck::reference("VIEW", {{"offset", 16}, {"nb", {12, 24, 24}}, {"_src_contiguous", true}}, {a},
                                    {4, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("VIEW reaching past its source"));
        QVERIFY(!opcheck::reference("PERMUTE", {{"axes", {0, 0, 2, 3}}}, {a}, {3, 2, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("PERMUTE whose axes are not a permutation"));
    }

    void attentionIsSoftmaxOfScores()
    {
        // One head, one query, two keys: weights softmax(scale q.k + mask), output their mix of v.
        const nlohmann::json p{{"scale", 0.5}, {"max_bias", 0.0}, {"logit_softcap", 0.0}};
        const RefTensor q = ref({2, 1, 1, 1}, {1, 1}), k = ref({2, 2, 1, 1}, {1, 1, 2, 0}, 1),
                        v = ref({1, 2, 1, 1}, {10, 20}, 1);
        const auto fa = run("FLASH_ATTN_EXT", p, {q, k, v}, {1, 1, 1, 1}); // both scores 1: an even mix
        near(fa.out.v, {15});
        const auto masked = run("FLASH_ATTN_EXT", p, {q, k, v, ref({2, 1, 1, 1}, {0, -INFINITY}, 1)}, {1, 1, 1, 1});
        near(masked.out.v, {10});
    }

    // The experts' ops and the families' others, on values worked by hand.
    void expertsAndFamilies()
    {
        // MUL_MAT_ID: two experts of 2x2 (identity, doubling); token 0 routed to 1 then 0, one
        // activation row for both slots
        const RefTensor experts = ref({2, 2, 2, 1}, {1, 0, 0, 1, 2, 0, 0, 2});
        near(run("MUL_MAT_ID", {}, {experts, ref({2, 1, 1, 1}, {3, 5}), ref({2, 1, 1, 1}, {1, 0}, 3)}, {2, 2, 1, 1})
                 .out.v,
             {6, 10, 3, 5});
        std::string skip;
        QVERIFY(!opcheck::reference("MUL_MAT_ID", {},
                                    {experts, ref({2, 1, 1, 1}, {3, 5}), ref({2, 1, 1, 1}, {2, 0}, 3)}, {2, 2, 1, 1}, 0,
                                    skip));
        QCOMPARE(skip, std::string("MUL_MAT_ID with an expert id outside its experts"));
        // ARGSORT descending (the probe's "order" or a dump's raw word); equal values unchecked
        const auto sorted = run("ARGSORT", {{"order", 1}}, {ref({4, 1, 1, 1}, {0.5, 2, 0.5, -1})}, {4, 1, 1, 1});
        near(sorted.out.v, {1, 0, 2, 3});
        QCOMPARE(sorted.unchecked, (std::vector<uint8_t>{0, 1, 1, 0}));
        near(run("ARGSORT", {{"op_params_i32", {1}}}, {ref({2, 1, 1, 1}, {1, 2})}, {2, 1, 1, 1}).out.v, {1, 0});
        near(run("SUM_ROWS", {}, {ref({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6})}, {1, 2, 1, 1}).out.v, {6, 15});
        near(run("CLAMP", {{"min", 0.0}, {"max", 1.0}}, {ref({3, 1, 1, 1}, {-1, 0.5, 2})}, {3, 1, 1, 1}).out.v,
             {0, 0.5, 1});
        // as ggml orders it, MAX(MIN(x, max), min): NaN becomes max
        QCOMPARE(run("CLAMP", {{"min", 0.0}, {"max", 1.0}}, {ref({1, 1, 1, 1}, {NAN})}, {1, 1, 1, 1}).out.v[0], 1.0);
        // ADD_ID: each slot's row plus its expert's bias
        near(run("ADD_ID", {},
                 {ref({2, 2, 1, 1}, {1, 1, 1, 1}), ref({2, 2, 1, 1}, {10, 20, 30, 40}), ref({2, 1, 1, 1}, {1, 0}, 3)},
                 {2, 2, 1, 1})
                 .out.v,
             {31, 41, 11, 21});
        near(run("CONCAT", {{"dim", 0}}, {ref({1, 2, 1, 1}, {1, 2}), ref({2, 2, 1, 1}, {3, 4, 5, 6})}, {3, 2, 1, 1})
                 .out.v,
             {1, 3, 4, 2, 5, 6});
        near(run("SIGMOID", {}, {ref({1, 1, 1, 1}, {0})}, {1, 1, 1, 1}).out.v, {0.5});
        // SWIGLU_OAI: the gate clipped at the limit, the linear part clipped and shifted by 1
        const double g = 7 / (1 + std::exp(-1.702 * 7));
        near(run("SWIGLU_OAI", {{"alpha", 1.702}, {"limit", 7.0}},
                 {ref({2, 1, 1, 1}, {9, 0}), ref({2, 1, 1, 1}, {9, -9})}, {2, 1, 1, 1})
                 .out.v,
             {g * 8, 0});
        // one input of both halves, swapped: the second half is the gate
        auto oai = [](double a) { return a / (1 + std::exp(-1.702 * a)); };
        near(run("SWIGLU_OAI", {{"alpha", 1.702}, {"limit", 7.0}, {"swapped", 1}}, {ref({4, 1, 1, 1}, {1, 2, 3, 4})},
                 {2, 1, 1, 1})
                 .out.v,
             {oai(3) * 2, oai(4) * 3});
        // A sink adds its exp to the denominator only: scores 0 and 0 with a sink of 0 weigh 1/3 each
        near(run("SOFT_MAX", {}, {ref({2, 1, 1, 1}, {0, 0}), ref({2, 1, 1, 1}, {0, 0}), ref({1, 1, 1, 1}, {0})},
                 {2, 1, 1, 1})
                 .out.v,
             {1.0 / 3, 1.0 / 3});
        const RefTensor q = ref({1, 1, 1, 1}, {1}), k = ref({1, 2, 1, 1}, {0, 0}), v = ref({1, 2, 1, 1}, {10, 20});
        near(run("FLASH_ATTN_EXT", {{"scale", 1.0}}, {q, k, v, ref({2, 1, 1, 1}, {0, 0}, 1), ref({1, 1, 1, 1}, {0})},
                 {1, 1, 1, 1})
                 .out.v,
             {10});
        // GEGLU's bound holds what ggml's float16 table departs from GELU by at that input, no
        // more: at 2.3 (not a float16) the two roundings and a float16 step of the output (a tie
        // float32 and double may break apart), under 2^-8 of it; at 1e-6 (a float16 subnormal)
        // within the subnormals' steps
        const double x = 2.3, gx = 0.5 * x * (1 + std::tanh(0.7978845608028654 * x * (1 + 0.044715 * x * x)));
        const auto geglu = run("GEGLU", {}, {ref({1, 1, 1, 1}, {x}), ref({1, 1, 1, 1}, {1})}, {1, 1, 1, 1});
        QVERIFY2(geglu.bound[0] > 1e-6 * gx && geglu.bound[0] < std::ldexp(1.0, -8) * gx,
                 qPrintable(QString::number(geglu.bound[0])));
        const auto tiny = run("GEGLU", {}, {ref({1, 1, 1, 1}, {1e-6}), ref({1, 1, 1, 1}, {1})}, {1, 1, 1, 1});
        QVERIFY2(tiny.bound[0] > 1e-9 && tiny.bound[0] < std::ldexp(1.0, -22),
                 qPrintable(QString::number(tiny.bound[0])));
    }

    // msProbe's ULP error: the distance in units of the reference's last float32 place (the
    // smallest normal exponent below it), and the share beyond 32 ULP; bfloat16's unit is 2^-7.
    void ulpErrorsAsMsprobeCounts()
    {
        opcheck::Reference r;
        r.out = ref({4, 1, 1, 1}, {1.0, 3.0, 0.0, -0.5});
        const double u = std::ldexp(1.0, -23);
        const opcheck::UlpErrors e =
            opcheck::ulpErrors(r, {1.0 + 2 * u, 3.0 + 40 * 2 * u, std::ldexp(1.0, -149), -0.5}, 0);
        // 2 ULP, 40 ULP (3 lies in [2, 4): its unit is 2u), 2^-149 / 2^(-126-23) = 1 ULP, 0
        QCOMPARE(e.mean, (2.0 + 40.0 + 1.0 + 0.0) / 4);
        QCOMPARE(e.proportion, 0.25);
        const opcheck::UlpErrors bf =
            opcheck::ulpErrors(r, {1.0 + std::ldexp(1.0, -7), 3.0, 0.0, -0.5}, int32_t(DType::BFloat16));
        QCOMPARE(bf.mean, 0.25);
        QCOMPARE(bf.proportion, 0.0); // 1 ULP is not beyond 1
        r.unchecked = {0, 1, 1, 1}; // elements the op leaves as they were do not count
        QCOMPARE(opcheck::ulpErrors(r, {1.0 + 2 * u, 0, 0, 0}, 0).mean, 2.0);
    }

    void skippedWithTheirReason()
    {
        std::string skip;
        QVERIFY(!opcheck::reference("NONE", {}, {}, {1, 1, 1, 1}, 0, skip));
        QVERIFY(skip.find("no kernel runs") != std::string::npos);
        QVERIFY(opcheck::isView("PERMUTE"));
        QVERIFY(!opcheck::reference("VIEW", {{"offset", 0}, {"nb", {8, 8, 8}}}, {ref({2, 1, 1, 1}, {1, 2})},
                                    {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip,
                 std::string("VIEW whose source's strides were not dumped (-tiling of this llmscope writes them)"));
        QVERIFY(!opcheck::reference("VIEW", {{"offset", 0}, {"nb", {8, 8, 8}}, {"_src_contiguous", false}},
                                    {ref({2, 1, 1, 1}, {1, 2})}, {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("VIEW of a source that is not contiguous in memory, its strides not dumped"));
        // A source that is itself a view, its rows 16 bytes apart: a view of its second row
        // reads it; one starting between its rows reads memory it does not hold.
        const nlohmann::json strided{
            {"offset", 16}, {"nb", {8, 8, 8}}, {"_src_contiguous", false}, {"_src_nb", {4, 16, 32, 32}}};
        const auto row = opcheck::reference("VIEW", strided, {ref({2, 2, 1, 1}, {1, 2, 3, 4})}, {2, 1, 1, 1}, 0, skip);
        QVERIFY(row);
        QCOMPARE(row->out.v, (std::vector<double>{3, 4}));
        nlohmann::json between = strided;
        between["offset"] = 8;
        QVERIFY(!opcheck::reference("VIEW", between, {ref({2, 2, 1, 1}, {1, 2, 3, 4})}, {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("VIEW reaching memory its source does not hold"));
        QVERIFY(!opcheck::reference("CONV_2D", {}, {ref({1, 1, 1, 1}, {1})}, {1, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("no float64 reference for CONV_2D yet"));
        QVERIFY(!opcheck::reference("ROPE", {{"mode", 0}, {"n_dims", 2}, {"ext_factor", 1.0}},
                                    {ref({2, 1, 1, 1}, {1, 0}), ref({1, 1, 1, 1}, {0}, 3)}, {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("ROPE with YaRN (ext_factor)"));
        QVERIFY(!opcheck::reference("MUL_MAT", {}, {ref({3, 1, 1, 1}, {1, 2, 3}), ref({2, 1, 1, 1}, {1, 2})},
                                    {1, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("MUL_MAT with these shapes"));
    }

    // An op_param.json is outside data, its op type too: parameters no integer holds, a view
    // past any address and a mask narrower than the rows are skipped, never read or converted.
    void hostileParametersAreSkipped()
    {
        std::string skip;
        QVERIFY(!opcheck::reference("SOFT_MAX", {}, {ref({4, 1, 1, 1}, {1, 2, 3, 4}), ref({2, 1, 1, 1}, {0, 0}, 3)},
                                    {4, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("SOFT_MAX with these shapes"));
        const RefTensor x = ref({2, 1, 1, 1}, {1, 0}), pos = ref({1, 1, 1, 1}, {0}, 3);
        for (const char *key : {"mode", "n_dims"}) {
            QVERIFY(!opcheck::reference("ROPE", {{key, 1e300}}, {x, pos}, {2, 1, 1, 1}, 0, skip));
            QCOMPARE(skip, std::string("ROPE whose mode or n_dims is not an integer"));
        }
        const RefTensor a = ref({4, 2, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
        QVERIFY(!opcheck::reference("VIEW", {{"offset", 1e300}, {"nb", {16, 32, 32}}, {"_src_contiguous", true}}, {a},
                                    {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("VIEW without its offset and strides"));
        const int64_t far = int64_t(1) << 62;
        QVERIFY(!opcheck::reference("VIEW", {{"offset", far}, {"nb", {far, 32, 32}}, {"_src_contiguous", true}}, {a},
                                    {2, 2, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("VIEW reaching past its source"));
        // an axis 2^32, which a plain conversion to int would read as 0
        QVERIFY(!opcheck::reference("PERMUTE", {{"axes", {4294967296LL, 1, 2, 3}}}, {a}, {4, 2, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("PERMUTE whose axes are not a permutation"));
        // an empty input (a dimension of 0), which ops divide by: nothing to check
        QVERIFY(
            !opcheck::reference("MUL_MAT", {}, {ref({0, 1, 1, 1}, {}), ref({0, 1, 1, 1}, {})}, {1, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("an empty tensor (a dimension of 0)"));
        // k and v of other batch counts: refused, never read past v
        const RefTensor q = ref({2, 1, 1, 2}, {1, 1, 1, 1}), k = ref({2, 1, 1, 2}, {1, 1, 1, 1}),
                        v = ref({2, 1, 1, 1}, {1, 1});
        QVERIFY(!opcheck::reference("FLASH_ATTN_EXT", {{"scale", 1.0}}, {q, k, v}, {2, 1, 1, 2}, 0, skip));
        QCOMPARE(skip, std::string("FLASH_ATTN_EXT with these shapes"));
        // an input whose values are fewer than its shape says: skipped, never read past them
        RefTensor shortOne = ref({2, 1, 1, 1}, {1, 2});
        shortOne.v.resize(1);
        QVERIFY(!opcheck::reference("ADD", {}, {shortOne, ref({2, 1, 1, 1}, {1, 2})}, {2, 1, 1, 1}, 0, skip));
        QCOMPARE(skip, std::string("an input whose values do not fill its shape"));
        QVERIFY_THROWS_EXCEPTION(Error, shortOne.at(1, 0, 0, 0)); // and reading one is checked
        // a source whose element count no int64_t holds: its layout is not noted
        QTemporaryDir dir;
        const std::string root = testing::writeReplayDump(dir.path().toStdString());
        std::ofstream(root + "/tensors/0_5/0/0_Layer/4_VIEW/op_param.json")
            << R"({"op":"VIEW","param":{"offset":0,"nb":[8,8,8]},"inputs":[{"type":"f32",)"
            << R"("ne":[4611686018427387904,4,4,1],"nb":[4,16,64,256]}]})";
        OpcheckOptions o;
        o.input = root;
        o.ids = "0_4";
        const OpcheckResult r = runOpcheck(o);
        QCOMPARE(r.rows.size(), size_t(1));
        QCOMPARE(r.rows[0].verdict, Verdict::Skip);
        QVERIFY2(r.rows[0].reason.english().find("strides were not dumped") != std::string::npos,
                 r.rows[0].reason.english().c_str());
        // nested past any stack that copies it level by level: refused, the op replayed as its folder names it
        const size_t depth = 1000000;
        std::ofstream(root + "/tensors/0_5/0/0_Layer/0_MUL_MAT/op_param.json")
            << R"({"op":"MUL_MAT","param":{"x":)" << std::string(depth, '[') << std::string(depth, ']') << "}}";
        o.ids = "0_0";
        const OpcheckResult deep = runOpcheck(o);
        QCOMPARE(deep.rows.size(), size_t(1));
        QCOMPARE(deep.rows[0].opParam, std::string("(op_param.json nests too deep)"));
        QCOMPARE(deep.rows[0].verdict, Verdict::Pass);
    }

    // A dump written here (testing::writeReplayDump): the verdicts follow, and each reason
    // says why.
    void verdictsOfADump()
    {
        QTemporaryDir dir;
        const std::string root = testing::writeReplayDump(dir.path().toStdString());
        OpcheckOptions o;
        o.input = root;
        const OpcheckResult r = runOpcheck(o);
        QCOMPARE(r.rows.size(), size_t(5));
        auto row = [&](const std::string &id) {
            for (const auto &x : r.rows)
                if (x.opId == id)
                    return x;
            qFatal("no row %s", id.c_str());
        };
        QCOMPARE(row("0_0").verdict, Verdict::Pass);
        QCOMPARE(row("0_0").withinRate, 100.0);
        const OpcheckRow scaled = row("0_1");
        QCOMPARE(scaled.verdict, Verdict::Fail);
        QVERIFY2(scaled.reason.english().find("a systematic error of 0.1") != std::string::npos ||
                     scaled.reason.english().find("a systematic error of 0.0999") != std::string::npos,
                 scaled.reason.english().c_str());
        QVERIFY(std::fabs(scaled.maxRelError - 1e-3) < 1e-5);
        { // msit's metrics are compare's (one implementation): the same figures from the same files
            const std::vector<float> reference = toFloat(replayReference(scaled));
            const std::vector<float> output = toFloat(readBinFile(scaled.tensorPath).tensor);
            QCOMPARE(reference.size(), output.size());
            const Metrics m = computeMetrics(reference.data(), output.data(), reference.size(), 1e-3);
            QCOMPARE(scaled.cosine, m.cosine);
            QCOMPARE(scaled.kl, m.klDivergence);
            QCOMPARE(scaled.maxRelError, m.maxRelErr);
            QCOMPARE(scaled.maxAbsError, m.maxAbsErr);
            QVERIFY(m.maxRelErr > 5e-4); // not the same tensor twice (scaled: its cosine is 1)
        }
        QCOMPARE(row("0_2").verdict, Verdict::Fail);
        QVERIFY2(row("0_2").reason.english().find("NaN or Inf") != std::string::npos,
                 row("0_2").reason.english().c_str());
        QCOMPARE(row("0_3").verdict, Verdict::Skip);
        QVERIFY(row("0_3").reason.english().find("-tiling") != std::string::npos);
        QCOMPARE(row("0_4").verdict, Verdict::Skip);
        QCOMPARE(r.ops, 5);
        QCOMPARE(r.viewOps, 1);
        QCOMPARE(r.replayedOps, 3);
        QCOMPARE(r.coverage(), 75.0);
        QCOMPARE(r.fail, 2);
        // -ids and -opname choose the ops
        o.ids = "0_1";
        QCOMPARE(runOpcheck(o).rows.size(), size_t(1));
        o.ids.clear();
        o.opNames = "rms";
        QCOMPARE(runOpcheck(o).rows.size(), size_t(1));
        o.opNames = "conv";
        QVERIFY_THROWS_EXCEPTION(Error, runOpcheck(o));
        // A second reference that is as far from float64 as the output (here: the output itself)
        // turns its FAIL into a WARN, the bound too tight; one at float64 keeps it, saying so.
        o.opNames.clear();
        o.ids = "0_1";
        const std::string sibling = "/before/intensor0.bin";
        o.cpuReplay = [&](const std::string &, const std::string &, const std::vector<CpuReplayInput> &in,
                          const std::array<int64_t, 4> &, int32_t,
                          std::string &) -> std::optional<std::vector<double>> {
            const std::string path =
                in.at(0).path.substr(0, in.at(0).path.size() - sibling.size()) + "/after/outtensor0.bin";
            const Tensor t = readBin(path);
            const auto *f = reinterpret_cast<const float *>(t.data.data());
            return std::vector<double>(f, f + t.data.size() / 4);
        };
        OpcheckRow likeCpu = runOpcheck(o).rows.at(0);
        QCOMPARE(likeCpu.verdict, Verdict::Warn);
        QVERIFY2(likeCpu.reason.english().find("the bound is too tight here") != std::string::npos,
                 likeCpu.reason.english().c_str());
        o.cpuReplay = [](const std::string &, const std::string &, const std::vector<CpuReplayInput> &,
                         const std::array<int64_t, 4> &, int32_t,
                         std::string &why) -> std::optional<std::vector<double>> {
            why = "not here";
            return std::nullopt;
        };
        QCOMPARE(runOpcheck(o).rows.at(0).verdict, Verdict::Fail); // no second reference: as before
        o.cpuReplay = nullptr;
        o.ids.clear();
        // msit's per-dtype standard: float32 outputs within 2^-20 relative error for 99.99 %
        o.opNames.clear();
        o.standard = OpcheckOptions::Standard::Msit;
        const OpcheckResult m = runOpcheck(o);
        int seen = 0;
        for (const auto &x : m.rows)
            if (x.opId == "0_0" || x.opId == "0_1") {
                QCOMPARE(x.standard, std::string("99.99%(error<9.53674e-07)"));
                QCOMPARE(x.verdict, x.opId == "0_0" ? Verdict::Pass : Verdict::Fail);
                ++seen;
            }
        QCOMPARE(seen, 2);
        // msit's columns, the metrics asked for, and the JSON's summary
        const std::string csv = opcheckCsv(r, {"abs", "kl"});
        QVERIFY(csv.rfind("op_id,op_name,op_param,tensor_path,out_tensor_id,precision_standard,precision_result,"
                          "rel_precision_rate(%),max_rel_error,abs_precision_rate(%),max_abs_error,kl_divergence,"
                          "fail_reason,round,op_type,mean_ulp_error,ulp_error_proportion(%)\n",
                          0) == 0);
        const auto j = nlohmann::json::parse(opcheckJson(r));
        QCOMPARE(j["summary"]["fail"].get<int>(), 2);
        QCOMPARE(j["rows"].size(), size_t(5));
    }
};

QTEST_GUILESS_MAIN(TstOpcheck)
#include "tst_opcheck.moc"
