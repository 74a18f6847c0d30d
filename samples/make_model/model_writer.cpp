#include "samples/make_model/model_writer.h"

#include "samples/make_model/arch_plan.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <limits>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <ggml.h>
#include <gguf.h>
#include <llama.h>

namespace {

// Reproducible normal samples: mt19937_64 is specified bit for bit by the standard,
// std::normal_distribution is not, so Box-Muller is done here.
class Normal {
public:
    explicit Normal(uint64_t seed) : m_rng(seed) {}
    double next()
    {
        if (m_haveSpare) {
            m_haveSpare = false;
            return m_spare;
        }
        double u1, u2;
        do
            u1 = (m_rng() >> 11) * 0x1.0p-53;
        while (u1 <= 0);
        u2 = (m_rng() >> 11) * 0x1.0p-53;
        const double r = std::sqrt(-2 * std::log(u1));
        m_spare = r * std::sin(2 * M_PI * u2);
        m_haveSpare = true;
        return r * std::cos(2 * M_PI * u2);
    }

private:
    std::mt19937_64 m_rng;
    bool m_haveSpare = false;
    double m_spare = 0;
};

uint64_t nameHash(const std::string &s) // FNV-1a, so each tensor's stream depends on its name only
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

void check(const ModelSpec &s)
{
    auto positive = [](int v, const char *what) {
        if (v <= 0)
            throw std::runtime_error(std::string(what) + " must be positive");
    };
    positive(s.layers, "--layers");
    positive(s.width, "--width");
    positive(s.heads, "--heads");
    positive(s.kvHeads, "--kv-heads");
    positive(s.ff, "--ff");
    positive(s.context, "--context");
    if (s.width % s.heads)
        throw std::runtime_error("--width must be a multiple of --heads");
    if (s.heads % s.kvHeads)
        throw std::runtime_error("--heads must be a multiple of --kv-heads");
    positive(s.experts, "--experts");
    positive(s.expertsUsed, "--experts-used");
    positive(s.expertFf, "--expert-ff");
    if (s.width % 32 || s.ff % 32 || s.expertFf % 32)
        throw std::runtime_error(
            "--width, --ff and --expert-ff must be multiples of 32 (quantized blocks hold 32 values)");
}

} // namespace

