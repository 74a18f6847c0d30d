// The tensor files of one operation in a dump, without scanning the whole dump: what the
// inspector opens when an op is picked in the tree, live or after the run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace llmscope {

struct OpFiles {
    int64_t round = -1; // the round they are from, -1 when none was found
    std::vector<std::string> files; // .bin/.npy files under before/ and after/, sorted
};

// The newest round (at most maxRound; -1: any) of root's msit layout
// (root/tensors/{device}_{pid}/{round}/{opPath}/..., or the same in a msit_dump_* folder
// inside root) that holds files of the op at opPath ("2_DecoderLayer/29_MUL_MAT"). Never
// throws: an unreadable dump has no files.
OpFiles findOpFiles(const std::string &root, const std::string &opPath, int64_t maxRound = -1);

} // namespace llmscope
