#include "probe/fusion_rules.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "probe/capture.h"
#include "probe/cuda_fusion.h"
#include "probe/fusion_match.h"
#include "probe/vulkan_fusion.h"

namespace llmscope::probe {
namespace {

// What LLMSCOPE_RPC_BACKEND names: the backend an RPC server computes on ("" when unnamed).
std::string rpcServersBackend()
{
    const char *v = std::getenv("LLMSCOPE_RPC_BACKEND");
    return v ? v : "";
}

bool envOn(const char *name)
{
    const char *v = std::getenv(name);
    return v && std::atoi(v) == 1; // as ggml-cpu reads its switch
}

// ggml_cpu_try_fuse_ops's RMS_NORM+MUL, beyond ggml_can_fuse.
bool cpuFusesRmsNormMul(const ggml_tensor *norm, const ggml_tensor *mul)
{
    const ggml_tensor *w = mul->src[0] == norm ? mul->src[1] : mul->src[0];
    return w && norm->src[0] && norm->src[0]->type == GGML_TYPE_F32 && mul->type == GGML_TYPE_F32 &&
        w->type == GGML_TYPE_F32 && w->ne[0] == norm->ne[0] && w->nb[0] == sizeof(float);
}

std::optional<FusedChain> cpuChainAt(const fusion::Graph &g, size_t i)
{
    if (g.node(i)->op == GGML_OP_RMS_NORM && fusion::canFuse(g, i, {GGML_OP_RMS_NORM, GGML_OP_MUL}) &&
        cpuFusesRmsNormMul(g.node(i), g.node(i + 1)))
        return FusedChain{.first = int(i), .last = int(i + 1), .types = "RMS_NORM+MUL"};
    return std::nullopt;
}

} // namespace

FusingBackend fusingBackend(const std::string &backendName)
{
    if (backendName.rfind("RPC", 0) == 0) {
        const std::string remote = rpcServersBackend();
        return remote.empty() || remote.rfind("RPC", 0) == 0 ? FusingBackend::None : fusingBackend(remote);
    }
    if (backendName == "CPU")
        return envOn("GGML_CPU_DISABLE_FUSION") ? FusingBackend::None : FusingBackend::Cpu;
    if (backendName.rfind("Vulkan", 0) == 0) // ggml-vulkan only asks whether its switch is set
        return std::getenv("GGML_VK_DISABLE_FUSION") ? FusingBackend::None : FusingBackend::Vulkan;
    // ggml-cuda, also built for HIP and MUSA; it turns fusion off for any nonzero number
    for (const char *cuda : {"CUDA", "ROCm", "MUSA"})
        if (backendName.rfind(cuda, 0) == 0) {
            const char *off = std::getenv("GGML_CUDA_DISABLE_FUSION");
            return off && std::atoi(off) != 0 ? FusingBackend::None : FusingBackend::Cuda;
        }
    return FusingBackend::None;
}

bool remoteBackendUnnamed(const std::string &backendName)
{
    return backendName.rfind("RPC", 0) == 0 && rpcServersBackend().empty();
}

std::vector<FusedChain> fusedChains(const GraphTopology &topo, FusingBackend b)
{
    return fusedChains(topo, std::vector<int>(topo.nodes.size(), 0), {b});
}

std::vector<FusedChain> fusedChains(const GraphTopology &topo, const std::vector<int> &backendOf,
                                    const std::vector<FusingBackend> &rules)
{
    std::vector<FusedChain> chains;
    if (std::all_of(rules.begin(), rules.end(), [](FusingBackend r) { return r == FusingBackend::None; }) ||
        backendOf.size() != topo.nodes.size())
        return chains;
    const fusion::Graph g(topo, backendOf);
    for (size_t i = 0; i + 1 < g.size(); ++i) {
        const int b = backendOf[i];
        const FusingBackend r = b >= 0 && size_t(b) < rules.size() ? rules[size_t(b)] : FusingBackend::None;
        std::optional<FusedChain> c = r == FusingBackend::Cpu ? cpuChainAt(g, i)
            : r == FusingBackend::Vulkan                      ? vulkanChainAt(g, i)
            : r == FusingBackend::Cuda                        ? cudaChainAt(g, i)
                                                              : std::nullopt;
        if (!c)
            continue;
        c->backend = b;
        i = size_t(c->last); // the computing loop goes on after the chain
        chains.push_back(std::move(*c));
    }
    return chains;
}

std::vector<CarriedResult> carriedResults(const GraphTopology &topo, const std::vector<int> &backendOf,
                                          const std::vector<FusingBackend> &rules,
                                          const std::vector<FusedChain> &chains, const std::vector<size_t> &alignment)
{
    std::vector<CarriedResult> out;
    if (std::find(rules.begin(), rules.end(), FusingBackend::Vulkan) == rules.end() ||
        backendOf.size() != topo.nodes.size())
        return out;
    const fusion::Graph g(topo, backendOf);
    const std::vector<int> into = fusedInto(chains, g.size()); // a chain's first node -> its last
    auto endOf = [&](size_t i) { return into[i] >= 0 ? size_t(into[i]) : i; };
    // The room the computation has taken so far: it starts afresh where the scheduler starts a
    // split on another backend. Views and nodes of no backend go with the split they are in
    // (ggml_backend_sched_split_graph skips them). A split the scheduler starts on the same
    // backend (weights it cannot reach from the current one), and the program's own eval
    // callback ending its graphs, start it afresh too, which the probe does not see.
    uint64_t used = 0;
    int current = -1;
    for (size_t i = 0; i < g.size();) {
        const int b = backendOf[i];
        if (b >= 0 && writesData(g.node(i))) { // not a view (nor a NONE)
            if (b != current)
                used = 0;
            current = b;
        }
        const size_t end = endOf(i);
        if (b >= 0 && size_t(b) < rules.size() && rules[size_t(b)] == FusingBackend::Vulkan && end + 1 < g.size() &&
            backendOf[end + 1] == b) {
            const size_t align = size_t(b) < alignment.size() ? alignment[size_t(b)] : 0;
            if (const uint32_t bytes = vulkanRmsPartialsBytes(g, i, end, align)) {
                // ggml counts a pair's room whether or not it fitted
                const bool fits = align == 0 || used + bytes <= kVulkanRmsPartialsRoom;
                used += bytes;
                out.push_back({int(end), int(endOf(end + 1)), fits});
            }
        }
        i = end + 1;
    }
    return out;
}

std::vector<int> fusedInto(const std::vector<FusedChain> &chains, size_t nodes)
{
    std::vector<int> into(nodes, -1);
    for (const FusedChain &c : chains)
        for (int k = c.first; k < c.last && size_t(k) < nodes; ++k)
            into[size_t(k)] = c.last;
    return into;
}

std::vector<char> innerOutputs(const std::vector<FusedChain> &chains, size_t nodes)
{
    std::vector<char> out;
    for (const FusedChain &c : chains)
        for (const int o : c.outputs)
            if (o >= c.first && o < c.last && size_t(o) < nodes) {
                out.resize(nodes, 0);
                out[size_t(o)] = 1;
            }
    return out;
}

ChainInputs chainInputs(const GraphTopology &topo, int first, int last)
{
    ChainInputs in;
    for (int k = first; k <= last; ++k) {
        const ggml_tensor *t = topo.nodes[size_t(k)].tensor;
        int slots = 0;
        for (int s = 0; s < GGML_MAX_SRC; ++s)
            if (t->src[s])
                slots = s + 1;
        std::vector<int> &src = in.sources.emplace_back(size_t(slots), 0);
        for (int s = 0; s < slots; ++s) {
            const ggml_tensor *x = t->src[s];
            if (!x) {
                src[size_t(s)] = kNoSource;
                continue;
            }
            const auto node = topo.indexOf.find(x);
            if (node != topo.indexOf.end() && node->second >= first && node->second < k) {
                src[size_t(s)] = -1 - (node->second - first);
                continue;
            }
            const auto seen = std::find(in.external.begin(), in.external.end(), x);
            src[size_t(s)] = int(seen - in.external.begin());
            if (seen == in.external.end())
                in.external.push_back(x);
        }
    }
    return in;
}

} // namespace llmscope::probe
