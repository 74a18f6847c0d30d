#include "core/opcheck/ref_ops.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace llmscope::opcheck {
namespace {

// Roundings a correct kernel may make on an element beyond its arithmetic's own bound:
// float32's libm (exp, tanh, sqrt) and summing in another order.
constexpr double kSlack = 16;

// Bytes an element of a dump's dtype takes in memory; 0 for what has no fixed size here.
int64_t elementBytes(int32_t dtype)
{
    switch (DType(dtype)) {
    case DType::Float32:
    case DType::Int32:
    case DType::UInt32: return 4;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int16:
    case DType::UInt16: return 2;
    case DType::Int8:
    case DType::UInt8: return 1;
    case DType::Int64:
    case DType::UInt64:
    case DType::Double: return 8;
    default: return 0;
    }
}

double unitRoundoff(int32_t dtype)
{
    if (dtype == kQuantizedDtype)
        return std::ldexp(1.0, -8);
    switch (DType(dtype)) {
    case DType::Float16: return std::ldexp(1.0, -11);
    case DType::BFloat16: return std::ldexp(1.0, -8);
    default: return std::ldexp(1.0, -24); // float32, and what a kernel computes in
    }
}

// The precision a kernel computes a product in, from its inputs' types: float16 or bfloat16
// operands round what they meet to theirs; quantized weights meet 8-bit activations.
double computeRoundoff(const RefTensor &a)
{
    return unitRoundoff(a.dtype);
}

// Half the spacing of the output type's subnormals: what rounding a value near zero into it
// may cost absolutely, whatever its relative unit roundoff says.
double absoluteFloor(int32_t dtype)
{
    switch (DType(dtype)) {
    case DType::Float16: return std::ldexp(1.0, -25);
    case DType::BFloat16: return std::ldexp(1.0, -134);
    default: return std::ldexp(1.0, -150);
    }
}

double param(const nlohmann::json &p, const char *name, double fallback)
{
    const auto it = p.find(name);
    return it != p.end() && it->is_number() ? it->get<double>() : fallback;
}

// An integer parameter (ROPE's mode, a VIEW's offset): nullopt where the number is not a whole one an
// int64_t holds, which converting would make up (2.5) or leave undefined (1e300).
std::optional<int64_t> intParam(const nlohmann::json &p, const char *name, int64_t fallback)
{
    const double v = param(p, name, double(fallback));
    if (!(v >= -0x1p63 && v < 0x1p63) || v != std::trunc(v))
        return std::nullopt;
    return int64_t(v);
}

// The first of the raw words the probe writes for an op it does not name the parameters of
// (op_params_i32): where dumps made before it named ARGSORT's order and CONCAT's dim hold them.
int64_t firstRawWord(const nlohmann::json &p)
{
    const auto raw = p.find("op_params_i32");
    return raw != p.end() && raw->is_array() && !raw->empty() && fitsInteger<int64_t>((*raw)[0])
        ? (*raw)[0].get<int64_t>()
        : 0;
}

bool sameNe(const std::array<int64_t, 4> &a, const std::array<int64_t, 4> &b)
{
    return a == b;
}

// b repeats over a (ggml's broadcasting): each of b's dims divides a's.
bool repeats(const RefTensor &b, const std::array<int64_t, 4> &a)
{
    for (int d = 0; d < 4; ++d)
        if (b.ne[size_t(d)] <= 0 || a[size_t(d)] % b.ne[size_t(d)] != 0)
            return false;
    return true;
}

Reference shaped(const std::array<int64_t, 4> &ne)
{
    Reference r;
    r.out.ne = ne;
    r.out.v.assign(size_t(ne[0] * ne[1] * ne[2] * ne[3]), 0.0);
    r.bound.assign(r.out.v.size(), 0.0);
    return r;
}

template <typename F>
void forEach(const std::array<int64_t, 4> &ne, F f)
{
    size_t i = 0;
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < ne[0]; ++i0)
                    f(i0, i1, i2, i3, i++);
}

// ADD, SUB, MUL, DIV: a with b repeated over it.
std::optional<Reference> binary(const std::string &op, const std::vector<RefTensor> &in,
                                const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    if (in.size() != 2 || !sameNe(in[0].ne, ne) || !repeats(in[1], ne)) {
        skip = op + " with these shapes (b must repeat over a)";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    const RefTensor &a = in[0], &b = in[1];
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        const double x = a.v[i], y = b.at(i0 % b.ne[0], i1 % b.ne[1], i2 % b.ne[2], i3 % b.ne[3]);
        double v = 0, scale = 0;
        if (op == "ADD" || op == "SUB") {
            v = op == "ADD" ? x + y : x - y;
            scale = std::fabs(x) + std::fabs(y); // a sum's rounding is relative to its terms
        } else {
            v = op == "MUL" ? x * y : x / y;
            scale = std::fabs(v);
        }
        r.out.v[i] = v;
        r.bound[i] = kSlack * u * scale;
    });
    r.standard = "|error| <= 16 u |terms| (u: the output type's unit roundoff)";
    return r;
}

// GELU in ggml's tanh approximation.
double gelu(double x)
{
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * x * (1 + 0.044715 * x * x)));
}

// x rounded to float16, to nearest, ties to even (float16's range: larger magnitudes are infinite).
double toHalf(double x)
{
    const double a = std::fabs(x);
    if (!(a < 65520))
        return std::isnan(x) ? x : std::copysign(INFINITY, x);
    const int e = a > 0 ? std::ilogb(a) : -25;
    const double step = std::ldexp(1.0, std::max(e, -14) - 10); // subnormals below 2^-14
    return std::nearbyint(x / step) * step;
}

// ggml's CPU backend computes GELU (and GEGLU's activation) from a float16 table for
// -10 < x < 10: GELU at x rounded to float16, its value rounded to float16; 0 below, x above.
// What that table departs from GELU by at x, which a correct kernel may be off by there.
double geluTable(double x, double v)
{
    if (x <= -10 || x >= 10)
        return std::fabs((x <= -10 ? 0 : x) - v);
    // ggml rounds GELU computed in float32: where that and this double lie either side of a
    // float16 tie, the two tables differ by a step, which is allowed
    const double table = toHalf(gelu(toHalf(x)));
    return std::fabs(table - v) + std::fabs(toHalf(table * (1 + 0x1p-11)) - table) + 0x1p-24;
}

// SILU, SIGMOID, GELU, SCALE: element by element.
std::optional<Reference> unary(const std::string &op, const nlohmann::json &p, const std::vector<RefTensor> &in,
                               const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    if (in.empty() || in[0].count() != ne[0] * ne[1] * ne[2] * ne[3]) {
        skip = op + " whose input and output differ in size";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    const double s = param(p, "scale", 1), bias = param(p, "bias", 0);
    for (size_t i = 0; i < r.out.v.size(); ++i) {
        const double x = in[0].v[i];
        double v = 0;
        if (op == "SILU")
            v = x / (1 + std::exp(-x));
        else if (op == "SIGMOID")
            v = 1 / (1 + std::exp(-x));
        else if (op == "GELU")
            v = gelu(x);
        else
            v = x * s + bias;
        r.out.v[i] = v;
        // SILU's and SIGMOID's exp in float32: relative to the input's size where the output is near 0
        r.bound[i] = kSlack * u * (std::fabs(v) + (op == "SCALE" ? std::fabs(bias) : std::fabs(x)));
        if (op == "GELU")
            r.bound[i] += geluTable(x, v);
    }
    r.standard = op == "GELU" ? "|error| <= 16 u (|out| + |in|) + |GELU's float16 table (ggml's CPU) - GELU|"
                              : "|error| <= 16 u (|out| + |in|)";
    return r;
}

// SWIGLU, GEGLU, SWIGLU_OAI: act(a) * b, with a and b the two inputs or the two halves of one
// (which half is a: swapped).
std::optional<Reference> glu(const std::string &op, const nlohmann::json &p, const std::vector<RefTensor> &in,
                             const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    const bool swapped = param(p, "swapped", 0) != 0;
    const bool split = in.size() == 2;
    const bool oai = op == "SWIGLU_OAI";
    const double alpha = oai ? param(p, "alpha", NAN) : 1, limit = oai ? param(p, "limit", NAN) : INFINITY;
    if (oai && (!std::isfinite(alpha) || !(limit >= 0))) {
        skip = "SWIGLU_OAI without its alpha and limit (this llmscope's probe writes them)";
        return std::nullopt;
    }
    if (in.empty() || (split && (!sameNe(in[0].ne, ne) || !sameNe(in[1].ne, ne))) ||
        (!split &&
         (in[0].ne[0] != 2 * ne[0] || in[0].ne[1] != ne[1] || in[0].ne[2] != ne[2] || in[0].ne[3] != ne[3]))) {
        skip = op + " with these shapes";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        double a = 0, b = 0;
        if (split) {
            a = in[0].v[i];
            b = in[1].v[i];
        } else {
            a = in[0].at(i0, i1, i2, i3);
            b = in[0].at(i0 + ne[0], i1, i2, i3);
        }
        if (swapped && !split)
            std::swap(a, b);
        if (oai) { // gpt-oss: the gate clipped above, the linear part clipped both ways and shifted by 1
            a = std::min(a, limit);
            b = std::clamp(b, -limit, limit) + 1;
        }
        const double act = op == "SWIGLU" ? a / (1 + std::exp(-a)) : oai ? a / (1 + std::exp(-alpha * a)) : gelu(a);
        r.out.v[i] = act * b;
        r.bound[i] = kSlack * u * (std::fabs(act) + std::fabs(alpha * a)) * std::fabs(b);
        if (op == "GEGLU")
            r.bound[i] += geluTable(a, act) * std::fabs(b);
    });
    r.standard = op == "GEGLU" ? "|error| <= (16 u (|act(a)| + |a|) + |GELU's float16 table (ggml's CPU) - GELU|) |b|"
                               : "|error| <= 16 u (|act(a)| + |a|) |b|";
    return r;
}

