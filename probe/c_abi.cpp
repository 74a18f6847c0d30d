// The probe's C ABI (llmscope_probe.h) for engines that report their own operations: the
// same selection, writer and status as the ggml path, with one round open at a time.
#include <cstring>

#include "core/dump/dump_layout.h"
#include "probe/op_info.h"
#include "probe/probe.h"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include "core/tensor/dtype.h"
#include "core/util/text.h"

#define LLMSCOPE_PROBE_API extern "C" __attribute__((visibility("default")))
#include "probe/llmscope_probe.h"

namespace llmscope::probe {
namespace {

struct AbiRound {
    int64_t round = -1;
    bool open = false, dumping = false;
    std::shared_ptr<const Selection> selection;
    std::vector<TensorJob> pending;
    std::unordered_map<std::string, bool> ops; // op path -> selected, this round
    // --type op/kernel, -tiling: what each selected op reported this round, in order.
    bool info = false;
    struct Tensor {
        bool input = false;
        int index = 0;
        std::string dtype, shape, file;
    };
    struct OpRecord {
        std::vector<std::string> folders;
        std::string type, backend, params;
        std::vector<Tensor> tensors;
    };
    std::vector<std::string> infoOrder;
    std::unordered_map<std::string, OpRecord> infos;
    OpRecord &record(const std::string &path, const std::vector<std::string> &folders, const std::string &type)
    {
        auto [it, added] = infos.try_emplace(path);
        if (added) {
            infoOrder.push_back(path);
            it->second.folders = folders;
            it->second.type = type;
        }
        return it->second;
    }
};
AbiRound &abi()
{
    static AbiRound *r = new AbiRound;
    return *r;
}

// An op path "2_Decoder/1_Linear": its folders, and each level's full id and op type.
struct OpPath {
    std::vector<std::string> folders, ids, types;
};

bool parsePath(const char *path, OpPath &out)
{
    if (!path || !*path || std::strlen(path) > 4096)
        return false;
    out.folders = split(path, '/');
    for (const auto &f : out.folders) {
        const auto op = parseOpFolder(f);
        if (!op)
            return false;
        out.ids.push_back((out.ids.empty() ? "" : out.ids.back() + "_") + std::to_string(op->index));
        out.types.push_back(op->name);
    }
    return !out.folders.empty();
}

bool isJsonObject(const char *text)
{
    try {
        return nlohmann::json::parse(text).is_object();
    } catch (const nlohmann::json::exception &) {
        return false;
    }
}

bool selects(const Selection &sel, const OpPath &p)
{
    std::vector<Selection::OpRef> path;
    for (size_t i = 0; i < p.ids.size(); ++i)
        path.push_back({p.ids[i], p.types[i]});
    return sel.selectsOpPath(path);
}

// The round's op and kernel rows, and op_param.json beside each op's tensors (-tiling).
void writeInfos(Probe &p, AbiRound &r)
{
    const ProbeConfig &c = p.config();
    const OpInfoWanted what{c.opInfo, c.kernelInfo, c.tiling};
    std::vector<OpInfoRow> rows;
    for (const std::string &path : r.infoOrder) {
        const AbiRound::OpRecord &o = r.infos[path];
        OpInfoRow row;
        row.caseName = path;
        row.opName = o.type;
        row.opParam = o.params.empty() ? "{}" : o.params;
        for (const auto &t : o.tensors) {
            (t.input ? row.inDtypes : row.outDtypes).push_back(t.dtype);
            (t.input ? row.inFormats : row.outFormats).push_back("ND");
            (t.input ? row.inShapes : row.outShapes).push_back(t.shape);
            if (!t.file.empty())
                (t.input ? row.inFiles : row.outFiles).push_back(t.file);
        }
        std::string id;
        for (const auto &f : o.folders)
            id += (id.empty() ? "" : "_") + std::to_string(parseOpFolder(f)->index);
        row.fromModel = id;
        row.socVersion = o.backend.empty() ? "unknown" : o.backend;
        if (what.tiling)
            submitOpParam(p, r.round, o.folders, id, o.type, row.opParam);
        rows.push_back(std::move(row));
    }
    if (what.op || what.kernel)
        submitOpInfoRows(p, r.round, std::move(rows), what);
}

void closeRound(Probe &p, AbiRound &r)
{
    if (!r.open)
        return;
    if (r.info)
        writeInfos(p, r);
    uint64_t selected = 0;
    for (const auto &[path, sel] : r.ops)
        selected += sel;
    p.handOver(r.pending);
    p.noteRound(r.round, r.dumping, r.ops.size(), selected);
    r.open = false;
}

} // namespace
} // namespace llmscope::probe

using namespace llmscope;
using namespace llmscope::probe;

int llmscope_probe_version(void)
{
    return Probe::get().active() ? LLMSCOPE_PROBE_ABI_VERSION : 0;
}

int64_t llmscope_probe_begin_round(void)
{
    Probe &p = Probe::get();
    if (!p.active())
        return -1;
    try {
        std::lock_guard lock(p.mutex);
        AbiRound &r = abi();
        closeRound(p, r); // a round left open ends here
        const ProbeConfig &c = p.config();
        r.round = p.takeRound();
        if (p.liveWanted())
            p.startLive("c-abi", "");
        r.selection = p.selectionForRound(r.round);
        r.dumping =
            (c.tensors || c.stats || c.descOnly) && r.selection->selectsRound(r.round) && r.selection->selectsDevice(0);
        r.ops.clear();
        r.info = (c.opInfo || c.kernelInfo || c.tiling) && r.selection->selectsRound(r.round) &&
            r.selection->selectsDevice(0);
        r.infos.clear();
        r.infoOrder.clear();
        r.open = true;
        return r.round;
    } catch (const std::exception &e) {
        p.disable(std::string("begin_round failed: ") + e.what());
        return -1;
    }
}

