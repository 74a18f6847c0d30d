// How the compare reports spell values: CSV quoting, six significant digits, [d0, d1] shapes.
#pragma once
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace llmscope::report {

// Appends s as one CSV field, quoted only when it holds a comma, quote or line break.
inline void appendCsvField(std::string &out, const std::string &s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        out += c;
        if (c == '"')
            out += '"';
    }
    out += '"';
}

inline std::string csvField(const std::string &s)
{
    std::string q;
    appendCsvField(q, s);
    return q;
}

inline std::string num(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char b[64];
    const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6);
    return std::string(b, r.ptr);
}

// Three significant digits, for sentences ("8.16e-08"), and a share as a percentage ("0.0494 %").
inline std::string sig3(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}
inline std::string percent(double share)
{
    return sig3(share * 100) + " %";
}

inline std::string shapeText(const std::vector<int64_t> &dims)
{
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

} // namespace llmscope::report
