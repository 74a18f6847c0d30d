// What a probe saw and wrote, kept beside the dump as {root}/llmscope/{pid}.json so that the
// CLI and the GUI can say what a dump holds, and whether its target finished.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace llmscope {

// A copy the program made into the KV cache outside any graph: llama.cpp copies one cache
// stream into another when a sequence is copied between parallel slots' streams
// (llama_memory_seq_cp, ggml_backend_tensor_copy at the next decode). No round's dump holds it.
struct StateCopy {
    int64_t beforeRound = -1; // the round the program computed next
    std::string cache; // "cache_k_l0"
    int64_t fromStream = -1, toStream = -1; // the cache's streams (-1: not a stream of it)
    uint64_t bytes = 0;
    // Read back after the copy and compared with its source, row by row (a row: a cell's keys or
    // values); checked is false where it could not be read.
    bool checked = false;
    uint64_t rows = 0, rowsDiffering = 0;
    int64_t firstDiffering = -1;
};

// A shared object loaded in the program: what it is, so that two runs' builds and drivers can
// be told apart (the Vulkan driver, libcuda, libgomp as much as ggml's own).
struct LoadedObject {
    std::string path;
    uint64_t bytes = 0; // its file's size; 0 when unreadable
    std::string buildId; // the ELF build id in hex, "-" without one
    std::string driver; // a device driver's version as it states it (config/driver_version.h), else empty
};

// A device ggml's registry offers (ggml_backend_dev_*): its name ("Vulkan0"), its description
// (the GPU's or CPU's name as the driver gives it), its kind ("CPU", "GPU", "IGPU", "ACCEL")
// and its memory in bytes.
struct BackendDevice {
    std::string name, description, type;
    uint64_t memory = 0;
};

struct ProbeStatus {
    int64_t pid = 0;
    uint64_t rounds = 0; // graph computes seen
    uint64_t roundsDumped = 0; // of those, rounds the selection chose
    uint64_t roundsWholeGraph = 0; // of those, read after the whole graph ran
    uint64_t roundsInline = 0; // read as ggml's CPU backend computed each node (the rest: node by node)
    // Node by node: the graph pieces the probe had the scheduler compute, in all (each ends the
    // backend's graph and waits for it: what reading a device costs).
    uint64_t pieces = 0;
    int64_t firstDumped = -1, lastDumped = -1;
    // Dumped rounds whose graph the program stopped before it finished (its abort or eval
    // callback): the first few of them.
    uint64_t roundsStopped = 0;
    std::vector<int64_t> stoppedRounds;
    static constexpr size_t kStoppedListed = 16;
    uint64_t opsSeen = 0; // nodes of the largest graph looked at
    uint64_t opsSelected = 0; // of those, selected in at least one dumped round
    uint64_t tensors = 0, bytes = 0, skipped = 0;
    uint64_t linked = 0; // of the tensors, written as links to an identical one (-symlink, weights once a run)
    uint64_t weightsCached =
        0; // weights whose statistics an earlier run of the model file left (LLMSCOPE_WEIGHT_CACHE)
    uint64_t tokensReplaced = 0; // rounds whose token ids were golden's, not the program's (--follow-tokens)
    // --watch: "round 0: 1_1 attn_norm-0 changed after 1_5 Vcur-0 (MUL_MAT)", the first kWatchListed.
    std::vector<std::string> watchChanges;
    static constexpr size_t kWatchListed = 64;
    // The model files the program loaded (absolute paths): weights are read from them where the
    // backend cannot give them back as stored (repacked, quantized, in device memory).
    std::vector<std::string> models;
    // What the run was (compare/pair_standard.h tells two runs apart by it): the program's
    // arguments, the machine (/etc/machine-id, else its host name), ggml's and llama.cpp's
    // libraries ("path build-id"), and the backends that computed the dumped rounds' nodes
    // ("CPU", "Vulkan0"). Empty in dumps of probes before these were recorded.
    std::vector<std::string> command;
    std::string host;
    std::vector<std::string> libraries;
    std::vector<std::string> backends;
    std::vector<std::string> environment; // the variables that steer ggml and the runtimes, "NAME=value"
    // The rest of the run's configuration (llmscope config-diff): its working folder, every shared
    // object loaded, ggml's devices, the CPU backend's features as ggml reports them ("AVX2=1")
    // and the thread counts llama.cpp set for it. Read once the first round has run.
    std::string workingDirectory;
    std::vector<LoadedObject> objects;
    std::vector<BackendDevice> devices;
    std::vector<std::string> cpuFeatures;
    std::string ggmlVersion; // ggml_version() and ggml_commit(): "0.9.4, commit 1a2b3c4"
    std::vector<int> cpuThreads;
    // What the graphs say of the context: flash attention, the KV cache's types, cells and
    // streams ("KV cache K type=f16"), from the latest graph that reads the cache.
    std::vector<std::string> context;
    // The samplers the program made through llama.cpp (llama_sampler_init_*), each setting once,
    // in the order first made ("top_k 40", "temp 0.8", "dist seed 42"); at most kSamplingListed.
    std::vector<std::string> sampling;
    static constexpr size_t kSamplingListed = 32;
    std::vector<StateCopy> stateCopies; // the first kStateCopiesListed, in the order made
    static constexpr size_t kStateCopiesListed = 4096;
    uint64_t stateCopiesDropped = 0; // copies made past that, not listed
    bool keepFusion = false; // fused chains left as the backends run them (--keep-fusion)
    bool finished = false; // written at the target's exit; false while running or if killed
    std::vector<std::string> warnings;
    // --nan-inf-only: per round, the first op whose output holds NaN or Inf ("round 0: 2_31
    // ffn_out-1 (MUL_MAT)"), the first kNanInfListed of them, and how many rounds had one.
    uint64_t nanInfRounds = 0;
    std::vector<std::string> nanInfFirst;
    static constexpr size_t kNanInfListed = 64;

    static constexpr const char *kFolder = "llmscope";
};

// The stopped rounds listed: "3, 7" (with ", ..." when more stopped than are listed).
std::string stoppedRoundsText(const ProbeStatus &s);

std::string writeProbeStatus(const ProbeStatus &s);
ProbeStatus parseProbeStatus(const std::string &jsonText); // throws Error on malformed text
// The copies into KV cache tensor cache (any of its streams) made before rounds first to last,
// read from every probe status of the dump at root (or of the dumps an -o folder holds).
// incomplete (when given): set where a status dropped copies past its list, which may be any.
std::vector<StateCopy> stateCopiesInto(const std::string &root, const std::string &cache, int64_t first, int64_t last,
                                       bool *incomplete = nullptr);

// Every {root}/llmscope/*.json; unreadable files are returned in problems, not thrown.
std::vector<ProbeStatus> readProbeStatuses(const std::string &root, std::vector<std::string> *problems = nullptr);

// A dump's statuses, read once for all that asks them (a comparison's standard, its
// configurations, the KV cache's copies): the folder's own, then those of each msit_dump_*
// folder an -o folder holds, in time order. Unreadable files are in problems.
struct DumpStatuses {
    struct Folder {
        std::string path;
        std::vector<ProbeStatus> statuses;
    };
    std::vector<Folder> folders; // the root first, each with its statuses (maybe none)
    std::vector<std::string> problems;
};
DumpStatuses readDumpStatuses(const std::string &root);

} // namespace llmscope
