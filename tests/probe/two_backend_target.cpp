// A target whose ggml scheduler has two backends, as a GPU run has: a second device whose
// memory the CPU backend cannot use (its buffers say they are not host memory), so ggml's
// scheduler splits the graph and copies inputs between the devices. The device computes on
// the CPU backend underneath (its memory is host memory after all). The weights live on it;
// the input x is computed on the CPU, as llama.cpp computes token embeddings there.
// With --imprecise OP, the device rounds the outputs of its OP nodes (RMS_NORM, MUL_MAT, ...)
// through float16 (or bfloat16) after computing them: a kernel that is wrong given right inputs.
// As hosts differ: --reuse-memory builds every round's graph in one block of memory (llama.cpp
// rebuilds its graph in place), --no-sync never waits for the scheduler (the result is read
// from the device's memory, which the CPU computed synchronously), --implicit never calls
// alloc_graph (the scheduler allocates inside its compute; x then lives in a buffer of its own).
//   llmscope-two-backend-target [ROUNDS] [--imprecise OP [f16|bf16]] [--reuse-memory] [--no-sync] [--implicit]
// prints "out: ..." (the last round's output) and "rounds: N".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <libgen.h>

#include <ggml-alloc.h>
#include <ggml-backend-impl.h>
#pragma GCC diagnostic push // ggml's internal header defines helpers this target does not call
#pragma GCC diagnostic ignored "-Wunused-function"
#include <ggml-impl.h> // ggml_graph_view: one node of a graph
#pragma GCC diagnostic pop
#include <ggml-backend.h>
#include <ggml.h>

