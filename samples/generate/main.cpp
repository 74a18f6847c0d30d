// llmscope-sample-generate: a native llama.cpp target. Loads a model, greedy-generates N
// tokens from a prompt and prints the token ids, timing and (on request) the last logits.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <libgen.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sched.h>
#include <unistd.h>

#include <ggml-backend.h>
#include <llama.h>

namespace {

const char *kUsage =
    "usage: llmscope-sample-generate -m MODEL.gguf [-p PROMPT] [-n TOKENS] [-t THREADS]\n"
    "         [--flash-attn on|off|auto] [--batch N] [--ctx N] [--logits] [--device cpu|vulkan|cuda|rpc]\n"
    "  -p  prompt text [\"Hello, llmscope\"]   -n  tokens to generate [16]   -t  threads [1]\n"
    "  --flash-attn [on]   --batch  batch size for the prompt [512]   --ctx  context size [256]\n"
    "  --logits  also print the logits that chose the last token\n"
    "  --device  where the model runs [cpu]: vulkan or cuda loads that ggml backend\n"
    "                 (libggml-vulkan.so, libggml-cuda.so) from --backend-dir and offloads every layer;\n"
    "                 without a GPU, GGML_VK_VISIBLE_DEVICES=0 lets Vulkan use Mesa's software device\n"
    "                 rpc offloads them to the ggml RPC server at --rpc HOST:PORT (ggml-rpc-server),\n"
    "                 through libggml-rpc.so from --backend-dir (a llama.cpp build with GGML_RPC=ON)\n"
    "  --backend-dir DIR  where that backend library is [the node-llama-cpp build of that device]\n"
    "  --rpc HOST:PORT  the RPC server for --device rpc (an IPv4 address)\n"
    "  --no-repack  weights as the file holds them: no extra buffer types (ggml's CPU repacking, AMX)\n"
    "  --temp T [--top-k K] [--seed S]  sample through llama.cpp's samplers (top_k K, temp T, dist S)\n"
    "                 instead of taking the most likely token [greedy; K 40, S 42]\n"
    "  -ctk TYPE, -ctv TYPE  the KV cache's key and value types [f16]: f32, f16, bf16, q8_0, q4_0\n"
    "  --context-shift T:N  before decoding generated token T, a context shift as llama.cpp's tools do\n"
    "                 when the context fills: the N cells after the first are dropped and the later ones\n"
    "                 moved N positions back (llama_memory_seq_rm, llama_memory_seq_add; ggml then\n"
    "                 re-rotates the cached keys in a graph of its own)\n"
    "                 (a quantized value cache needs --flash-attn on)\n"
    "  --seq-copy T[:streams]  before decoding generated token T, sequence 0 is copied to sequence 1\n"
    "                 and dropped, and the rest is decoded in sequence 1, as a server forks a parallel\n"
    "                 slot (llama_memory_seq_cp, two sequences). One cache for both by default, where the\n"
    "                 copy only tags cells; ':streams' gives each sequence a cache stream of its own\n"
    "                 (half of --ctx each), and llama.cpp copies the cache's bytes outside any graph\n"
    "  --count-nodes  install an eval callback that counts the graph nodes ggml evaluates\n"
    "  --token-times  also print how long each generated token's decode took\n"
    "  --abort-once T:K  the program's abort callback stops the decode of generated token T after\n"
    "                 K computed nodes, once; the program then decodes that token again\n"
    "  --exit-mid-graph T:K  in the decode of generated token T, once its K-th node has run, another\n"
    "                 thread calls exit() while this one is still in the graph (prints 'exiting: token T\n"
    "                 after node K')\n"
    "  --pace-ms N  wait N ms before each generated token and print it as it comes ('token: I ID'),\n"
    "                 as a chat does: a live session has time to change what is dumped\n"
    "  --hold-after N --hold-file F  after N generated tokens, create F.waiting and wait until F\n"
    "                 exists (lets a test change the probe's dynamic config at a known point)\n"
    "Output lines: 'device: ...' (the devices that ran the model), 'prompt_tokens: ...', 'tokens: ...', 'timing: ...', with --token-times 'token_ms: ...'\n"
    "(the decode of generated token 1, 2, ...), with --logits 'logits: ...' and with --abort-once\n"
    "'aborted: token T after K nodes'.\n";

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void quietLog(ggml_log_level level, const char *text, void *)
{
    if (level >= GGML_LOG_LEVEL_WARN)
        std::fputs(text, stderr);
}

// The CPU backends (libggml-cpu-*.so) live beside libllama; load them from there so the
// program runs from any working directory.
void loadBackends()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&llama_backend_init), &info) && info.dli_fname) {
        std::string path = info.dli_fname;
        ggml_backend_load_all_from_path(dirname(path.data()));
    }
    if (ggml_backend_dev_count() == 0)
        ggml_backend_load_all();
}

