// One request of a dump seen alone: a dump of its own whose rounds are the request's rounds,
// renumbered from 0, holding only the request's tokens, so that it compares with another
// program's run of the same prompt (llama-simple against request 2 on llama-server) or with
// another slot's request as any two dumps do.
//
// What is laid out otherwise by construction in a program that decodes other sequences beside
// the request is left out of every round and counted: integer inputs (token ids, positions,
// cache cell indices), the KV cache's descriptions, and attention's keys, values and mask (they
// span the cache's cells, other slots' included). A round that computed only the request's
// tokens keeps the rest (its files linked, or copied). In a round shared with other sequences
// (llama-server decodes its slots together), each tensor file holding one row a token (its
// outermost dimension is the round's token count) keeps the rows of the request's tokens, its
// statistics computed again (a cache write's rows with their cells and positions); a file with
// no token dimension (a weight) is kept; any other (a token dimension inside: attention's
// products; statistics of the whole batch) is left out.
#pragma once
#include <climits>
#include <cstdint>
#include <string>

#include "core/requests/requests.h"

namespace llmscope {

struct RequestView {
    std::string dump; // the view's msit_dump_* folder
    int rounds = 0; // the request's rounds
    int whole = 0; // rounds taken whole
    int sliced = 0; // files cut to the request's rows
    int leftOut = 0; // files of shared rounds that hold no row a token: not compared
};

// The view of request r of dumpRoot, written under outDir (replacing what is there), its
// tokens at positions up to upTo (the other side's last, so that both hold the same); a round
// left with none is left out. Throws Error when a file cannot be read or written.
RequestView viewOfRequest(const std::string &dumpRoot, const Request &r, const std::string &outDir,
                          int32_t upTo = INT32_MAX);

} // namespace llmscope
