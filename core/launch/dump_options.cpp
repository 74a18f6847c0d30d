#include "core/launch/dump_options.h"
#include "core/dump/token_record.h"

#include <cctype>
#include <cstdlib>

#include "core/select/op_ids.h"
#include "core/select/rounds.h"
#include "core/util/arg_reader.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

const std::vector<std::string> kTypes{"model", "layer", "op", "kernel", "tensor", "stats", "cpu_profiling", "onnx"};
const std::vector<std::string> kTypesDone{"model", "layer", "op", "kernel", "tensor", "stats", "cpu_profiling", "onnx"};

bool contains(const std::vector<std::string> &v, const std::string &s)
{
    for (const auto &x : v)
        if (x == s)
            return true;
    return false;
}

int parseChoice(const std::string &option, const std::string &value, int lo, int hi)
{
    const auto v = parseInt(trim(value));
    if (!v || *v < lo || *v > hi)
        throw Error(option + ": '" + value + "' must be a whole number from " + std::to_string(lo) + " to " +
                    std::to_string(hi));
    return int(*v);
}

// msit's own options (and --exec); false when a is not one of them.
bool takeMsitOption(const std::string &a, ArgReader &r, DumpOptions &o)
{
    if (a == "--exec") {
        CommandLine c = parseCommandLine(r.value());
        o.command = std::move(c.words);
        o.environment = std::move(c.environment);
    } else if (a == "--type") {
        o.types.clear();
        while (r.valueFollows())
            o.types.push_back(r.value());
        if (o.types.empty())
            throw Error("--type needs at least one of: model layer op kernel tensor stats cpu_profiling onnx");
    } else if (a == "-sd" || a == "--only-save-desc") {
        o.descOnly = true;
    } else if (a == "-ids" || a == "--save-operation-ids") {
        o.ids = r.value();
        OpIds::parse(o.ids);
    } else if (a == "-er" || a == "--execute-range") {
        o.rounds = r.value();
        Rounds::parse(o.rounds, false);
    } else if (a == "-child" || a == "--save-operation-child") {
        o.child = parseBoolOption("-child", r.value());
    } else if (a == "-time" || a == "--save-time") {
        o.time = parseChoice("-time", r.value(), 0, 3);
    } else if (a == "-opname" || a == "--operation-name") {
        o.opNames = r.value();
        parseOpNames(o.opNames);
    } else if (a == "-stp" || a == "--save-tensor-part") {
        o.part = parseChoice("-stp", r.value(), 0, 2);
    } else if (a == "-o" || a == "--output") {
        o.output = r.value();
    } else if (a == "-device" || a == "--device-id") {
        o.devices = r.value();
        parseDevices(o.devices);
    } else if (a == "-config" || a == "--config-path") {
        o.configFile = r.value();
    } else if (a == "-l" || a == "--log-level") {
        o.logLevel = toLower(r.value());
        if (!contains({"debug", "info", "warning", "warn", "error", "fatal", "critical"}, o.logLevel))
            throw Error("-l: '" + o.logLevel + "' is not one of debug, info, warning, error, fatal, critical");
    } else if (a == "-tiling" || a == "--save-tiling") {
        o.tiling = true;
    } else if (a == "-symlink" || a == "--enable-symlink") {
        o.symlink = true;
    } else if (a == "-seed" || a == "--seed") {
        throw Error("-seed: msit seeds PyTorch's generators; llama.cpp programs take their sampling seed as "
                    "their own option (e.g. --seed in the --exec command). Leave it out");
    } else {
        return false;
    }
    return true;
}

