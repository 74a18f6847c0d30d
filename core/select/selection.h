// Everything msit's dump options decide about which tensors are written.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/select/op_ids.h"
#include "core/select/rounds.h"

namespace llmscope {

enum class DumpTime { Before = 0, After = 1, Both = 2, InputsBeforeOutputsAfter = 3 };
enum class TensorPart { Inputs = 0, Outputs = 1, Both = 2 };

struct Selection {
    bool enabled = true; // the dynamic config's dump_enable
    OpIds ids;
    std::vector<std::string> opNames; // lower-cased op-type prefixes
    bool child = true;
    Rounds rounds;
    DumpTime time = DumpTime::InputsBeforeOutputsAfter;
    TensorPart part = TensorPart::Both;
    std::vector<int> devices; // empty: every device
    std::vector<int> sequences; // -seq: the rounds that computed any of them; empty: every round

    // An op is selected by id OR by op-type prefix; with neither given, every op is.
    bool selectsOp(std::string_view opId, std::string_view opType) const;
    // The op at the end of path (outermost first, each with its full id): selected itself,
    // or, with child on and op names given, through an ancestor's op type (msit's rule).
    struct OpRef {
        std::string_view id, type;
    };
    bool selectsOpPath(std::span<const OpRef> path) const;
    bool selectsRound(int64_t round) const { return enabled && rounds.contains(round); }
    bool selectsDevice(int device) const;
    // Whether a round whose tokens belong to these sequences (llama_batch's seq ids, one a
    // token; empty: not known) is wanted. A round of unknown sequences is not, under -seq.
    bool selectsSequences(const std::vector<int32_t> &roundSequences) const;
    // Whether the tensor taken at this moment (before/after execution) of this side is wanted.
    bool wantsTensor(bool before, bool input) const;
};

// Parsers for single options; each throws Error naming the option and the bad value.
std::vector<std::string> parseOpNames(std::string_view text);
bool parseBoolOption(std::string_view option, std::string_view text); // true/false/1/0
DumpTime parseDumpTime(std::string_view text);
TensorPart parseTensorPart(std::string_view text);
std::vector<int> parseDevices(std::string_view text);
std::vector<int> parseSequences(std::string_view text); // -seq: "0,2"

} // namespace llmscope
