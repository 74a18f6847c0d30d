// What the probe dumps, read from the environment `llmscope dump` sets; the selection part
// can be replaced while the target runs by msit's dynamic config file.
#pragma once
#include <cstdint>
#include <string>

#include "core/select/selection.h"

namespace llmscope::probe {

// How a dumped round's tensors are read: as ggml's CPU backend computes each node (one
// thread, inline_reader.h), as the scheduler hands over each node (its eval callback), or
// after the whole graph with the wanted tensors kept as graph outputs. Auto reads inline
// where it can, else keeps them unless they take more than keepBytes; inline never keeps.
enum class ReadMode { Auto, Graph, Node, Inline };

struct ProbeConfig {
    bool active = false; // false: pass everything through
    std::string root; // LLMSCOPE_DUMP_ROOT: the msit_dump_* folder
    bool tensors = false; // payloads: type "tensor" without "stats", or with LLMSCOPE_STATS_WITH_DATA=1
    bool stats = false; // type "stats": statistics (alone, as msit writes them, unless with payloads)
    bool descOnly = false; // -sd: header only
    bool topology = false; // type "model" or "layer"
    bool statsCsv = false; // LLMSCOPE_STATS_CSV=1: statistics as one statistic.csv a round
    bool opInfo = false; // type "op": operation_io_tensors CSVs
    bool kernelInfo = false; // type "kernel": kernel_io_tensors CSVs (the backend of each node)
    bool cpuProfiling = false; // type "cpu_profiling": host time of each selected node, node by node
    bool tiling = false; // LLMSCOPE_TILING=1 (-tiling): op_param.json and raw op_params
    bool symlink = false; // LLMSCOPE_SYMLINK=1: identical tensors as links to the first copy
    OpIds watch; // LLMSCOPE_WATCH: ops whose outputs are re-read after every later node
    std::string followTokens; // LLMSCOPE_FOLLOW_TOKENS: a golden dump whose tokens each round consumes instead
    bool nanInfOnly = false; // LLMSCOPE_NAN_INF_ONLY=1: only ops whose outputs hold NaN/Inf, with their inputs
    bool kvCache = false; // LLMSCOPE_KV=1: also the KV-cache views
    bool weightsInModel = false; // LLMSCOPE_WEIGHTS_IN_MODEL=1: weights described, their data left to the model file
    bool keepFusion = false; // LLMSCOPE_KEEP_FUSION=1: fused chains read at their last node only (fusion_rules.h)
    bool quiet = false; // LLMSCOPE_LOG_LEVEL error or above: warnings only in the status file
    bool threadpool = true; // LLMSCOPE_THREADPOOL=0: never attach a CPU threadpool
    bool sketch = true; // LLMSCOPE_SKETCH=0: statistics without their error sketch (tensor/sketch.h)
    ReadMode read = ReadMode::Auto; // LLMSCOPE_READ: auto, inline, graph or node
    uint64_t keepBytes = 64ull << 20; // LLMSCOPE_KEEP_MB: auto keeps at most this much a graph
    std::string liveSocket; // LLMSCOPE_LIVE: the app's socket (core/live/live_protocol.h)
    std::string configFile; // LLMSCOPE_CONFIG: msit's -config file, re-read while running
    int configIntervalMs = 5000; // LLMSCOPE_CONFIG_INTERVAL_MS: msit re-reads every 5 s
    uint64_t queueBytes = 512ull << 20; // LLMSCOPE_QUEUE_MB: tensors waiting for the disk
    Selection selection;
    std::string error; // why the probe is inactive, if a setting was invalid
};

ProbeConfig readProbeConfig();

} // namespace llmscope::probe