// llmscope's options beyond msit's; false when a is not one of them.
bool takeOwnOption(const std::string &a, ArgReader &r, DumpOptions &o)
{
    if (a == "-seq" || a == "--sequence-ids") {
        o.sequences = r.value();
        parseSequences(o.sequences);
    } else if (a == "--kv-cache") {
        o.kvCache = true;
    } else if (a == "--weights-in-model") {
        o.weightsInModel = true;
    } else if (a == "--keep-fusion") {
        o.keepFusion = true;
    } else if (a == "--no-fusion") {
        o.noFusion = true;
    } else if (a == "--check-observer") {
        o.checkObserver = true;
    } else if (a == "--stats-csv") {
        o.statsCsv = true;
    } else if (a == "--stats-with-data") {
        o.statsWithData = true;
    } else if (a == "--watch") {
        o.watch = r.value();
        try {
            if (OpIds::parse(o.watch).empty())
                throw Error("no ids");
        } catch (const Error &e) {
            throw Error("--watch: '" + o.watch + "' is not a list of op ids like 2_29,3_1 (" + e.what() + ")");
        }
    } else if (a == "--follow-tokens") {
        o.followTokens = r.value();
        if (readTokenRecords(o.followTokens).empty())
            throw Error("--follow-tokens: '" + o.followTokens +
                        "' records no tokens (dumps by llmscope record the "
                        "tokens every round consumed; dump the golden program with llmscope dump first)");
    } else if (a == "--nan-inf-only") {
        o.nanInfOnly = true;
    } else if (a == "--read") {
        o.readMode = toLower(r.value());
        if (!contains({"auto", "inline", "graph", "node"}, o.readMode))
            throw Error("--read: '" + o.readMode + "' is not one of auto, inline, graph, node");
    } else if (a == "--live") {
        o.liveSocket = r.value();
    } else if (a == "--children") {
        o.children = true;
    } else if (a == "--record-env") {
        o.recordEnv = r.value();
        for (const std::string &name : split(o.recordEnv, ','))
            if (name.empty() || name.find_first_of("=\n") != std::string::npos)
                throw Error("--record-env: '" + o.recordEnv + "' is not a list of variable names like MY_FLAG,OTHER");
    } else if (a == "--timeout") {
        o.timeoutSeconds = parseTimeout(r.value());
    } else {
        return false;
    }
    return true;
}

// What the options ask for together: known --type values, and options that need another.
void checkCombination(const DumpOptions &o)
{
    for (const auto &t : o.types) {
        if (!contains(kTypes, t))
            throw Error("--type: '" + t + "' is not one of model layer op kernel tensor stats cpu_profiling onnx");
        if (!contains(kTypesDone, t))
            throw Error("--type " + t +
                        ": not available in this version of llmscope yet (it writes model, layer, "
                        "op, kernel, tensor, stats and onnx dumps); leave '" +
                        t + "' out");
    }
    if (o.nanInfOnly && !contains(o.types, "tensor") && !contains(o.types, "stats"))
        throw Error("--nan-inf-only chooses which tensors to write: add --type tensor (or stats)");
    if (o.statsCsv && !contains(o.types, "stats"))
        throw Error("--stats-csv applies to --type stats; add 'stats' to --type or leave --stats-csv out");
    if (o.statsWithData && !(contains(o.types, "tensor") && contains(o.types, "stats")))
        throw Error("--stats-with-data keeps the payload of --type tensor stats; give both 'tensor' and 'stats' "
                    "to --type, or leave --stats-with-data out");
    if (o.statsWithData && o.statsCsv)
        throw Error("--stats-with-data writes statistics into each tensor file, --stats-csv into one CSV a round; "
                    "choose one");
}

} // namespace

DumpOptions parseDumpOptions(const std::vector<std::string> &args)
{
    DumpOptions o;
    ArgReader r(args, "dump");
    while (r.next())
        if (!takeMsitOption(r.option(), r, o) && !takeOwnOption(r.option(), r, o))
            r.unknown();
    if (o.command.empty())
        throw Error("--exec is required: the inference program to run, e.g. --exec \"./llama-cli -m model.gguf\"");
    checkCombination(o);
    return o;
}

