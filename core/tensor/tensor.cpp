#include "core/tensor/tensor.h"

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {

uint64_t elementCount(const std::vector<int64_t> &dims)
{
    uint64_t n = 1;
    for (int64_t d : dims)
        if (d < 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
            throw Error("dims " + joinDims(dims) + ": the element count " +
                        (d < 0 ? std::string("has a negative dimension") : std::string("overflows 64 bits")));
    return n;
}

uint64_t Tensor::elementCount() const
{
    return llmscope::elementCount(dims);
}

std::optional<std::string> Tensor::attr(const std::string &key) const
{
    for (const auto &[k, v] : attrs)
        if (k == key)
            return v;
    return std::nullopt;
}

void Tensor::setAttr(const std::string &key, const std::string &value)
{
    for (auto &[k, v] : attrs)
        if (k == key) {
            v = value;
            return;
        }
    attrs.emplace_back(key, value);
}

std::string joinDims(const std::vector<int64_t> &dims, char sep)
{
    std::string out;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i)
            out += sep;
        out += std::to_string(dims[i]);
    }
    return out;
}

std::vector<int64_t> parseDims(const std::string &text)
{
    std::vector<int64_t> dims;
    if (text.empty())
        return dims;
    for (const auto &part : split(text, ',')) {
        auto v = parseInt(part);
        if (!v || *v < 0)
            throw Error("bad dimension '" + part + "' in dims '" + text + "'");
        dims.push_back(*v);
    }
    return dims;
}

} // namespace llmscope
