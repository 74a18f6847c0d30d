// A PyTorch dump of a Hugging Face llama (msit's torch_tensors layout) paired with a
// llama.cpp dump, module by node, without a mapping file. A module is the ggml node that
// reads its weight under the GGUF name of the llama family's rules (the MUL_MAT reading
// blk.3.ffn_down.weight is model.layers.3.mlp.down_proj; the MUL by blk.3.attn_norm.weight
// is model.layers.3.input_layernorm); a decoder layer's output is the residual add l_out-N.
// Rounds align (torch's token 0 is the engine's prompt round) and layouts are made alike:
// ggml's reversed dims hold the same bytes as torch's; q_proj and k_proj outputs have their
// rows un-permuted within each head (the converter's permutation for ggml's RoPE); after
// the last layer's attention llama.cpp keeps only the last token's rows in the prompt round,
// so only those rows of the module's output are compared.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/compare/matching.h"

namespace llmscope {

// The Hugging Face module a ggml weight belongs to, and back: "blk.3.ffn_down.weight" <->
// "model.layers.3.mlp.down_proj" (the module's name without any prefix before "model." or
// "lm_head"). Empty when the name follows no rule.
std::string hfModuleOfGgufWeight(const std::string &gguf);
std::string ggufWeightOfHfModule(const std::string &module);

// golden a torch dump (layout "torch") and my a ggml dump with its model topology, or the
// other way round: the pairs, with what could not be paired and why in notes. nullopt when
// the two are not one of each.
// mapping (a --mapping file) goes first: a module's name (or its model_tree id) to the
// engine's op id, its output paired as it is (no view).
std::optional<Matching> matchAcrossFrameworks(const DumpIndex &golden, const DumpIndex &my,
                                              std::vector<std::string> &notes, const OpMapping &mapping = {});
// The same, with the engine's op names (readOpNames of the side that is not torch's) read before.
std::optional<Matching> matchAcrossFrameworks(const DumpIndex &golden, const DumpIndex &my,
                                              std::vector<std::string> &notes, const OpMapping &mapping,
                                              const OpNames &engineNames);

} // namespace llmscope