// RMS_NORM, NORM: each row over ne[0].
std::optional<Reference> norm(const std::string &op, const nlohmann::json &p, const std::vector<RefTensor> &in,
                              const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    if (in.size() != 1 || !sameNe(in[0].ne, ne)) {
        skip = op + " whose input and output differ in shape";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    const double eps = param(p, "eps", 0);
    const int64_t n = ne[0], rows = ne[1] * ne[2] * ne[3];
    for (int64_t row = 0; row < rows; ++row) {
        const double *x = in[0].v.data() + row * n;
        double mean = 0;
        if (op == "NORM") {
            for (int64_t i = 0; i < n; ++i)
                mean += x[i];
            mean /= double(n);
        }
        double sq = 0;
        for (int64_t i = 0; i < n; ++i)
            sq += (x[i] - mean) * (x[i] - mean);
        const double scale = 1 / std::sqrt(sq / double(n) + eps);
        for (int64_t i = 0; i < n; ++i) {
            const size_t k = size_t(row * n + i);
            r.out.v[k] = (x[i] - mean) * scale;
            // the sum of squares' rounding grows with the row (halved by the square root)
            r.bound[k] = (kSlack + double(n) / 2) * u * (std::fabs(r.out.v[k]) + std::fabs(mean) * scale);
        }
    }
    r.standard = "|error| <= (16 + n/2) u |out|";
    return r;
}

// Element i of a product: x . y over k, with its bound and its float16 operand noise.
void dot(const double *x, const double *y, int64_t k, double uc, double uOut, Reference &r, size_t i)
{
    double s = 0, mag = 0, sq = 0;
    for (int64_t j = 0; j < k; ++j) {
        const double t = x[j] * y[j];
        s += t;
        mag += std::fabs(t);
        sq += t * t;
    }
    r.out.v[i] = s;
    // a dot product's forward error bound: k roundings of the compute type over sum |a b|
    r.bound[i] = (double(k) * uc + kSlack * uOut) * mag;
    // both operands rounded to float16: each product off by (da + db), uniform in +-u each
    r.f16Noise[i] = std::ldexp(1.0, -11) * std::sqrt(2.0 / 3.0 * sq);
}

// Weight types whose CPU dot product meets activations quantized to q8_0 (ggml-cpu.c's
// type_traits_cpu: vec_dot_type GGML_TYPE_Q8_0).
bool dotsWithQ8_0(const std::string &blockType)
{
    return blockType == "q8_0" || blockType == "q4_0" || blockType == "q5_0" || blockType == "iq4_nl";
}

// Weight types whose CPU dot product meets activations quantized to q8_1: q8_0's integers and
// scale, and each block's sum s = d sum(q) stored as float16 (type_traits_cpu: GGML_TYPE_Q8_1).
// Their blocks are w = d nib + m, the kernel adds m s per block.
bool dotsWithQ8_1(const std::string &blockType)
{
    return blockType == "q4_1" || blockType == "q5_1";
}

// Weight types whose CPU dot product meets activations quantized to q8_K (type_traits_cpu:
// GGML_TYPE_Q8_K): the K-quants and the i-quants of 256-element super-blocks.
bool dotsWithQ8_K(const std::string &blockType)
{
    static const std::set<std::string> k{"q2_K",  "q3_K",    "q4_K",  "q5_K",  "q6_K",  "iq2_xxs", "iq2_xs",
                                         "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "iq4_xs"};
    return k.count(blockType) != 0;
}

// A row of activations as ggml's CPU kernel meets a q8_K-dotting weight, as
// quantize_row_q8_K_ref computes it (the x86 kernel calls it too): per 256 elements the value of
// largest magnitude max, iscale = -127 / max and d = 1 / iscale in float, each element
// rint(iscale x) capped at 127; given back as d q (exactly what the kernel's integers stand for).
void quantizeQ8_K(const double *x, int64_t k, std::vector<double> &out)
{
    out.resize(size_t(k));
    for (int64_t b = 0; b < k; b += 256) {
        float max = 0, amax = 0;
        for (int64_t j = b; j < b + 256; ++j)
            if (std::fabs(float(x[j])) > amax) {
                amax = std::fabs(float(x[j]));
                max = float(x[j]);
            }
        if (amax == 0) {
            std::fill(out.begin() + b, out.begin() + b + 256, 0.0);
            continue;
        }
        const float iscale = -127.f / max;
        const float d = 1 / iscale;
        for (int64_t j = b; j < b + 256; ++j)
            out[size_t(j)] = double(d) * double(std::min(127.f, std::nearbyint(iscale * float(x[j]))));
    }
}

// A row of activations as ggml's CPU kernel meets a q8_0-dotting weight: each block of 32
// quantized as quantize_row_q8_0_ref does (d = max|x| / 127 in float, stored as float16; each
// element x / d rounded to an integer), given back as d q. tie[j] is the block's d where x / d
// lies so close to a half that the vectorized quantizer (127 / max|x|, rounded to even) may
// round the other way, else 0.
void quantizeQ8_0(const double *x, int64_t k, std::vector<double> &out, std::vector<double> &tie)
{
    out.resize(size_t(k));
    tie.assign(size_t(k), 0);
    for (int64_t b = 0; b < k; b += 32) {
        float amax = 0;
        for (int64_t j = b; j < b + 32; ++j)
            amax = std::max(amax, std::fabs(float(x[j])));
        const float d = amax / 127;
        const float id = d != 0 ? 1.0f / d : 0.0f;
        const double dq = toHalf(d);
        for (int64_t j = b; j < b + 32; ++j) {
            const float scaled = float(x[j]) * id;
            if (std::fabs(std::fabs(scaled - std::trunc(scaled)) - 0.5f) < 1e-4f)
                tie[size_t(j)] = dq;
            out[size_t(j)] = dq * double(std::round(scaled));
        }
    }
}

// Element i of a product of a q8_0-dotting weight row w (dequantized: exact) and activations
// quantized (qx, tie): what the kernel computes exactly is the sum of each block's integer dot
// times its two scales; it rounds each block's scale product and sum in float32 and accumulates
// in float32 lanes: (blocks + 8) roundings over the sum of every |w q|, and a near-half
// element's activation one step (its block's d) either way.
//
// A weight the kernel offsets by the activations' block sum s (offsets: q4_1's and q5_1's m on
// the CPU; on a device's q8_1 path also q4_0's 8 d, q5_0's 16 d, the K-quants' mins), s being
// float16 of d sum(q) where the rest uses d's own float16: a block off by at most
// 2^-10 |offset| |d sum(q)| besides, the offset no larger than the block's largest |w|.
void quantizedDot(const double *w, const std::vector<double> &qx, const std::vector<double> &tie, int64_t k,
                  double uOut, bool offsets, Reference &r, size_t i)
{
    double s = 0, mag = 0, ties = 0, sums = 0;
    for (int64_t j = 0; j < k; ++j) {
        const double t = w[j] * qx[size_t(j)];
        s += t;
        mag += std::fabs(t);
        ties += std::fabs(w[j]) * tie[size_t(j)];
    }
    if (offsets)
        for (int64_t b = 0; b < k; b += 32) {
            // the block's offset is at most its largest |w|: q4_1's m is its smallest value,
            // q4_0's 8 d and q5_0's 16 d its largest magnitude as ggml's quantizer sets d
            double m = 0, blockSum = 0;
            for (int64_t j = b; j < b + 32; ++j) {
                m = std::max(m, std::fabs(w[j]));
                blockSum += qx[size_t(j)];
            }
            sums += m * std::fabs(blockSum);
        }
    r.out.v[i] = s;
    r.bound[i] =
        (double(k / 32 + 8) * std::ldexp(1.0, -24) + kSlack * uOut) * mag + ties + std::ldexp(1.01, -10) * sums;
}

// The activations ggml's CPU kernel quantizes for a weight of block type t (q8_0, q8_1 or q8_K),
// and its block length; 0 where it dots them in float.
int64_t activationBlock(const std::string &t)
{
    return dotsWithQ8_K(t) ? 256 : dotsWithQ8_0(t) || dotsWithQ8_1(t) ? 32 : 0;
}
void quantizeActivations(const std::string &t, const double *x, int64_t k, std::vector<double> &qx,
                         std::vector<double> &tie)
{
    if (dotsWithQ8_K(t)) {
        quantizeQ8_K(x, k, qx);
        tie.assign(size_t(k), 0.0); // the scalar quantizer, emulated exactly
    } else {
        quantizeQ8_0(x, k, qx, tie);
    }
}
const char *quantizedStandard(const std::string &t)
{
    return dotsWithQ8_1(t) ? "ggml's CPU kernel: the activations quantized to q8_1 as its reference quantizer does, "
                             "|error| <= ((blocks + 8) u32 + 16 u) sum|w q| + a step of q where x/d is near a half "
                             "+ 2^-10 |m s| a block (s, d sum(q), stored as float16)"
        : dotsWithQ8_K(t)  ? "ggml's CPU kernel: the activations quantized to q8_K as its reference quantizer does, "
                             "|error| <= ((k/32 + 8) u32 + 16 u) sum|w q|"
                           : "ggml's CPU kernel: the activations quantized to q8_0 as its reference quantizer does, "
                             "|error| <= ((blocks + 8) u32 + 16 u) sum|w q| + a step of q where x/d is near a half";
}

// Whose kernel computed a product of quantized weights (the kernel CSV's backend): ggml's CPU
// one, ggml-vulkan's, ggml-cuda's ("CUDA0"), or another's or not known. Other backends (ROCm's
// and MUSA's builds of ggml-cuda included, whose fast paths differ) are not modelled: those keep
// the bound of 8-bit operands, which calls no correct kernel wrong.
enum class ProductKernel { Cpu, Vulkan, Cuda, Other };
ProductKernel productKernel(const nlohmann::json &param)
{
    const auto b = param.is_object() ? param.find("backend") : param.end();
    if (!param.is_object() || b == param.end() || !b->is_string())
        return ProductKernel::Other;
    const std::string name = b->get<std::string>();
    return name == "CPU"               ? ProductKernel::Cpu
        : name.rfind("Vulkan", 0) == 0 ? ProductKernel::Vulkan
        : name.rfind("CUDA", 0) == 0   ? ProductKernel::Cuda
                                       : ProductKernel::Other;
}

// The ways ggml's kernels compute a product of quantized weights with float32 activations:
// the CPU's (activations quantized to the weights' dot type), and a device's three:
// weights dequantized to float32 (Vulkan's mul_mat_vec, CUDA's cuBLAS in float32); activations
// quantized to q8_1 (32 a block, d as float16: Vulkan's and CUDA's MMVQ and MMQ), where the
// device has integer dot products; float16 tiles (Vulkan's mul_mm with float16 or float32 sums,
// CUDA's cuBLAS in float16), where it has float16.
enum class ProductPath { Cpu, Float32, Q8_1, Float16 };

// Block types a q8_1 kernel offsets by the activations' block sum (mul_mat_vecq_funcs.glsl,
// mul_mmq_funcs.glsl): q4_0's 8, q5_0's 16, the mins of q4_1, q5_1 and the K-quants, iq1's delta.
bool usesBlockSum(const std::string &t)
{
    static const std::set<std::string> s{"q4_0", "q5_0", "q4_1", "q5_1", "q2_K", "q4_K", "q5_K", "iq1_s", "iq1_m"};
    return s.count(t) != 0;
}

// K-quants, whose MMQ keeps each sub-block's scale d sc as float16 (mul_mmq_funcs.glsl).
bool scaleInHalf(const std::string &t)
{
    return t.size() == 4 && t[0] == 'q' && t[2] == '_' && t[3] == 'K';
}

// ggml-cuda's q8_1 kernels (vecdotq.cuh, mmq.cuh, quantize.cu) differ from Vulkan's in four ways.
// - The block sum an offset meets is the raw activations' sum, float16 of sum(x), where MMVQ
//   offsets q4_0, q5_0, q4_1 and q5_1 and MMQ (its DS4 and D2S6 layouts) q4_0, q4_1, q5_1, q4_K,
//   q5_K, q2_K (per 16) and iq1_s; MMVQ's K-quants meet the quantized sum, q5_0's MMQ subtracts
//   its 16 in integers. So the value is sum(w q) and each block's offset o adds o (sum(q) -
//   sum(x)). o is not in the dequantized weight: it is bounded by twice the block's largest |w|
//   (four times for q2_K): ggml's quantizer puts o at that |w|, with an importance matrix up to
//   1.5 times it (q2_K's up to 3), and both sums' rounding is included. That holds whichever
//   kernel ran.
// - MMQ's D4 layout (q8_0, q5_0, q3_K, q6_K, the i-quants) keeps the activations' d in float32
//   while their integers were rounded with it: up to u16 sum|w q| from this path's float16 d.
// - Where the device multiplies scales in float16 (FAST_FP16: q4_1's and q5_1's dm ds; MMQ's
//   q2_K, q4_K and q5_K d sc and dmin m, then times ds; iq1_s's d and delta), each block's scale
//   product rounds twice in float16: relatively 2 u16 sum((|w| + o)|q|) and 2 u16 |o s|, and, a
//   product below float16's normal range, absolutely 2^-25 sum|n q| (n <= 31) and 2^-25 each.
// - On Blackwell MXFP4 and NVFP4 activations are quantized to FP4 (mmq.cu's native FP4 path):
//   not modelled, those keep the bound of 8-bit operands (productPaths).
int64_t cudaSumBlock(const std::string &t)
{
    static const std::set<std::string> s{"q4_0", "q5_0", "q4_1", "q5_1", "q4_K", "q5_K", "iq1_s"};
    return t == "q2_K" ? 16 : s.count(t) ? 32 : 0;
}
bool cudaScalesInHalf(const std::string &t)
{
    static const std::set<std::string> s{"q4_1", "q5_1", "q2_K", "q4_K", "q5_K", "iq1_s"};
    return s.count(t) != 0;
}

std::string pathWords(ProductPath p, const std::string &t, ProductKernel kernel)
{
    const bool cuda = kernel == ProductKernel::Cuda;
    switch (p) {
    case ProductPath::Cpu: return quantizedStandard(t);
    case ProductPath::Float32:
        return std::string(cuda ? "CUDA's cuBLAS product on weights dequantized to float32"
                                : "Vulkan's matrix-vector kernel on weights dequantized to float32 (mul_mat_vec)") +
            ": |error| <= ((k + 4) u32 + 16 u) sum|w x|";
    case ProductPath::Q8_1:
        if (cuda)
            return std::string("CUDA's kernels on activations quantized to q8_1 (MMVQ, MMQ): "
                               "|error| <= ((blocks + 8) u32 + 16 u) sum|w q| + a step of q where x/d is near a half") +
                " + u16 sum|w q| (MMQ's float32 activation scale)" +
                (cudaSumBlock(t)
                     ? std::string(" + o (|sum q - sum x| + u16 (|sum x| + |sum q - sum x|)) a block, o = ") +
                         (t == "q2_K" ? "4" : "2") + " max|w| (offsets meet the raw activations' float16 sum)"
                     : "") +
                (cudaScalesInHalf(t) ? " + 2 u16 sum((|w| + o)|q|) + 2^-24 sum|n q| (scales multiplied in float16)"
                                     : "");
        return std::string("Vulkan's kernels on activations quantized to q8_1 (MMVQ, MMQ): "
                           "|error| <= ((blocks + 8) u32 + 16 u) sum|w q| + a step of q where x/d is near a half") +
            (usesBlockSum(t) ? " + 2^-10 |offset s| a block" : "") + (scaleInHalf(t) ? " + u16 sum|w q|" : "");
    case ProductPath::Float16:
        return std::string(cuda
                               ? "CUDA's cuBLAS product in float16 (weights dequantized to float16, activations "
                                 "rounded to float16, float16 sums)"
                               : "Vulkan's matrix kernel on float16 tiles (weights dequantized to float16, activations "
                                 "rounded to float16, sums in float16 or float32: mul_mm)") +
            ": |error| <= 6 u16 sqrt(sum_j S_j^2 / 3) + ((k + 4) u32 + 16 u) sum|w x| (S_j: the sum of the first j "
            "products; six standard deviations of float16 sums' rounding)";
    }
    return {};
}

// The paths a product may have taken: the CPU's where its kernel ran; a device's three at every
// shape (which one runs depends on the device's float16 and integer dot support, the rows of
// activations, a weight too large for one storage buffer, and on CUDA GGML_CUDA_FORCE_MMQ,
// GGML_CUDA_FORCE_CUBLAS and GGML_CUDA_CUBLAS_COMPUTE_TYPE; its bfloat16 choice is not
// modelled); none for another backend.
std::vector<ProductPath> productPaths(ProductKernel kernel, const std::string &t, int64_t k)
{
    const int64_t block = activationBlock(t);
    std::vector<ProductPath> paths;
    if (kernel == ProductKernel::Cpu && block > 0 && k % block == 0)
        paths.push_back(ProductPath::Cpu);
    if ((kernel != ProductKernel::Vulkan && kernel != ProductKernel::Cuda) ||
        (kernel == ProductKernel::Cuda && (t == "mxfp4" || t == "nvfp4"))) // Blackwell's FP4 activations
        return paths;
    paths.push_back(ProductPath::Float32);
    if (k % 32 == 0)
        paths.push_back(ProductPath::Q8_1);
    paths.push_back(ProductPath::Float16);
    return paths;
}

// One path's reference of a product: element i the dot of a weight row (dequantized, exact) and
// an activation row, the activations quantized once a row where the path quantizes them.
class PathDots {
public:
    PathDots(ProductPath path, ProductKernel kernel, std::string type, int64_t k, double uOut,
             const std::array<int64_t, 4> &ne)
        : m_path(path), m_kernel(kernel), m_type(std::move(type)), m_k(k), m_uOut(uOut), m_r(shaped(ne))
    {
    }
    void dot(const double *w, const double *x, int64_t xRow, size_t i)
    {
        if (m_path == ProductPath::Cpu || m_path == ProductPath::Q8_1) {
            if (xRow != m_quantized) {
                if (m_path == ProductPath::Cpu)
                    quantizeActivations(m_type, x, m_k, m_qx, m_tie);
                else // q8_1's d and integers are q8_0's (CUDA's MMQ keeping d in float32: cudaBlockSums)
                    quantizeQ8_0(x, m_k, m_qx, m_tie);
                m_quantized = xRow;
            }
            if (m_path == ProductPath::Q8_1 && m_kernel == ProductKernel::Cuda) {
                quantizedDot(w, m_qx, m_tie, m_k, m_uOut, false, m_r, i);
                m_r.bound[i] += cudaBlockSums(w, x);
                return;
            }
            quantizedDot(w, m_qx, m_tie, m_k, m_uOut,
                         m_path == ProductPath::Cpu ? dotsWithQ8_1(m_type) : usesBlockSum(m_type), m_r, i);
            if (m_path == ProductPath::Q8_1 && scaleInHalf(m_type)) { // each sub-block's d sc rounded to float16
                double mag = 0;
                for (int64_t j = 0; j < m_k; ++j)
                    mag += std::fabs(w[j] * m_qx[size_t(j)]);
                m_r.bound[i] += std::ldexp(1.0, -11) * mag;
            }
            return;
        }
        const bool half = m_path == ProductPath::Float16;
        double s = 0, mag = 0, prefixSquares = 0;
        for (int64_t j = 0; j < m_k; ++j) {
            const double t = half ? toHalf(w[j]) * toHalf(x[j]) : w[j] * x[j];
            s += t;
            mag += std::fabs(t);
            prefixSquares += s * s;
        }
        m_r.out.v[i] = s;
        // A float16 sum rounds each partial sum S_j by up to u16 |S_j|, independently: six standard
        // deviations of that (the worst case, 2 u16 sum|S_j|, is as wide as the sum itself at k = 256).
        m_r.bound[i] = (half ? 6 * std::ldexp(1.0, -11) * std::sqrt(prefixSquares / 3) : 0.0) +
            (double(m_k + 4) * std::ldexp(1.0, -24) + kSlack * m_uOut) * mag;
    }
    Reference take(const std::string &standard)
    {
        m_r.standard = standard;
        return std::move(m_r);
    }

private:
    // What CUDA's q8_1 kernels may add to sum(w q) (cudaSumBlock's comment): per block of its
    // sums, the offset's meeting the raw activations' sum, the float32 activation scale, and the
    // scales' float16 products.
    double cudaBlockSums(const double *w, const double *x) const
    {
        const int64_t n = cudaSumBlock(m_type);
        const bool half = cudaScalesInHalf(m_type);
        const double u16 = std::ldexp(1.01, -11), tiny = std::ldexp(1.0, -25);
        const double reach = m_type == "q2_K" ? 4 : 2;
        const int64_t step = n ? n : 32;
        double extra = 0;
        for (int64_t b = 0; b < m_k; b += step) {
            const int64_t end = std::min(m_k, b + step);
            double o = 0, sq = 0, sx = 0, ax = 0, wq = 0, owq = 0;
            for (int64_t j = b; j < end; ++j)
                o = std::max(o, std::fabs(w[j]));
            o = n ? reach * o : 0.0; // no offset: integers only
            for (int64_t j = b; j < end; ++j) {
                sq += m_qx[size_t(j)];
                sx += x[j];
                ax += std::fabs(x[j]);
                wq += std::fabs(w[j] * m_qx[size_t(j)]);
                owq += (std::fabs(w[j]) + o) * std::fabs(m_qx[size_t(j)]);
            }
            extra += u16 * wq; // D4's float32 d
            const double diff = std::fabs(sq - sx), sums = std::fabs(sx) + diff;
            if (n) // float32 sums of 32 (a tree: 5 roundings), float16 storage, the half products
                extra += o * (diff + u16 * sums + 6 * std::ldexp(1.0, -24) * ax + (half ? 2 * u16 * sums : 0.0));
            if (half) {
                // the integers of the activations' 32-block holding these (q = q~ / d, d its float16 scale)
                const int64_t a0 = b / 32 * 32;
                double amax = 0, qs = 0;
                for (int64_t j = a0; j < std::min(m_k, a0 + 32); ++j)
                    amax = std::max(amax, std::fabs(double(float(x[j]))));
                const double d = toHalf(double(float(amax) / 127.0f));
                for (int64_t j = b; j < end && d > 0; ++j)
                    qs += std::fabs(m_qx[size_t(j)]) / d;
                extra += 2 * u16 * owq + 2 * tiny * (31 * qs + (n ? 1 : 0));
            }
        }
        return extra;
    }

    ProductPath m_path;
    ProductKernel m_kernel;
    std::string m_type;
    int64_t m_k;
    double m_uOut;
    Reference m_r;
    std::vector<double> m_qx, m_tie;
    int64_t m_quantized = -1;
};

// A product of quantized weights along each of its paths (each(dots) visits every element):
// one path is the reference; several are its paths, each standard naming the others.
template <typename Each>
Reference productOnPaths(const std::vector<ProductPath> &paths, ProductKernel kernel, const std::string &type,
                         int64_t k, double uOut, const std::array<int64_t, 4> &ne, const std::string &suffix, Each each)
{
    std::vector<Reference> refs;
    for (ProductPath p : paths) {
        PathDots dots(p, kernel, type, k, uOut, ne);
        each(dots);
        std::string standard = pathWords(p, type, kernel);
        if (paths.size() > 1)
            standard = "of the " + std::to_string(paths.size()) + " paths " +
                (kernel == ProductKernel::Cuda ? "CUDA's" : "Vulkan's") +
                " kernels may take, the one this output fits best: " + standard;
        refs.push_back(dots.take(standard + suffix));
    }
    Reference r = refs.front();
    if (refs.size() > 1)
        r.paths = std::move(refs);
    return r;
}

// MUL_MAT: out[i1][i0] = row i0 of a . row i1 of b, a broadcast over b's dims 2 and 3.
std::optional<Reference> mulMat(const std::vector<RefTensor> &in, const std::array<int64_t, 4> &ne, double uOut,
                                ProductKernel kernel, std::string &skip)
{
    if (in.size() != 2) {
        skip = "MUL_MAT without two inputs";
        return std::nullopt;
    }
    const RefTensor &a = in[0], &b = in[1];
    const int64_t k = a.ne[0];
    if (b.ne[0] != k || ne[0] != a.ne[1] || ne[1] != b.ne[1] || ne[2] != b.ne[2] || ne[3] != b.ne[3] ||
        b.ne[2] % a.ne[2] != 0 || b.ne[3] % a.ne[3] != 0) {
        skip = "MUL_MAT with these shapes";
        return std::nullopt;
    }
    const double uc = std::max(computeRoundoff(a), computeRoundoff(b));
    const int64_t r2 = b.ne[2] / a.ne[2], r3 = b.ne[3] / a.ne[3];
    const auto weightRow = [&](int64_t i0, int64_t i2, int64_t i3) {
        return &a.v[size_t(((i3 / r3 * a.ne[2] + i2 / r2) * a.ne[1] + i0) * k)];
    };
    if (a.dtype == kQuantizedDtype && b.dtype == int32_t(DType::Float32)) {
        const std::vector<ProductPath> paths = productPaths(kernel, a.blockType, k);
        if (!paths.empty())
            return productOnPaths(paths, kernel, a.blockType, k, uOut, ne, "", [&](PathDots &dots) {
                forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
                    const int64_t row = (i3 * b.ne[2] + i2) * b.ne[1] + i1;
                    dots.dot(weightRow(i0, i2, i3), &b.v[size_t(row * k)], row, i);
                });
            });
    }
    Reference r = shaped(ne);
    r.f16Noise.assign(r.out.v.size(), 0.0);
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        dot(weightRow(i0, i2, i3), &b.v[size_t(((i3 * b.ne[2] + i2) * b.ne[1] + i1) * k)], k, uc, uOut, r, i);
    });
    r.standard = "|error| <= (k uc + 16 u) sum|a b| (uc: the compute type's unit roundoff)";
    return r;
}

