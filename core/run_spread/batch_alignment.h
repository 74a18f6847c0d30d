// A prompt computed all at once against the same tokens computed one a round (or any two runs
// whose rounds hold other positions): the run rewritten in the reference's rounds, by the
// positions each round's tokens took (llmscope/tokens/{pid}/{round}.json), so that the two
// compare as any two runs do.
//
// For each of the reference's rounds, each tensor file of the run that holds one row a token
// (its outermost dimension is its round's token count, the rest the same in every round) is
// the rows of that round's positions, in order, gathered from the run's rounds that computed
// them; a file of the same shape in every round is taken from the run's round that computed the
// reference round's last position: a weight, and the KV cache (dumped with --kv-cache), whose
// cells hold one sequence's positions in order, so its state after that position is compared
// position by position; anything else (attention over a cache of another length, index
// inputs) is left out and counted.
#pragma once
#include <optional>
#include <string>

namespace llmscope {

struct Alignment {
    std::string dump; // the rewritten run's msit_dump_* folder
    int aligned = 0; // files gathered row by row from several rounds
    int copied = 0; // files the same in every round, taken once
    int leftOut = 0; // files neither: not compared
};

// The run rewritten under outDir in the reference's rounds; nullopt when there is nothing to
// line up (both record the same positions in each round, or either recorded none). Throws
// Error when a file cannot be read or written.
std::optional<Alignment> alignByPosition(const std::string &reference, const std::string &run,
                                         const std::string &outDir);

// Whether alignByPosition would line the run up: both recorded positions, and some round held
// others. Statistics of a whole round cannot be lined up row by row: such runs dump tensors.
bool needsLiningUp(const std::string &reference, const std::string &run);

} // namespace llmscope
