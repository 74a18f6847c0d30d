// The requests a dump's program served, told apart by sequence and position. A program that
// decodes one sequence (llama-simple, llama-cli) serves one request in sequence 0; llama-server
// decodes each slot's request in the slot's sequence, several slots in one batch. Each round
// records its tokens' sequences and positions (dump/token_record.h); a request is a run of one
// sequence's tokens whose positions keep growing, and a new one begins where its sequence's
// positions go back (the slot cleared for the next request, or a prompt taken from the cache).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/dump/token_record.h"

namespace llmscope {

struct Request {
    int number = 0; // 1, 2, ... in the order the requests began
    int32_t sequence = 0; // llama.cpp's seq_id: llama-server's slot
    std::vector<int64_t> rounds; // the rounds that computed its tokens, ascending
    int32_t firstPosition = 0, lastPosition = 0; // -1: not recorded
    uint64_t tokens = 0; // its tokens over those rounds
    bool shared = false; // some of its rounds computed other sequences' tokens too
};

// The requests of a dump's rounds (round -> record); rounds whose sequences were not recorded
// (a program that fed embeddings) belong to none.
std::vector<Request> requestsOf(const std::map<int64_t, TokenRecord> &records);
// Whether they are worth telling apart: a program that served several requests, or one outside
// sequence 0 (llama-server); a run of one sequence is its run.
bool servesRequests(const std::vector<Request> &requests);

// Which request a side of a comparison means: --golden-request N / --golden-seq S.
struct RequestChoice {
    int request = 0; // N, from 1; 0: by sequence
    int32_t sequence = -1; // S: its only request; -1: none chosen
    bool chosen() const { return request > 0 || sequence >= 0; }
};
// "3" as a request number (from 1) or a sequence id (from 0); throws Error naming the option.
RequestChoice parseRequestChoice(const std::string &option, const std::string &value, bool bySequence);
// The request chosen among requests; throws Error saying what the dump holds when none or
// several match (a sequence that served several requests: choose one by number).
const Request &chooseRequest(const std::vector<Request> &requests, const RequestChoice &choice,
                             const std::string &dump);

// "request 2: sequence 1, positions 0-15, rounds 2-6 (shared with other sequences)".
std::string describeRequest(const Request &r);

} // namespace llmscope
