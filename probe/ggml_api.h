// The ggml functions the probe calls, resolved at run time from the host's own ggml (the
// probe is compiled against ggml's headers only and never linked against it).
#pragma once
#include <ggml-backend.h>
#include <ggml.h>

#include <string>
#include <vector>

#include "core/dump/probe_status.h"

namespace llmscope::probe {

struct GgmlApi {
    void (*setEvalCallback)(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *) = nullptr;
    ggml_status (*graphComputeAsync)(ggml_backend_sched_t, ggml_cgraph *) = nullptr;
    const char *(*getName)(const ggml_tensor *) = nullptr;
    const char *(*opDesc)(const ggml_tensor *) = nullptr;
    const char *(*typeName)(ggml_type) = nullptr;
    int64_t (*nelements)(const ggml_tensor *) = nullptr;
    size_t (*nbytes)(const ggml_tensor *) = nullptr;
    bool (*isContiguous)(const ggml_tensor *) = nullptr;
    void (*tensorGet)(const ggml_tensor *, void *, size_t, size_t) = nullptr;
    void (*tensorSet)(ggml_tensor *, const void *, size_t, size_t) = nullptr; // optional: --follow-tokens
    int (*graphNNodes)(ggml_cgraph *) = nullptr;
    ggml_tensor *(*graphNode)(ggml_cgraph *, int) = nullptr;
    // Optional: the probe works without them, with less.
    enum ggml_backend_buffer_usage (*bufferUsage)(ggml_backend_buffer_t) = nullptr;
    int (*schedNBackends)(ggml_backend_sched_t) = nullptr;
    ggml_backend_t (*schedBackend)(ggml_backend_sched_t, int) = nullptr;
    void (*schedFree)(ggml_backend_sched_t) = nullptr;
    ggml_threadpool_params (*paramsDefault)(int) = nullptr;
    void *(*regGetProcAddress)(ggml_backend_reg_t, const char *) = nullptr;
    bool (*bufferIsHost)(ggml_backend_buffer_t) = nullptr;
    bool (*bufferIsMulti)(ggml_backend_buffer_t) = nullptr;
    size_t (*bufferAlignment)(ggml_backend_buffer_t) = nullptr;
    const char *(*version)() = nullptr; // ggml_version, ggml_commit: ggml from 2025 on
    const char *(*commit)() = nullptr;
    const char *(*backendName)(ggml_backend_t) = nullptr;
    ggml_backend_t (*schedTensorBackend)(ggml_backend_sched_t, ggml_tensor *) = nullptr; // the one that runs a node
    // For capture after the whole graph: keep the wanted tensors, then read them.
    bool (*schedAllocGraph)(ggml_backend_sched_t, ggml_cgraph *) = nullptr;
    bool (*schedReserve)(ggml_backend_sched_t, ggml_cgraph *) = nullptr;
    void (*schedSynchronize)(ggml_backend_sched_t) = nullptr;
    // For keeping tensors on a scheduler with several backends (graph_snapshot.h): split and
    // plan the host's graph more than once, as if each time were the first.
    void (*schedReset)(ggml_backend_sched_t) = nullptr;
    void (*schedSetTensorBackend)(ggml_backend_sched_t, ggml_tensor *, ggml_backend_t) = nullptr;
    ggml_tensor **(*graphNodes)(ggml_cgraph *) = nullptr;
    // For reading a round's device tensors in one go (device_prefetch.h).
    void (*tensorGetAsync)(ggml_backend_t, const ggml_tensor *, void *, size_t, size_t) = nullptr;
    void (*backendSynchronize)(ggml_backend_t) = nullptr;
    ggml_backend_buffer_type_t (*backendDefaultBuft)(ggml_backend_t) = nullptr;
    ggml_backend_buffer_type_t (*bufferBuft)(ggml_backend_buffer_t) = nullptr;
    // A type's conversions (to_float for a quantized KV cache's rows).
    const ggml_type_traits *(*typeTraits)(ggml_type) = nullptr;

    bool complete() const;
    // The scheduler's only backend; null when it has several (or they cannot be asked for).
    ggml_backend_t soleBackend(ggml_backend_sched_t sched) const;
    // The name of the backend the scheduler runs node t on ("CPU", "Vulkan0"); null when unknown.
    const char *nodeBackendName(ggml_backend_sched_t sched, const ggml_tensor *t) const;
};

// The CPU backend's threadpool functions, which live only in the loaded libggml-cpu variant.
// All null when none is loaded or a function is missing.
struct GgmlCpuApi {
    bool (*isCpu)(ggml_backend_t) = nullptr;
    void (*setThreadpool)(ggml_backend_t, ggml_threadpool_t) = nullptr;
    ggml_threadpool_t (*threadpoolNew)(ggml_threadpool_params *) = nullptr;
    void (*threadpoolFree)(ggml_threadpool_t) = nullptr;
    ggml_threadpool_params (*paramsDefault)(int) = nullptr;
    bool complete() const { return isCpu && setThreadpool && threadpoolNew && threadpoolFree && paramsDefault; }
};

// Resolves every function from the object that defines the real scheduler (found with
// RTLD_NEXT, or by walking the loaded objects when the host loaded ggml RTLD_LOCAL).
// Thread-safe; resolved once.
const GgmlApi &ggml();
// The real definition of a symbol the probe also defines: RTLD_NEXT, else the first other
// loaded object that has it (hosts that load their engine RTLD_LOCAL). Null when absent.
void *findRealSymbol(const char *name);

// Looked up on first use (the CPU variant is loaded after the probe starts).
const GgmlCpuApi &ggmlCpu();

// The devices of the host's ggml registry (ggml_backend_dev_*), and the CPU backend's features
// as ggml reports them ("AVX2=1"); empty where the host's ggml has no registry. Call once the
// program has computed (its registry is built by then: asking never builds or loads one).
std::vector<BackendDevice> backendDevices();
std::vector<std::string> cpuFeatures();
// ggml's own version and commit ("0.9.4, commit 1a2b3c4"); "" for a ggml that does not say.
std::string ggmlVersion();

// Whether t's fields sit where the headers the probe was built with put them (its name and
// element count read through the host's ggml agree with the struct's).
bool layoutMatches(const ggml_tensor *t);

} // namespace llmscope::probe
