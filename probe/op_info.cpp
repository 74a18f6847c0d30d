#include "probe/op_info.h"

#include <unistd.h>

#include "core/dump/dump_layout.h"
#include "core/dump/op_info_csv.h"
#include "probe/capture.h"
#include "probe/ggml_api.h"
#include "probe/graph_topology.h"
#include "probe/op_params.h"
#include "probe/probe.h"

namespace llmscope::probe {

namespace {
std::string shapeOf(const ggml_tensor *t)
{
    int n = GGML_MAX_DIMS;
    while (n > 1 && t->ne[n - 1] == 1)
        --n;
    std::string s;
    for (int d = n - 1; d >= 0; --d) // outermost first, as the tensor files' headers
        s += (s.empty() ? "" : ",") + std::to_string(t->ne[d]);
    return s;
}
// -tiling: each input as the kernel got it: its name, ggml type, ne and byte strides nb
// (ggml's order), and whether it is a weight. A replay rebuilds the node from these.
std::string opInputsJson(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    std::string s = "[";
    for (int k = 0; k < GGML_MAX_SRC && t->src[k]; ++k) {
        const ggml_tensor *in = t->src[k];
        std::string ne, nb;
        for (int d = 0; d < GGML_MAX_DIMS; ++d) {
            ne += (d ? "," : "") + std::to_string(in->ne[d]);
            nb += (d ? "," : "") + std::to_string(in->nb[d]);
        }
        std::string name;
        for (char c : programName(api.getName(in))) // JSON-safe: the probe's names are plain
            if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
                name += c;
        s += std::string(k ? "," : "") + "{\"name\":\"" + name + "\",\"type\":\"" + api.typeName(in->type) +
            "\",\"ne\":[" + ne + "],\"nb\":[" + nb + "],\"weight\":" + (isWeight(in) ? "true" : "false") + "}";
    }
    return s + "]";
}

} // namespace

void writeOpInfo(Probe &p, ggml_backend_sched_t sched, const CapturePlan &plan, int64_t round, OpInfoWanted what)
{
    const GgmlApi &api = ggml();
    const GraphTopology &topo = *plan.topo;
    const int64_t pid = ::getpid();
    const std::string root = p.config().root + "/";
    // The files the plan writes for each node, when it writes tensor files.
    std::vector<std::vector<std::string>> inFiles(topo.nodes.size()), outFiles(topo.nodes.size());
    if (!plan.csv && (plan.payload || plan.statsOnly))
        for (const PlanItem &item : plan.items)
            (item.input ? inFiles : outFiles)[size_t(item.node)].push_back(
                root + tensorRelativePath(0, pid, round, topo.folders(item.node), item.before, item.input, item.index));
    std::vector<OpInfoRow> rows;
    for (size_t i = 0; i < topo.nodes.size(); ++i) {
        if (!plan.selected[i])
            continue;
        const GraphNode &n = topo.nodes[i];
        const ggml_tensor *t = n.tensor;
        const std::string params = opParamsJson(n.type, t);
        if (what.op || what.kernel) {
            OpInfoRow r;
            r.caseName = n.name;
            r.opName = n.type;
            r.opParam = params;
            for (int s = 0; s < GGML_MAX_SRC && t->src[s]; ++s) {
                r.inDtypes.push_back(api.typeName(t->src[s]->type));
                r.inFormats.push_back("ND");
                r.inShapes.push_back(shapeOf(t->src[s]));
            }
            r.outDtypes.push_back(api.typeName(t->type));
            r.outFormats.push_back("ND");
            r.outShapes.push_back(shapeOf(t));
            r.inFiles = inFiles[i];
            r.outFiles = outFiles[i];
            r.fromModel = n.id;
            const char *name = api.nodeBackendName(sched, t);
            r.socVersion = name ? name : "unknown";
            rows.push_back(std::move(r));
        }
        if (what.tiling) {
            submitOpParam(p, round, topo.folders(int(i)), n.id, n.type, params, opInputsJson(t));
            p.writer()->submitText("tiling/" + std::to_string(pid) + "/" + std::to_string(round) + "/" + n.id + "_" +
                                       sanitizeName(n.type) + ".bin",
                                   opParamsBytes(t));
        }
    }
    submitOpInfoRows(p, round, std::move(rows), what);
}

void submitOpParam(Probe &p, int64_t round, const std::vector<std::string> &folders, const std::string &id,
                   const std::string &type, const std::string &paramsJson, const std::string &inputsJson)
{
    p.writer()->submitText(opRelativePath(0, ::getpid(), round, folders) + "/op_param.json",
                           "{\"id\":\"" + id + "\",\"op\":\"" + sanitizeName(type) + "\",\"param\":" + paramsJson +
                               (inputsJson.empty() ? std::string() : ",\"inputs\":" + inputsJson) + "}\n");
}

void submitOpInfoRows(Probe &p, int64_t round, std::vector<OpInfoRow> rows, OpInfoWanted what)
{
    const int64_t pid = ::getpid();
    for (const bool kernel : {false, true}) {
        if (kernel ? !what.kernel : !what.op)
            continue;
        for (size_t part = 0, first = 0; part == 0 || first < rows.size(); ++part, first += kOpInfoRowsPerFile) {
            std::vector<OpInfoRow> chunk(rows.begin() + long(std::min(rows.size(), first)),
                                         rows.begin() + long(std::min(rows.size(), first + kOpInfoRowsPerFile)));
            for (auto &r : chunk)
                r.testType = kernel ? "kernel" : "operation";
            p.writer()->submitText(opInfoPath(kernel, pid, round, part), opInfoCsv(chunk, first + 1));
        }
    }
}

} // namespace llmscope::probe
