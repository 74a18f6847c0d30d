// The token ids each round of a program consumed, recorded in every dump
// (llmscope/tokens/{pid}/{round}.json: {"round", "tokens", "replaced", "positions",
// "sequences", "outputs"}: the positions those tokens took in their sequence, where the graph
// says, the sequence each belongs to, where the program decoded a llama_batch, and which of them
// the round computed outputs for, llama.cpp's out_ids), and read back for
// --follow-tokens, which makes a program under test consume a golden dump's tokens round by
// round so that its later rounds stay comparable after its own choices diverge.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llmscope {

std::string tokenRecordPath(int64_t pid, int64_t round); // relative to the msit_dump_* folder
std::string tokenRecordJson(int64_t round, const std::vector<int32_t> &tokens, bool replaced,
                            const std::vector<int32_t> &positions = {}, const std::vector<int32_t> &sequences = {},
                            const std::vector<int32_t> &outputs = {});

struct TokenRecord {
    std::vector<int32_t> tokens;
    bool replaced = false; // the program's own were replaced by golden's (--follow-tokens)
    std::vector<int32_t> positions; // each token's position (llama.cpp's inp_pos); empty: not recorded
    // Each token's sequence (llama_batch's first seq_id: llama-server's slot); empty: not recorded.
    std::vector<int32_t> sequences;
    // The tokens (indices into tokens, ascending) whose rows the round's last layers and logits
    // keep (llama.cpp's out_ids); empty: not recorded.
    std::vector<int32_t> outputs;
};
// round -> record, from the first process folder under llmscope/tokens of the dump (an -o
// folder's msit_dump_* is looked into). Throws Error for a malformed record, naming it.
std::map<int64_t, TokenRecord> readTokenRecords(const std::string &dumpRoot);

} // namespace llmscope
