// The program's own result of each round, recorded in every dump: the graph's last node (the
// logits, llama.cpp's "result_output"), its shape, the digest of its bytes and its statistics
// with their sketch (llmscope/outputs/{pid}/{round}.json). Two runs of one command whose
// records differ computed different results; the observer check (compare/observer_check.h)
// holds a dumped run against one the probe only watched.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor/stats.h"

namespace llmscope {

struct OutputRecord {
    std::string name; // the node's name in the program's graph
    std::string dtype; // ggml's type name
    std::vector<int64_t> dims; // ggml's ne, outermost first as the dumps write shapes
    TensorStats stats; // with its digest, and its sketch where every element is finite
};

std::string outputRecordPath(int64_t pid, int64_t round); // relative to the msit_dump_* folder
std::string outputRecordJson(int64_t round, const OutputRecord &r);
// round -> record, from the first process folder under llmscope/outputs of the dump (an -o
// folder's msit_dump_* is looked into); empty when the dump records none. Throws Error for a
// malformed record, naming it.
std::map<int64_t, OutputRecord> readOutputRecords(const std::string &dumpRoot);

} // namespace llmscope