std::string writeModel(const ModelSpec &s, const Corruption &corruption, const std::string &path)
{
    check(s);
    // Byte-level vocabulary: <unk>, <s>, </s>, then the 256 byte tokens.
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
    std::vector<int32_t> types = {2, 3, 3};
    for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "<0x%02X>", b);
        tokens.emplace_back(buf);
        types.push_back(6);
    }
    const int vocab = static_cast<int>(tokens.size());
    const ArchPlan plan = archPlan(s, vocab);
    if (corruption.layer >= s.layers)
        throw std::runtime_error("--corrupt-layer " + std::to_string(corruption.layer) + " but the model has " +
                                 std::to_string(s.layers) + " layers");
    const std::string layer = "blk." + std::to_string(corruption.layer) + ".";
    std::string target;
    std::string layerTensors;
    for (const auto &t : plan.tensors)
        if (corruption.layer >= 0 && t.name.rfind(layer, 0) == 0) {
            std::string shortName = t.name.substr(layer.size());
            if (shortName.size() > 7 && shortName.compare(shortName.size() - 7, 7, ".weight") == 0)
                shortName.resize(shortName.size() - 7);
            layerTensors += (layerTensors.empty() ? "" : ", ") + shortName;
            if (shortName == corruption.tensor ||
                (corruption.tensor.empty() && (shortName == "ffn_down" || shortName == "ffn_down_exps")))
                target = t.name;
        }
    if (corruption.layer >= 0 && target.empty())
        throw std::runtime_error("--corrupt-tensor '" + corruption.tensor + "' is not a layer weight of " + s.arch +
                                 " (" + layerTensors + ")");

    size_t bytes = 0;
    for (const auto &t : plan.tensors) {
        int64_t n = 1;
        for (int64_t d : t.ne)
            n *= d;
        bytes += size_t(n) * 4 + ggml_tensor_overhead();
    }
    ggml_init_params ip{bytes + (1 << 20), nullptr, false};
    ggml_context *ctx = ggml_init(ip);
    if (!ctx)
        throw std::runtime_error("ggml_init failed");
    gguf_context *gg = gguf_init_empty();

    gguf_set_val_str(gg, "general.architecture", plan.arch.c_str());
    gguf_set_val_str(gg, "general.name", "llmscope-sample");
    gguf_set_val_u32(gg, "general.file_type", 0); // all F32
    for (const auto &m : plan.meta) {
        const std::string key = m.prefixed ? plan.arch + "." + m.key : m.key;
        if (const auto *u = std::get_if<uint32_t>(&m.value))
            gguf_set_val_u32(gg, key.c_str(), *u);
        else if (const auto *f = std::get_if<float>(&m.value))
            gguf_set_val_f32(gg, key.c_str(), *f);
        else if (const auto *b = std::get_if<bool>(&m.value))
            gguf_set_val_bool(gg, key.c_str(), *b);
        else
            gguf_set_val_str(gg, key.c_str(), std::get<std::string>(m.value).c_str());
    }
    gguf_set_val_str(gg, "tokenizer.ggml.model", "llama");
    gguf_set_val_bool(gg, "tokenizer.ggml.add_space_prefix", false); // text round-trips through the tokenizer
    std::vector<const char *> tokenPtrs;
    for (const auto &t : tokens)
        tokenPtrs.push_back(t.c_str());
    gguf_set_arr_str(gg, "tokenizer.ggml.tokens", tokenPtrs.data(), tokenPtrs.size());
    std::vector<float> scores(tokens.size(), 0.0f);
    gguf_set_arr_data(gg, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores.data(), scores.size());
    gguf_set_arr_data(gg, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), types.size());
    gguf_set_val_u32(gg, "tokenizer.ggml.unknown_token_id", 0);
    gguf_set_val_u32(gg, "tokenizer.ggml.bos_token_id", 1);
    gguf_set_val_u32(gg, "tokenizer.ggml.eos_token_id", 2);

    for (const auto &t : plan.tensors) {
        ggml_tensor *x = ggml_new_tensor(ctx, GGML_TYPE_F32, int(t.ne.size()), t.ne.data());
        ggml_set_name(x, t.name.c_str());
        float *d = static_cast<float *>(x->data);
        const int64_t n = ggml_nelements(x);
        Normal rnd(s.seed ^ nameHash(t.name));
        const double scale = t.init == TensorPlan::Init::Matrix ? 1.0 / std::sqrt(double(t.ne[0])) : 0.1;
        const double mean = t.init == TensorPlan::Init::Norm ? 1.0 : 0.0;
        for (int64_t i = 0; i < n; ++i)
            d[i] = static_cast<float>(mean + scale * rnd.next());
        if (t.name == target) {
            Normal noise(s.seed ^ nameHash(t.name) ^ 0x5eedc0de5eedc0deull);
            for (int64_t i = 0; i < n && !corruption.inf; ++i)
                d[i] = static_cast<float>(d[i] + corruption.amount * scale * noise.next());
            if (corruption.inf)
                d[0] = std::numeric_limits<float>::infinity();
        }
        gguf_add_tensor(gg, x);
    }
    const std::string tmp = path + ".tmp";
    const bool ok = gguf_write_to_file(gg, tmp.c_str(), false);
    gguf_free(gg);
    ggml_free(ctx);
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write '" + path + "'");
    }
    return target;
}

