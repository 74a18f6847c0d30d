// The model files a llama.cpp program loads, noted in the status file: compare reads weights
// from them where the backend cannot give them back as stored (repacked CPU buffers, device
// memory, quantized blocks in a statistics-only dump). Only the paths are noted; the program's
// load goes on untouched.
#include <climits>
#include <cstdlib>
#include <string>

#include <llama.h>

#include "ggml_api.h"
#include "probe.h"

#define LLMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void note(const char *path)
{
    if (!path)
        return;
    try {
        char resolved[PATH_MAX];
        llmscope::probe::Probe::get().noteModel(::realpath(path, resolved) ? resolved : path);
    } catch (...) { // never into the host
    }
}

template <typename Fn> Fn real(const char *name)
{
    return reinterpret_cast<Fn>(llmscope::probe::findRealSymbol(name));
}

} // namespace

LLMSCOPE_EXPORT llama_model *llama_model_load_from_file(const char *path, llama_model_params params)
{
    using Fn = llama_model *(*)(const char *, llama_model_params);
    static const Fn fn = real<Fn>("llama_model_load_from_file");
    if (!fn)
        return nullptr; // cannot happen in a program that calls it: its libllama defines it
    llama_model *m = fn(path, params);
    if (m)
        note(path);
    return m;
}

LLMSCOPE_EXPORT llama_model *llama_model_load_from_splits(const char **paths, size_t n, llama_model_params params)
{
    using Fn = llama_model *(*)(const char **, size_t, llama_model_params);
    static const Fn fn = real<Fn>("llama_model_load_from_splits");
    if (!fn)
        return nullptr;
    llama_model *m = fn(paths, n, params);
    for (size_t i = 0; m && paths && i < n; ++i)
        note(paths[i]);
    return m;
}
