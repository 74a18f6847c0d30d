// msit's onnx dump type: a model's (or one layer's) topology as an ONNX graph without weights,
// for Netron: one node per operation (its ggml op as the op type, in the "ggml" domain), the
// data edges between them, and what no operation computes (weights, the KV cache, the token
// ids) as the graph's inputs. Built with Debian's libonnx (its protobuf classes); a library of
// its own so the probe never links protobuf into the programs it is loaded into.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/dump/topology.h"

namespace llmscope {

// graph: a model topology (its operations' children are the nodes) or a layer's (its
// children). Throws Error when the file cannot be written.
void writeOnnx(const TopoNode &graph, const std::string &path);

// Every model/{pid}/*.json and layer/{pid}/*.json of the dump written as
// onnx/{pid}/{name}.onnx; returns the files written. Unreadable topology files are skipped
// and named in problems.
std::vector<std::string> exportDumpOnnx(const std::string &dumpRoot, std::vector<std::string> *problems = nullptr);

// msit's onnx type, once a run has ended (llmscope dump and the window both): when types
// asks for "onnx", the dump's topology exported as above; nullopt when it was not asked for.
std::optional<std::vector<std::string>> exportOnnxAfterRun(const std::vector<std::string> &types,
                                                           const std::string &dumpRoot,
                                                           std::vector<std::string> *problems);

} // namespace llmscope
