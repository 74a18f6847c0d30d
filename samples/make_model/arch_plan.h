// What a GGUF file of each model family holds: its metadata keys and its tensors with their
// shapes, as this llama.cpp's loader asks them (src/llama-arch.cpp, src/llama-model.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

struct ModelSpec;

struct MetaValue {
    std::string key; // without the "ARCH." prefix where prefixed is true
    std::variant<uint32_t, float, bool, std::string> value;
    bool prefixed = true;
};

struct TensorPlan {
    enum class Init {
        Matrix, // N(0, 1/fan-in): activations stay O(1)
        Norm, // 1 + N(0, 0.1^2)
        Small, // N(0, 0.1^2): biases, sinks
    };
    std::string name;
    std::vector<int64_t> ne; // ggml order, ne[0] fastest
    Init init = Init::Matrix;
};

struct ArchPlan {
    std::string arch; // general.architecture
    std::vector<MetaValue> meta;
    std::vector<TensorPlan> tensors;
};

// The plan of spec.arch for a vocabulary of vocab tokens; throws std::runtime_error naming the
// families it knows, or what in spec does not fit this family.
ArchPlan archPlan(const ModelSpec &spec, int vocab);
// The --arch names, for the usage text.
std::string archNames();