// MUL_MAT_ID: the experts' products. For token t and slot e, ids[e][t] names the expert whose
// matrix (a's slice) meets b's row e (or row 0, where b holds one row a token for all slots).
std::optional<Reference> mulMatId(const std::vector<RefTensor> &in, const std::array<int64_t, 4> &ne, double uOut,
                                  ProductKernel kernel, std::string &skip)
{
    if (in.size() != 3) {
        skip = "MUL_MAT_ID without experts, activations and ids";
        return std::nullopt;
    }
    const RefTensor &a = in[0], &b = in[1], &ids = in[2];
    const int64_t k = a.ne[0], experts = a.ne[2], used = ids.ne[0], tokens = ids.ne[1];
    if (b.ne[0] != k || a.ne[3] != 1 || ne[0] != a.ne[1] || ne[1] != used || ne[2] != tokens || ne[3] != 1 ||
        b.ne[2] != tokens || b.ne[3] != 1 || (b.ne[1] != 1 && b.ne[1] != used) || ids.ne[2] != 1 || ids.ne[3] != 1) {
        skip = "MUL_MAT_ID with these shapes";
        return std::nullopt;
    }
    for (int64_t t = 0; t < tokens; ++t)
        for (int64_t e = 0; e < used; ++e) {
            const double id = ids.at(e, t, 0, 0);
            if (!(id >= 0 && id < double(experts)) || id != std::trunc(id)) {
                skip = "MUL_MAT_ID with an expert id outside its experts";
                return std::nullopt;
            }
        }
    // each product of token t, slot e and output feature i0: its expert's row and activations
    const auto each = [&](auto &&visit) {
        for (int64_t t = 0; t < tokens; ++t)
            for (int64_t e = 0; e < used; ++e) {
                const int64_t row = t * b.ne[1] + e % b.ne[1];
                const int64_t expert = int64_t(ids.at(e, t, 0, 0));
                for (int64_t i0 = 0; i0 < ne[0]; ++i0)
                    visit(&a.v[size_t((expert * a.ne[1] + i0) * k)], &b.v[size_t(row * k)], row,
                          size_t((t * used + e) * ne[0] + i0));
            }
    };
    if (a.dtype == kQuantizedDtype && b.dtype == int32_t(DType::Float32)) {
        const std::vector<ProductPath> paths = productPaths(kernel, a.blockType, k);
        if (!paths.empty())
            return productOnPaths(
                paths, kernel, a.blockType, k, uOut, ne, ", each expert's product", [&](PathDots &dots) {
                    each([&](const double *w, const double *x, int64_t row, size_t i) { dots.dot(w, x, row, i); });
                });
    }
    const double uc = std::max(computeRoundoff(a), computeRoundoff(b));
    Reference r = shaped(ne);
    r.f16Noise.assign(r.out.v.size(), 0.0);
    each([&](const double *w, const double *x, int64_t, size_t i) { dot(w, x, k, uc, uOut, r, i); });
    r.standard = "|error| <= (k uc + 16 u) sum|a b| (uc: the compute type's unit roundoff), each expert's product";
    return r;
}

