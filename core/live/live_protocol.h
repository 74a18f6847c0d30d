// The live channel between the probe (inside the target) and the desktop app: message types,
// the protocol version, and their encoding. docs/live-protocol.md describes it for readers.
//
// Framing: a Unix domain socket whose path the app puts in LLMSCOPE_LIVE; each message is one
// line of JSON ending in '\n', at most kMaxLineBytes long. The probe sends Hello first; an app
// that speaks another version answers Refused and closes; the probe then stops talking and
// dumps on. Qt-free: the probe links it into other people's processes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/select/selection.h"

namespace llmscope::live {

constexpr int kProtocolVersion = 1;
constexpr size_t kMaxLineBytes = 64u << 20;

// Probe -> app ------------------------------------------------------------------------------

struct Hello {
    int version = kProtocolVersion;
    int64_t pid = 0;
    std::string engine; // "ggml", "c-abi"
    std::string device; // "cpu", or the backend the graph runs on
    std::string program; // the target's executable
};

// Where an op's input comes from: the op that computes it, or a tensor no op of the graph
// computes (a weight, the KV cache, the token ids), by name.
struct TopoInput {
    std::string op; // the computing op's id; empty for such a leaf
    std::string name; // the tensor's name
    bool operator==(const TopoInput &) const = default;
};

struct TopoOp {
    std::string id; // "3_29" (a layer or group: "3")
    std::string name; // node name ("ffn_out-2"); a group's name ("Layer2")
    std::string type; // "MUL_MAT"; a group's type ("DecoderLayer")
    std::vector<int64_t> shape; // output dims, outermost first
    std::string dtype; // output dtype ("float32", "q8_0")
    std::vector<TopoInput> inputs = {}; // its sources in order (the layer graph's edges)
    std::string backend = {}; // the backend the scheduler runs it on ("CPU", "Vulkan0"); optional
    // With fusion kept (--keep-fusion): the chain the backend computes this op in ("RMS_NORM+MUL")
    // and the chain's last op, whose output alone reaches memory; empty for an op computed alone.
    std::string fusedChain = {}, fusedLast = {};
};

// The graph's operations, sent when a graph of a new shape is first computed (the prompt,
// then decode). Groups are the top-level operations; ops carry their group in their id.
struct Topology {
    int64_t round = 0; // the first round computed with this graph
    uint64_t key = 0; // identifies the graph's shape: the same key, the same ops
    std::vector<TopoOp> groups, ops;
};

struct OpStats {
    std::string id; // the op whose output this is
    double max = 0, min = 0, mean = 0, l2norm = 0;
    uint64_t nan = 0, inf = 0;
};

// One per round computed, when the program's thread has run it.
struct Round {
    int64_t round = 0;
    uint64_t key = 0; // the topology it ran
    bool dumped = false;
    std::string read; // "inline", "graph", "node", "" when not dumped
    uint64_t opsSelected = 0;
};

// The statistics of a dumped round's op outputs, once the writer has them (a long prompt's
// round may come in parts). Left out when the app falls behind; the files stay complete.
struct RoundStats {
    int64_t round = 0;
    std::vector<OpStats> stats;
};

struct Counters {
    uint64_t rounds = 0, roundsDumped = 0, opsSeen = 0, opsSelected = 0;
    uint64_t tensors = 0, bytes = 0, skipped = 0, dropped = 0; // dropped: live messages left out
};

struct Warning {
    std::string text;
};

// The selection with this sequence number applies from this round on.
struct Ack {
    uint64_t seq = 0;
    int64_t fromRound = 0;
    std::string error; // non-empty: refused (the message says why); the selection is unchanged
};

struct Goodbye {
    bool finished = true;
};

// App -> probe ------------------------------------------------------------------------------

// A new selection, applied at the next graph compute; the fields follow msit's options.
struct Select {
    uint64_t seq = 0;
    bool enabled = true; // dump_enable
    std::string ids; // -ids ("" every op)
    std::string rounds = "all"; // -er, or "all"
    std::string opNames; // -opname
    bool child = true; // -child
    int time = 3; // -time
    int part = 2; // -stp
};

struct Refused {
    std::string reason;
}; // the app cannot talk to this probe

// The selection a Select asks for, on top of base (which keeps the device filter). Throws
// Error naming the bad field, as the command line's options do.
Selection selectionFrom(const Select &s, const Selection &base);
// The Select that asks for sel (the app's side of the same translation).
Select selectFrom(const Selection &sel, uint64_t seq);

using Message = std::variant<Hello, Topology, Round, RoundStats, Counters, Warning, Ack, Goodbye, Select, Refused>;

// One line of JSON with its '\n'.
std::string encode(const Message &m);
// Throws Error naming what is wrong for a malformed line, an unknown type or bad fields.
Message decode(const std::string &line);

} // namespace llmscope::live
