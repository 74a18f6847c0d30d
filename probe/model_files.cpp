// The model files a ggml program opens, noted in the status file: compare reads weights from
// them where the backend cannot give them back as stored (repacked CPU buffers, device memory,
// quantized blocks in a statistics-only dump). llama.cpp's loader opens every model file and
// split through ggml's gguf_init_from_file, whose small parameter struct has stayed the same
// across versions (llama_model_params has not). Only the path is noted; the call goes on
// untouched.
#include <climits>
#include <cstdlib>
#include <string>

#include <gguf.h>

#include "probe/ggml_api.h"
#include "probe/probe.h"

#define LLMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

LLMSCOPE_EXPORT gguf_context *gguf_init_from_file(const char *path, gguf_init_params params)
{
    using Fn = gguf_context *(*)(const char *, gguf_init_params);
    static const Fn real = reinterpret_cast<Fn>(llmscope::probe::findRealSymbol("gguf_init_from_file"));
    if (!real)
        return nullptr; // cannot happen in a program that calls it: its ggml defines it
    gguf_context *ctx = real(path, params);
    if (ctx && path) {
        try {
            char resolved[PATH_MAX];
            llmscope::probe::Probe::get().noteModel(::realpath(path, resolved) ? resolved : path);
        } catch (...) { // never into the host
        }
    }
    return ctx;
}
