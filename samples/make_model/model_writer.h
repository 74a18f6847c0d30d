// Writes GGUF models of several llama.cpp families with seeded random F32 weights and a
// byte-level vocabulary, and variants of the same network (quantized, or one weight perturbed).
#pragma once
#include <cstdint>
#include <string>

struct ModelSpec {
    std::string arch = "llama"; // a llama.cpp architecture: see archNames()
    int layers = 4;
    int width = 256; // embedding length
    int heads = 4;
    int kvHeads = 2;
    int ff = 512; // feed-forward length
    int context = 256;
    int experts = 4; // mixture-of-experts families: experts a layer
    int expertsUsed = 2; // experts each token is routed to
    int expertFf = 256; // each expert's feed-forward length
    uint64_t seed = 1;
};

struct Corruption {
    int layer = -1; // -1: none
    // blk.{layer}.{tensor}.weight, or blk.{layer}.{tensor} (attn_q.bias); empty: the feed-forward's
    // down projection (ffn_down, or the experts' ffn_down_exps)
    std::string tensor;
    double amount = 0; // noise standard deviation, relative to the weight's own
    bool inf = false; // instead of noise, its first element becomes +Inf
};

// Returns the corrupted tensor's name (empty when none). Throws std::runtime_error with a
// message saying what is wrong.
std::string writeModel(const ModelSpec &spec, const Corruption &corruption, const std::string &path);
// Quantizes with libllama's own llama_model_quantize (default parameters) to a llama.cpp file
// type ("q8_0", "q4_0", "q4_k_m", ... as llama-quantize names them). tensorTypes, when not
// empty, is a file of llama-quantize --tensor-type lines ("blk.3.ffn_down.weight=q8_0": a
// name pattern, then a ggml type), applied through the quantizer's tensor overrides.
void quantizeModel(const std::string &in, const std::string &out, const std::string &type,
                   const std::string &tensorTypes = {});
// The --quantize names, for the usage text.
std::string quantizeTypeNames();
