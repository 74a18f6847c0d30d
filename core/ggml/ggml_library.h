// ggml's own number formats and model files, from the ggml library llmscope was built with,
// loaded at run time (core stays free of it at build time): quantized blocks are dequantized by
// ggml's to_float, golden weights requantized by its from_float_ref, and GGUF model files read
// by its own parser. Block formats are fixed per type name across ggml versions, so types are
// looked up by name, not by number.
// The library is never one a dump names: a dump could name any file, and loading a library
// runs its code. LLMSCOPE_GGML_LIBRARY overrides the built-in path.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llmscope::ggml {

struct BlockType {
    std::string name; // "q4_0", "f16", ...
    int id = -1; // ggml_type in the loaded library
    int64_t blockSize = 1; // elements per block
    uint64_t blockBytes = 0; // bytes per block
    bool quantized = false;
    void (*toFloat)(const void *blocks, float *out, int64_t elements) = nullptr;
    // ggml's reference quantizer; null: none. Call Library::prepare(type) once before it.
    void (*fromFloat)(const float *in, void *blocks, int64_t elements) = nullptr;

    // Bytes of n elements; throws Error when n is not a whole number of blocks or too many.
    uint64_t bytes(uint64_t elements) const;
};

// One tensor of a GGUF file: where its bytes are and how they are stored.
struct ModelTensor {
    std::string name;
    const BlockType *type = nullptr; // null: a type this library does not know
    std::string typeName;
    std::vector<int64_t> dims; // outermost first, as dumps write them
    uint64_t offset = 0, bytes = 0; // in the file
    uint64_t elements() const;
};

struct ModelFile {
    std::string path;
    std::string architecture; // general.architecture ("llama", "qwen3moe"); empty when not said
    std::map<std::string, ModelTensor> tensors;
    const ModelTensor *find(const std::string &name) const;
};

class Library {
public:
    // The process's one library, loaded on first use. Throws Error saying what to do when it
    // cannot be loaded or is not a ggml it understands.
    static const Library &get();
    // Null for names it does not know; the case of letters does not matter ("q4_k" is q4_K).
    const BlockType *type(const std::string &name) const;
    // Readies ggml's reference quantizer of a type (the IQ types need tables built first).
    void prepare(const BlockType &type) const;
    // A model file's tensor table, parsed once per path by ggml's GGUF reader (cached).
    // Throws Error for files that are not readable GGUF, or whose tensors lie past the end.
    std::shared_ptr<const ModelFile> model(const std::string &path) const;
    const std::string &path() const { return m_path; }

    struct Api;
    ~Library();

private:
    Library();
    std::string m_path;
    std::unique_ptr<Api> m_api;
    std::map<std::string, BlockType> m_types;
};

} // namespace llmscope::ggml