namespace {

ggml_backend_t g_cpu = nullptr; // computes for the device
const char *g_imprecise = nullptr; // the op whose outputs the device rounds through float16
bool g_bf16 = false; // through bfloat16 instead

// --- buffers: plain memory that calls itself device memory
void bufFree(ggml_backend_buffer_t b)
{
    std::free(b->context);
}
void *bufBase(ggml_backend_buffer_t b)
{
    return b->context;
}
void bufMemset(ggml_backend_buffer_t, ggml_tensor *t, uint8_t v, size_t off, size_t n)
{
    std::memset(static_cast<char *>(t->data) + off, v, n);
}
void bufSet(ggml_backend_buffer_t, ggml_tensor *t, const void *d, size_t off, size_t n)
{
    std::memcpy(static_cast<char *>(t->data) + off, d, n);
}
void bufGet(ggml_backend_buffer_t, const ggml_tensor *t, void *d, size_t off, size_t n)
{
    std::memcpy(d, static_cast<const char *>(t->data) + off, n);
}
bool bufCpy(ggml_backend_buffer_t, const ggml_tensor *, ggml_tensor *)
{
    return false;
}
void bufClear(ggml_backend_buffer_t b, uint8_t v)
{
    std::memset(b->context, v, b->size);
}

const char *buftName(ggml_backend_buffer_type_t)
{
    return "Sim";
}
ggml_backend_buffer_t buftAlloc(ggml_backend_buffer_type_t buft, size_t size)
{
    void *mem = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    ggml_backend_buffer_i i{};
    i.free_buffer = bufFree;
    i.get_base = bufBase;
    i.memset_tensor = bufMemset;
    i.set_tensor = bufSet;
    i.get_tensor = bufGet;
    i.cpy_tensor = bufCpy;
    i.clear = bufClear;
    return ggml_backend_buffer_init(buft, i, mem, size);
}
size_t buftAlign(ggml_backend_buffer_type_t)
{
    return 64;
}
bool buftIsHost(ggml_backend_buffer_type_t)
{
    return false;
}

ggml_backend_buffer_type g_buft{{buftName, buftAlloc, buftAlign, nullptr, nullptr, buftIsHost}, nullptr, nullptr};

// --- the backend: the CPU backend computes its graphs
const char *backendName(ggml_backend_t)
{
    return "Sim";
}
void backendFree(ggml_backend_t) {}
ggml_status backendCompute(ggml_backend_t, ggml_cgraph *g)
{
    if (!g_imprecise)
        return ggml_backend_graph_compute(g_cpu, g);
    // A kernel that rounds its output as it writes it: each node is computed and rounded
    // before the next one reads it, however much of the graph the scheduler hands over.
    for (int i = 0; i < ggml_graph_n_nodes(g); ++i) {
        ggml_cgraph one = ggml_graph_view(g, i, i + 1);
        if (const ggml_status status = ggml_backend_graph_compute(g_cpu, &one); status != GGML_STATUS_SUCCESS)
            return status;
        ggml_tensor *t = ggml_graph_node(g, i);
        if (t->type != GGML_TYPE_F32 || std::strcmp(ggml_op_name(t->op), g_imprecise) != 0 || !ggml_is_contiguous(t))
            continue;
        auto *v = static_cast<float *>(t->data);
        for (int64_t k = 0; k < ggml_nelements(t); ++k)
            v[k] = g_bf16 ? ggml_bf16_to_fp32(ggml_fp32_to_bf16(v[k])) : ggml_fp16_to_fp32(ggml_fp32_to_fp16(v[k]));
    }
    return GGML_STATUS_SUCCESS;
}

// --- the device
const char *devName(ggml_backend_dev_t)
{
    return "Sim";
}
void devMemory(ggml_backend_dev_t, size_t *free, size_t *total)
{
    *free = *total = size_t(1) << 30;
}
enum ggml_backend_dev_type devType(ggml_backend_dev_t)
{
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}
void devProps(ggml_backend_dev_t d, ggml_backend_dev_props *p)
{
    std::memset(p, 0, sizeof(*p));
    p->name = p->description = devName(d);
    p->type = GGML_BACKEND_DEVICE_TYPE_GPU;
    devMemory(d, &p->memory_free, &p->memory_total);
}
ggml_backend_buffer_type_t devBuft(ggml_backend_dev_t)
{
    return &g_buft;
}
bool devSupportsOp(ggml_backend_dev_t, const ggml_tensor *)
{
    return true;
}
bool devSupportsBuft(ggml_backend_dev_t, ggml_backend_buffer_type_t b)
{
    return b == &g_buft;
}
bool devOffload(ggml_backend_dev_t, const ggml_tensor *)
{
    return false;
}

ggml_backend_device g_dev{};
ggml_backend g_sim{};

ggml_backend_t simInit()
{
    g_dev.iface.get_name = devName;
    g_dev.iface.get_description = devName;
    g_dev.iface.get_memory = devMemory;
    g_dev.iface.get_type = devType;
    g_dev.iface.get_props = devProps;
    g_dev.iface.get_buffer_type = devBuft;
    g_dev.iface.supports_op = devSupportsOp;
    g_dev.iface.supports_buft = devSupportsBuft;
    g_dev.iface.offload_op = devOffload;
    g_buft.device = &g_dev;
    static ggml_guid guid = {0x6c, 0x6c, 0x6d, 0x73, 0x63, 0x6f, 0x70, 0x65, 0x2d, 0x73, 0x69, 0x6d, 0, 0, 0, 1};
    g_sim.guid = &guid;
    g_sim.iface.get_name = backendName;
    g_sim.iface.free = backendFree;
    g_sim.iface.graph_compute = backendCompute;
    g_sim.device = &g_dev;
    return &g_sim;
}

float value(int i, int salt)
{
    return float((i * 37 + salt * 11) % 23 - 11) / 16.0f;
}

} // namespace

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
    if (argc > 3 && std::strcmp(argv[2], "--imprecise") == 0)
        g_imprecise = argv[3];
    g_bf16 = argc > 4 && std::strcmp(argv[4], "bf16") == 0;
    bool reuseMemory = false, noSync = false, implicit = false;
    for (int a = 2; a < argc; ++a) {
        reuseMemory |= std::strcmp(argv[a], "--reuse-memory") == 0;
        noSync |= std::strcmp(argv[a], "--no-sync") == 0;
        implicit |= std::strcmp(argv[a], "--implicit") == 0;
    }
    constexpr int n = 64;
    // The CPU backends (libggml-cpu-*.so) live beside libggml.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&ggml_backend_load_all), &info) && info.dli_fname) {
        std::string path = info.dli_fname;
        ggml_backend_load_all_from_path(dirname(path.data()));
    }
    g_cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    if (!g_cpu) {
        std::fprintf(stderr, "two-backend target: no CPU backend\n");
        return 1;
    }
    ggml_backend_set_n_threads_t setThreads = nullptr;
    if (ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(g_cpu)))
        setThreads = reinterpret_cast<ggml_backend_set_n_threads_t>(
            ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads"));
    if (setThreads)
        setThreads(g_cpu, 1);
    ggml_backend_t sim = simInit();

    // Weights on the device.
    ggml_init_params wp{4 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *wctx = ggml_init(wp);
    ggml_tensor *wNorm = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, n);
    ggml_set_name(wNorm, "norm.weight");
    ggml_tensor *wUp = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, n, n);
    ggml_set_name(wUp, "up.weight");
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, &g_buft);
    ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    std::vector<float> host(n * n);
    for (int i = 0; i < n; ++i)
        host[size_t(i)] = 1.0f + value(i, 1) / 4;
    ggml_backend_tensor_set(wNorm, host.data(), 0, n * sizeof(float));
    for (int i = 0; i < n * n; ++i)
        host[size_t(i)] = value(i, 2) / 8;
    ggml_backend_tensor_set(wUp, host.data(), 0, n * n * sizeof(float));

    ggml_backend_t backends[2] = {sim, g_cpu};
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, nullptr, 2, 64, false, false);
    ggml_backend_sched_set_eval_callback(sched, nullptr, nullptr); // as llama.cpp does for every context
    std::vector<float> out(n);
    // --implicit: the input in a buffer of its own, set before the scheduler allocates the graph
    ggml_init_params xp{2 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *xctx = ggml_init(xp);
    ggml_tensor *ownX = ggml_new_tensor_1d(xctx, GGML_TYPE_F32, n);
    ggml_set_name(ownX, "x");
    ggml_backend_buffer_t xbuf =
        implicit ? ggml_backend_alloc_ctx_tensors_from_buft(xctx, ggml_backend_cpu_buffer_type()) : nullptr;
    std::vector<char> block(64 * ggml_tensor_overhead() + ggml_graph_overhead());
    for (int r = 0; r < rounds; ++r) {
        // A new graph every round, as llama.cpp builds one per decode.
        ggml_backend_sched_reset(sched);
        ggml_init_params gp{block.size(), reuseMemory ? block.data() : nullptr, true};
        ggml_context *ctx = ggml_init(gp);
        ggml_tensor *x = ownX;
        if (!implicit) {
            x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
            ggml_set_name(x, "x");
            ggml_set_input(x);
        }
        ggml_tensor *embd = ggml_scale(ctx, x, 0.5f); // computed on the CPU, like get_rows
        ggml_set_name(embd, "inp_embd");
        ggml_backend_sched_set_tensor_backend(sched, embd, g_cpu);
        ggml_tensor *norm = ggml_rms_norm(ctx, embd, 1e-5f);
        ggml_set_name(norm, "norm-0");
        ggml_tensor *scaled = ggml_mul(ctx, norm, wNorm);
        ggml_set_name(scaled, "attn_norm-0");
        ggml_tensor *up = ggml_mul_mat(ctx, wUp, scaled);
        ggml_set_name(up, "ffn_up-0");
        ggml_tensor *res = ggml_add(ctx, up, embd);
        ggml_set_name(res, "l_out-0");
        ggml_set_output(res);
        ggml_cgraph *gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, res);
        if (!implicit && !ggml_backend_sched_alloc_graph(sched, gf)) {
            std::fprintf(stderr, "two-backend target: allocation failed\n");
            return 1;
        }
        for (int i = 0; i < n; ++i)
            host[size_t(i)] = value(i, 3 + r);
        ggml_backend_tensor_set(x, host.data(), 0, n * sizeof(float));
        if (ggml_backend_sched_graph_compute_async(sched, gf) != GGML_STATUS_SUCCESS) {
            std::fprintf(stderr, "two-backend target: compute failed\n");
            return 1;
        }
        if (!noSync)
            ggml_backend_sched_synchronize(sched);
        ggml_backend_tensor_get(res, out.data(), 0, n * sizeof(float));
        ggml_free(ctx);
    }
    std::printf("splits: %d\n", ggml_backend_sched_get_n_splits(sched));
    std::printf("out:");
    for (float v : out)
        std::printf(" %.9g", v);
    std::printf("\nrounds: %d\n", rounds);
    ggml_backend_sched_free(sched);
    if (xbuf)
        ggml_backend_buffer_free(xbuf);
    ggml_free(xctx);
    ggml_backend_buffer_free(wbuf);
    ggml_free(wctx);
    ggml_backend_free(g_cpu);
    return 0;
}