// A device backend from node-llama-cpp's build for that device: the same llama.cpp version,
// whose libggml-base.so is the one this program already loaded, so the backend plugs into
// it. Returns the devices it brings, or an empty list after saying why on stderr.
std::vector<ggml_backend_dev_t> loadDevice(const std::string &device, std::string dir)
{
    if (dir.empty())
        dir = std::string(LLMSCOPE_NODE_MODULES "/@node-llama-cpp/linux-x64-") + device + "/bins/linux-x64-" + device;
    const std::string lib = dir + "/libggml-" + device + ".so";
    if (!std::filesystem::exists(lib)) {
        std::fprintf(stderr,
                     "llmscope-sample-generate: no %s backend at %s: install @node-llama-cpp/linux-x64-%s "
                     "(scripts/setup installs the Vulkan one) or name its folder with --backend-dir\n",
                     device.c_str(), lib.c_str(), device.c_str());
        return {};
    }
    ggml_backend_reg_t reg = ggml_backend_load(lib.c_str());
    std::vector<ggml_backend_dev_t> devices;
    for (size_t i = 0; reg && i < ggml_backend_reg_dev_count(reg); ++i)
        devices.push_back(ggml_backend_reg_dev_get(reg, i));
    if (devices.empty())
        std::fprintf(stderr, "llmscope-sample-generate: %s found no device. %s\n", lib.c_str(),
                     device == "vulkan" ? "On a machine without a GPU, install Mesa's Vulkan driver "
                                          "(mesa-vulkan-drivers) and set GGML_VK_VISIBLE_DEVICES=0 so ggml "
                                          "uses its software device."
                                        : "Is the device's driver installed?");
    return devices;
}

// ggml's RPC backend: the devices of the server at `endpoint`, through libggml-rpc.so in `dir`
// (built with GGML_RPC=ON from the same llama.cpp; its libggml-base.so is the one loaded
// already). They are registered as llama.cpp's --rpc does. Empty after saying why on stderr.
std::vector<ggml_backend_dev_t> loadRpc(const std::string &endpoint, const std::string &dir)
{
    const std::string lib = dir + "/libggml-rpc.so";
    void *handle = dir.empty() ? nullptr : dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    using AddServer = ggml_backend_reg_t (*)(const char *);
    const auto addServer = handle ? reinterpret_cast<AddServer>(dlsym(handle, "ggml_backend_rpc_add_server")) : nullptr;
    if (!addServer) {
        std::fprintf(stderr,
                     "llmscope-sample-generate: --device rpc needs --backend-dir naming the folder of a "
                     "libggml-rpc.so built from this llama.cpp with GGML_RPC=ON (scripts/kernel_zoo builds "
                     "one)%s%s\n",
                     dir.empty() ? "" : ": ", dir.empty() ? "" : dlerror());
        return {};
    }
    // ggml's RPC client aborts the program when nothing answers: ask first.
    const size_t colon = endpoint.rfind(':');
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(std::atoi(endpoint.substr(colon + 1).c_str())));
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const bool answers = colon != std::string::npos && fd >= 0 &&
        inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &addr.sin_addr) == 1 &&
        connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    if (fd >= 0)
        close(fd);
    ggml_backend_reg_t reg = answers ? addServer(endpoint.c_str()) : nullptr;
    std::vector<ggml_backend_dev_t> devices;
    for (size_t i = 0; reg && i < ggml_backend_reg_dev_count(reg); ++i) {
        devices.push_back(ggml_backend_reg_dev_get(reg, i));
        ggml_backend_device_register(devices.back());
    }
    if (devices.empty())
        std::fprintf(stderr,
                     "llmscope-sample-generate: no RPC server answers at '%s': start ggml-rpc-server -H HOST -p PORT "
                     "there first\n",
                     endpoint.c_str());
    return devices;
}

