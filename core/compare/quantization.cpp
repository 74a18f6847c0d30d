#include "compare/quantization.h"

#include <algorithm>
#include <vector>

#include "compare/report_text.h"
#include "compare/tensor_reader.h"
#include "ggml/ggml_library.h"
#include "tensor/dtype.h"
#include "util/error.h"

namespace llmscope {

std::string Quantization::words(const std::string &tensorName) const
{
    const std::string name = tensorName.empty() ? std::string("the weight") : tensorName;
    if (explained())
        return "quantization of " + name + " (" + myType + "): relative error " + report::percent(error) +
               (std::isfinite(expected) ? "" : " (" + goldenType + " against " + myType + ")");
    if (std::isnan(expected))
        return name + " (" + myType + ") differs from golden's (" + goldenType + ") by " + report::percent(error) +
               ", more than any quantization of it should";
    return name + " (" + myType + ") differs from golden's by " + report::percent(error) +
           ", more than its quantization explains (" + report::percent(expected) + ")";
}

std::string storageType(const TensorReader &r)
{
    if (const ggml::BlockType *b = r.blockType())
        return b->name;
    switch (r.header().dtype) {
    case 0: return "f32";
    case 1: return "f16";
    case 27: return "bf16";
    default: return dtypeName(r.header().dtype);
    }
}

bool storedDifferently(const TensorReader &golden, const TensorReader &my)
{
    return storageType(golden) != storageType(my);
}

void measureQuantization(Quantization &q, TensorReader &golden, TensorReader &my)
{
    q.goldenType = storageType(golden);
    q.myType = storageType(my);
    const ggml::BlockType *goldenBlock = golden.blockType();
    if (goldenBlock && goldenBlock->quantized)
        return; // golden is quantized itself: no original to requantize
    const ggml::BlockType *target = nullptr;
    try {
        target = ggml::Library::get().type(q.myType);
    } catch (const Error &) {
        return; // no ggml here: the error stays unexplained by a figure, but is still quantization
    }
    if (!target || !target->fromFloat || !target->toFloat)
        return;
    ggml::Library::get().prepare(*target);
    const uint64_t n = golden.count();
    const uint64_t chunk = uint64_t(target->blockSize) * std::max<uint64_t>(1, 32768 / uint64_t(target->blockSize));
    if (n % uint64_t(target->blockSize))
        return;
    std::vector<float> g(chunk), m(chunk), r(chunk);
    std::vector<uint8_t> blocks(target->bytes(chunk));
    double gg = 0, dq = 0, dm = 0;
    for (uint64_t i = 0; i < n; i += chunk) {
        const uint64_t len = std::min(chunk, n - i);
        golden.read(i, len, g.data());
        my.read(i, len, m.data());
        target->fromFloat(g.data(), blocks.data(), int64_t(len));
        target->toFloat(blocks.data(), r.data(), int64_t(len));
        for (uint64_t j = 0; j < len; ++j) {
            if (!std::isfinite(g[j]) || !std::isfinite(m[j]))
                continue;
            gg += double(g[j]) * g[j];
            dq += (double(r[j]) - g[j]) * (double(r[j]) - g[j]);
            dm += (double(m[j]) - r[j]) * (double(m[j]) - r[j]);
        }
    }
    if (gg > 0) {
        q.expected = std::sqrt(dq / gg);
        q.beyond = std::sqrt(dm / gg);
    }
}

double requantizationError(TensorReader &golden, const std::string &type)
{
    const ggml::BlockType *target = ggml::Library::get().type(type);
    if (!target || !target->toFloat || !target->fromFloat || golden.count() % uint64_t(target->blockSize))
        return NAN;
    ggml::Library::get().prepare(*target);
    const uint64_t n = golden.count();
    const uint64_t chunk = uint64_t(target->blockSize) * std::max<uint64_t>(1, 32768 / uint64_t(target->blockSize));
    std::vector<float> g(chunk), r(chunk);
    std::vector<uint8_t> blocks(target->bytes(chunk));
    double gg = 0, dq = 0;
    for (uint64_t i = 0; i < n; i += chunk) {
        const uint64_t len = std::min(chunk, n - i);
        golden.read(i, len, g.data());
        target->fromFloat(g.data(), blocks.data(), int64_t(len));
        target->toFloat(blocks.data(), r.data(), int64_t(len));
        for (uint64_t j = 0; j < len; ++j)
            if (std::isfinite(g[j])) {
                gg += double(g[j]) * g[j];
                dq += (double(r[j]) - g[j]) * (double(r[j]) - g[j]);
            }
    }
    return gg > 0 ? std::sqrt(dq / gg) : 0;
}

} // namespace llmscope
