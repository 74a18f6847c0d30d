#include "compare/framework_pairing.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <regex>

#include "dump/dump_layout.h"
#include "dump/op_names.h"
#include "tensor/bin_file.h"
#include "util/error.h"
#include "util/text.h"

namespace llmscope {
namespace {

// GGUF's per-layer weight names and Hugging Face's modules, for the llama family.
const std::pair<const char *, const char *> kLayerWeights[] = {
    {"attn_q", "self_attn.q_proj"},      {"attn_k", "self_attn.k_proj"}, {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"}, {"ffn_gate", "mlp.gate_proj"},  {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},       {"attn_norm", "input_layernorm"}, {"ffn_norm", "post_attention_layernorm"}};
const std::pair<const char *, const char *> kModelWeights[] = {
    {"token_embd", "model.embed_tokens"}, {"output_norm", "model.norm"}, {"output", "lm_head"}};

// The Hugging Face part of a dumped module's name: from "model." or "lm_head" on (msit
// prefixes "root.", a wrapper may add more).
std::string hfName(const std::string &module)
{
    for (const char *start : {"model.", "lm_head"}) {
        for (size_t at = module.find(start); at != std::string::npos; at = module.find(start, at + 1))
            if (at == 0 || module[at - 1] == '.')
                return module.substr(at);
    }
    return {};
}

// model.layers.N...: N, or -1.
int layerOf(const std::string &hf)
{
    static const std::regex layer(R"(^model\.layers\.(\d+)(\..*)?$)");
    std::smatch m;
    if (hf.size() > 1024 || !std::regex_match(hf, m, layer) || m[1].length() > 6)
        return -1; // not a layer of any model (and no number std::stoi cannot hold)
    return std::stoi(m[1].str());
}

struct GgmlOp {
    std::string path, type, name;
    std::vector<std::string> inputs;
};

// The ops of the ggml dump, from its records and model topology, by op path.
std::map<std::string, GgmlOp> ggmlOps(const DumpIndex &idx, const OpNames &names)
{
    std::map<std::string, GgmlOp> ops;
    for (const TensorRecord &r : idx.tensors) {
        const std::string path = opPath(r.opFolders);
        if (ops.count(path))
            continue;
        GgmlOp op{path, r.opName, "", {}};
        if (const OpNames::Node *n = names.find(path)) {
            op.name = n->name;
            op.inputs = n->inputs;
        }
        ops.emplace(path, std::move(op));
    }
    return ops;
}

bool reads(const GgmlOp &op, const std::string &tensor)
{
    return std::find(op.inputs.begin(), op.inputs.end(), tensor) != op.inputs.end();
}

// The op that is this module: the node reading its weight (of the kind the module computes
// with it), or for a decoder layer its residual add l_out-N.
const GgmlOp *opOfModule(const std::string &hf, const std::map<std::string, GgmlOp> &ops, bool tiedOutput)
{
    const int layer = layerOf(hf);
    if (layer >= 0 && hf == "model.layers." + std::to_string(layer)) {
        for (const auto &[path, op] : ops)
            if (op.name == "l_out-" + std::to_string(layer))
                return &op;
        return nullptr;
    }
    std::string weight = ggufWeightOfHfModule(hf);
    if (weight.empty())
        return nullptr;
    std::string type = hf == "model.embed_tokens" ? "GET_ROWS" : hf.find("norm") != std::string::npos ? "MUL" : "MUL_MAT";
    if (hf == "lm_head" && tiedOutput)
        weight = "token_embd.weight";
    for (const auto &[path, op] : ops)
        if (op.type == type && reads(op, weight))
            return &op;
    return nullptr;
}

// The head size of layer N's queries or keys: the innermost dim of its Qcur-N / Kcur-N
// reshape (or RoPE) output.
uint64_t headSize(const DumpIndex &idx, const std::map<std::string, GgmlOp> &ops, const std::string &node)
{
    for (const TensorRecord &r : idx.tensors) {
        if (r.input || r.index != 0)
            continue;
        const auto op = ops.find(opPath(r.opFolders));
        if (op == ops.end() || op->second.name != node || (op->second.type != "RESHAPE" && op->second.type != "ROPE"))
            continue;
        std::vector<int64_t> dims = r.dims;
        if (!r.headerRead) { // a scan without headers (compare's): this one is read
            try {
                dims = readBinFile(r.path, true).tensor.dims;
            } catch (const Error &) {
                continue;
            }
        }
        if (dims.size() >= 3 && dims.back() > 0)
            return uint64_t(dims.back());
    }
    return 0;
}

// The RMS_NORM whose output a norm's MUL scales: the nearest one before it in its layer (every
// norm of a layer is named norm-N).
const GgmlOp *feeding(const GgmlOp &mul, const std::map<std::string, GgmlOp> &ops)
{
    if (mul.inputs.empty())
        return nullptr;
    const size_t slash = mul.path.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : mul.path.substr(0, slash + 1);
    auto indexOf = [](const std::string &path) {
        const size_t s = path.rfind('/');
        return std::atoll(path.c_str() + (s == std::string::npos ? 0 : s + 1));
    };
    const GgmlOp *best = nullptr;
    for (const auto &[path, op] : ops)
        if (op.type == "RMS_NORM" && op.name == mul.inputs[0] && path.compare(0, folder.size(), folder) == 0 &&
            path.find('/', folder.size()) == std::string::npos && indexOf(path) < indexOf(mul.path) &&
            (!best || indexOf(path) > indexOf(best->path)))
            best = &op;
    return best;
}

} // namespace

std::string hfModuleOfGgufWeight(const std::string &gguf)
{
    static const std::regex layer(R"(^blk\.(\d+)\.([a-z_]+)\.weight$)");
    std::smatch m;
    if (gguf.size() <= 256 && std::regex_match(gguf, m, layer)) {
        for (const auto &[g, hf] : kLayerWeights)
            if (m[2].str() == g)
                return "model.layers." + m[1].str() + "." + hf;
        return {};
    }
    for (const auto &[g, hf] : kModelWeights)
        if (gguf == std::string(g) + ".weight")
            return hf;
    return {};
}

std::string ggufWeightOfHfModule(const std::string &module)
{
    const std::string hf = hfName(module);
    const int layer = layerOf(hf);
    if (layer >= 0) {
        const std::string prefix = "model.layers." + std::to_string(layer) + ".";
        for (const auto &[g, name] : kLayerWeights)
            if (hf == prefix + name)
                return "blk." + std::to_string(layer) + "." + g + ".weight";
        return {};
    }
    for (const auto &[g, name] : kModelWeights)
        if (hf == name)
            return std::string(g) + ".weight";
    return {};
}

std::optional<Matching> matchAcrossFrameworks(const DumpIndex &golden, const DumpIndex &my,
                                              std::vector<std::string> &notes, const OpMapping &mapping)
{
    const bool torchGolden = golden.layout == "torch" && my.layout != "torch";
    if (!torchGolden && !(my.layout == "torch" && golden.layout != "torch"))
        return std::nullopt;
    const DumpIndex &torch = torchGolden ? golden : my, &engine = torchGolden ? my : golden;
    const OpNames names = readOpNames(engine);
    if (names.byPath.empty()) {
        notes.push_back("the llama.cpp dump has no model topology (dump it with --type model too): its ops' "
                        "weights are not known, so no module can be paired with them");
        return Matching{{}, {}, {}, "across frameworks: nothing paired"};
    }
    const auto ops = ggmlOps(engine, names);
    bool tied = true;
    for (const auto &[path, op] : ops)
        tied &= !reads(op, "output.weight");
    // The engine's outputs by round and op path; the torch side's first round and last layer.
    std::map<std::pair<int64_t, std::string>, const TensorRecord *> outputs;
    std::map<std::tuple<int64_t, std::string, int>, const TensorRecord *> inputs; // before the op ran
    for (const TensorRecord &r : engine.tensors) {
        if (!r.input && !r.before && r.index == 0 && r.param.empty())
            outputs.emplace(std::make_pair(r.exec, opPath(r.opFolders)), &r);
        if (r.input && r.before && r.param.empty())
            inputs.emplace(std::make_tuple(r.exec, opPath(r.opFolders), r.index), &r);
    }
    std::map<std::pair<int64_t, std::string>, const TensorRecord *> torchInputs; // input_0 by round and module
    std::map<std::pair<int64_t, int>, const TensorRecord *> downOutputs;          // mlp.down_proj's, by layer
    std::map<std::string, const TensorRecord *> torchWeights;                     // dump_weight's, by module
    for (const TensorRecord &t : torch.tensors) {
        if (t.exec < 0 && t.param == "weight")
            torchWeights.emplace(t.opName, &t);
        if (t.input && t.index == 0 && t.param.empty())
            torchInputs.emplace(std::make_pair(t.exec, t.opName), &t);
        const std::string hf = hfName(t.opName);
        if (!t.input && t.index == 0 && hf.size() > 14 && hf.compare(hf.size() - 14, 14, ".mlp.down_proj") == 0)
            downOutputs.emplace(std::make_pair(t.exec, layerOf(hf)), &t);
    }
    int64_t firstRound = INT64_MAX;
    int lastLayer = -1;
    for (const TensorRecord &r : torch.tensors) {
        if (r.exec < 0)
            continue; // a weight
        firstRound = std::min(firstRound, r.exec);
        lastLayer = std::max(lastLayer, layerOf(hfName(r.opName)));
    }
    Matching out;
    out.method = "across frameworks: modules by their weights' GGUF names, decoder layers by their residual adds";
    std::map<std::string, std::string> unpaired; // module -> why, once each
    std::map<std::string, uint64_t> headSizes; // by Qcur-N / Kcur-N
    std::vector<char> usedEngine(engine.tensors.size(), 0);
    std::set<const TensorRecord *> usedTorch;
    for (const TensorRecord &t : torch.tensors) {
        if (t.input || t.exec < 0)
            continue; // paired with their module's output, below
        if (t.index != 0 || !t.param.empty()) {
            (torchGolden ? out.onlyGolden : out.onlyMy).push_back(&t);
            continue;
        }
        const std::string hf = hfName(t.opName);
        auto mapped = mapping.find(t.opName);
        if (mapped == mapping.end())
            mapped = mapping.find(t.opId);
        if (mapped != mapping.end()) { // the user's pair: the engine op's output, as it is
            const TensorRecord *e = nullptr;
            for (const auto &[key, r] : outputs)
                if (key.first == t.exec && r->opId == mapped->second)
                    e = r;
            if (!e) {
                (torchGolden ? out.onlyGolden : out.onlyMy).push_back(&t);
                unpaired.emplace(t.opName, "mapped to " + mapped->second + ", which has no output in this round");
                continue;
            }
            TensorPair p;
            p.golden = torchGolden ? &t : e;
            p.my = torchGolden ? e : &t;
            p.key = "mapping " + t.opName + " -> " + mapped->second;
            usedEngine[size_t(e - engine.tensors.data())] = 1;
            out.pairs.push_back(p);
            continue;
        }
        const GgmlOp *op = hf.empty() ? nullptr : opOfModule(hf, ops, tied);
        const auto e = op ? outputs.find({t.exec, op->path}) : outputs.end();
        if (!op || e == outputs.end()) {
            (torchGolden ? out.onlyGolden : out.onlyMy).push_back(&t);
            unpaired.emplace(t.opName, hf.empty() ? "not a module of Hugging Face's llama"
                                       : !op      ? "no ggml node computes it alone (no weight of its own)"
                                                  : "its node's output was not dumped in this round");
            continue;
        }
        TensorPair p;
        p.golden = torchGolden ? &t : e->second;
        p.my = torchGolden ? e->second : &t;
        p.key = hf + " = " + op->path + (op->name.empty() ? "" : " " + op->name);
        TensorView &engineView = torchGolden ? p.myView : p.goldenView;
        TensorView &torchView = torchGolden ? p.goldenView : p.myView;
        const int layer = layerOf(hf);
        if (hf.size() > 7 && (hf.compare(hf.size() - 7, 7, ".q_proj") == 0 || hf.compare(hf.size() - 7, 7, ".k_proj") == 0)) {
            const std::string node = std::string(hf[hf.size() - 6] == 'q' ? "Qcur-" : "Kcur-") + std::to_string(layer);
            auto size = headSizes.find(node); // once a node: each finds it among every record
            if (size == headSizes.end())
                size = headSizes.emplace(node, headSize(engine, ops, node)).first;
            engineView.headSize = size->second;
            if (!engineView.headSize) {
                (torchGolden ? out.onlyGolden : out.onlyMy).push_back(&t);
                unpaired.emplace(t.opName, "its rows are permuted within heads and the head size is not known (" + node +
                                               " not dumped)");
                continue;
            }
            p.key += " (rows un-permuted within heads of " + std::to_string(engineView.headSize) + ")";
        }
        const bool afterLastAttention =
            hf == "model.norm" || hf == "lm_head" ||
            (layer == lastLayer && hf != "model.layers." + std::to_string(layer) + ".input_layernorm" &&
             hf.find(".self_attn.") == std::string::npos);
        if (t.exec == firstRound && afterLastAttention) {
            torchView.lastRows = true; // llama.cpp computes the last token's rows only, from here on
            p.key += " (the last token's rows)";
        }
        usedEngine[size_t(e->second - engine.tensors.data())] = 1;
        out.pairs.push_back(p);
        // The module's input: the tensor its computation starts from in the engine (a matrix
        // product's activation; a norm's, or a decoder layer's, RMS_NORM input), so that the
        // error it brings is not counted as the op's own.
        const GgmlOp *start = op;
        int src = op->type == "MUL_MAT" ? 1 : 0;
        if (op->type == "MUL") // a norm: its RMS_NORM's input
            start = feeding(*op, ops);
        auto in = torchInputs.find({t.exec, t.opName});
        if (op->type == "ADD") { // l_out-N: its input from the layer is down_proj's output
            const auto down = downOutputs.find({t.exec, layer});
            in = down != downOutputs.end() ? torchInputs.emplace(std::make_pair(-1 - t.exec, t.opName), down->second).first
                                           : torchInputs.end();
        }
        const auto ein = start ? inputs.find({t.exec, start->path, src}) : inputs.end();
        if (op->type != "GET_ROWS" && in != torchInputs.end() && ein != inputs.end()) {
            TensorPair q;
            q.golden = torchGolden ? in->second : ein->second;
            q.my = torchGolden ? ein->second : in->second;
            q.key = hf + " input = " + start->path + " input " + std::to_string(src);
            q.stands = e->second;
            (torchGolden ? q.goldenView : q.myView).lastRows = torchView.lastRows;
            if (torchView.lastRows)
                q.key += " (the last token's rows)";
            usedEngine[size_t(ein->second - engine.tensors.data())] = 1;
            if (in->first.first >= 0)
                usedTorch.insert(in->second);
            out.pairs.push_back(q);
        }
        // The module's weight (dump_weight), against the weight the engine's op read: the same
        // bytes in reversed dims (q_proj's and k_proj's rows are permuted: not compared).
        const auto w = torchWeights.find(t.opName);
        const int wsrc = op->type == "MUL" ? 1 : 0;
        const auto ew = inputs.find({t.exec, op->path, wsrc});
        const bool permuted = engineView.headSize != 0;
        if (w != torchWeights.end() && ew != inputs.end() && !permuted && op->type != "ADD") {
            TensorPair q;
            q.golden = torchGolden ? w->second : ew->second;
            q.my = torchGolden ? ew->second : w->second;
            q.key = hf + ".weight = " + op->path + " input " + std::to_string(wsrc);
            q.stands = e->second;
            usedEngine[size_t(ew->second - engine.tensors.data())] = 1;
            usedTorch.insert(w->second);
            out.pairs.push_back(q);
        }
    }
    for (const TensorRecord &t : torch.tensors)
        if ((t.input || t.exec < 0) && !usedTorch.count(&t))
            (torchGolden ? out.onlyGolden : out.onlyMy).push_back(&t);
    for (size_t i = 0; i < engine.tensors.size(); ++i)
        if (!usedEngine[i])
            (torchGolden ? out.onlyMy : out.onlyGolden).push_back(&engine.tensors[i]);
    for (const auto &[module, why] : unpaired)
        notes.push_back(module + ": " + why);
    // The engine's execution order: a torch dump's folders do not record one.
    auto at = [&](const TensorPair &p) { // the op's output record, inputs before it
        const TensorRecord *r = p.stands ? p.stands : (torchGolden ? p.my : p.golden);
        return std::make_pair(r, p.stands == nullptr);
    };
    std::sort(out.pairs.begin(), out.pairs.end(),
              [&](const TensorPair &a, const TensorPair &b) { return at(a) < at(b); });
    return out;
}

} // namespace llmscope
