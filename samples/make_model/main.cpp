// llmscope-make-model: sample GGUF models for golden-versus-test work.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <llama.h>

#include "samples/make_model/arch_plan.h"
#include "samples/make_model/model_writer.h"

namespace {

const char *kUsage =
    "usage:\n"
    "  llmscope-make-model --out MODEL.gguf [shape options] [corruption options]\n"
    "  llmscope-make-model --quantize TYPE --in MODEL.gguf --out QUANTIZED.gguf [--tensor-types FILE]\n"
    "  llmscope-make-model --family DIR [shape options] [corruption options]\n"
    "\n"
    "shape options (defaults in brackets):\n"
    "  --arch NAME [llama]: a llama.cpp architecture (%s)\n"
    "  --layers N [4]  --width N [256]  --heads N [4]  --kv-heads N [2]  --ff N [512]\n"
    "  --context N [256]  --seed N [1]\n"
    "  mixture of experts: --experts N [4]  --experts-used K [2]  --expert-ff N [256]\n"
    "corruption options (perturb one weight of one layer; same seed, same other weights):\n"
    "  --corrupt-layer K  --corrupt-tensor NAME [ffn_down(_exps)]  --corrupt-amount X [0.1]\n"
    "    NAME: a layer tensor without '.weight' (ffn_down, ffn_up_exps) or with '.bias'\n"
    "  --corrupt-inf      instead of noise, the weight's first element becomes +Inf\n"
    "    the weight gets X times its own standard deviation of seeded Gaussian noise\n"
    "\n"
    "--quantize TYPE: a llama.cpp file type (%s); --tensor-types FILE: llama-quantize's\n"
    "  --tensor-type lines, PATTERN=TYPE (blk.3.ffn_down.weight=q8_0), one a line, as\n"
    "  llmscope quant-report writes them in tensor-types.txt\n"
    "\n"
    "--family DIR writes model-f32.gguf, model-q8_0.gguf, model-q4_0.gguf and\n"
    "model-corrupt.gguf (layer K, default layers/2) into DIR.\n";

int intArg(const char *opt, const char *v)
{
    char *end = nullptr;
    const long x = std::strtol(v, &end, 10);
    if (!*v || *end)
        throw std::runtime_error(std::string(opt) + " needs a number, not '" + v + "'");
    return static_cast<int>(x);
}

void quietLog(ggml_log_level level, const char *text, void *)
{
    if (level >= GGML_LOG_LEVEL_WARN)
        std::fputs(text, stderr);
}

} // namespace

int main(int argc, char **argv)
{
    ModelSpec spec;
    Corruption corruption;
    bool corruptionAmountSet = false;
    std::string out, in, quantize, family, tensorTypes;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "-h" || a == "--help") {
                std::printf(kUsage, archNames().c_str(), quantizeTypeNames().c_str());
                return 0;
            }
            if (a == "--corrupt-inf") { // a flag
                corruption.inf = true;
                continue;
            }
            if (i + 1 >= argc)
                throw std::runtime_error("'" + a + "' needs a value (or is unknown); see --help");
            const char *v = argv[++i];
            if (a == "--out")
                out = v;
            else if (a == "--in")
                in = v;
            else if (a == "--quantize")
                quantize = v;
            else if (a == "--family")
                family = v;
            else if (a == "--tensor-types")
                tensorTypes = v;
            else if (a == "--arch")
                spec.arch = v;
            else if (a == "--experts")
                spec.experts = intArg("--experts", v);
            else if (a == "--experts-used")
                spec.expertsUsed = intArg("--experts-used", v);
            else if (a == "--expert-ff")
                spec.expertFf = intArg("--expert-ff", v);
            else if (a == "--layers")
                spec.layers = intArg("--layers", v);
            else if (a == "--width")
                spec.width = intArg("--width", v);
            else if (a == "--heads")
                spec.heads = intArg("--heads", v);
            else if (a == "--kv-heads")
                spec.kvHeads = intArg("--kv-heads", v);
            else if (a == "--ff")
                spec.ff = intArg("--ff", v);
            else if (a == "--context")
                spec.context = intArg("--context", v);
            else if (a == "--seed")
                spec.seed = static_cast<uint64_t>(intArg("--seed", v));
            else if (a == "--corrupt-layer")
                corruption.layer = intArg("--corrupt-layer", v);
            else if (a == "--corrupt-tensor")
                corruption.tensor = v;
            else if (a == "--corrupt-amount") {
                char *end = nullptr;
                corruption.amount = std::strtod(v, &end);
                if (!*v || *end)
                    throw std::runtime_error(std::string("--corrupt-amount needs a number, not '") + v + "'");
                corruptionAmountSet = true;
            } else
                throw std::runtime_error("unknown option '" + a + "'; see --help");
        }
        if (corruption.layer >= 0 && !corruptionAmountSet)
            corruption.amount = 0.1;
        llama_log_set(quietLog, nullptr);
        if (!tensorTypes.empty() && quantize.empty())
            throw std::runtime_error("--tensor-types goes with --quantize");
        if (!quantize.empty()) {
            if (in.empty() || out.empty())
                throw std::runtime_error("--quantize needs --in and --out");
            quantizeModel(in, out, quantize, tensorTypes);
            std::printf("%s\n", out.c_str());
        } else if (!family.empty()) {
            std::filesystem::create_directories(family);
            const std::string f32 = family + "/model-f32.gguf";
            writeModel(spec, Corruption{}, f32);
            quantizeModel(f32, family + "/model-q8_0.gguf", "q8_0");
            quantizeModel(f32, family + "/model-q4_0.gguf", "q4_0");
            if (corruption.layer < 0) {
                corruption.layer = spec.layers / 2;
                if (!corruptionAmountSet)
                    corruption.amount = 0.1;
            }
            const std::string corrupted = writeModel(spec, corruption, family + "/model-corrupt.gguf");
            std::printf("%s/model-f32.gguf\n%s/model-q8_0.gguf\n%s/model-q4_0.gguf\n%s/model-corrupt.gguf "
                        "(%s, amount %g)\n",
                        family.c_str(), family.c_str(), family.c_str(), family.c_str(), corrupted.c_str(),
                        corruption.amount);
        } else if (!out.empty()) {
            writeModel(spec, corruption, out);
            std::printf("%s\n", out.c_str());
        } else {
            std::fprintf(stderr, kUsage, archNames().c_str(), quantizeTypeNames().c_str());
            return 2;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "llmscope-make-model: %s\n", e.what());
        return 1;
    }
    return 0;
}
