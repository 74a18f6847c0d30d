#include "probe/op_params.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace llmscope::probe {

namespace {
int32_t i32(const ggml_tensor *t, int i)
{
    int32_t v;
    std::memcpy(&v, reinterpret_cast<const char *>(t->op_params) + 4 * i, 4);
    return v;
}

float f32(const ggml_tensor *t, int i)
{
    float v;
    std::memcpy(&v, reinterpret_cast<const char *>(t->op_params) + 4 * i, 4);
    return v;
}

std::string number(double v)
{
    if (std::isnan(v))
        return "\"nan\"";
    if (std::isinf(v))
        return v > 0 ? "\"inf\"" : "\"-inf\"";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

struct Json {
    std::string text = "{";
    void add(const char *key, const std::string &value)
    {
        text += (text.size() > 1 ? "," : "") + std::string("\"") + key + "\":" + value;
    }
    void i(const char *key, int64_t v) { add(key, std::to_string(v)); }
    void f(const char *key, double v) { add(key, number(v)); }
    std::string done() { return text + "}"; }
};

bool is(const std::string &type, std::initializer_list<const char *> names)
{
    for (const char *n : names)
        if (type == n)
            return true;
    return false;
}
} // namespace

std::string opParamsJson(const std::string &type, const ggml_tensor *t)
{
    Json j;
    if (is(type, {"RMS_NORM", "NORM", "L2_NORM", "RMS_NORM_BACK"})) {
        j.f("eps", f32(t, 0));
    } else if (type == "GROUP_NORM") {
        j.i("n_groups", i32(t, 0));
        j.f("eps", f32(t, 1));
    } else if (type == "ROPE" || type == "ROPE_BACK") {
        j.i("n_dims", i32(t, 1));
        j.i("mode", i32(t, 2));
        j.i("n_ctx_orig", i32(t, 4));
        j.f("freq_base", f32(t, 5));
        j.f("freq_scale", f32(t, 6));
        j.f("ext_factor", f32(t, 7));
        j.f("attn_factor", f32(t, 8));
        j.f("beta_fast", f32(t, 9));
        j.f("beta_slow", f32(t, 10));
    } else if (type == "SOFT_MAX" || type == "SOFT_MAX_BACK") {
        j.f("scale", f32(t, 0));
        j.f("max_bias", f32(t, 1));
    } else if (type == "FLASH_ATTN_EXT") {
        j.f("scale", f32(t, 0));
        j.f("max_bias", f32(t, 1));
        j.f("logit_softcap", f32(t, 2));
        j.i("prec", i32(t, 3));
    } else if (type == "SCALE") {
        j.f("scale", f32(t, 0));
        j.f("bias", f32(t, 1));
    } else if (type == "CLAMP") {
        j.f("min", f32(t, 0));
        j.f("max", f32(t, 1));
    } else if (type == "ARGSORT") {
        j.i("order", i32(t, 0)); // 0 ascending, 1 descending
    } else if (type == "LEAKY_RELU") {
        j.f("negative_slope", f32(t, 0));
    } else if (type == "VIEW") {
        size_t offset;
        std::memcpy(&offset, t->op_params, sizeof offset);
        j.i("offset", int64_t(offset));
        j.add("nb",
              "[" + std::to_string(t->nb[1]) + "," + std::to_string(t->nb[2]) + "," + std::to_string(t->nb[3]) + "]");
    } else if (type == "PERMUTE") {
        j.add("axes",
              "[" + std::to_string(i32(t, 0)) + "," + std::to_string(i32(t, 1)) + "," + std::to_string(i32(t, 2)) +
                  "," + std::to_string(i32(t, 3)) + "]");
    } else if (is(type, {"SWIGLU", "GEGLU", "REGLU", "GEGLU_ERF", "GEGLU_QUICK", "SWIGLU_OAI"})) {
        j.i("swapped", i32(t, 1));
        if (type == "SWIGLU_OAI") {
            j.f("alpha", f32(t, 2));
            j.f("limit", f32(t, 3));
        }
    } else if (type == "CONCAT") {
        j.i("dim", i32(t, 0));
    } else {
        // Any other op: its non-zero 32-bit words, as they are.
        std::vector<int32_t> words(GGML_MAX_OP_PARAMS / 4);
        for (size_t k = 0; k < words.size(); ++k)
            words[k] = i32(t, int(k));
        while (!words.empty() && words.back() == 0)
            words.pop_back();
        if (!words.empty()) {
            std::string list = "[";
            for (size_t k = 0; k < words.size(); ++k)
                list += (k ? "," : "") + std::to_string(words[k]);
            j.add("op_params_i32", list + "]");
        }
    }
    return j.done();
}

std::string opParamsBytes(const ggml_tensor *t)
{
    return std::string(reinterpret_cast<const char *>(t->op_params), GGML_MAX_OP_PARAMS);
}

} // namespace llmscope::probe
