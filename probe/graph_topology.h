// A ggml graph as msit's topology: level 0 the model, level 1 operations (embedding, one per
// layer from the "-N" name suffix, output head), level 2 the ggml nodes in graph order.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include <ggml.h>

#include "core/dump/topology.h"

namespace llmscope::probe {

struct GraphNode {
    const ggml_tensor *tensor = nullptr;
    int group = 0; // top-level operation index
    int child = 0; // index inside the group
    std::string id; // "3_1"
    std::string type; // ggml op ("MUL_MAT")
    std::string name; // ggml tensor name ("ffn_inp-2")
    bool kvCache = false; // a view into / write to the KV cache
};

struct GraphGroup {
    std::string name, type;
};

struct GraphTopology {
    std::vector<GraphNode> nodes;
    std::vector<GraphGroup> groups;
    std::unordered_map<const ggml_tensor *, int> indexOf;

    static GraphTopology build(ggml_cgraph *graph);
    const std::vector<std::string> &folders(int node) const { return folderPaths[size_t(node)]; }
    std::vector<std::vector<std::string>> folderPaths; // per node: {"3_DecoderLayer", "1_MUL_MAT"}
    TopoNode toModel() const;
};

// Whether t is the KV cache or a view into it (the whole cache: large, and rewritten in place).
bool isKvCache(const ggml_tensor *t);

// What a graph says of the context that computes it (llmscope config-diff's "context" group):
// "flash attention=yes", the KV cache's types ("KV cache K type=f16"), its cells and streams
// (llama.cpp's cache tensors are [row, cells, streams]). Empty where it reads no cache.
std::vector<std::string> contextSettings(ggml_cgraph *graph);

// The "-N" layer suffix of a ggml tensor name, or -1.
int layerOf(const std::string &name);

// The name the program gave a tensor: a scheduler with several backends feeds a node the copy
// "{backend}#{name}#{copy}" of an input that lives on another backend.
std::string programName(const std::string &name);

} // namespace llmscope::probe
