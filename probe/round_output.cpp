#include "round_output.h"

#include <unistd.h>

#include <vector>

#include "capture.h"
#include "dump/output_record.h"
#include "ggml_api.h"
#include "probe.h"
#include "tensor/stats.h"

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
    if (!last || !p.writer() || !isReadable(last))
        return false;
    const uint64_t bytes = denseBytes(last);
    if (bytes == 0 || bytes > kMaxBytes)
        return false;
    Tensor t = describe(last, true);
    static thread_local std::vector<uint8_t> buf;
    buf.resize(bytes);
    copyDense(last, buf.data());
    uint64_t elements = 1;
    for (int64_t d : t.dims)
        elements *= uint64_t(d);
    const auto stats = computeStats(t.dtype, buf.data(), elements);
    if (!stats)
        return false;
    OutputRecord r;
    r.name = api.getName(last);
    r.dtype = api.typeName(last->type);
    r.dims = t.dims;
    r.stats = *stats;
    p.writer()->submitText(outputRecordPath(::getpid(), round), outputRecordJson(round, r));
    return true;
}

} // namespace llmscope::probe