std::vector<std::string> dumpArguments(const DumpOptions &o)
{
    const DumpOptions d;
    std::vector<std::string> a{"--exec", joinCommandLine({o.environment, o.command})};
    if (o.types != d.types) {
        a.push_back("--type");
        a.insert(a.end(), o.types.begin(), o.types.end());
    }
    auto opt = [&a](bool on, const char *name, const std::string &value = {}) {
        if (!on)
            return;
        a.push_back(name);
        if (!value.empty())
            a.push_back(value);
    };
    opt(o.descOnly, "-sd");
    opt(!o.ids.empty(), "-ids", o.ids);
    opt(o.rounds != d.rounds, "-er", o.rounds);
    opt(o.child != d.child, "-child", o.child ? "True" : "False");
    opt(o.time != d.time, "-time", std::to_string(o.time));
    opt(!o.opNames.empty(), "-opname", o.opNames);
    opt(o.part != d.part, "-stp", std::to_string(o.part));
    opt(o.output != d.output, "-o", o.output);
    opt(!o.devices.empty(), "-device", o.devices);
    opt(!o.sequences.empty(), "-seq", o.sequences);
    opt(!o.configFile.empty(), "-config", o.configFile);
    opt(o.logLevel != d.logLevel, "-l", o.logLevel);
    opt(o.kvCache, "--kv-cache");
    opt(o.weightsInModel, "--weights-in-model");
    opt(o.keepFusion, "--keep-fusion");
    opt(o.noFusion, "--no-fusion");
    opt(o.checkObserver, "--check-observer");
    opt(o.tiling, "-tiling");
    opt(o.symlink, "-symlink");
    opt(o.statsCsv, "--stats-csv");
    opt(o.statsWithData, "--stats-with-data");
    opt(o.nanInfOnly, "--nan-inf-only");
    opt(!o.followTokens.empty(), "--follow-tokens", o.followTokens);
    opt(!o.watch.empty(), "--watch", o.watch);
    opt(o.readMode != d.readMode, "--read", o.readMode);
    opt(o.timeoutSeconds != 0, "--timeout", std::to_string(o.timeoutSeconds));
    opt(o.children, "--children");
    opt(!o.recordEnv.empty(), "--record-env", o.recordEnv);
    opt(!o.liveSocket.empty(), "--live", o.liveSocket);
    return a;
}

std::map<std::string, std::string> probeEnvironment(const DumpOptions &o, const std::string &root)
{
    std::map<std::string, std::string> env;
    std::string types;
    for (const auto &t : o.types)
        types += (types.empty() ? "" : ",") + t;
    env["LLMSCOPE_DUMP_ROOT"] = root;
    env["LLMSCOPE_TYPE"] = types;
    env["LLMSCOPE_SD"] = o.descOnly ? "1" : "0";
    env["LLMSCOPE_IDS"] = o.ids;
    env["LLMSCOPE_ER"] = o.rounds;
    env["LLMSCOPE_CHILD"] = o.child ? "1" : "0";
    env["LLMSCOPE_TIME"] = std::to_string(o.time);
    env["LLMSCOPE_OPNAME"] = o.opNames;
    env["LLMSCOPE_STP"] = std::to_string(o.part);
    env["LLMSCOPE_DEVICE"] = o.devices;
    env["LLMSCOPE_SEQ"] = o.sequences;
    env["LLMSCOPE_CONFIG"] = o.configFile;
    env["LLMSCOPE_KV"] = o.kvCache ? "1" : "0";
    env["LLMSCOPE_WEIGHTS_IN_MODEL"] = o.weightsInModel ? "1" : "0";
    env["LLMSCOPE_KEEP_FUSION"] = o.keepFusion ? "1" : "0";
    if (o.noFusion) // the backends' own switches, as a user sets them (the CUDA one as llama.cpp names it)
        for (const char *k : {"GGML_CPU_DISABLE_FUSION", "GGML_VK_DISABLE_FUSION", "GGML_CUDA_DISABLE_FUSION"})
            env[k] = "1";
    env["LLMSCOPE_STATS_CSV"] = o.statsCsv ? "1" : "0";
    env["LLMSCOPE_TILING"] = o.tiling ? "1" : "0";
    env["LLMSCOPE_SYMLINK"] = o.symlink ? "1" : "0";
    env["LLMSCOPE_NAN_INF_ONLY"] = o.nanInfOnly ? "1" : "0";
    env["LLMSCOPE_FOLLOW_TOKENS"] = o.followTokens;
    env["LLMSCOPE_WATCH"] = o.watch;
    env["LLMSCOPE_STATS_WITH_DATA"] = o.statsWithData ? "1" : "0";
    env["LLMSCOPE_READ"] = o.readMode;
    env["LLMSCOPE_LOG_LEVEL"] = o.logLevel;
    env["LLMSCOPE_CHILDREN"] = o.children ? "1" : "0";
    env["LLMSCOPE_RECORD_ENV"] = o.recordEnv;
    if (!o.liveSocket.empty())
        env["LLMSCOPE_LIVE"] = o.liveSocket;
    return env;
}

