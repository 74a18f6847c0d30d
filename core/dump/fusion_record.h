// The chains a dumped round's backend computed fused (--keep-fusion), recorded beside its
// tensors (llmscope/fusion/{pid}/{round}.json): each chain's ops in graph order, the last the
// one whose output was dumped; the inner ones never reached memory but for its other outputs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llmscope {

struct FusedChainRecord {
    std::vector<std::string> ids; // op ids ("1_3", "1_4"), the last the chain's end
    std::vector<std::string> names; // the program's tensor names
    std::string types; // "RMS_NORM+MUL"
    std::string backend; // "CPU"
    // Ops of the chain, other than its end, whose results the fused kernel writes too (a MoE
    // routing's chosen experts): dumped as they ran; empty for most chains and in older records.
    std::vector<std::string> outputs;
    // How to compute the chain again (opcheck), per op in order; empty in older records:
    // what feeds each source slot ("in0": the end's dumped input 0, "op0": the chain's first op,
    // "": none), its decoded parameters (op_param.json's "param", JSON text) and its raw
    // op_params bytes.
    std::vector<std::vector<std::string>> sources;
    std::vector<std::string> params, rawParams;
};

std::string fusionRecordPath(int64_t pid, int64_t round); // relative to the msit_dump_* folder
std::string fusionRecordJson(int64_t round, const std::vector<FusedChainRecord> &chains);
// The same in two steps: the chains' JSON array once, then each round's record around it.
std::string fusionChainsJson(const std::vector<FusedChainRecord> &chains);
std::string fusionRecordJson(int64_t round, const std::string &chainsJson);
// round -> chains, from the first process folder under llmscope/fusion (an -o folder's
// msit_dump_* is looked into); empty when none was recorded. Throws Error for a malformed one.
// firstOnly: the earliest recorded round's alone (a long dump's tree wants no more).
std::map<int64_t, std::vector<FusedChainRecord>> readFusionRecords(const std::string &dumpRoot, bool firstOnly = false);

// The chain of round `round` that ends at op `opId`, or null.
const FusedChainRecord *chainEndingAt(const std::map<int64_t, std::vector<FusedChainRecord>> &records, int64_t round,
                                      const std::string &opId);
// The chain of round `round` whose kernel writes op `opId`'s result: the one ending there, or
// the one with it among its other outputs (a MoE routing's experts chosen); null when none.
const FusedChainRecord *chainWriting(const std::map<int64_t, std::vector<FusedChainRecord>> &records, int64_t round,
                                     const std::string &opId);

} // namespace llmscope
