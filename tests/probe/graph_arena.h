// Places a graph's nodes in one pretend backend buffer, each node its own bytes and each view at
// its source's: what a backend's memory checks look at (whether a fused chain's result would
// overwrite a source it still reads), without a backend. Tests move a node onto another's bytes.
#pragma once
#include <ggml.h>

inline void placeInOneBuffer(ggml_cgraph *gf)
{
    alignas(64) static char arena[1 << 18];
    auto *buffer = reinterpret_cast<struct ggml_backend_buffer *>(&arena[0]);
    size_t offset = 0;
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) {
        ggml_tensor *t = ggml_graph_node(gf, i);
        t->buffer = buffer;
        if (!t->view_src) {
            t->data = arena + offset;
            offset += (ggml_nbytes(t) + 63) / 64 * 64;
        } else {
            t->data = static_cast<char *>(t->view_src->data) + t->view_offs;
        }
    }
}