std::string defaultWeightCache()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME"), *home = std::getenv("HOME");
    if (xdg && *xdg == '/')
        return std::string(xdg) + "/llmscope/weights";
    if (home && *home == '/')
        return std::string(home) + "/.cache/llmscope/weights";
    return {};
}

bool writesPayload(const DumpOptions &o)
{
    return contains(o.types, "tensor") && (!contains(o.types, "stats") || o.statsWithData) && !o.descOnly;
}

int parseTimeout(const std::string &value)
{
    return parseChoice("--timeout", value, 1, 7 * 24 * 3600);
}

std::string preloadWith(const std::string &existing, const std::string &probePath)
{
    const std::string e = trim(existing);
    return e.empty() ? probePath : e + ":" + probePath;
}

std::string dumpUsage()
{
    return R"(usage: llmscope dump --exec "COMMAND" [options]

Runs COMMAND (no shell) with llmscope's probe preloaded and writes msit's dump layout:
OUT/msit_dump_{YYYYmmdd_HHMMSS}/tensors/{device}_{pid}/{round}/{id}_{Op}/.../{before,after}/

msit llm dump's options:
  --exec COMMAND          the inference program and its arguments (required), after any
                          NAME=value settings for it, as a shell takes them:
                          "GGML_VK_VISIBLE_DEVICES=0 ./llama-cli -m m.gguf". Redirection,
                          pipes and ';' need a shell: put them in a script, pass 'bash x.sh'
  --type T [T ...]        what to dump (default: tensor model):
                            model   model topology   model/{pid}/GgmlGraph.json
                            layer   layer topology   layer/{pid}/{Op}.json
                            tensor  tensors with their data
                            stats   statistics only (max, min, mean, l2norm), with or
                                    without tensor: 'tensor stats' writes no payload
                            op      operation_io_tensors/{pid}/operation_tensors_{round}.csv:
                                    each dumped node's op, decoded parameters, types,
                                    shapes and tensor files (msit's '|' columns)
                            kernel  kernel_io_tensors/{pid}/kernel_tensors_{round}.csv: the
                                    same with the backend that ran each node (CPU, CUDA0)
                            onnx    onnx/{pid}/{Model|Layer}.onnx: the topology as ONNX (no
                                    weights), written when the program ends; for Netron
                            cpu_profiling  cpu_profiling/{pid}/operation_statistic_{round}.csv:
                                    each selected node's host time, the node computed alone
                                    (the round runs node by node: slower, same results)
  -sd                     tensor descriptions only, no data
  -ids IDS                operation ids, e.g. 3_1,5 (default: every operation)
  -er RANGES              rounds (graph computes) as inclusive pairs: 1,3 or 3,5,7,7
                          (default: 0,0, the first round)
  -child BOOL             with -ids: also every child of a chosen id (default: True)
  -time N                 0 before, 1 after, 2 both, 3 inputs before and outputs after
                          (default: 3)
  -opname NAMES           op types by case-insensitive prefix, e.g. mul_mat,rms
  -stp N                  0 inputs, 1 outputs, 2 both (default: 2)
  -o DIR                  output folder (default: ./)
  -device IDS             only these device ids (ggml's CPU and first GPU are device 0)
  -config FILE            msit's dynamic config (JSON: dump_enable, er, ids, child, device,
                          and llmscope's seq);
                          re-read every 5 s while the target runs; overrides those options
  -l LEVEL                log level: debug, info, warning, error, fatal (default: info)
  -tiling                 each dumped node's parameters: op_param.json beside its
                          tensors (decoded) and its raw op_params under tiling/
  -symlink                a tensor identical to one already written (hash, then bytes)
                          becomes a relative symbolic link to it
  -seed                   refused, with the reason

llmscope's own:
  -seq IDS                only the rounds that computed these sequences (llama.cpp's seq_id,
                          llama-server's slots), e.g. 1 or 0,2, within -er; a round that
                          computed several sequences is dumped whole. Every dump records
                          each token's sequence; `llmscope info` lists the requests
  --kv-cache              also dump the KV cache and views of it, whole (large); without it
                          each write into the cache is dumped as the rows it wrote there
  --weights-in-model      a weight read from a model file is described, not written: opcheck
                          reads it from that file (the probe notes the files ggml's loader
                          opens); a dump of a large model's products then holds activations
  --keep-fusion           leave the chains the backend fuses whole, as it runs unobserved:
                          each is read at its last op only (its inner results never reach
                          memory), whose inputs are the chain's; llmscope/fusion/ names each
                          chain's ops and how to compute it again (opcheck). The CPU's,
                          Vulkan's and CUDA's chains as their code decides, a MoE routing's
                          two outputs included; Vulkan's TOPK_QSA and CUDA's GATED_DELTA_NET
                          cache writes are not modelled (--check-observer says whether
                          observing changed their results). An RPC server's chains are
                          those of the backend LLMSCOPE_RPC_BACKEND names in the program's
                          environment (CPU, Vulkan0, CUDA0): the client cannot tell
  --no-fusion             the backends fuse nothing: their own switches set in the program's
                          environment (GGML_CPU_DISABLE_FUSION, GGML_VK_DISABLE_FUSION,
                          GGML_CUDA_DISABLE_FUSION); with --keep-fusion, every op is read as
                          the program computes it unfused
  --check-observer        after the dump, run the program once more with the probe loaded
                          but reading nothing, and say whether observing changed its
                          results: each round's tokens and the digest of its output (the
                          logits), recorded in every dump under llmscope/outputs/
  --stats-csv             with --type stats: one statistic.csv per round (msProbe's columns)
                          instead of one file per tensor; much faster for long runs
  --stats-with-data       with --type tensor stats: keep each tensor's payload and add its
                          statistics to the same file (msit writes statistics only)
  --watch IDS             after every later node of a dumped round, re-read these ops'
                          outputs and record the first node after which their bytes
                          changed (memory reused or written over too early), as torchair's
                          watcher does: watch/{pid}/watch_{round}.csv and the summary
  --follow-tokens GOLDEN  the program consumes the token ids golden's dump recorded, round
                          by round (written into its token input before each round
                          computes), so its rounds stay comparable with golden's after its
                          own choices diverge; stops, saying so, where a round's token
                          count differs. Every dump records each round's tokens
  --nan-inf-only          write only the selected ops whose outputs hold NaN or Inf, with
                          their inputs; the summary names the first such op of each round
                          (the one that made them)
  --read MODE             how the probe reads tensors: inline (as ggml's CPU backend
                          computes each node; one thread, else as node), node (the
                          scheduler hands over each node), graph (after the whole graph,
                          the wanted tensors kept by ggml) or auto (default: inline where
                          it can, else graph, but node for graphs whose wanted tensors take
                          over 64 MiB, such as long prompts)
  --timeout SECONDS       stop the target after SECONDS (the dump keeps what was written)
  --children              also probe the processes the program starts (a shell or launcher
                          such as bash, env or timeout passes the probe on by itself)
  --record-env NAMES      also record these environment variables in the run's configuration
                          (llmscope config-diff), beside those that steer ggml, llama.cpp,
                          OpenMP and the device runtimes: MY_FLAG,OTHER
  --live SOCKET           stream topology, rounds and statistics to the app listening on
                          SOCKET, and take its selections while the program runs
)";
}

} // namespace llmscope