// ARGSORT: each row's indices in ascending (order 0) or descending (1) order of its values.
// Equal values may come in either order: the places they share are not checked.
std::optional<Reference> argsort(const nlohmann::json &p, const std::vector<RefTensor> &in,
                                 const std::array<int64_t, 4> &ne, std::string &skip)
{
    const std::optional<int64_t> order = intParam(p, "order", firstRawWord(p));
    if (in.size() != 1 || !sameNe(in[0].ne, ne) || !order || (*order != 0 && *order != 1)) {
        skip =
            in.size() != 1 || !sameNe(in[0].ne, ne) ? "ARGSORT with these shapes" : "ARGSORT whose order is not 0 or 1";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    r.unchecked.assign(r.out.v.size(), 0);
    const int64_t n = ne[0];
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (int64_t row = 0; row < ne[1] * ne[2] * ne[3]; ++row) {
        const double *x = in[0].v.data() + row * n;
        for (int64_t i = 0; i < n; ++i)
            idx[size_t(i)] = i;
        if (std::none_of(x, x + n, [](double v) { return std::isnan(v); })) // NaN orders nothing
            std::stable_sort(idx.begin(), idx.end(),
                             [&](int64_t l, int64_t m) { return *order == 0 ? x[l] < x[m] : x[l] > x[m]; });
        const bool nan = std::any_of(x, x + n, [](double v) { return std::isnan(v); }); // no order to hold
        for (int64_t i = 0; i < n; ++i) {
            const size_t o = size_t(row * n + i);
            r.out.v[o] = double(idx[size_t(i)]);
            const double v = x[idx[size_t(i)]];
            if (nan || (i > 0 && x[idx[size_t(i - 1)]] == v) || (i + 1 < n && x[idx[size_t(i + 1)]] == v))
                r.unchecked[o] = 1;
        }
    }
    r.standard = "exact (each row's order; places of equal values, and rows holding NaN, not checked)";
    return r;
}

// SUM_ROWS: each row's sum, into a tensor of rows of one element.
std::optional<Reference> sumRows(const std::vector<RefTensor> &in, const std::array<int64_t, 4> &ne, double uOut,
                                 std::string &skip)
{
    if (in.size() != 1 || ne[0] != 1 || ne[1] != in[0].ne[1] || ne[2] != in[0].ne[2] || ne[3] != in[0].ne[3]) {
        skip = "SUM_ROWS with these shapes";
        return std::nullopt;
    }
    Reference r = shaped(ne);
    const int64_t n = in[0].ne[0];
    for (size_t row = 0; row < r.out.v.size(); ++row) {
        double sum = 0, mag = 0;
        for (int64_t i = 0; i < n; ++i) {
            sum += in[0].v[row * size_t(n) + size_t(i)];
            mag += std::fabs(in[0].v[row * size_t(n) + size_t(i)]);
        }
        r.out.v[row] = sum;
        // summed in float32 at worst, in any order
        r.bound[row] = (double(n) * std::ldexp(1.0, -24) + kSlack * uOut) * mag;
    }
    r.standard = "|error| <= (n u32 + 16 u) sum|x|";
    return r;
}

// CLAMP: each element held to [min, max].
std::optional<Reference> clamp(const nlohmann::json &p, const std::vector<RefTensor> &in,
                               const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    if (in.size() != 1 || in[0].count() != ne[0] * ne[1] * ne[2] * ne[3]) {
        skip = "CLAMP whose input and output differ in size";
        return std::nullopt;
    }
    const double lo = param(p, "min", -INFINITY), hi = param(p, "max", INFINITY);
    Reference r = shaped(ne);
    for (size_t i = 0; i < r.out.v.size(); ++i) {
        const double x = in[0].v[i], y = x < hi ? x : hi; // ggml's MAX(MIN(x, max), min): NaN becomes max
        r.out.v[i] = y > lo ? y : lo;
        r.bound[i] = u * std::fabs(r.out.v[i]); // rounded to the output's type
    }
    r.standard = "|error| <= u |out| (max(min(x, max), min) as ggml orders it, rounded to its type)";
    return r;
}

// ADD_ID: each expert slot's row plus its expert's bias: out[:, e, t] = a[:, e, t] + b[:, ids[e, t]].
std::optional<Reference> addId(const std::vector<RefTensor> &in, const std::array<int64_t, 4> &ne, double u,
                               std::string &skip)
{
    if (in.size() != 3 || !sameNe(in[0].ne, ne) || in[1].ne[0] != ne[0] || in[2].ne[0] != ne[1] ||
        in[2].ne[1] != ne[2]) {
        skip = "ADD_ID with these shapes";
        return std::nullopt;
    }
    const RefTensor &a = in[0], &b = in[1], &ids = in[2];
    Reference r = shaped(ne);
    bool ok = true;
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        const double id = ids.at(i1, i2, 0, 0);
        if (!(id >= 0 && id < double(b.ne[1])) || id != std::trunc(id)) {
            ok = false;
            return;
        }
        const double x = a.at(i0, i1, i2, i3), y = b.at(i0, int64_t(id), 0, 0);
        r.out.v[i] = x + y;
        r.bound[i] = kSlack * u * (std::fabs(x) + std::fabs(y));
    });
    if (!ok) {
        skip = "ADD_ID with an expert id outside its biases";
        return std::nullopt;
    }
    r.standard = "|error| <= 16 u |terms| (each slot's row plus its expert's bias)";
    return r;
}

