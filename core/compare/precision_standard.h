// How a comparison judges an operation. Op by op (what each op adds beyond what its inputs'
// error explains, within a budget), with budgets that fit what the two sides are
// (compare/pair_standard.h chooses, from what each dump says its run was):
// - exact (the same command on the same machine, the same libraries): every op bit for bit.
// - rounding (one backend on both sides and the same types: another build, another SIMD width,
//   another thread count; a device backend on the same machine): what float rounding in
//   another order may change, per op from its reduction length and, where it rounds values to
//   a narrower type inside (a float16 KV cache, q8 activations), what its inputs' difference
//   may flip there (roundingBudget). Products of float16 or bfloat16 operands keep the
//   cross-backend budget: some builds of one backend sum them in half precision.
// - engine (another backend, or other types): ggml's own cross-backend check
//   (tests/test-backend-ops.cpp) judges each op by NMSE against the CPU,
//   sum((test - golden)^2) / sum(golden^2), within a budget per op type: 1e-7 by default,
//   1e-6 for SOFT_MAX, 5e-4 for MUL_MAT, MUL_MAT_ID, OUT_PROD and FLASH_ATTN_EXT, exact for
//   GET_ROWS, same-type CPY and views.
// Under each an op is charged only the error it adds: its output's error less what its
// computed inputs' error explains (errors of independent sources; a sum's absolute errors
// add, a product's relative errors add), so error an op carries or amplifies as its maths
// must is not blamed on it. A weight is the op's own: one that differs between the runs is
// charged to the op, and named. An op that moves data adds nothing under any of them.
// - msit: msit's per-dtype table, element by element (fp32: 99.99 % of elements within
//   relative error 1e-7; see Tolerance). The default when a side is not an llmscope dump
//   (an Ascend/msit dump, loose tensor files).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace llmscope {

enum class Standard { Engine, Msit, Rounding, Exact };

std::optional<Standard> parseStandard(const std::string &name); // "exact", "rounding", "engine", "msit"
const char *standardName(Standard s);
// Whether the standard judges ops (exact, rounding, engine) rather than each tensor pair (msit).
inline bool judgesOps(Standard s)
{
    return s != Standard::Msit;
}

struct OpBudget {
    double nmse = 1e-7; // the NMSE an op may add; 0: must be exact
    // Its output's absolute error is at most the sum of its inputs' (||d out|| <= sum ||d in||):
    // a sum, or an op that moves, selects or converts elements (a subset of a tensor may hold
    // a larger share of its error than the whole, never more of it).
    bool absolute = false;
};
// How much of its inputs' relative error any other op may pass on without adding any of its
// own. Ops reweight what they carry: a per-row norm makes a small row's error count as much as
// a large row's, an elementwise product weights elements by the other factor, so the same
// element-wise relative error reads larger over the whole tensor (measured up to 1.1x on CPU
// against Vulkan); 2 leaves room for that and no more.
constexpr double kEngineCarry = 2;
// A quantized weight's relative error reaches its op's output up to this many times: block
// quantization errs most, relatively, on a block's small weights, and activations may weight
// those heavily (outlier channels).
constexpr double kQuantCarry = 4;
// The budget of a ggml op type (the dump's op folder name, e.g. MUL_MAT, SWIGLU), given the
// dtypes of its first input and its output (a copy between types is not exact) and whether
// that input is a ggml block type (backends dequantize it in their own ways: not exact).
OpBudget engineBudget(const std::string &opType, int32_t inputDtype, int32_t outputDtype, bool quantizedInput = false);
// The rounding standard's budget of one op, as an NMSE: two correct kernels of one family
// differ by the order they sum in (SIMD width, blocking), a few units in the last place of
// their elementary functions, and, where the op rounds values to a narrower type inside, the
// values whose rounding its inputs' difference flips.
struct RoundingFacts {
    int64_t reduction = 1; // elements each output value sums (its first input's row length)
    double narrowUnit = 0; // unit roundoff of the narrowest type values pass through (f16: 2^-11); 0: none
    double inputError = 0; // its computed inputs' largest relative error (0: they agree)
};
double roundingBudget(const std::string &opType, const RoundingFacts &f);
// How many times its inputs' relative error an op may pass on without adding any of its own,
// under the rounding standard: kEngineCarry, and more for ops that exponentiate their inputs
// (a softmax turns a logit's absolute error into its weight's relative one).
double roundingCarry(const std::string &opType);
// The unit roundoff of a ggml type name or msit dtype that values are rounded to ("f16",
// "q8_0", float16): half its relative spacing; for block types the step of a block's value
// relative to its typical size. 0 for float32 and wider, or unknown.
double typeUnit(const std::string &ggmlType);
double dtypeUnit(int32_t dtype);
// The type a backend quantizes a matrix product's activations to for a weight of this ggml
// type (ggml's vec_dot_type: f16 for f16, q8_0 for q4_0/q5_0/q8_0, q8_1 for q4_1/q5_1, q8_K
// for the K-quants), "" for float32 weights or unknown types.
std::string activationType(const std::string &weightType);

// What storing rows in a KV cache of a ggml type ("q8_0") may make two correct backends differ
// by, as an NMSE: each side rounds every value to its block's step d (a scale times an
// integer), and two quantizers may round differently (ties, the scale's own rounding), so
// their difference is up to twice one side's rounding, d^2/12 each. d is a block's largest
// |value| over 127 (q8_0), 15 (q5), 7 or 8 (q4); over a block of 32 roughly Gaussian values
// that largest is at most about 2.5 of their RMS. Float16 and bfloat16 round each value to
// nearest (u^2/3 a side); 0 for float32 and types not known here.
double cacheTypeNmse(const std::string &ggmlType);

// The relative euclidean error of a tensor known by its statistics only: a lower bound of
// ||test - golden|| / ||golden|| (each of |d l2norm|, |d max|, |d min| and sqrt(n) |d mean|
// is at most ||test - golden||), less what the statistics' six decimals can hide (1e-6 each,
// sqrt(n) 1e-6 for the mean). 0 when golden's norm is 0 and the sides agree; NaN when a
// statistic is NaN.
struct TensorStats;
double statsErrorBound(const TensorStats &golden, const TensorStats &test, uint64_t elements);

} // namespace llmscope