int llmscope_probe_wants(const char *opPath, int before, int input)
{
    Probe &p = Probe::get();
    if (!p.active())
        return 0;
    OpPath path;
    if (!parsePath(opPath, path)) {
        p.warn(std::string("llmscope_probe_wants: '") + (opPath ? opPath : "(null)") +
               "' is not an op path like 2_Decoder/1_Linear");
        return -1;
    }
    std::lock_guard lock(p.mutex);
    AbiRound &r = abi();
    if (!r.open || !r.dumping)
        return 0;
    return selects(*r.selection, path) && r.selection->wantsTensor(before != 0, input != 0);
}

int llmscope_probe_tensor(const char *opPath, int before, int input, int index, int dtype, const int64_t *dims,
                          int ndims, const void *data, size_t bytes)
{
    Probe &p = Probe::get();
    if (!p.active())
        return 0;
    OpPath path;
    if (!parsePath(opPath, path) || index < 0 || ndims < 0 || ndims > 16 || (ndims && !dims)) {
        p.warn(std::string("llmscope_probe_tensor: bad arguments for '") + (opPath ? opPath : "(null)") + "'");
        return -1;
    }
    uint64_t n = 1;
    for (int d = 0; d < ndims; ++d) {
        if (dims[d] < 0 || __builtin_mul_overflow(n, uint64_t(dims[d]), &n)) {
            p.warn(std::string("llmscope_probe_tensor: negative or overflowing dimensions for '") + opPath + "'");
            return -1;
        }
    }
    const auto want = n < (uint64_t(1) << 40) ? dtypeBytes(dtype, n) : std::nullopt;
    if (!want || *want != bytes || (bytes && !data)) {
        p.warn(std::string("llmscope_probe_tensor: '") + opPath + "' tensor " + std::to_string(index) + ": " +
               std::to_string(bytes) + " bytes do not match its dtype and dims");
        return -1;
    }
    try {
        std::lock_guard lock(p.mutex);
        AbiRound &r = abi();
        if (!r.open)
            return 0;
        const bool chosen = r.dumping && selects(*r.selection, path);
        r.ops[opPath] = r.ops[opPath] || chosen;
        const ProbeConfig &c = p.config();
        const bool wanted = r.selection->wantsTensor(before != 0, input != 0);
        if (r.info && selects(*r.selection, path) && (before != 0) == (input != 0)) { // inputs before, outputs after
            std::string shape;
            for (int d = 0; d < ndims; ++d)
                shape += (d ? "," : "") + std::to_string(dims[d]);
            const bool file = chosen && wanted && !c.descOnly && !c.statsCsv && (c.tensors || c.stats);
            r.record(opPath, path.folders, path.types.back())
                .tensors.push_back(
                    {input != 0, index, dtypeName(dtype), shape,
                     file ? c.root + "/" +
                             tensorRelativePath(0, ::getpid(), r.round, path.folders, before != 0, input != 0, index)
                          : std::string()});
        }
        if (!chosen || !wanted)
            return 0;
        TensorJob job;
        job.round = r.round;
        job.folders = path.folders;
        job.before = before != 0;
        job.input = input != 0;
        job.index = index;
        job.opType = path.types.back();
        job.tensor.dtype = dtype;
        job.tensor.dims.assign(dims, dims + ndims);
        const bool payload = c.tensors && !c.descOnly;
        const bool stats = c.stats && !c.descOnly && !payload;
        if (payload || stats) {
            job.tensor.data.assign(static_cast<const uint8_t *>(data), static_cast<const uint8_t *>(data) + bytes);
            job.tensor.hasData = true;
        }
        job.statsOnly = stats;
        job.csv = stats && c.statsCsv;
        job.addStats = payload && c.stats;
        job.sketch = c.sketch;
        r.pending.push_back(std::move(job));
        return 1;
    } catch (const std::exception &e) {
        p.disable(std::string("llmscope_probe_tensor failed: ") + e.what());
        return -1;
    }
}

int llmscope_probe_op_info(const char *opPath, const char *backend, const char *paramsJson)
{
    Probe &p = Probe::get();
    if (!p.active())
        return 0;
    OpPath path;
    const size_t paramsLength = paramsJson ? std::strlen(paramsJson) : 0;
    if (!parsePath(opPath, path) || (backend && std::strlen(backend) > 256) || paramsLength > 65536 ||
        (paramsJson && !isJsonObject(paramsJson))) {
        p.warn(std::string("llmscope_probe_op_info: bad arguments for '") + (opPath ? opPath : "(null)") +
               "' (params_json must be a JSON object or null)");
        return -1;
    }
    try {
        std::lock_guard lock(p.mutex);
        AbiRound &r = abi();
        if (!r.open || !r.info || !selects(*r.selection, path))
            return 0;
        AbiRound::OpRecord &o = r.record(opPath, path.folders, path.types.back());
        o.backend = backend ? backend : "";
        o.params = paramsJson ? paramsJson : "";
        for (char &ch : o.params) // one line in the CSV and in op_param.json
            if (ch == '\n' || ch == '\r')
                ch = ' ';
        return 1;
    } catch (const std::exception &e) {
        p.disable(std::string("llmscope_probe_op_info failed: ") + e.what());
        return -1;
    }
}

void llmscope_probe_end_round(void)
{
    Probe &p = Probe::get();
    if (!p.active())
        return;
    try {
        std::lock_guard lock(p.mutex);
        closeRound(p, abi());
    } catch (const std::exception &e) {
        p.disable(std::string("end_round failed: ") + e.what());
    }
}
