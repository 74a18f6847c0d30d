// Integers read from JSON text: nlohmann converts any number to an integer type with a plain
// cast, which is undefined for 1e300 or -1.5, so anything but an integer in the type's range
// is refused.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace llmscope {

template <typename T>
bool fitsInteger(const nlohmann::json &v)
{
    if (!v.is_number_integer())
        return false;
    if (v.is_number_unsigned())
        return v.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max());
    const int64_t i = v.get<int64_t>();
    return i >= int64_t(std::numeric_limits<T>::min()) &&
        (i < 0 || uint64_t(i) <= uint64_t(std::numeric_limits<T>::max()));
}

// Throws Error "{what}: not an integer in range".
template <typename T>
T jsonInteger(const nlohmann::json &v, const std::string &what)
{
    if (!fitsInteger<T>(v))
        throw Error(what + ": not an integer in range");
    return v.get<T>();
}

template <typename T>
std::vector<T> jsonIntegers(const nlohmann::json &v, const std::string &what)
{
    if (!v.is_array())
        throw Error(what + ": not an array");
    std::vector<T> out;
    out.reserve(v.size());
    for (const auto &x : v)
        out.push_back(jsonInteger<T>(x, what));
    return out;
}

} // namespace llmscope
