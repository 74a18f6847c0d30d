#include "core/compare/framework_pairing.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/compare/tensor_reader.h"
#include "core/dump/dump_layout.h"
#include "core/dump/op_names.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/tensor.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

// GGUF's per-layer weight names and Hugging Face's modules, for the llama family and Qwen's
// (q_norm and k_norm; the MoE block's router).
const std::pair<const char *, const char *> kLayerWeights[] = {
    {"attn_q", "self_attn.q_proj"},      {"attn_k", "self_attn.k_proj"},      {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"}, {"ffn_gate", "mlp.gate_proj"},       {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},       {"attn_norm", "input_layernorm"},    {"ffn_norm", "post_attention_layernorm"},
    {"attn_q_norm", "self_attn.q_norm"}, {"attn_k_norm", "self_attn.k_norm"}, {"ffn_gate_inp", "mlp.gate"}};
// The experts' projections: llama.cpp holds a layer's experts in one 3-D tensor each.
const std::pair<const char *, const char *> kExpertWeights[] = {
    {"ffn_gate_exps", "gate_proj"}, {"ffn_up_exps", "up_proj"}, {"ffn_down_exps", "down_proj"}};
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

// model.layers.N.mlp.experts.E.down_proj: N, E and the GGUF weight holding every expert's.
struct Expert {
    int layer = -1, expert = -1;
    std::string weight;
};
std::optional<Expert> expertOf(const std::string &hf)
{
    static const std::regex expert(R"(^model\.layers\.(\d{1,6})\.mlp\.experts\.(\d{1,6})\.([a-z]+_proj)$)");
    std::smatch m;
    if (hf.size() > 256 || !std::regex_match(hf, m, expert))
        return std::nullopt;
    for (const auto &[g, proj] : kExpertWeights)
        if (m[3].str() == proj)
            return Expert{std::stoi(m[1].str()), std::stoi(m[2].str()), "blk." + m[1].str() + "." + g + ".weight"};
    return std::nullopt;
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

// The ops that are this module: the node whose output is the module's, the node whose input
// the module's input is, and the node that reads its weight. A projection is the MUL_MAT
// reading its weight, its output the ADD of its bias where it has one; a norm the MUL by its
// weight, its input its RMS_NORM's; a decoder layer its residual add l_out-N; a MoE block
// (model.layers.N.mlp where experts run) its sum ffn_moe_out-N from the router's input; an
// expert the MUL_MAT_ID of every expert's weight (its rows picked by the pairing).
struct ModuleOps {
    const GgmlOp *out = nullptr, *start = nullptr, *weight = nullptr;
    int startSrc = 0, weightSrc = 0;
};

const GgmlOp *named(const std::map<std::string, GgmlOp> &ops, const std::string &name)
{
    for (const auto &[path, op] : ops)
        if (op.name == name)
            return &op;
    return nullptr;
}

const GgmlOp *reading(const std::map<std::string, GgmlOp> &ops, const std::string &type, const std::string &tensor)
{
    for (const auto &[path, op] : ops)
        if (op.type == type && reads(op, tensor))
            return &op;
    return nullptr;
}

const GgmlOp *feeding(const GgmlOp &mul, const std::map<std::string, GgmlOp> &ops);

ModuleOps moduleOps(const std::string &hf, const std::map<std::string, GgmlOp> &ops, bool tiedOutput)
{
    ModuleOps m;
    const int layer = layerOf(hf);
    if (layer >= 0 && hf == "model.layers." + std::to_string(layer)) {
        m.out = m.start = named(ops, "l_out-" + std::to_string(layer));
        return m;
    }
    if (layer >= 0 && hf == "model.layers." + std::to_string(layer) + ".mlp") {
        m.out = named(ops, "ffn_moe_out-" + std::to_string(layer)); // none for a dense MLP: down_proj is it
        m.start = reading(ops, "MUL_MAT", "blk." + std::to_string(layer) + ".ffn_gate_inp.weight");
        m.startSrc = 1;
        if (!m.start)
            m.out = nullptr;
        return m;
    }
    if (const auto e = expertOf(hf)) {
        m.out = m.start = m.weight = reading(ops, "MUL_MAT_ID", e->weight);
        m.startSrc = 1;
        return m;
    }
    std::string weight = ggufWeightOfHfModule(hf);
    if (weight.empty())
        return m;
    const std::string type = hf == "model.embed_tokens" ? "GET_ROWS"
        : hf.find("norm") != std::string::npos          ? "MUL"
                                                        : "MUL_MAT";
    if (hf == "lm_head" && tiedOutput)
        weight = "token_embd.weight";
    m.out = m.start = m.weight = reading(ops, type, weight);
    if (!m.out)
        return m;
    if (type == "MUL_MAT") {
        m.startSrc = 1;
        const std::string bias = weight.substr(0, weight.size() - 7) + ".bias";
        if (const GgmlOp *add = reading(ops, "ADD", bias)) // Qwen2's q, k, v: the module's output has its bias
            m.out = add;
    } else if (type == "MUL") {
        m.weightSrc = 1;
        m.start = feeding(*m.out, ops);
    }
    return m;
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

// How the ROPE of node (Qcur-N / Kcur-N) pairs dimensions, from the topology's parameters:
// llama's adjacent pairs (mode 0) come from q and k rows the converter permuted; every other
// mode (NeoX's halves, and the multimodal ones built on them) rotates halves as Hugging Face's
// rotate_half does, the rows left as they are (Qwen, ...). Unknown in a topology without
// parameters (written before llmscope recorded them).
enum class RopePairs { Adjacent, Halves, Unknown };
RopePairs ropePairs(const OpNames &names, const std::map<std::string, GgmlOp> &ops, const std::string &node)
{
    for (const auto &[path, op] : ops) {
        if (op.type != "ROPE" || op.name != node)
            continue;
        const OpNames::Node *n = names.find(path);
        const auto j = n ? nlohmann::json::parse(n->param, nullptr, false) : nlohmann::json();
        const auto mode = j.is_object() ? j.find("mode") : j.end();
        if (mode == j.end() || !mode->is_number_integer())
            return RopePairs::Unknown;
        return mode->get<int64_t>() == 0 ? RopePairs::Adjacent : RopePairs::Halves;
    }
    return RopePairs::Unknown;
}

// Expert E's rows of a MUL_MAT_ID: its output out [m, slots, tokens] and activations b
// [k, slots or 1, tokens], for the (slot, token) pairs whose id in ids [slots, tokens] is E, by
// slot then token (Hugging Face's torch.where over its [slot, token] mask). False with why.
bool expertRows(const TensorRecord &ids, const TensorRecord &out, const TensorRecord &b, int expert,
                TensorView &outView, TensorView &inView, std::string &why)
{
    try {
        TensorReader r(ids.path);
        r.requireData();
        // msit's dims, reversed from ggml's: ids [.., tokens, slots], out [.., tokens, slots, m],
        // b [.., tokens, slots or 1, k]
        const std::vector<int64_t> &d = r.header().dims;
        const TensorReader o(out.path), a(b.path);
        const std::vector<int64_t> &od = o.header().dims, &bd = a.header().dims;
        const uint64_t slots = d.empty() || d.back() <= 0 ? 0 : uint64_t(d.back());
        const uint64_t tokens = slots ? r.count() / slots : 0;
        const uint64_t bRows = bd.size() >= 2 && bd[bd.size() - 2] > 0 ? uint64_t(bd[bd.size() - 2]) : 0;
        if (!slots || od.size() < 2 || bd.size() < 2 || od.back() <= 0 || bd.back() <= 0 || !bRows ||
            uint64_t(od[od.size() - 2]) != slots || o.count() != tokens * slots * uint64_t(od.back()) ||
            slots % bRows || a.count() != tokens * bRows * uint64_t(bd.back())) {
            why = "its product's expert ids, output and activations do not agree in shape";
            return false;
        }
        std::vector<float> v(r.count());
        r.read(0, v.size(), v.data());
        outView.rowSize = uint64_t(od.back());
        inView.rowSize = uint64_t(bd.back());
        for (uint64_t slot = 0; slot < slots; ++slot)
            for (uint64_t token = 0; token < tokens; ++token)
                if (v[token * slots + slot] == float(expert)) {
                    outView.rows.push_back(token * slots + slot);
                    inView.rows.push_back(token * bRows + slot % bRows);
                }
        if (outView.rows.empty()) {
            why = "no token was routed to expert " + std::to_string(expert) + " in this round";
            return false;
        }
        return true;
    } catch (const Error &e) {
        why = e.what();
        return false;
    }
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
        for (const auto &[g, proj] : kExpertWeights)
            if (m[2].str() == g)
                return "model.layers." + m[1].str() + ".mlp.experts.*." + proj; // every expert's, one slice each
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
    if (const auto e = expertOf(hf))
        return e->weight;
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

namespace {

// One pairing of a torch dump with a llama.cpp dump: the engine's records indexed once, then
// each torch module's output paired with its op's, and beside it the module's input, the
// residual stream and the weight.
class FrameworkPairing {
public:
    FrameworkPairing(const DumpIndex &torch, const DumpIndex &engine, bool torchGolden, const OpNames &names,
                     const OpMapping &mapping);
    void pairModule(const TensorRecord &t);
    Matching finish(std::vector<std::string> &notes);

private:
    using Record = const TensorRecord *;
    using EngineInputs = std::map<std::tuple<int64_t, std::string, int>, Record>;
    void onlyTorch(const TensorRecord &t) { (m_torchGolden ? m_out.onlyGolden : m_out.onlyMy).push_back(&t); }
    void unpaired(const TensorRecord &t, const std::string &module, const std::string &why)
    {
        onlyTorch(t);
        m_unpaired.emplace(module, why);
    }
    // golden and my, the torch side's record first
    TensorPair pairOf(Record torchSide, Record engineSide) const
    {
        TensorPair p;
        p.golden = m_torchGolden ? torchSide : engineSide;
        p.my = m_torchGolden ? engineSide : torchSide;
        return p;
    }
    void use(Record engineSide) { m_usedEngine[size_t(engineSide - m_engine.tensors.data())] = 1; }
    bool pairMapped(const TensorRecord &t, const std::string &opId);
    bool unpermuteRows(const TensorRecord &t, const std::string &hf, int layer, TensorView &engineView,
                       std::string &key);
    void pairInput(const TensorRecord &t, const std::string &hf, int layer, const GgmlOp &op, const ModuleOps &mod,
                   Record output, bool lastRows, const TensorView &inputView);
    void pairResidual(const TensorRecord &t, const std::string &hf, int layer, const GgmlOp &op, Record output,
                      bool lastRows);
    void pairWeight(const TensorRecord &t, const std::string &hf, const ModuleOps &mod, Record output,
                    const std::optional<Expert> &expert, bool permuted);

    const DumpIndex &m_torch, &m_engine;
    const bool m_torchGolden;
    const OpNames &m_names;
    const OpMapping &m_mapping;
    std::map<std::string, GgmlOp> m_ops;
    bool m_tied = true;
    // The engine's outputs by round and op path, its inputs before the op ran; the torch side's
    // input_0 by round and module, the MLP's output by layer, dump_weight's weights by module.
    std::map<std::pair<int64_t, std::string>, Record> m_outputs;
    EngineInputs m_inputs;
    std::map<std::pair<int64_t, std::string>, Record> m_torchInputs;
    std::map<std::pair<int64_t, int>, Record> m_downOutputs;
    std::map<std::string, Record> m_torchWeights;
    int64_t m_firstRound = INT64_MAX; // the torch side's first round and last layer
    int m_lastLayer = -1;
    Matching m_out;
    std::map<std::string, std::string> m_unpaired; // module -> why, once each
    std::map<std::string, uint64_t> m_headSizes; // by Qcur-N / Kcur-N: 0 not permuted, UINT64_MAX unknown
    bool m_ropeUnknown = false;
    std::vector<char> m_usedEngine;
    std::set<Record> m_usedTorch;
};

FrameworkPairing::FrameworkPairing(const DumpIndex &torch, const DumpIndex &engine, bool torchGolden,
                                   const OpNames &names, const OpMapping &mapping)
    : m_torch(torch), m_engine(engine), m_torchGolden(torchGolden), m_names(names), m_mapping(mapping),
      m_ops(ggmlOps(engine, names)), m_usedEngine(engine.tensors.size(), 0)
{
    for (const auto &[path, op] : m_ops)
        m_tied &= !reads(op, "output.weight");
    for (const TensorRecord &r : engine.tensors) {
        if (!r.input && !r.before && r.index == 0 && r.param.empty())
            m_outputs.emplace(std::make_pair(r.exec, opPath(r.opFolders)), &r);
        if (r.input && r.before && r.param.empty())
            m_inputs.emplace(std::make_tuple(r.exec, opPath(r.opFolders), r.index), &r);
    }
    for (const TensorRecord &t : torch.tensors) {
        if (t.exec < 0 && t.param == "weight")
            m_torchWeights.emplace(t.opName, &t);
        if (t.input && t.index == 0 && t.param.empty())
            m_torchInputs.emplace(std::make_pair(t.exec, t.opName), &t);
        const std::string hf = hfName(t.opName);
        const int l = layerOf(hf);
        if (!t.input && t.index == 0 && l >= 0 && t.param.empty() &&
            (hf == "model.layers." + std::to_string(l) + ".mlp.down_proj" ||
             hf == "model.layers." + std::to_string(l) + ".mlp"))
            m_downOutputs.emplace(std::make_pair(t.exec, l), &t); // a MoE block has no down_proj of its own
    }
    for (const TensorRecord &r : torch.tensors) {
        if (r.exec < 0)
            continue; // a weight
        m_firstRound = std::min(m_firstRound, r.exec);
        m_lastLayer = std::max(m_lastLayer, layerOf(hfName(r.opName)));
    }
    m_out.method = Said::AcrossFrameworks;
}

// The user's pair (--mapping): the engine op's output, as it is. False when it has none.
bool FrameworkPairing::pairMapped(const TensorRecord &t, const std::string &opId)
{
    Record e = nullptr;
    for (const auto &[key, r] : m_outputs)
        if (key.first == t.exec && r->opId == opId)
            e = r;
    if (!e) {
        unpaired(t, t.opName, "mapped to " + opId + ", which has no output in this round");
        return false;
    }
    TensorPair p = pairOf(&t, e);
    p.key = "mapping " + t.opName + " -> " + opId;
    use(e);
    m_out.pairs.push_back(p);
    return true;
}

// q_proj's and k_proj's rows, permuted within heads for llama's RoPE: the head size to undo it
// with (0: not permuted). False, the module left unpaired, when it is not known.
bool FrameworkPairing::unpermuteRows(const TensorRecord &t, const std::string &hf, int layer, TensorView &engineView,
                                     std::string &key)
{
    const std::string node = std::string(hf[hf.size() - 6] == 'q' ? "Qcur-" : "Kcur-") + std::to_string(layer);
    auto rope = m_headSizes.find(node); // once a node: each finds it among every record
    if (rope == m_headSizes.end()) {
        const RopePairs pairs = ropePairs(m_names, m_ops, node);
        if (pairs == RopePairs::Unknown)
            m_ropeUnknown = true;
        // unknown: llama's, the rule for dumps whose topology holds no parameters
        rope = m_headSizes.emplace(node, pairs == RopePairs::Halves ? 0 : headSize(m_engine, m_ops, node)).first;
        if (pairs != RopePairs::Halves && rope->second == 0)
            rope->second = UINT64_MAX; // permuted, head size unknown
    }
    if (rope->second == UINT64_MAX) {
        unpaired(t, t.opName,
                 "its rows are permuted within heads and the head size is not known (" + node + " not dumped)");
        return false;
    }
    engineView.headSize = rope->second;
    if (engineView.headSize)
        key += " (rows un-permuted within heads of " + std::to_string(engineView.headSize) + ")";
    return true;
}

// The module's input: the tensor its computation starts from in the engine (a matrix
// product's activation; a norm's, or a decoder layer's, RMS_NORM input), so that the error it
// brings is not counted as the op's own.
void FrameworkPairing::pairInput(const TensorRecord &t, const std::string &hf, int layer, const GgmlOp &op,
                                 const ModuleOps &mod, Record output, bool lastRows, const TensorView &inputView)
{
    auto in = m_torchInputs.find({t.exec, t.opName});
    if (op.type == "ADD" &&
        hf == "model.layers." + std::to_string(layer)) { // l_out-N: its input from the layer is the MLP's output
        const auto down = m_downOutputs.find({t.exec, layer});
        in = down != m_downOutputs.end()
            ? m_torchInputs.emplace(std::make_pair(-1 - t.exec, t.opName), down->second).first
            : m_torchInputs.end();
    }
    const auto ein = mod.start ? m_inputs.find({t.exec, mod.start->path, mod.startSrc}) : m_inputs.end();
    if (op.type == "GET_ROWS" || in == m_torchInputs.end() || ein == m_inputs.end())
        return;
    TensorPair q = pairOf(in->second, ein->second);
    q.key = hf + " input = " + mod.start->path + " input " + std::to_string(mod.startSrc);
    q.stands = output;
    (m_torchGolden ? q.goldenView : q.myView).lastRows = lastRows;
    (m_torchGolden ? q.myView : q.goldenView) = inputView;
    if (lastRows)
        q.key += " (the last token's rows)";
    use(ein->second);
    if (in->first.first >= 0)
        m_usedTorch.insert(in->second);
    m_out.pairs.push_back(q);
}

// l_out-N's other input, the residual stream after attention: what the layer's
// post_attention_layernorm reads. Without it the sum would seem to add the error the stream
// brings.
void FrameworkPairing::pairResidual(const TensorRecord &t, const std::string &hf, int layer, const GgmlOp &op,
                                    Record output, bool lastRows)
{
    if (op.type != "ADD" || hf != "model.layers." + std::to_string(layer))
        return;
    const auto residual = m_torchInputs.find({t.exec, t.opName + ".post_attention_layernorm"});
    const auto eres = residual != m_torchInputs.end() ? m_inputs.find({t.exec, op.path, 1}) : m_inputs.end();
    if (residual == m_torchInputs.end() || eres == m_inputs.end())
        return;
    TensorPair q = pairOf(residual->second, eres->second);
    q.key = hf + " residual = " + op.path + " input 1" + (lastRows ? " (the last token's rows)" : "");
    q.stands = output;
    (m_torchGolden ? q.goldenView : q.myView).lastRows = lastRows;
    use(eres->second);
    m_out.pairs.push_back(q);
}

// The module's weight (dump_weight), against the weight the engine's op read: the same bytes
// in reversed dims (q_proj's and k_proj's rows permuted for llama: not compared; an expert's:
// its slice of the experts' tensor).
void FrameworkPairing::pairWeight(const TensorRecord &t, const std::string &hf, const ModuleOps &mod, Record output,
                                  const std::optional<Expert> &expert, bool permuted)
{
    const auto w = m_torchWeights.find(t.opName);
    const auto ew = mod.weight ? m_inputs.find({t.exec, mod.weight->path, mod.weightSrc}) : m_inputs.end();
    if (w == m_torchWeights.end() || ew == m_inputs.end() || permuted)
        return;
    TensorPair q = pairOf(w->second, ew->second);
    q.key = hf + ".weight = " + mod.weight->path + " input " + std::to_string(mod.weightSrc);
    if (expert) {
        TensorView &slice = m_torchGolden ? q.myView : q.goldenView;
        try {
            slice.rowSize = elementCount(w->second->dims);
        } catch (const Error &) {
            slice.rowSize = 0; // no shape an expert's weight has: compared whole, and fails
        }
        slice.rows = {uint64_t(expert->expert)};
        q.key += " (expert " + std::to_string(expert->expert) + "'s slice)";
    }
    q.stands = output;
    use(ew->second);
    m_usedTorch.insert(w->second);
    m_out.pairs.push_back(q);
}

void FrameworkPairing::pairModule(const TensorRecord &t)
{
    if (t.input || t.exec < 0)
        return; // paired with their module's output
    if (t.index != 0 || !t.param.empty()) {
        onlyTorch(t);
        return;
    }
    const std::string hf = hfName(t.opName);
    auto mapped = m_mapping.find(t.opName);
    if (mapped == m_mapping.end())
        mapped = m_mapping.find(t.opId);
    if (mapped != m_mapping.end()) {
        pairMapped(t, mapped->second);
        return;
    }
    const ModuleOps mod = hf.empty() ? ModuleOps{} : moduleOps(hf, m_ops, m_tied);
    const GgmlOp *op = mod.out;
    const auto e = op ? m_outputs.find({t.exec, op->path}) : m_outputs.end();
    if (!op || e == m_outputs.end()) {
        unpaired(t, t.opName,
                 hf.empty() ? "not a module of Hugging Face's llama or Qwen"
                     : !op  ? "no ggml node computes it alone (no weight of its own)"
                            : "its node's output was not dumped in this round");
        return;
    }
    TensorPair p = pairOf(&t, e->second);
    p.key = hf + " = " + op->path + (op->name.empty() ? "" : " " + op->name);
    TensorView &engineView = m_torchGolden ? p.myView : p.goldenView;
    TensorView &torchView = m_torchGolden ? p.goldenView : p.myView;
    const int layer = layerOf(hf);
    // An expert: the rows of the engine's product for the (slot, token) pairs routed to it,
    // in Hugging Face's order (by slot, then token), from the product's ids.
    const std::optional<Expert> expert = expertOf(hf);
    TensorView inputView;
    if (expert) {
        const auto ids = m_inputs.find({t.exec, op->path, 2});
        const auto b = m_inputs.find({t.exec, op->path, 1});
        std::string why;
        if (ids == m_inputs.end() || b == m_inputs.end())
            why = "its product's expert ids or activations were not dumped in this round";
        else
            expertRows(*ids->second, *e->second, *b->second, expert->expert, engineView, inputView, why);
        if (!why.empty()) {
            unpaired(t, t.opName, why);
            return;
        }
        p.key += " (expert " + std::to_string(expert->expert) + "'s rows)";
    }
    if (hf.size() > 7 &&
        (hf.compare(hf.size() - 7, 7, ".q_proj") == 0 || hf.compare(hf.size() - 7, 7, ".k_proj") == 0) &&
        !unpermuteRows(t, hf, layer, engineView, p.key))
        return;
    const bool afterLastAttention = hf == "model.norm" || hf == "lm_head" ||
        (layer == m_lastLayer && hf != "model.layers." + std::to_string(layer) + ".input_layernorm" &&
         hf.find(".self_attn.") == std::string::npos);
    if (t.exec == m_firstRound && afterLastAttention) {
        if (expert) { // which of the tokens routed to it are the last one's is not known here
            unpaired(t, t.opName + " (round " + std::to_string(t.exec) + ")",
                     "llama.cpp runs the last layer's experts on the last token only in the prompt round");
            return;
        }
        torchView.lastRows = true; // llama.cpp computes the last token's rows only, from here on
        p.key += " (the last token's rows)";
    }
    use(e->second);
    m_out.pairs.push_back(p);
    pairInput(t, hf, layer, *op, mod, e->second, torchView.lastRows, inputView);
    pairResidual(t, hf, layer, *op, e->second, torchView.lastRows);
    pairWeight(t, hf, mod, e->second, expert, engineView.headSize != 0);
}

Matching FrameworkPairing::finish(std::vector<std::string> &notes)
{
    for (const TensorRecord &t : m_torch.tensors)
        if ((t.input || t.exec < 0) && !m_usedTorch.count(&t))
            onlyTorch(t);
    for (size_t i = 0; i < m_engine.tensors.size(); ++i)
        if (!m_usedEngine[i])
            (m_torchGolden ? m_out.onlyMy : m_out.onlyGolden).push_back(&m_engine.tensors[i]);
    for (const auto &[module, why] : m_unpaired)
        notes.push_back(module + ": " + why);
    if (m_ropeUnknown)
        notes.push_back("the llama.cpp dump's topology does not say how its RoPE pairs dimensions (written before "
                        "llmscope recorded op parameters): queries and keys were un-permuted as llama's are; dump it "
                        "again for a family with NeoX RoPE (Qwen, ...)");
    // The engine's execution order: a torch dump's folders do not record one.
    const bool torchGolden = m_torchGolden;
    auto at = [torchGolden](const TensorPair &p) { // the op's output record, inputs before it
        const TensorRecord *r = p.stands ? p.stands : (torchGolden ? p.my : p.golden);
        return std::make_pair(r, p.stands == nullptr);
    };
    std::sort(m_out.pairs.begin(), m_out.pairs.end(),
              [&](const TensorPair &a, const TensorPair &b) { return at(a) < at(b); });
    return std::move(m_out);
}

} // namespace

std::optional<Matching> matchAcrossFrameworks(const DumpIndex &golden, const DumpIndex &my,
                                              std::vector<std::string> &notes, const OpMapping &mapping)
{
    const bool torchGolden = golden.layout == "torch" && my.layout != "torch";
    if (!torchGolden && !(my.layout == "torch" && golden.layout != "torch"))
        return std::nullopt;
    return matchAcrossFrameworks(golden, my, notes, mapping, readOpNames(torchGolden ? my : golden));
}

std::optional<Matching> matchAcrossFrameworks(const DumpIndex &golden, const DumpIndex &my,
                                              std::vector<std::string> &notes, const OpMapping &mapping,
                                              const OpNames &names)
{
    const bool torchGolden = golden.layout == "torch" && my.layout != "torch";
    if (!torchGolden && !(my.layout == "torch" && golden.layout != "torch"))
        return std::nullopt;
    const DumpIndex &torch = torchGolden ? golden : my, &engine = torchGolden ? my : golden;
    if (names.byPath.empty()) {
        notes.push_back("the llama.cpp dump has no model topology (dump it with --type model too): its ops' "
                        "weights are not known, so no module can be paired with them");
        return Matching{{}, {}, {}, "across frameworks: nothing paired"};
    }
    FrameworkPairing pairing(torch, engine, torchGolden, names, mapping);
    for (const TensorRecord &t : torch.tensors)
        pairing.pairModule(t);
    return pairing.finish(notes);
}

} // namespace llmscope
