#include "core/compare/quantization.h"

#include <algorithm>
#include <vector>

#include "core/compare/report_text.h"
#include "core/compare/tensor_reader.h"
#include "core/ggml/ggml_library.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"

namespace llmscope {

Reason Quantization::words(const std::string &tensorName) const
{
    const std::string name = tensorName.empty() ? std::string("the weight") : tensorName;
    if (explained())
        return std::isfinite(expected)
            ? Reason(Said::QuantExplained, {name, myType, report::percent(error)})
            : Reason(Said::QuantExplainedTypes, {name, myType, report::percent(error), goldenType});
    if (std::isnan(expected))
        return Reason(Said::QuantNoExpected, {name, myType, goldenType, report::percent(error)});
    return Reason(Said::QuantBeyond, {name, myType, report::percent(error), report::percent(expected)});
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

namespace {

// One pass over golden (and my, when given): golden requantized to target and dequantized
// again. Sums over the elements finite on both sides: golden's power, the requantization's
// error power, and my's distance from the requantization. False when target has no reference
// quantizer or golden is not a whole number of its blocks.
struct RequantSums {
    double gg = 0, dq = 0, dm = 0;
};
bool requantize(TensorReader &golden, TensorReader *my, const ggml::BlockType &target, RequantSums &s)
{
    const uint64_t n = golden.count(), bs = uint64_t(target.blockSize);
    if (!target.fromFloat || !target.toFloat || n % bs)
        return false;
    ggml::Library::get().prepare(target);
    const uint64_t chunk = bs * std::max<uint64_t>(1, 32768 / bs);
    std::vector<float> g(chunk), m(my ? chunk : 0), r(chunk);
    std::vector<uint8_t> blocks(target.bytes(chunk));
    for (uint64_t i = 0; i < n; i += chunk) {
        const uint64_t len = std::min(chunk, n - i);
        golden.read(i, len, g.data());
        if (my)
            my->read(i, len, m.data());
        target.fromFloat(g.data(), blocks.data(), int64_t(len));
        target.toFloat(blocks.data(), r.data(), int64_t(len));
        for (uint64_t j = 0; j < len; ++j) {
            if (!std::isfinite(g[j]) || (my && !std::isfinite(m[j])))
                continue;
            s.gg += double(g[j]) * g[j];
            s.dq += (double(r[j]) - g[j]) * (double(r[j]) - g[j]);
            if (my)
                s.dm += (double(m[j]) - r[j]) * (double(m[j]) - r[j]);
        }
    }
    return true;
}

} // namespace

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
    RequantSums s;
    if (!target || !requantize(golden, &my, *target, s) || !(s.gg > 0))
        return;
    q.expected = std::sqrt(s.dq / s.gg);
    q.beyond = std::sqrt(s.dm / s.gg);
}

double requantizationError(TensorReader &golden, const std::string &type)
{
    const ggml::BlockType *target = ggml::Library::get().type(type);
    RequantSums s;
    if (!target || !requantize(golden, nullptr, *target, s))
        return NAN;
    return s.gg > 0 ? std::sqrt(s.dq / s.gg) : 0;
}

} // namespace llmscope
