// The ggml functions the probe calls, resolved at run time from the host's own ggml (the
// probe is compiled against ggml's headers only and never linked against it).
#pragma once
#include <ggml-backend.h>
#include <ggml.h>

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
    int (*graphNNodes)(ggml_cgraph *) = nullptr;
    ggml_tensor *(*graphNode)(ggml_cgraph *, int) = nullptr;

    bool complete() const;
};

// Resolves every function from the object that defines the real scheduler (found with
// RTLD_NEXT, or by walking the loaded objects when the host loaded ggml RTLD_LOCAL).
// Thread-safe; resolved once.
const GgmlApi &ggml();

} // namespace llmscope::probe
