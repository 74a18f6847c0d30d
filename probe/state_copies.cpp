// Copies into the KV cache that no graph makes. llama.cpp copies one cache stream into another
// when a sequence is copied between parallel slots that have streams of their own
// (llama_memory_seq_cp, carried out with ggml_backend_tensor_copy at the next decode), and
// restores a saved state into the cache the same way: no round computes them, so no round's
// dump can hold them. The probe notes each copy whose destination is a
// KV cache tensor in the status (before which round, which cache, from which stream to which)
// and, after the copy has been made, reads back its source and destination and counts the rows
// that differ: the copy's own check, which a hunt reads where the cache changed between rounds.
// The copy itself is the program's, made first and untouched.
#include <cstring>
#include <string>
#include <vector>

#include "probe/capture.h"
#include "probe/ggml_api.h"
#include "probe/graph_topology.h"
#include "probe/probe.h"

namespace llmscope::probe {
namespace {

const ggml_tensor *baseOf(const ggml_tensor *t)
{
    return t->view_src ? t->view_src : t;
}

// Which of its cache's streams a view is (a cache of several streams: [width, cells, streams]).
int64_t streamOf(const ggml_tensor *view)
{
    const ggml_tensor *base = baseOf(view);
    if (base == view || base->ne[2] < 2 || base->nb[2] == 0)
        return -1;
    return int64_t(view->view_offs / base->nb[2]);
}

// A contiguous tensor's bytes (n: its ggml_nbytes); false where ggml cannot read them back.
bool readAll(const ggml_tensor *t, std::vector<uint8_t> &out, size_t n)
{
    if (!t->data || !isReadable(t))
        return false;
    out.resize(n);
    copyDense(t, out.data());
    return true;
}

StateCopy describe(const ggml_tensor *src, const ggml_tensor *dst)
{
    const GgmlApi &api = ggml();
    StateCopy c;
    c.beforeRound = Probe::get().upcomingRound();
    c.cache = api.getName(baseOf(dst));
    c.fromStream = baseOf(src) == baseOf(dst) ? streamOf(src) : -1;
    c.toStream = streamOf(dst);
    c.bytes = api.nbytes(dst);
    return c;
}

// Row by row, the destination against its source (both contiguous, as the copy requires).
void check(const ggml_tensor *src, const ggml_tensor *dst, StateCopy &c)
{
    const GgmlApi &api = ggml();
    const size_t row = size_t(dst->nb[1]);
    if (row == 0 || c.bytes % row != 0 || api.nbytes(src) != c.bytes || !api.isContiguous(src) ||
        !api.isContiguous(dst))
        return;
    std::vector<uint8_t> a, b;
    if (!readAll(src, a, c.bytes) || !readAll(dst, b, c.bytes))
        return;
    c.rows = c.bytes / row;
    for (uint64_t r = 0; r < c.rows; ++r)
        if (std::memcmp(a.data() + r * row, b.data() + r * row, row) != 0) {
            if (c.firstDiffering < 0)
                c.firstDiffering = int64_t(r);
            ++c.rowsDiffering;
        }
    c.checked = true;
}

} // namespace
} // namespace llmscope::probe

#define LLMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

LLMSCOPE_EXPORT void ggml_backend_tensor_copy(const ggml_tensor *src, ggml_tensor *dst)
{
    using namespace llmscope::probe;
    using Fn = void (*)(const ggml_tensor *, ggml_tensor *);
    static const Fn real = reinterpret_cast<Fn>(findRealSymbol("ggml_backend_tensor_copy"));
    if (!real)
        return; // cannot happen in a program that calls it: its ggml defines it
    real(src, dst);
    Probe &p = Probe::get();
    if (!p.active() || !src || !dst || src == dst || !ggml().complete() || !layoutMatches(dst) || !layoutMatches(src) ||
        !isKvCache(dst))
        return;
    try {
        llmscope::StateCopy c = describe(src, dst);
        check(src, dst, c);
        p.noteStateCopy(std::move(c));
    } catch (...) { // never into the host
    }
}
