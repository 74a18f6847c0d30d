#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace llmscope {

std::vector<std::string> split(std::string_view text, char sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t pos = text.find(sep, start);
        out.emplace_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos)
            return out;
        start = pos + 1;
    }
}

std::string trim(std::string_view text)
{
    const char *ws = " \t\r\n";
    size_t b = text.find_first_not_of(ws);
    if (b == std::string_view::npos)
        return {};
    size_t e = text.find_last_not_of(ws);
    return std::string(text.substr(b, e - b + 1));
}

std::string toLower(std::string_view text)
{
    std::string s(text);
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return s;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

std::optional<int64_t> parseInt(std::string_view text)
{
    int64_t v = 0;
    if (text.empty())
        return std::nullopt;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size())
        return std::nullopt;
    return v;
}

std::optional<uint64_t> parseUInt(std::string_view text)
{
    uint64_t v = 0;
    if (text.empty() || text[0] == '-')
        return std::nullopt;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size())
        return std::nullopt;
    return v;
}

std::string formatStat(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    // printf's "%.6f", exactly (both round the exact binary value), several times faster: the
    // probe formats four of these for every tensor it dumps statistics of.
    char buf[330]; // the longest double in fixed notation with six decimals
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 6);
    return std::string(buf, r.ptr);
}

} // namespace llmscope
