// The float64 references of the ops an LLM graph uses, computed from a node's dumped inputs
// and its op parameters, each with the error a correct float32 kernel may make on every
// element: what llmscope opcheck holds a backend's output against.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace llmscope::opcheck {

// The dtype of an input dumped in a ggml block type (q4_0, ...): dequantized, it meets
// activations a kernel rounds to 8 bits.
constexpr int32_t kQuantizedDtype = -2;

// A tensor in ggml's order: ne[0] the fastest dimension, values widened to double.
struct RefTensor {
    std::array<int64_t, 4> ne{1, 1, 1, 1};
    std::vector<double> v;
    int32_t dtype = 0; // the dump's (ACL) dtype code of the file it came from
    std::string blockType; // a quantized input's ggml type (q8_0, q4_0, ...), dequantized in v
    int64_t count() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
    // Checked: shapes come from files, and an op whose inputs are smaller than its parameters
    // say is refused (Error) rather than read past its data.
    double at(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const
    {
        const size_t k = size_t(((i3 * ne[2] + i2) * ne[1] + i1) * ne[0] + i0);
        if (k >= v.size()) [[unlikely]]
            outside();
        return v[k];
    }
    [[noreturn]] static void outside();
};

// An op's reference output and, per element, the largest error a correct kernel may make.
struct Reference {
    RefTensor out;
    std::vector<double> bound;
    std::vector<uint8_t> unchecked; // 1: an element the op leaves as it was (empty: every one checked)
    std::string standard; // how the bound is set, in words
    // Dot products: each element's standard deviation were the operands rounded to float16, as
    // device kernels may do with float32 operands (Vulkan's and CUDA's matrix paths); empty
    // for other ops. An output within it, with no systematic error, is that rounding.
    std::vector<double> f16Noise;
    // A product ggml's kernels may compute along several documented paths (a Vulkan or CUDA
    // product of quantized weights: weights dequantized to float32, activations quantized to
    // q8_1, or float16 tiles): each path's own reference and bound. An output is judged by the path it
    // fits best (fittedPath); out and bound above are the first path's.
    std::vector<Reference> paths;
};

// The reference an output is judged by: ref itself, or of its paths the one whose bound the
// output comes nearest to keeping (the smallest worst error over bound).
const Reference &fittedPath(const Reference &ref, const RefTensor &out);

// The reference of op (ggml's name: MUL_MAT, ROPE, ...) for these inputs and parameters (the
// op_param.json "param" object), the output being outNe and of dtype outDtype; nullopt with
// skip set when the op, or this use of it, is not replayed. A param "backend" (the kernel CSV's)
// says whose kernel ran a product of quantized weights: "CPU", ggml's CPU one, computed as it
// specifies (its activations quantized to the weights' dot type); "Vulkan0" or "CUDA0",
// ggml-vulkan's or ggml-cuda's, whose three documented paths are the reference's paths; another
// or none, a bound of 8-bit operands.
std::optional<Reference> reference(const std::string &op, const nlohmann::json &param,
                                   const std::vector<RefTensor> &inputs, const std::array<int64_t, 4> &outNe,
                                   int32_t outDtype, std::string &skip);

// Ops that change only a tensor's shape or strides: no kernel runs for them.
bool isView(const std::string &op);

} // namespace llmscope::opcheck
