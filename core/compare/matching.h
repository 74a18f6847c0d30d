// Pairs the tensors of a golden dump with those of a test dump.
// - Same topology: by round, op path, before/after, input/output and index.
// - Different topologies (flash attention on vs off, more layers, a renamed node): by round,
//   top-level operation (layer), node name from the model topology (else op type) and its
//   occurrence in that layer; what has no partner is listed on each side.
// - A user mapping (JSON) pairs op ids explicitly and goes first:
//     {"3_1": "3_4"}   or   {"pairs": [{"golden": "3_1", "my": "3_4"}]}
#pragma once
#include "core/dump/op_names.h"
#include <map>
#include <string>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/text/reason.h"

namespace llmscope {

// How a side is read to meet the other framework's layout (compare/framework_pairing.h).
struct TensorView {
    uint64_t headSize = 0; // un-permute rows within heads of this size (TensorReader::unpermuteHeads)
    bool lastRows = false; // only the elements the other side has, from the end (its last rows)
    uint64_t rowSize = 0; // with rows: only those rows of this many elements, in that order
    std::vector<uint64_t> rows; // (TensorReader::selectRows: one expert's rows)
};

struct TensorPair {
    const TensorRecord *golden = nullptr, *my = nullptr;
    std::string key; // what matched them, for the report
    TensorView goldenView, myView;
    // Across frameworks: the engine's output record of the op a module stands for (a module's
    // input is paired with the tensor that op's computation starts from, in another op).
    const TensorRecord *stands = nullptr;
};

struct Matching {
    std::vector<TensorPair> pairs; // in golden execution order
    std::vector<const TensorRecord *> onlyGolden, onlyMy;
    Reason method; // "same topology", "by layer, name and op", ...
};

using OpMapping = std::map<std::string, std::string>; // golden op id -> my op id
OpMapping parseOpMapping(const std::string &jsonText); // throws Error naming what is wrong
OpMapping loadOpMapping(const std::string &path);
// The {"pairs": [...]} form, which parseOpMapping reads back.
std::string writeOpMapping(const OpMapping &m);

// golden's tensors paired with my's: the user's mapping first, then by path where the two
// graphs are the same, else by layer, node name and op (the node names from each side's model
// topology: goldenNames and myNames, each side's readOpNames, read here when not given).
Matching matchDumps(const DumpIndex &golden, const DumpIndex &my, const OpMapping &mapping = {});
Matching matchDumps(const DumpIndex &golden, const DumpIndex &my, const OpMapping &mapping, const OpNames &goldenNames,
                    const OpNames &myNames);

} // namespace llmscope
