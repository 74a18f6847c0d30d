#include "probe/decode_batches.h"

#include <algorithm>

#include "probe/ggml_api.h"
#include "probe/probe.h"

struct llama_context;

// llama.h's llama_batch: its seven fields since llama.cpp's batch API began (2023); until
// October 2024 three more followed (all_pos_0, all_pos_1, all_seq_id), which an older
// llama_batch_get_one relied on. The batch is passed by value, so the wrapper declares the
// longer form and passes on every byte it was given: a program built against the shorter one
// leaves the last 16 bytes of its argument area unread by its llama.cpp, and the wrapper reads
// only the first seven fields.
struct llama_batch {
    int32_t n_tokens;
    int32_t *token;
    float *embd;
    int32_t *pos;
    int32_t *n_seq_id;
    int32_t **seq_id;
    int8_t *logits;
    int32_t olderAllPos0, olderAllPos1, olderAllSeqId; // before llama.cpp #9745
};

namespace llmscope::probe {
namespace {

// The batch this thread is decoding: copied on entry (a few integers a token), cleared on return.
struct Decoding {
    bool active = false;
    std::vector<int32_t> token, pos, seq; // pos empty: llama.cpp numbers them itself
    std::vector<char> taken;
    size_t first = 0; // entries before it are all taken
};
thread_local Decoding t_decoding;

void noteBatch(const llama_batch &b)
{
    Decoding &d = t_decoding;
    const size_t n = size_t(b.n_tokens);
    d.token.assign(b.token, b.token + n);
    d.pos.clear();
    if (b.pos)
        d.pos.assign(b.pos, b.pos + n);
    d.seq.assign(n, 0); // llama.cpp's default: sequence 0
    if (b.seq_id && b.n_seq_id)
        for (size_t i = 0; i < n; ++i)
            if (b.n_seq_id[i] > 0 && b.seq_id[i])
                d.seq[i] = b.seq_id[i][0];
    d.taken.assign(n, 0);
    d.first = 0;
    d.active = true;
}

} // namespace

std::vector<int32_t> sequencesOfRound(const std::vector<int32_t> &tokens, const std::vector<int32_t> &positions)
{
    Decoding &d = t_decoding;
    if (!d.active || tokens.empty())
        return {};
    std::vector<int32_t> out;
    out.reserve(tokens.size());
    const size_t n = d.token.size();
    for (size_t i = 0; i < tokens.size(); ++i) {
        const bool withPos = !d.pos.empty() && positions.size() == tokens.size();
        size_t j = d.first;
        while (j < n && (d.taken[j] || d.token[j] != tokens[i] || (withPos && d.pos[j] != positions[i])))
            ++j;
        if (j == n)
            return {}; // not this batch's tokens: unknown rather than guessed
        d.taken[j] = 1;
        out.push_back(d.seq[j]);
    }
    while (d.first < n && d.taken[d.first])
        ++d.first;
    return out;
}

} // namespace llmscope::probe

using namespace llmscope::probe;

// Forwards, noting the batch only while the probe is on and the batch holds token ids.
extern "C" __attribute__((visibility("default"))) int32_t llama_decode(llama_context *ctx, llama_batch batch)
{
    using Fn = int32_t (*)(llama_context *, llama_batch);
    static const Fn real = reinterpret_cast<Fn>(findRealSymbol("llama_decode"));
    if (!real)
        return -1; // cannot happen in a program that calls it through llama.cpp
    struct Noted { // cleared however the call ends
        ~Noted() { t_decoding.active = false; }
    } noted;
    try {
        if (batch.token && batch.n_tokens > 0 && Probe::get().active())
            noteBatch(batch);
    } catch (...) { // out of memory: the rounds record no sequences, the program decodes as ever
        t_decoding.active = false;
    }
    return real(ctx, batch);
}