// CONCAT: b after a along dimension dim.
std::optional<Reference> concat(const nlohmann::json &p, const std::vector<RefTensor> &in,
                                const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    const std::optional<int64_t> dimParam = intParam(p, "dim", firstRawWord(p));
    bool shaped4 = in.size() == 2 && dimParam && *dimParam >= 0 && *dimParam < 4;
    for (size_t d = 0; d < 4 && shaped4; ++d)
        shaped4 =
            int64_t(d) == *dimParam ? in[0].ne[d] + in[1].ne[d] == ne[d] : in[0].ne[d] == ne[d] && in[1].ne[d] == ne[d];
    if (!shaped4) {
        skip = "CONCAT with these shapes or this dimension";
        return std::nullopt;
    }
    const size_t dim = size_t(*dimParam);
    Reference r = shaped(ne);
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        std::array<int64_t, 4> j{i0, i1, i2, i3};
        const bool first = j[dim] < in[0].ne[dim];
        if (!first)
            j[dim] -= in[0].ne[dim];
        r.out.v[i] = in[first ? 0 : 1].at(j[0], j[1], j[2], j[3]);
        r.bound[i] = u * std::fabs(r.out.v[i]); // a copy, rounded to its type
    });
    r.standard = "|error| <= u |in| (a copy, rounded to its type)";
    return r;
}

// GET_ROWS: the rows of a that b's indices name.
std::optional<Reference> getRows(const std::vector<RefTensor> &in, const std::array<int64_t, 4> &ne, std::string &skip)
{
    if (in.size() != 2 || ne[0] != in[0].ne[0]) {
        skip = "GET_ROWS with these shapes";
        return std::nullopt;
    }
    const RefTensor &a = in[0], &idx = in[1];
    Reference r = shaped(ne);
    bool ok = true;
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        const double row = idx.at(i1 % idx.ne[0], i2 % idx.ne[1], i3 % idx.ne[2], 0);
        if (row < 0 || row >= double(a.ne[1])) {
            ok = false;
            return;
        }
        r.out.v[i] = a.at(i0, int64_t(row), i2 % a.ne[2], i3 % a.ne[3]);
    });
    if (!ok) {
        skip = "GET_ROWS with an index outside its table";
        return std::nullopt;
    }
    r.standard = "exact (the rows are copied)";
    return r;
}

