// The program's sampling settings. Nothing of them reaches a graph: a program builds its
// samplers through llama.cpp's llama_sampler_init_* and llama.cpp applies them to the logits on
// the host. The probe forwards each call and notes what it asked for, in the order first made
// (the run configuration's "sampling" group: config-diff tells two runs' samplers apart). A
// program that samples by itself, or links llama.cpp statically, notes none.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "probe/ggml_api.h"
#include "probe/probe.h"

struct llama_sampler;

namespace llmscope::probe {
namespace {

std::string num(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

void note(const std::string &setting)
{
    Probe &p = Probe::get();
    if (p.active())
        p.noteSampler(setting);
}

// The real function, looked up once.
template <typename Fn>
Fn real(const char *name)
{
    return reinterpret_cast<Fn>(findRealSymbol(name));
}

} // namespace
} // namespace llmscope::probe

using namespace llmscope::probe;

#define LLMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

// Each: forward, then note. A missing real function (cannot happen in a program that calls it
// through llama.cpp) gives no sampler, as llama.cpp would give none on failure. Only the
// constructors whose parameters have not changed since llama.cpp's sampler API began (2024) are
// wrapped: a wrapper passes on exactly the parameters it declares, so one whose signature moved
// between versions (penalties, and grammar's strings) would hand a program built against another
// version something else than it passed. Those, and the later xtc and top_n_sigma, are not
// recorded.
#define LLMSCOPE_SAMPLER(NAME, PARAMS, ARGS, WORDS)                                                                    \
    LLMSCOPE_EXPORT llama_sampler *llama_sampler_init_##NAME PARAMS                                                    \
    {                                                                                                                  \
        using Fn = llama_sampler *(*)PARAMS;                                                                           \
        static const Fn f = real<Fn>("llama_sampler_init_" #NAME);                                                     \
        llama_sampler *s = f ? f ARGS : nullptr;                                                                       \
        if (s)                                                                                                         \
            note(WORDS);                                                                                               \
        return s;                                                                                                      \
    }

LLMSCOPE_SAMPLER(greedy, (void), (), std::string("greedy"))
LLMSCOPE_SAMPLER(dist, (uint32_t seed), (seed), "dist seed " + std::to_string(seed))
LLMSCOPE_SAMPLER(top_k, (int32_t k), (k), "top_k " + std::to_string(k))
LLMSCOPE_SAMPLER(top_p, (float p, size_t min_keep), (p, min_keep),
                 "top_p " + num(p) + " min_keep " + std::to_string(min_keep))
LLMSCOPE_SAMPLER(min_p, (float p, size_t min_keep), (p, min_keep),
                 "min_p " + num(p) + " min_keep " + std::to_string(min_keep))
LLMSCOPE_SAMPLER(typical, (float p, size_t min_keep), (p, min_keep),
                 "typical " + num(p) + " min_keep " + std::to_string(min_keep))
LLMSCOPE_SAMPLER(temp, (float t), (t), "temp " + num(t))
LLMSCOPE_SAMPLER(temp_ext, (float t, float delta, float exponent), (t, delta, exponent),
                 "temp_ext " + num(t) + " delta " + num(delta) + " exponent " + num(exponent))
LLMSCOPE_SAMPLER(mirostat, (int32_t n_vocab, uint32_t seed, float tau, float eta, int32_t m),
                 (n_vocab, seed, tau, eta, m),
                 "mirostat seed " + std::to_string(seed) + " tau " + num(tau) + " eta " + num(eta) + " m " +
                     std::to_string(m))
LLMSCOPE_SAMPLER(mirostat_v2, (uint32_t seed, float tau, float eta), (seed, tau, eta),
                 "mirostat_v2 seed " + std::to_string(seed) + " tau " + num(tau) + " eta " + num(eta))
