// msProbe's API precision standards for a replayed op (its accuracy checker's rule per kind of
// op, against an upcast CPU reference): binary consistency for ops that only move elements,
// ULP errors for matrix products, an absolute threshold (relative error for normal values,
// absolute below a small-value bound) for element-wise arithmetic, and for the rest the
// ratio of the output's errors to a second device's: here ggml's CPU kernel on the same
// inputs. Its thresholds are msProbe's; its mistakes are not kept (a ratio where both devices
// are exact is 1, not a failure).
#pragma once
#include <cstdint>
#include <vector>

#include "core/opcheck/opcheck_run.h"
#include "core/opcheck/ref_ops.h"

namespace llmscope::opcheck {

struct UlpErrors {
    double mean = 0; // of |ULP error| over the checked elements
    double proportion = 0; // the share (0..1) beyond msProbe's threshold: 32 float32, 1 float16/bfloat16
};

// msProbe's ULP error of each element: (value - reference) / 2^(e - m), e the reference's
// binary exponent (at least the type's smallest normal one), m the output type's mantissa bits.
UlpErrors ulpErrors(const Reference &ref, const std::vector<double> &values, int32_t dtype);

// For matrix products: the row's mean ULP error and share beyond the threshold, and the CPU
// replay's share where it ran.
void addUlpMetrics(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> *cpu);

// The row's verdict and standard by msProbe's rule for its op (cpu: ggml's CPU kernel on the
// same inputs, or null where it did not run).
void judgeMsprobe(OpcheckRow &row, const Reference &ref, const RefTensor &out, const std::vector<double> *cpu);

} // namespace llmscope::opcheck
