// What a dump's model topology says about each operation, by op path: the node's name as
// the program gave it ("ffn_out-2") and the names of its inputs, and which tensors some node
// computes (the others are weights and graph inputs). Empty for a dump without a model file.
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace llmscope {

struct DumpIndex;

struct OpNames {
    struct Node {
        std::string name;
        std::vector<std::string> inputs; // by input index
        std::string param; // its parameters as JSON ("{\"mode\":2}"), empty when not written
    };
    std::unordered_map<std::string, Node> byPath; // "3_DecoderLayer/29_MUL_MAT" -> node
    std::unordered_set<std::string> computed; // tensor names some node outputs

    const Node *find(const std::string &opPath) const;
    // The name of input `index` of the op at opPath, or "" when the topology does not say.
    std::string inputName(const std::string &opPath, int index) const;
    // A named tensor no node computes: a weight (or a graph input).
    bool isLeaf(const std::string &tensorName) const;
};

// Reads the first model topology file of idx; a missing or unreadable one gives no names
// (op types stand in for them).
OpNames readOpNames(const DumpIndex &idx);

// "3_29 ffn_out-2 (MUL_MAT)", or "3_29 (MUL_MAT)" without a name: an op as a user knows it.
std::string opLabel(const std::string &opId, const std::string &name, const std::string &opType);

} // namespace llmscope
