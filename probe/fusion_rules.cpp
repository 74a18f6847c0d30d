#include "fusion_rules.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace llmscope::probe {
namespace {

bool envOn(const char *name)
{
    const char *v = std::getenv(name);
    return v && std::atoi(v) == 1; // as ggml reads its switches
}

bool sameShape(const ggml_tensor *a, const ggml_tensor *b)
{
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        if (a->ne[d] != b->ne[d])
            return false;
    return true;
}

// ggml_can_fuse for the nodes first.. of ops (n of them), the use counts taken over the graph.
bool canFuse(const GraphTopology &topo, const std::unordered_map<const ggml_tensor *, int> &uses, size_t first,
             const ggml_op *ops, size_t n)
{
    if (first + n > topo.nodes.size())
        return false;
    for (size_t k = 0; k < n; ++k) {
        const ggml_tensor *node = topo.nodes[first + k].tensor;
        if (node->op != ops[k] || !(node->flags & GGML_TENSOR_FLAG_COMPUTE))
            return false;
        if (k + 1 < n) {
            const auto u = uses.find(node);
            if (u == uses.end() || u->second != 1 || node->view_src || (node->flags & GGML_TENSOR_FLAG_OUTPUT))
                return false;
        }
        if (k > 0) {
            const ggml_tensor *prev = topo.nodes[first + k - 1].tensor;
            if ((node->src[0] != prev && node->src[1] != prev) || !sameShape(node, prev))
                return false;
        }
    }
    return true;
}

// ggml_cpu_try_fuse_ops's RMS_NORM+MUL, beyond ggml_can_fuse.
bool cpuFusesRmsNormMul(const ggml_tensor *norm, const ggml_tensor *mul)
{
    const ggml_tensor *w = mul->src[0] == norm ? mul->src[1] : mul->src[0];
    return w && norm->src[0] && norm->src[0]->type == GGML_TYPE_F32 && mul->type == GGML_TYPE_F32 &&
           w->type == GGML_TYPE_F32 && w->ne[0] == norm->ne[0] && w->nb[0] == sizeof(float);
}

} // namespace

FusingBackend fusingBackend(const std::string &backendName)
{
    if (backendName == "CPU")
        return envOn("GGML_CPU_DISABLE_FUSION") ? FusingBackend::None : FusingBackend::Cpu;
    return FusingBackend::None;
}

std::vector<FusedChain> fusedChains(const GraphTopology &topo, FusingBackend b)
{
    std::vector<FusedChain> chains;
    if (b == FusingBackend::None)
        return chains;
    std::unordered_map<const ggml_tensor *, int> uses; // as ggml counts them: one per source slot
    for (const GraphNode &n : topo.nodes)
        for (int s = 0; s < GGML_MAX_SRC; ++s)
            if (n.tensor->src[s])
                ++uses[n.tensor->src[s]];
    static constexpr ggml_op kRmsNormMul[] = {GGML_OP_RMS_NORM, GGML_OP_MUL};
    for (size_t i = 0; i + 1 < topo.nodes.size(); ++i) {
        const ggml_tensor *t = topo.nodes[i].tensor;
        if (t->op == GGML_OP_RMS_NORM && canFuse(topo, uses, i, kRmsNormMul, 2) &&
            cpuFusesRmsNormMul(t, topo.nodes[i + 1].tensor)) {
            chains.push_back({int(i), int(i + 1), "RMS_NORM+MUL"});
            ++i; // the computing loop goes on after the chain
        }
    }
    return chains;
}

std::vector<int> fusedInto(const std::vector<FusedChain> &chains, size_t nodes)
{
    std::vector<int> into(nodes, -1);
    for (const FusedChain &c : chains)
        for (int k = c.first; k < c.last && size_t(k) < nodes; ++k)
            into[size_t(k)] = c.last;
    return into;
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