// ROPE in ggml's normal (adjacent pairs) and NeoX (halves) modes, without YaRN.
std::optional<Reference> rope(const nlohmann::json &p, const std::vector<RefTensor> &in,
                              const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    const std::optional<int64_t> modeParam = intParam(p, "mode", 0), dimsParam = intParam(p, "n_dims", ne[0]);
    if (!modeParam || !dimsParam) {
        skip = "ROPE whose mode or n_dims is not an integer";
        return std::nullopt;
    }
    const int64_t mode = *modeParam, nDims = *dimsParam;
    if (in.size() != 2 || !sameNe(in[0].ne, ne) || in[1].ne[0] < ne[2] || nDims > ne[0] || nDims % 2) {
        skip = in.size() > 2 ? "ROPE with frequency factors" : "ROPE with these shapes";
        return std::nullopt;
    }
    if (mode != 0 && mode != 2) {
        skip = "ROPE mode " + std::to_string(mode) + " (multimodal or vision rotations)";
        return std::nullopt;
    }
    if (param(p, "ext_factor", 0) != 0) {
        skip = "ROPE with YaRN (ext_factor)";
        return std::nullopt;
    }
    const double base = param(p, "freq_base", 10000), fscale = param(p, "freq_scale", 1),
                 mscale = param(p, "attn_factor", 1);
    const RefTensor &x = in[0], &pos = in[1];
    Reference r = shaped(ne);
    r.out.v = x.v;
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2) {
            const double position = pos.v[size_t(i2)];
            for (int64_t i1 = 0; i1 < ne[1]; ++i1) {
                const size_t row = size_t(((i3 * ne[2] + i2) * ne[1] + i1) * ne[0]);
                for (int64_t i = 0; i < ne[0]; ++i)
                    r.bound[row + size_t(i)] = kSlack * u * std::fabs(x.v[row + size_t(i)]);
                for (int64_t j = 0; j < nDims / 2; ++j) {
                    const double theta = position * fscale * std::pow(base, -2.0 * double(j) / double(nDims));
                    const size_t a = row + size_t(mode == 0 ? 2 * j : j),
                                 b = row + size_t(mode == 0 ? 2 * j + 1 : j + nDims / 2);
                    const double x0 = x.v[a], x1 = x.v[b], c = std::cos(theta) * mscale, s = std::sin(theta) * mscale;
                    r.out.v[a] = x0 * c - x1 * s;
                    r.out.v[b] = x0 * s + x1 * c;
                    // the angle computed in float32 (its powers and the position's product)
                    const double e = kSlack * u * (1 + std::fabs(theta)) * (std::fabs(x0) + std::fabs(x1));
                    r.bound[a] = e;
                    r.bound[b] = e;
                }
            }
        }
    r.standard = "|error| <= 16 u (1 + |theta|) (|x0| + |x1|)";
    return r;
}

// SOFT_MAX over ne[0]: softmax(x * scale + mask), ALiBi's slope 1 (max_bias 0); a sink (one
// logit a head) adds to the denominator only.
std::optional<Reference> softMax(const nlohmann::json &p, const std::vector<RefTensor> &in,
                                 const std::array<int64_t, 4> &ne, double u, std::string &skip)
{
    const RefTensor *mask = in.size() >= 2 ? &in[1] : nullptr;
    const RefTensor *sinks = in.size() == 3 ? &in[2] : nullptr; // a logit a head, only in the denominator
    // each row reads the mask across its whole length
    if (in.empty() || in.size() > 3 || !sameNe(in[0].ne, ne) || (mask && (mask->ne[0] < ne[0] || mask->count() == 0)) ||
        (sinks && sinks->count() < ne[2])) {
        skip = "SOFT_MAX with these shapes";
        return std::nullopt;
    }
    if (param(p, "max_bias", 0) != 0) {
        skip = "SOFT_MAX with ALiBi (max_bias)";
        return std::nullopt;
    }
    const double scale = param(p, "scale", 1);
    Reference r = shaped(ne);
    const int64_t n = ne[0];
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < ne[1]; ++i1) {
                const size_t row = size_t(((i3 * ne[2] + i2) * ne[1] + i1) * n);
                double mx = -INFINITY;
                std::vector<double> z(static_cast<size_t>(n));
                for (int64_t i = 0; i < n; ++i) {
                    z[size_t(i)] = in[0].v[row + size_t(i)] * scale +
                        (mask ? mask->at(i, i1 % mask->ne[1], i2 % mask->ne[2], i3 % mask->ne[3]) : 0);
                    mx = std::max(mx, z[size_t(i)]);
                }
                const double sink = sinks ? sinks->v[size_t(i2)] : -INFINITY;
                mx = std::max(mx, sink);
                double sum = sinks ? std::exp(sink - mx) : 0;
                for (auto &v : z) {
                    v = std::isinf(mx) ? 0 : std::exp(v - mx);
                    sum += v;
                }
                for (int64_t i = 0; i < n; ++i) {
                    const double y = sum > 0 ? z[size_t(i)] / sum : 0;
                    r.out.v[row + size_t(i)] = y;
                    r.bound[row + size_t(i)] = (kSlack + double(n)) * u * (y + 1.0 / double(n));
                }
            }
    r.standard = "|error| <= (16 + n) u (|out| + 1/n)";
    return r;
}

// FLASH_ATTN_EXT: softmax(scale q.k + mask) v for each head, its output laid out
// [Dv, heads, queries, batch].
std::optional<Reference> flashAttn(const nlohmann::json &p, const std::vector<RefTensor> &in,
                                   const std::array<int64_t, 4> &ne, double uOut, std::string &skip)
{
    if (in.size() < 3 || in.size() > 5) {
        skip = "FLASH_ATTN_EXT without q, k and v";
        return std::nullopt;
    }
    const RefTensor *sinks = in.size() == 5 ? &in[4] : nullptr; // a logit a head, only in the denominator
    if (param(p, "max_bias", 0) != 0) {
        skip = "FLASH_ATTN_EXT with ALiBi (max_bias)";
        return std::nullopt;
    }
    const RefTensor &q = in[0], &k = in[1], &v = in[2];
    const RefTensor *mask = in.size() >= 4 ? &in[3] : nullptr;
    const int64_t d = q.ne[0], nq = q.ne[1], heads = q.ne[2], nkv = k.ne[1], dv = v.ne[0];
    if (k.ne[0] != d || v.ne[1] != nkv || k.ne[2] == 0 || heads % k.ne[2] != 0 || v.ne[2] != k.ne[2] ||
        v.ne[3] != k.ne[3] || ne[0] != dv || ne[1] != heads || ne[2] != nq || ne[3] != q.ne[3] ||
        (mask && (mask->ne[0] < nkv || mask->ne[1] < nq)) || (sinks && sinks->count() < heads)) {
        skip = "FLASH_ATTN_EXT with these shapes";
        return std::nullopt;
    }
    const double scale = param(p, "scale", 1), softcap = param(p, "logit_softcap", 0);
    // A kernel rounds q (and p) to k's and v's type before its products.
    const double uc = std::max(std::max(unitRoundoff(k.dtype), unitRoundoff(v.dtype)), unitRoundoff(q.dtype));
    Reference r = shaped(ne);
    const int64_t groups = heads / k.ne[2];
    std::vector<double> s(static_cast<size_t>(nkv)), ds(static_cast<size_t>(nkv));
    for (int64_t b = 0; b < q.ne[3]; ++b)
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t iq = 0; iq < nq; ++iq) {
                const int64_t hk = h / groups, bk = b % k.ne[3];
                double mx = -INFINITY, maxErr = 0;
                for (int64_t j = 0; j < nkv; ++j) {
                    double dot = 0, mag = 0;
                    for (int64_t c = 0; c < d; ++c) {
                        const double t = q.at(c, iq, h, b) * k.at(c, j, hk, bk);
                        dot += t;
                        mag += std::fabs(t);
                    }
                    double x = dot * scale;
                    double err = (double(d) * uc + kSlack * std::ldexp(1.0, -24)) * mag * scale;
                    if (softcap > 0) {
                        x = softcap * std::tanh(x / softcap);
                        err = std::min(err, 2 * softcap);
                    }
                    const double m = mask ? mask->at(j, iq, 0, 0) : 0;
                    s[size_t(j)] = x + m;
                    ds[size_t(j)] = std::isinf(m) ? 0 : err;
                    mx = std::max(mx, s[size_t(j)]);
                    maxErr = std::max(maxErr, ds[size_t(j)]);
                }
                const double sink = sinks ? sinks->v[size_t(h)] : -INFINITY;
                mx = std::max(mx, sink);
                double sum = sinks ? std::exp(sink - mx) : 0;
                for (int64_t j = 0; j < nkv; ++j) {
                    s[size_t(j)] = std::isinf(mx) ? 0 : std::exp(s[size_t(j)] - mx);
                    sum += s[size_t(j)];
                }
                for (int64_t c = 0; c < dv; ++c) {
                    double o = 0, mag = 0;
                    for (int64_t j = 0; j < nkv; ++j) {
                        const double pj = sum > 0 ? s[size_t(j)] / sum : 0;
                        const double t = pj * v.at(c, j, hk, bk);
                        o += t;
                        mag += std::fabs(t);
                    }
                    const size_t i = size_t(((b * ne[2] + iq) * ne[1] + h) * ne[0] + c);
                    r.out.v[i] = o;
                    // the scores' error moves the weights (twice: each and their sum), then the
                    // weighted sum rounds in the compute type
                    r.bound[i] = (2 * maxErr + double(nkv) * uc + kSlack * uOut) * mag + kSlack * uOut * std::fabs(o);
                }
            }
    r.standard = "|error| <= (2 max score error + n_kv uc + 16 u) sum|p v|";
    return r;
}