// --exit-mid-graph: a program whose other thread calls exit() in the middle of a graph. From
// the chosen node on, the compute thread asks for every node, so each is computed alone (a
// probe reading the round goes on working on it); at the graph's last node it parks, and only
// then does the other thread call exit(), so nothing of the program runs while its libraries
// come down. The handshake is a relaxed atomic on purpose: it orders nothing of the two
// threads' work, as in a program that exits without waiting for its compute thread, so
// ThreadSanitizer sees that work as concurrent.
struct ExitMidGraph {
    int token = -1, node = 0; // the decode of generated token `token`, its node-th asked node
    bool armed = false; // during that decode
    bool exiting = false; // the other thread has started
    int asks = 0;
    std::atomic<bool> parked{false};
};
ExitMidGraph g_exit;

// The program's eval callback: counts the nodes ggml offers (--count-nodes) and, with
// --exit-mid-graph, exits from another thread as told above.
long g_evalAsks = 0;
bool evalCallback(ggml_tensor *t, bool ask, void *)
{
    if (ask)
        ++g_evalAsks;
    if (!g_exit.armed)
        return !ask;
    if (ask && g_exit.exiting && std::strcmp(ggml_get_name(t), "result_output") == 0) {
        g_exit.parked.store(true, std::memory_order_relaxed);
        for (;;)
            ::pause(); // until exit() ends the process
    }
    if (ask)
        return ++g_exit.asks >= g_exit.node;
    if (!g_exit.exiting) {
        g_exit.exiting = true;
        std::printf("exiting: token %d after node %d\n", g_exit.token, g_exit.node);
        std::fflush(stdout);
        std::thread([] {
            while (!g_exit.parked.load(std::memory_order_relaxed))
                sched_yield();
            std::exit(0);
        }).detach();
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    std::string model, prompt = "Hello, llmscope", flash = "on", device = "cpu", backendDir, rpc;
    int n = 16, threads = 1, batch = 512, ctxSize = 256;
    bool printLogits = false, countNodes = false, tokenTimes = false, repack = true;
    int holdAfter = -1, paceMs = 0;
    std::string holdFile;
    int abortToken = -1, abortAfter = 0;
    ggml_type typeK = GGML_TYPE_F16, typeV = GGML_TYPE_F16;
    int shiftToken = -1, shiftCells = 0;
    int copyToken = -1;
    bool copyStreams = false;
    float temp = -1;
    int topK = 40;
    uint32_t seed = 42;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "llmscope-sample-generate: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "-m")
            model = value();
        else if (a == "-p")
            prompt = value();
        else if (a == "-n")
            n = std::atoi(value());
        else if (a == "-t")
            threads = std::atoi(value());
        else if (a == "--flash-attn")
            flash = value();
        else if (a == "--batch")
            batch = std::atoi(value());
        else if (a == "--ctx")
            ctxSize = std::atoi(value());
        else if (a == "--logits")
            printLogits = true;
        else if (a == "--device")
            device = value();
        else if (a == "--no-repack")
            repack = false;
        else if (a == "--temp")
            temp = float(std::atof(value()));
        else if (a == "--top-k")
            topK = std::atoi(value());
        else if (a == "--seed")
            seed = uint32_t(std::strtoul(value(), nullptr, 10));
        else if (a == "-ctk" || a == "-ctv") {
            const std::string t = value();
            const ggml_type type = t == "f32" ? GGML_TYPE_F32
                : t == "f16"                  ? GGML_TYPE_F16
                : t == "bf16"                 ? GGML_TYPE_BF16
                : t == "q8_0"                 ? GGML_TYPE_Q8_0
                : t == "q4_0"                 ? GGML_TYPE_Q4_0
                                              : GGML_TYPE_COUNT;
            if (type == GGML_TYPE_COUNT) {
                std::fprintf(stderr, "llmscope-sample-generate: %s takes f32, f16, bf16, q8_0 or q4_0, not '%s'\n",
                             a.c_str(), t.c_str());
                return 2;
            }
            (a == "-ctk" ? typeK : typeV) = type;
        } else if (a == "--backend-dir")
            backendDir = value();
        else if (a == "--rpc")
            rpc = value();
        else if (a == "--count-nodes")
            countNodes = true;
        else if (a == "--token-times")
            tokenTimes = true;
        else if (a == "--hold-after")
            holdAfter = std::atoi(value());
        else if (a == "--pace-ms")
            paceMs = std::atoi(value());
        else if (a == "--hold-file")
            holdFile = value();
        else if (a == "--abort-once") {
            if (std::sscanf(value(), "%d:%d", &abortToken, &abortAfter) != 2 || abortToken < 1 || abortAfter < 1) {
                std::fputs("llmscope-sample-generate: --abort-once needs TOKEN:NODES, both from 1\n", stderr);
                return 2;
            }
        } else if (a == "--context-shift") {
            if (std::sscanf(value(), "%d:%d", &shiftToken, &shiftCells) != 2 || shiftToken < 1 || shiftCells < 1) {
                std::fputs("llmscope-sample-generate: --context-shift needs TOKEN:CELLS, both from 1\n", stderr);
                return 2;
            }
        } else if (a == "--seq-copy") {
            const std::string v = value();
            const size_t colon = v.find(':');
            copyToken = std::atoi(v.substr(0, colon).c_str());
            copyStreams = colon != std::string::npos && v.substr(colon + 1) == "streams";
            if (copyToken < 1 || (colon != std::string::npos && !copyStreams)) {
                std::fputs("llmscope-sample-generate: --seq-copy needs TOKEN from 1, then ':streams' or nothing\n",
                           stderr);
                return 2;
            }
        } else if (a == "--exit-mid-graph") {
            if (std::sscanf(value(), "%d:%d", &g_exit.token, &g_exit.node) != 2 || g_exit.token < 1 ||
                g_exit.node < 1) {
                std::fputs("llmscope-sample-generate: --exit-mid-graph needs TOKEN:NODE, both from 1\n", stderr);
                return 2;
            }
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else {
            std::fprintf(stderr, "llmscope-sample-generate: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    if (model.empty() || n < 1 || threads < 1 || batch < 1 || ctxSize < 8 ||
        (flash != "on" && flash != "off" && flash != "auto") ||
        (device != "cpu" && device != "vulkan" && device != "cuda" && device != "rpc") ||
        (device == "rpc") != !rpc.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    llama_log_set(quietLog, nullptr);
    loadBackends();
    llama_backend_init();

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.use_extra_bufts = repack;
    std::vector<ggml_backend_dev_t> devices;
    if (device != "cpu") {
        devices = device == "rpc" ? loadRpc(rpc, backendDir) : loadDevice(device, backendDir);
        if (devices.empty())
            return 1;
        mp.n_gpu_layers = 999; // every layer and the output head
        devices.push_back(nullptr);
        mp.devices = devices.data();
    }
    mp.progress_callback = [](float, void *) { return true; }; // no progress dots on stderr
    llama_model *m = llama_model_load_from_file(model.c_str(), mp);
    if (!m) {
        std::fprintf(stderr, "llmscope-sample-generate: cannot load model '%s'\n", model.c_str());
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = uint32_t(ctxSize);
    cp.n_batch = uint32_t(batch);
    cp.n_ubatch = uint32_t(batch);
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    if (copyToken > 0) {
        cp.n_seq_max = 2;
        cp.kv_unified = !copyStreams;
    }
    cp.type_k = typeK;
    cp.type_v = typeV;
    cp.flash_attn_type = flash == "on" ? LLAMA_FLASH_ATTN_TYPE_ENABLED
        : flash == "off"               ? LLAMA_FLASH_ATTN_TYPE_DISABLED
                                       : LLAMA_FLASH_ATTN_TYPE_AUTO;
    // The application's own eval callback.
    if (countNodes || g_exit.token > 0) {
        cp.cb_eval = evalCallback;
        cp.cb_eval_user_data = nullptr;
    }
    llama_context *ctx = llama_init_from_model(m, cp);
    if (!ctx) {
        std::fprintf(stderr, "llmscope-sample-generate: cannot create a context\n");
        return 1;
    }
    // The program's abort callback, as a UI's stop button would install: ggml-cpu asks it after
    // every node it computes, and a true answer ends that graph compute.
    struct AbortOnce {
        bool armed = false;
        int calls = 0, after = 0;
    };
    static AbortOnce abortOnce;
    abortOnce.after = abortAfter;
    if (abortToken > 0)
        llama_set_abort_callback(
            ctx,
            [](void *) {
                if (!abortOnce.armed || ++abortOnce.calls < abortOnce.after)
                    return false;
                abortOnce.armed = false;
                return true;
            },
            nullptr);
    std::printf("device:");
    for (size_t i = 0; i + 1 < devices.size(); ++i)
        std::printf(" %s (%s)", ggml_backend_dev_name(devices[i]), ggml_backend_dev_description(devices[i]));
    std::printf("%sCPU\n", devices.empty() ? " " : ", ");
    const llama_vocab *vocab = llama_model_get_vocab(m);
    std::vector<llama_token> tokens(prompt.size() + 8);
    const int np = llama_tokenize(vocab, prompt.c_str(), int32_t(prompt.size()), tokens.data(), int32_t(tokens.size()),
                                  true, false);
    if (np < 1) {
        std::fprintf(stderr, "llmscope-sample-generate: cannot tokenize the prompt\n");
        return 1;
    }
    tokens.resize(size_t(np));
    const int perSequence = copyStreams ? ctxSize / 2 : ctxSize; // a stream holds its share of the context
    if (np + n > perSequence) {
        std::fprintf(stderr, "llmscope-sample-generate: %d prompt + %d new tokens exceed --ctx %d%s\n", np, n, ctxSize,
                     copyStreams ? " halved between two streams" : "");
        return 2;
    }
    std::printf("prompt_tokens:");
    for (auto t : tokens)
        std::printf(" %d", t);
    std::printf("\n");

    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < np; i += batch) {
        const int count = std::min(batch, np - i);
        if (llama_decode(ctx, llama_batch_get_one(tokens.data() + i, count)) != 0) {
            std::fprintf(stderr, "llmscope-sample-generate: prompt decode failed\n");
            return 1;
        }
    }
    const double prefillMs = msSince(t0);
    const int nVocab = llama_vocab_n_tokens(vocab);
    std::vector<llama_token> out;
    std::vector<float> last;
    std::vector<double> tokenMs;
    // After --seq-copy, generated tokens go one at a time into sequence 1.
    llama_batch one = llama_batch_init(1, 0, 1);
    one.n_tokens = 1;
    one.n_seq_id[0] = 1;
    one.logits[0] = true;
    llama_seq_id sequence = 0;
    // --temp: llama.cpp's sampler chain, as its tools build one
    llama_sampler *chain = nullptr;
    if (temp >= 0) {
        chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
        if (topK > 0)
            llama_sampler_chain_add(chain, llama_sampler_init_top_k(topK));
        llama_sampler_chain_add(chain, llama_sampler_init_temp(temp));
        llama_sampler_chain_add(chain, llama_sampler_init_dist(seed));
    }
    const auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        const float *logits = llama_get_logits_ith(ctx, -1);
        int best = 0;
        if (chain) {
            best = llama_sampler_sample(chain, ctx, -1);
        } else {
            for (int v = 1; v < nVocab; ++v)
                if (logits[v] > logits[best])
                    best = v;
        }
        out.push_back(best);
        if (i + 1 == n) {
            last.assign(logits, logits + nVocab);
            break;
        }
        if (i + 1 == holdAfter && !holdFile.empty()) {
            std::FILE *w = std::fopen((holdFile + ".waiting").c_str(), "w");
            if (w)
                std::fclose(w);
            for (int tries = 0; tries < 6000 && !std::filesystem::exists(holdFile); ++tries)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        llama_token tok = best;
        if (paceMs > 0) {
            std::printf("token: %d %d\n", i + 1, best);
            std::fflush(stdout);
            std::this_thread::sleep_for(std::chrono::milliseconds(paceMs));
        }
        const auto td = std::chrono::steady_clock::now();
        if (i + 1 == abortToken) {
            abortOnce.armed = true;
            const int rc = llama_decode(ctx, llama_batch_get_one(&tok, 1));
            if (rc != 2) {
                std::fprintf(stderr, "llmscope-sample-generate: the decode of token %d was not aborted (%d)\n",
                             abortToken, rc);
                return 1;
            }
            std::printf("aborted: token %d after %d nodes\n", abortToken, abortOnce.calls);
        }
        if (i + 1 == shiftToken) {
            llama_memory_t mem = llama_get_memory(ctx);
            const llama_pos end = llama_memory_seq_pos_max(mem, 0) + 1;
            if (end <= 1 + shiftCells || !llama_memory_can_shift(mem)) {
                std::fprintf(stderr, "llmscope-sample-generate: cannot shift %d cells of %d\n", shiftCells, end);
                return 1;
            }
            llama_memory_seq_rm(mem, 0, 1, 1 + shiftCells);
            llama_memory_seq_add(mem, 0, 1 + shiftCells, end, -shiftCells);
            std::printf("shifted: %d cells before token %d\n", shiftCells, shiftToken);
        }
        if (i + 1 == copyToken) {
            llama_memory_t mem = llama_get_memory(ctx);
            llama_memory_seq_cp(mem, 0, 1, -1, -1);
            llama_memory_seq_rm(mem, 0, -1, -1);
            sequence = 1;
            std::printf("copied: sequence 0 to 1 before token %d (%s)\n", copyToken,
                        copyStreams ? "streams" : "one cache");
        }
        g_exit.armed = i + 1 == g_exit.token;
        llama_batch next = llama_batch_get_one(&tok, 1);
        if (sequence != 0) { // llama_batch_get_one's tokens go to sequence 0
            one.token[0] = tok;
            one.pos[0] = llama_memory_seq_pos_max(llama_get_memory(ctx), sequence) + 1;
            one.seq_id[0][0] = sequence;
            next = one;
        }
        if (llama_decode(ctx, next) != 0) {
            std::fprintf(stderr, "llmscope-sample-generate: decode failed at token %d\n", i);
            return 1;
        }
        if (g_exit.armed) {
            std::fprintf(stderr, "llmscope-sample-generate: the decode of token %d had no %d-th node and output\n",
                         g_exit.token, g_exit.node);
            return 1;
        }
        if (tokenTimes)
            tokenMs.push_back(msSince(td));
    }
    const double decodeMs = msSince(t1);
    std::printf("tokens:");
    for (auto t : out)
        std::printf(" %d", t);
    std::printf("\n");
    std::printf("timing: prefill %d tokens %.3f ms, decode %d tokens %.3f ms, %.2f tokens/s\n", np, prefillMs, n - 1,
                decodeMs, n > 1 ? (n - 1) * 1000.0 / decodeMs : 0.0);
    if (tokenTimes) {
        std::printf("token_ms:");
        for (double ms : tokenMs)
            std::printf(" %.4f", ms);
        std::printf("\n");
    }
    if (countNodes)
        std::printf("eval_asks: %ld\n", g_evalAsks);
    if (printLogits) {
        std::printf("logits:");
        for (float v : last)
            std::printf(" %.9g", v);
        std::printf("\n");
    }
    llama_batch_free(one);
    if (chain)
        llama_sampler_free(chain);
    llama_free(ctx);
    llama_model_free(m);
    llama_backend_free();
    return 0;
}
