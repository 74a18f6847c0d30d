#include "probe/round_output.h"

#include "probe/capture.h"
#include "probe/ggml_api.h"
#include "probe/probe.h"

namespace llmscope::probe {

bool computesSynchronously(ggml_backend_sched_t sched)
{
    const ggml_backend_t backend = ggml().soleBackend(sched);
    const GgmlCpuApi &cpu = ggmlCpu();
    return backend && cpu.isCpu && cpu.isCpu(backend);
}

bool recordRoundOutput(Probe &p, int64_t round, const ggml_tensor *last)
{
    constexpr uint64_t kMaxBytes = 64ull << 20; // a prompt's logits of every token at most
    const GgmlApi &api = ggml();
    if (!last || !last->data || !p.writer() || !isReadable(last))
        return false;
    const uint64_t bytes = denseBytes(last);
    if (bytes == 0 || bytes > kMaxBytes)
        return false;
    Tensor t = describe(last, true);
    t.data.resize(bytes); // one copy here; the statistics are the writer thread's
    copyDense(last, t.data.data());
    t.hasData = true;
    OutputRecord r;
    r.name = api.getName(last);
    r.dtype = api.typeName(last->type);
    r.dims = t.dims;
    p.writer()->submitOutput(round, std::move(r), std::move(t));
    return true;
}

} // namespace llmscope::probe