// PERMUTE, TRANSPOSE: output dim axis[i] is input dim i.
std::optional<Reference> permuted(const std::string &op, const nlohmann::json &p, const RefTensor &a,
                                  const std::array<int64_t, 4> &ne, Reference r, std::string &skip)
{
    std::array<int, 4> axis{1, 0, 2, 3};
    if (op == "PERMUTE") {
        const auto it = p.find("axes");
        if (it == p.end() || !it->is_array() || it->size() != 4) {
            skip = "PERMUTE without its axes";
            return std::nullopt;
        }
        std::array<bool, 4> seen{};
        for (int i = 0; i < 4; ++i) {
            const int x = fitsInteger<int>((*it)[size_t(i)]) ? (*it)[size_t(i)].get<int>() : -1;
            if (x < 0 || x > 3 || seen[size_t(x)]) {
                skip = "PERMUTE whose axes are not a permutation";
                return std::nullopt;
            }
            seen[size_t(x)] = true;
            axis[size_t(i)] = x;
        }
    }
    for (int i = 0; i < 4; ++i)
        if (ne[size_t(axis[size_t(i)])] != a.ne[size_t(i)]) {
            skip = op + " with these shapes";
            return std::nullopt;
        }
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        const std::array<int64_t, 4> j{i0, i1, i2, i3};
        r.out.v[i] = a.at(j[size_t(axis[0])], j[size_t(axis[1])], j[size_t(axis[2])], j[size_t(axis[3])]);
    });
    return r;
}

// A VIEW's source that is itself a view into other memory: where each of its dense elements
// lay, by its own byte strides (-tiling's "_src_nb"). False, with skip said, where they cannot
// be told.
bool viewSourceBytes(const nlohmann::json &p, const RefTensor &a, std::unordered_map<int64_t, size_t> &sourceByte,
                     std::string &skip)
{
    const auto srcNb = p.find("_src_nb");
    std::array<int64_t, 4> sn{};
    bool ok = srcNb != p.end() && srcNb->is_array() && srcNb->size() == 4;
    for (size_t d = 0; d < 4 && ok; ++d) {
        ok = fitsInteger<int64_t>((*srcNb)[d]) && (*srcNb)[d].get<int64_t>() >= 0 &&
            (*srcNb)[d].get<int64_t>() < (int64_t(1) << 40);
        sn[d] = ok ? (*srcNb)[d].get<int64_t>() : 0;
    }
    if (!ok) {
        skip = "VIEW of a source that is not contiguous in memory, its strides not dumped";
        return false;
    }
    int64_t last = 0; // the source's last element's byte, the largest: no sum below overflows when it does not
    for (size_t d = 0; d < 4 && ok; ++d) {
        int64_t step = 0;
        ok = !__builtin_mul_overflow(a.ne[d] - 1, sn[d], &step) && !__builtin_add_overflow(last, step, &last);
    }
    if (!ok) {
        skip = "VIEW of a source whose strides reach past any address";
        return false;
    }
    sourceByte.reserve(a.v.size());
    forEach(a.ne, [&](int64_t j0, int64_t j1, int64_t j2, int64_t j3, size_t k) {
        sourceByte.emplace(j0 * sn[0] + j1 * sn[1] + j2 * sn[2] + j3 * sn[3], k);
    });
    return true;
}

// VIEW, RESHAPE, PERMUTE, TRANSPOSE: no kernel runs, but the output must hold the input's
// elements where ggml's shape and strides put them (what the probe read through the view).
std::optional<Reference> dataMovement(const std::string &op, const nlohmann::json &p, const std::vector<RefTensor> &in,
                                      const std::array<int64_t, 4> &ne, std::string &skip)
{
    if (in.empty()) {
        skip = op + " without its input";
        return std::nullopt;
    }
    const RefTensor &a = in[0];
    Reference r = shaped(ne);
    r.standard = "exact (" + op + " moves elements, computes none)";
    const int64_t n = ne[0] * ne[1] * ne[2] * ne[3];
    if (op == "RESHAPE") { // of a contiguous tensor (ggml asks it): the same elements in the same order
        if (a.count() != n) {
            skip = "RESHAPE whose input and output differ in size";
            return std::nullopt;
        }
        r.out.v = a.v;
        return r;
    }
    if (op == "PERMUTE" || op == "TRANSPOSE")
        return permuted(op, p, a, ne, std::move(r), skip);
    // VIEW: the source's bytes from offset with strides nb, which the dense dump of the source
    // reproduces only where the source was contiguous in memory.
    const auto contiguous = p.find("_src_contiguous");
    if (contiguous == p.end() || !contiguous->is_boolean()) {
        skip = "VIEW whose source's strides were not dumped (-tiling of this llmscope writes them)";
        return std::nullopt;
    }
    // A source that is itself a view into other memory: where each of its dense elements lay.
    std::unordered_map<int64_t, size_t> sourceByte;
    if (!contiguous->get<bool>() && !viewSourceBytes(p, a, sourceByte, skip))
        return std::nullopt;
    const int64_t size = elementBytes(a.dtype);
    const auto nb = p.find("nb");
    const std::optional<int64_t> offset = intParam(p, "offset", -1);
    if (size <= 0 || nb == p.end() || !nb->is_array() || nb->size() != 3 || !offset || *offset < 0) {
        skip = size <= 0 ? "VIEW of a quantized or unsized source" : "VIEW without its offset and strides";
        return std::nullopt;
    }
    std::array<int64_t, 4> stride{size, 0, 0, 0};
    for (int d = 1; d < 4; ++d) {
        const auto &x = (*nb)[size_t(d - 1)];
        stride[size_t(d)] = fitsInteger<int64_t>(x) ? x.get<int64_t>() : -1;
        if (stride[size_t(d)] < 0 || stride[size_t(d)] % size) {
            skip = "VIEW whose strides are not whole elements";
            return std::nullopt;
        }
    }
    if (*offset % size) {
        skip = "VIEW whose offset is not a whole element";
        return std::nullopt;
    }
    // The last element's byte, the largest: no element's sum below can overflow when it does not.
    int64_t last = *offset;
    for (size_t d = 0; d < 4; ++d) {
        int64_t step = 0;
        if (ne[d] > 0 &&
            (__builtin_mul_overflow(ne[d] - 1, stride[d], &step) || __builtin_add_overflow(last, step, &last))) {
            skip = "VIEW reaching past its source";
            return std::nullopt;
        }
    }
    bool inside = true;
    forEach(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3, size_t i) {
        const int64_t byte = *offset + i0 * stride[0] + i1 * stride[1] + i2 * stride[2] + i3 * stride[3];
        int64_t k = byte / size;
        if (!sourceByte.empty()) {
            const auto it = sourceByte.find(byte);
            k = it == sourceByte.end() ? -1 : int64_t(it->second);
        }
        if (k < 0 || k >= a.count()) {
            inside = false;
            return;
        }
        r.out.v[i] = a.v[size_t(k)];
    });
    if (!inside) {
        skip = sourceByte.empty() ? "VIEW reaching past its source" : "VIEW reaching memory its source does not hold";
        return std::nullopt;
    }
    return r;
}

} // namespace

bool isView(const std::string &op)
{
    static const std::set<std::string> views{"VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE", "NONE"};
    return views.count(op) > 0;
}

const Reference &fittedPath(const Reference &ref, const RefTensor &out)
{
    const Reference *best = &ref;
    double bestRatio = INFINITY;
    for (const Reference &p : ref.paths) {
        if (p.out.v.size() != out.v.size() || p.bound.size() != out.v.size())
            continue;
        double worst = 0;
        for (size_t i = 0; i < out.v.size() && worst <= bestRatio; ++i) {
            if (!p.unchecked.empty() && p.unchecked[i])
                continue;
            const double g = p.out.v[i], t = out.v[i];
            if (!std::isfinite(g) || !std::isfinite(t)) {
                if (!((std::isnan(g) && std::isnan(t)) || g == t))
                    worst = INFINITY;
                continue;
            }
            const double e = std::fabs(t - g), b = p.bound[i];
            worst = std::max(worst,
                             e <= b ? (b > 0 ? e / b : 0.0) : (b > 0 ? e / b : INFINITY)); // a NaN bound keeps nothing
        }
        if (worst < bestRatio) {
            bestRatio = worst;
            best = &p;
        }
    }
    return *best;
}

std::optional<Reference> referenceOf(const std::string &op, const nlohmann::json &param,
                                     const std::vector<RefTensor> &inputs, const std::array<int64_t, 4> &outNe,
                                     int32_t outDtype, std::string &skip);

