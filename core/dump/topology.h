// Operation topology: msit's model/layer JSON files and msit's PyTorch model_tree.json.
#pragma once
#include <string>
#include <vector>

namespace llmscope {

struct TopoNode {
    std::string name; // opName, modelName, or a torch module's dotted name
    std::string type; // opType or torch module type; empty for a model
    std::string id; // msit id from position: "3", "3_1"; empty for the root
    std::string paramJson; // the node's "param" as compact JSON; empty when absent
    std::vector<std::string> inTensors, outTensors, internalTensors;
    std::vector<std::string> weightTensors, kCacheTensors, vCacheTensors; // model level only
    std::vector<TopoNode> children;

    size_t countNodes() const; // this node and every descendant
    const TopoNode *find(const std::string &id) const;
    std::string folderName() const; // "{last id part}_{type}", the dump folder of this node
};

// Readers accept missing optional keys and throw Error for malformed JSON or wrong shapes,
// naming the file and the key.
TopoNode parseModelTopology(const std::string &jsonText); // model/{pid}/{Model}.json
TopoNode parseLayerTopology(const std::string &jsonText); // layer/{pid}/{Op}.json
TopoNode parseTorchModelTree(const std::string &jsonText); // model_tree.json
TopoNode readTopologyFile(const std::string &path); // any of the three, by content

std::string writeModelTopology(const TopoNode &model);
std::string writeLayerTopology(const TopoNode &op);

} // namespace llmscope
