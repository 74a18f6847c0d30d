// A weight stored in another precision on one side (F32 golden, Q4_0 test): how much of its
// difference from golden its quantization explains. Golden's weight is requantized to test's
// type with ggml's reference quantizer and dequantized again; a difference up to that error
// (with some room: importance-matrix quants round differently) is quantization, a larger one
// is a weight that differs (a corrupted or mismatched file).
#pragma once
#include <cmath>
#include <string>

#include "core/text/reason.h"

namespace llmscope {

class TensorReader;

struct Quantization {
    std::string goldenType, myType; // storage types: "f32", "q4_0"
    double error = 0; // relative error of my's weight against golden's
    double expected = NAN; // relative error of golden's weight requantized to my's type
    double beyond = NAN; // relative distance of my's weight from that requantization
    static constexpr double kRoom = 1.25; // error up to kRoom * expected is quantization
    // Without a figure to hold it to (golden quantized too, a type without a reference
    // quantizer, no ggml): quantization up to this relative error; a zeroed or replaced weight
    // (about 1 and more) is not.
    static constexpr double kUnknownBound = 0.5;

    bool explained() const
    {
        return std::isnan(expected) ? error <= kUnknownBound : !(error > kRoom * expected + 1e-9);
    }
    // "quantization of blk.3.ffn_down.weight (q4_0): relative error 7.1 %", or why it is more.
    Reason words(const std::string &tensorName) const;
};

// The storage type of what a reader holds: its ggml block type, else "f32", "f16", "bf16" or
// the dtype's name.
std::string storageType(const TensorReader &r);
// Whether the two sides are stored differently with a float golden (a quantization to
// measure), or differently at all.
bool storedDifferently(const TensorReader &golden, const TensorReader &my);
// Fills expected and beyond by one more pass over both readers (same element count).
// Throws Error when a file cannot be read.
void measureQuantization(Quantization &q, TensorReader &golden, TensorReader &my);
// The relative error golden's data would have stored as ggml type `type` ("q8_0"); NaN when
// ggml has no reference quantizer for it. Throws Error when the file cannot be read.
double requantizationError(TensorReader &golden, const std::string &type);

} // namespace llmscope
