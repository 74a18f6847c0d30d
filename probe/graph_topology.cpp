#include "probe/graph_topology.h"

#include <cstdio>
#include <cstring>

#include "core/dump/dump_layout.h"
#include "probe/ggml_api.h"
#include "probe/op_params.h"

namespace llmscope::probe {

int layerOf(const std::string &name)
{
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 >= name.size())
        return -1;
    int v = 0;
    for (size_t i = dash + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        v = v * 10 + (name[i] - '0');
        if (v > 1000000)
            return -1;
    }
    return v;
}

std::string programName(const std::string &name)
{
    const size_t first = name.find('#'), last = name.rfind('#');
    if (first == std::string::npos || first == 0 || last <= first + 1 || last + 1 >= name.size())
        return name;
    for (size_t i = last + 1; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(first + 1, last - first - 1);
}

namespace {

// The first ROPE's settings, as ggml_rope_ext takes them (its op_params words): the ones two
// runs of one model may be given differently (--rope-freq-base, --rope-scaling, YaRN).
void ropeSettings(const ggml_tensor *rope, std::vector<std::string> &out)
{
    int32_t w[11];
    std::memcpy(w, rope->op_params, sizeof w);
    auto f = [&](int i) {
        float v;
        std::memcpy(&v, &w[i], 4);
        char text[32];
        std::snprintf(text, sizeof text, "%g", double(v));
        return std::string(text);
    };
    out.push_back("RoPE mode=" + std::to_string(w[2]));
    out.push_back("RoPE dimensions=" + std::to_string(w[1]));
    out.push_back("RoPE original context=" + std::to_string(w[4]));
    out.push_back("RoPE frequency base=" + f(5));
    out.push_back("RoPE frequency scale=" + f(6));
    out.push_back("RoPE YaRN ext_factor=" + f(7) + ", attn_factor=" + f(8) + ", beta_fast=" + f(9) +
                  ", beta_slow=" + f(10));
}

} // namespace

std::vector<std::string> contextSettings(ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    bool flash = false;
    const ggml_tensor *k = nullptr, *v = nullptr, *rope = nullptr;
    auto look = [&](const ggml_tensor *x) {
        if (!x)
            return;
        const ggml_tensor *base = x->view_src ? x->view_src : x;
        const char *name = api.getName(base);
        if (!k && std::strncmp(name, "cache_k", 7) == 0)
            k = base;
        if (!v && std::strncmp(name, "cache_v", 7) == 0)
            v = base;
    };
    for (int i = 0, n = api.graphNNodes(graph); i < n; ++i) {
        const ggml_tensor *t = api.graphNode(graph, i);
        flash |= t->op == GGML_OP_FLASH_ATTN_EXT;
        if (!rope && t->op == GGML_OP_ROPE)
            rope = t;
        look(t);
        for (const ggml_tensor *src : t->src)
            look(src);
    }
    std::vector<std::string> out;
    if (!k && !v)
        return out;
    out.push_back(std::string("flash attention=") + (flash ? "yes" : "no"));
    const ggml_tensor *cache = k ? k : v;
    out.push_back("KV cache cells=" + std::to_string(cache->ne[1]));
    out.push_back("KV cache streams=" + std::to_string(cache->ne[2]));
    if (k)
        out.push_back(std::string("KV cache K type=") + api.typeName(k->type));
    if (v)
        out.push_back(std::string("KV cache V type=") + api.typeName(v->type));
    if (rope)
        ropeSettings(rope, out);
    return out;
}

bool isKvCache(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    auto cacheName = [&](const ggml_tensor *x) {
        const char *n = api.getName(x);
        return std::strncmp(n, "cache_k", 7) == 0 || std::strncmp(n, "cache_v", 7) == 0;
    };
    return cacheName(t) || (t->view_src && cacheName(t->view_src));
}

GraphTopology GraphTopology::build(ggml_cgraph *graph)
{
    const GgmlApi &api = ggml();
    GraphTopology g;
    const int n = api.graphNNodes(graph);
    std::vector<int> layers(static_cast<size_t>(n));
    int lastLayerNode = -1;
    for (int i = 0; i < n; ++i) {
        layers[size_t(i)] = layerOf(api.getName(api.graphNode(graph, i)));
        if (layers[size_t(i)] >= 0)
            lastLayerNode = i;
    }
    int current = -1, currentLayer = -2, childCount = 0;
    for (int i = 0; i < n; ++i) {
        const ggml_tensor *t = api.graphNode(graph, i);
        GraphNode node;
        node.tensor = t;
        node.name = api.getName(t);
        node.type = api.opDesc(t);
        node.kvCache = isKvCache(t);
        // Unsuffixed nodes belong to the operation around them; after the last layer they
        // form the output head, before the first the embedding.
        int layer = layers[size_t(i)];
        if (layer < 0)
            layer = lastLayerNode >= 0 && i > lastLayerNode ? -3 : (currentLayer == -2 ? -1 : currentLayer);
        if (layer != currentLayer || current < 0) {
            currentLayer = layer;
            if (layer == -1)
                g.groups.push_back({"Embedding", "Embedding"});
            else if (layer == -3)
                g.groups.push_back({"OutputHead", "OutputHead"});
            else
                g.groups.push_back({"Layer" + std::to_string(layer), "DecoderLayer"});
            current = int(g.groups.size()) - 1;
            childCount = 0;
        }
        node.group = current;
        node.child = childCount++;
        node.id = std::to_string(node.group) + "_" + std::to_string(node.child);
        g.indexOf[t] = int(g.nodes.size());
        g.nodes.push_back(std::move(node));
    }
    g.folderPaths.reserve(g.nodes.size());
    for (const GraphNode &node : g.nodes)
        g.folderPaths.push_back(
            {opFolderName(node.group, g.groups[size_t(node.group)].type), opFolderName(node.child, node.type)});
    return g;
}

TopoNode GraphTopology::toModel() const
{
    const GgmlApi &api = ggml();
    TopoNode model;
    model.name = "GgmlGraph";
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        TopoNode op;
        op.name = groups[gi].name;
        op.type = groups[gi].type;
        model.children.push_back(op);
    }
    for (const GraphNode &n : nodes) {
        TopoNode op;
        op.name = n.name;
        op.type = n.type;
        op.paramJson = opParamsJson(n.type, n.tensor); // msit's topology holds each op's parameters
        for (int s = 0; s < GGML_MAX_SRC && n.tensor->src[s]; ++s)
            op.inTensors.push_back(programName(api.getName(n.tensor->src[s])));
        op.outTensors.push_back(n.name);
        model.children[size_t(n.group)].children.push_back(std::move(op));
    }
    return model;
}

} // namespace llmscope::probe