// How far a row stored in a KV cache of a ggml type may be from the row given: a float type
// rounds each value (u |value|); ggml's q8_0 and q4_0 store blocks of 32 as integers times a
// float16 scale d: q8_0 d = amax/127, rounded to nearest (|error| <= d/2, plus 127 times d's own
// float16 rounding); q4_0 d = max/-8, truncated after +8.5 and clamped to 15 (|error| <= |d|,
// plus 8 times d's rounding). Sets bound[0..n) for row[0..n); false with skip where the type
// has no bound here. standard: the rule in words.
static bool storedBound(const std::string &t, const double *row, double *bound, size_t n, std::string &skip,
                        std::string &standard)
{
    const double f16 = std::ldexp(1.0, -11);
    if (t == "f32" || t == "f16" || t == "bf16") {
        const double u = t == "f32" ? std::ldexp(1.0, -24) : t == "f16" ? f16 : std::ldexp(1.0, -8);
        for (size_t i = 0; i < n; ++i)
            bound[i] = u * std::fabs(row[i]);
        standard = "|error| <= u |row| (rounded to the cache's " + t + ")";
        return true;
    }
    constexpr size_t kBlock = 32;
    if ((t != "q8_0" && t != "q4_0") || n % kBlock != 0) {
        skip = "a KV cache of type " + t + " (no bound for its conversion here)";
        return false;
    }
    for (size_t at = 0; at < n; at += kBlock) {
        double amax = 0, max = 0;
        for (size_t j = at; j < at + kBlock; ++j)
            if (std::fabs(row[j]) > amax) {
                amax = std::fabs(row[j]);
                max = row[j];
            }
        const double d = t == "q8_0" ? amax / 127 : std::fabs(max) / 8;
        std::fill(bound + at, bound + at + kBlock, t == "q8_0" ? d * (0.5 + 127 * f16) : d * (1 + 8 * f16));
    }
    standard = "|error| <= " + std::string(t == "q8_0" ? "d/2" : "|d|") +
        " in each block of 32 (stored as the cache's " + t + ")";
    return true;
}

// A write into the KV cache dumped as the rows it wrote, in its index's order (the probe's
// llmscope_kv_rows; a quantized cache's read back as floats): each is the row given, stored
// in the cache's type.
static std::optional<Reference> cacheRows(const nlohmann::json &type, const std::vector<RefTensor> &inputs,
                                          const std::array<int64_t, 4> &outNe, std::string &skip)
{
    const std::string t = type.is_string() ? type.get<std::string>() : std::string();
    if (inputs.empty() || inputs[0].ne != outNe) {
        skip = "a KV cache write whose rows and rows given differ in shape";
        return std::nullopt;
    }
    Reference r = shaped(outNe);
    r.out.v = inputs[0].v;
    if (!storedBound(t, r.out.v.data(), r.bound.data(), r.out.v.size(), skip, r.standard))
        return std::nullopt;
    r.standard += ", each row given";
    return r;
}

void RefTensor::outside()
{
    throw Error("an input is smaller than its op's shapes need");
}

std::optional<Reference> reference(const std::string &op, const nlohmann::json &param,
                                   const std::vector<RefTensor> &inputs, const std::array<int64_t, 4> &outNe,
                                   int32_t outDtype, std::string &skip)
{
    // Every op divides or takes remainders by some dimension: an empty one is nothing to check.
    auto empty = [](const std::array<int64_t, 4> &ne) {
        return std::any_of(ne.begin(), ne.end(), [](int64_t n) { return n <= 0; });
    };
    if (empty(outNe) || std::any_of(inputs.begin(), inputs.end(), [&](const RefTensor &t) { return empty(t.ne); })) {
        skip = "an empty tensor (a dimension of 0)";
        return std::nullopt;
    }
    // Ops walk an input by its shape: its values must fill it exactly.
    auto filled = [](const RefTensor &t) {
        int64_t n = 1;
        for (int64_t d : t.ne)
            if (__builtin_mul_overflow(n, d, &n))
                return false;
        return uint64_t(n) == t.v.size();
    };
    if (!std::all_of(inputs.begin(), inputs.end(), filled)) {
        skip = "an input whose values do not fill its shape";
        return std::nullopt;
    }
    auto r = referenceOf(op, param, inputs, outNe, outDtype, skip);
    // an exact op stays exact only where no rounding into the output type happens
    const auto floor = [&](Reference &x) {
        for (size_t i = 0; i < x.bound.size(); ++i)
            if (x.bound[i] > 0 || x.out.v[i] != 0)
                x.bound[i] += absoluteFloor(outDtype);
    };
    if (r) {
        floor(*r);
        for (Reference &p : r->paths)
            floor(p);
    }
    return r;
}

std::optional<Reference> referenceOf(const std::string &op, const nlohmann::json &param,
                                     const std::vector<RefTensor> &inputs, const std::array<int64_t, 4> &outNe,
                                     int32_t outDtype, std::string &skip)
{
    const double u = unitRoundoff(outDtype);
    if (op == "ADD" || op == "SUB" || op == "MUL" || op == "DIV")
        return binary(op, inputs, outNe, u, skip);
    if (op == "SILU" || op == "SIGMOID" || op == "GELU" || op == "SCALE")
        return unary(op, param, inputs, outNe, u, skip);
    if (op == "SWIGLU" || op == "GEGLU" || op == "SWIGLU_OAI")
        return glu(op, param, inputs, outNe, u, skip);
    if (op == "ADD_ID")
        return addId(inputs, outNe, u, skip);
    if (op == "CONCAT")
        return concat(param, inputs, outNe, u, skip);
    if (op == "RMS_NORM" || op == "NORM")
        return norm(op, param, inputs, outNe, u, skip);
    if (op == "MUL_MAT")
        return mulMat(inputs, outNe, u, productKernel(param), skip);
    if (op == "GET_ROWS")
        return getRows(inputs, outNe, skip);
    if (op == "MUL_MAT_ID")
        return mulMatId(inputs, outNe, u, productKernel(param), skip);
    if (op == "ARGSORT")
        return argsort(param, inputs, outNe, skip);
    if (op == "SUM_ROWS")
        return sumRows(inputs, outNe, u, skip);
    if (op == "CLAMP")
        return clamp(param, inputs, outNe, u, skip);
    if (op == "ROPE")
        return rope(param, inputs, outNe, u, skip);
    if (op == "SOFT_MAX")
        return softMax(param, inputs, outNe, u, skip);
    if (op == "FLASH_ATTN_EXT")
        return flashAttn(param, inputs, outNe, u, skip);
    if (op == "SET_ROWS" && param.is_object() && param.contains("kv_rows"))
        return cacheRows(param["kv_rows"], inputs, outNe, skip);
    if (op == "SET_ROWS") { // b's rows written into the output at c's indices; its other rows were there before
        if (inputs.size() < 2 || inputs.size() > 3 || inputs[0].ne[0] != outNe[0] ||
            inputs[1].count() < inputs[0].ne[1]) {
            skip = "SET_ROWS with these shapes";
            return std::nullopt;
        }
        const RefTensor &b = inputs[0], &c = inputs[1];
        const nlohmann::json cacheType =
            param.is_object() ? param.value("kv_type", nlohmann::json()) : nlohmann::json();
        std::string stored;
        Reference r = shaped(outNe);
        if (inputs.size() == 3 && inputs[2].ne == outNe) // the destination as it was: its other rows stay
            r.out.v = inputs[2].v;
        else
            r.unchecked.assign(r.out.v.size(), 1);
        for (int64_t i3 = 0; i3 < b.ne[3]; ++i3)
            for (int64_t i2 = 0; i2 < b.ne[2]; ++i2)
                for (int64_t i1 = 0; i1 < b.ne[1]; ++i1) {
                    const double row = c.v[size_t((i3 * b.ne[2] + i2) * b.ne[1] + i1) % c.v.size()];
                    if (row < 0 || row >= double(outNe[1]) || i2 >= outNe[2] || i3 >= outNe[3]) {
                        skip = "SET_ROWS with an index outside its destination";
                        return std::nullopt;
                    }
                    const size_t o = size_t(((i3 * outNe[2] + i2) * outNe[1] + int64_t(row)) * outNe[0]);
                    for (int64_t i0 = 0; i0 < b.ne[0]; ++i0) {
                        r.out.v[o + size_t(i0)] = b.at(i0, i1, i2, i3);
                        r.bound[o + size_t(i0)] =
                            u * std::fabs(r.out.v[o + size_t(i0)]); // rounded to the destination's type
                        if (!r.unchecked.empty())
                            r.unchecked[o + size_t(i0)] = 0;
                    }
                    // a quantized cache (its ggml type given): each row stored in its blocks
                    if (cacheType.is_string() &&
                        !storedBound(cacheType.get<std::string>(), &r.out.v[o], &r.bound[o], size_t(b.ne[0]), skip,
                                     stored))
                        return std::nullopt;
                }
        r.standard = stored.empty()
            ? "|error| <= u |row| on the rows written (a copy, rounded to its type), the others unchanged"
            : stored + " on the rows written, the others unchanged";
        return r;
    }
    if (op == "CPY" || op == "CONT" || op == "DUP") {
        if (inputs.empty() || inputs[0].count() != outNe[0] * outNe[1] * outNe[2] * outNe[3]) {
            skip = op + " whose input and output differ in size";
            return std::nullopt;
        }
        Reference r = shaped(outNe);
        r.out.v = inputs[0].v;
        for (size_t i = 0; i < r.out.v.size(); ++i) // rounded to the output's type at most
            r.bound[i] = u * std::fabs(r.out.v[i]);
        r.standard = "|error| <= u |in| (a copy, rounded to its type)";
        return r;
    }
    if (isView(op) && op != "NONE")
        return dataMovement(op, param, inputs, outNe, skip);
    if (isView(op))
        skip = "a view: no kernel runs (ggml changes only its shape and strides)";
    else
        skip = "no float64 reference for " + op + " yet";
    return std::nullopt;
}

} // namespace llmscope::opcheck
