// Which sequence each token of a round belongs to. A round's graph holds its tokens and their
// positions (inp_tokens, inp_pos) but not their sequences: those are in the llama_batch the
// program handed to llama_decode (llama-server puts each slot's tokens in its own sequence and
// decodes the slots together). The probe forwards llama_decode and keeps, for the thread that
// calls it, the batch's tokens, positions and first sequence ids while the call runs; each of
// the call's graph computes (one a micro-batch) runs on that thread and takes its tokens'
// sequences from it.
#pragma once
#include <cstdint>
#include <vector>

namespace llmscope::probe {

// The sequences of a round's tokens (and positions, where known), one a token, taken from the
// batch the calling thread is decoding now: each token is matched to the batch's first entry
// not yet taken with its id and position, so the micro-batches a batch is split into take its
// entries once each, in whatever order llama.cpp regrouped them. Empty when the thread decodes
// no batch (a program that links llama.cpp statically, or feeds embeddings) or a token matches
// nothing.
std::vector<int32_t> sequencesOfRound(const std::vector<int32_t> &tokens, const std::vector<int32_t> &positions);

} // namespace llmscope::probe