namespace {

struct FileType {
    const char *name;
    llama_ftype ftype;
};
const FileType kFileTypes[] = {
    {"f16", LLAMA_FTYPE_MOSTLY_F16},         {"bf16", LLAMA_FTYPE_MOSTLY_BF16},
    {"q8_0", LLAMA_FTYPE_MOSTLY_Q8_0},       {"q4_0", LLAMA_FTYPE_MOSTLY_Q4_0},
    {"q4_1", LLAMA_FTYPE_MOSTLY_Q4_1},       {"q5_0", LLAMA_FTYPE_MOSTLY_Q5_0},
    {"q5_1", LLAMA_FTYPE_MOSTLY_Q5_1},       {"q2_k", LLAMA_FTYPE_MOSTLY_Q2_K},
    {"q3_k_s", LLAMA_FTYPE_MOSTLY_Q3_K_S},   {"q3_k_m", LLAMA_FTYPE_MOSTLY_Q3_K_M},
    {"q3_k_l", LLAMA_FTYPE_MOSTLY_Q3_K_L},   {"q4_k_s", LLAMA_FTYPE_MOSTLY_Q4_K_S},
    {"q4_k_m", LLAMA_FTYPE_MOSTLY_Q4_K_M},   {"q5_k_s", LLAMA_FTYPE_MOSTLY_Q5_K_S},
    {"q5_k_m", LLAMA_FTYPE_MOSTLY_Q5_K_M},   {"q6_k", LLAMA_FTYPE_MOSTLY_Q6_K},
    {"iq4_nl", LLAMA_FTYPE_MOSTLY_IQ4_NL},   {"iq4_xs", LLAMA_FTYPE_MOSTLY_IQ4_XS},
    {"tq1_0", LLAMA_FTYPE_MOSTLY_TQ1_0},     {"tq2_0", LLAMA_FTYPE_MOSTLY_TQ2_0},
    {"mxfp4", LLAMA_FTYPE_MOSTLY_MXFP4_MOE},
};

std::string lower(std::string s)
{
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

ggml_type ggmlType(const std::string &name)
{
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const char *n = ggml_type_name(ggml_type(t));
        if (n && lower(n) == lower(name) && ggml_blck_size(ggml_type(t)) > 0)
            return ggml_type(t);
    }
    throw std::runtime_error("'" + name + "' is not a ggml type (q8_0, q4_0, f16, q6_K, ...)");
}

// llama-quantize's --tensor-type lines: PATTERN=TYPE, blank lines and '#' comments ignored.
std::vector<std::pair<std::string, ggml_type>> readTensorTypes(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read --tensor-types file '" + path + "'");
    std::vector<std::pair<std::string, ggml_type>> out;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.pop_back();
        if (line.empty() || line[0] == '#')
            continue;
        const size_t eq = line.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == line.size())
            throw std::runtime_error(path + ":" + std::to_string(n) + ": not PATTERN=TYPE: '" + line + "'");
        try {
            std::regex check(line.substr(0, eq)); // the quantizer compiles it the same way
        } catch (const std::regex_error &) {
            throw std::runtime_error(path + ":" + std::to_string(n) + ": '" + line.substr(0, eq) +
                                     "' is not a valid pattern");
        }
        out.emplace_back(line.substr(0, eq), ggmlType(line.substr(eq + 1)));
    }
    return out;
}

} // namespace

std::string quantizeTypeNames()
{
    std::string s;
    for (const auto &f : kFileTypes)
        s += (s.empty() ? "" : ", ") + std::string(f.name);
    return s;
}

void quantizeModel(const std::string &in, const std::string &out, const std::string &type,
                   const std::string &tensorTypes)
{
    llama_model_quantize_params p = llama_model_quantize_default_params();
    bool known = false;
    for (const auto &f : kFileTypes)
        if (lower(type) == f.name) {
            p.ftype = f.ftype;
            known = true;
        }
    if (!known)
        throw std::runtime_error("--quantize takes " + quantizeTypeNames() + ", not '" + type + "'");
    p.nthread = 1;
    const auto overrides =
        tensorTypes.empty() ? std::vector<std::pair<std::string, ggml_type>>{} : readTensorTypes(tensorTypes);
    std::vector<llama_model_tensor_override> tt;
    for (const auto &[pattern, t] : overrides)
        tt.push_back({pattern.c_str(), t});
    tt.push_back({nullptr, GGML_TYPE_COUNT});
    if (!overrides.empty())
        p.tt_overrides = tt.data();
    const std::string tmp = out + ".tmp";
    if (llama_model_quantize(in.c_str(), tmp.c_str(), &p) != 0 || std::rename(tmp.c_str(), out.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error("llama_model_quantize failed for '" + in + "' -> '" + out + "'");
    }
}
