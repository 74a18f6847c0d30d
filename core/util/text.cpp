#include "core/util/text.h"

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

void appendStat(std::string &out, double v)
{
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "inf" : "-inf";
        return;
    }
    // printf's "%.6f" rounds the exact binary value. v * 1e6 is off from that by half an ulp
    // at most, so where its fraction is clear of one half the nearest integer is the same
    // one, and printing it is all integer work (the probe prints four of these per tensor).
    // Magnitudes above 2^44 / 1e6 (about 1.8e7) and near-ties go the exact way.
    const double x = std::fabs(v) * 1e6;
    char buf[330]; // the longest double in fixed notation with six decimals
    if (x < 0x1p44 && std::fabs(x - std::floor(x) - 0.5) > 0x1p-6) {
        uint64_t n = uint64_t(x + 0.5);
        char *end = buf + sizeof buf, *p = end;
        for (int i = 0; i < 6; ++i, n /= 10)
            *--p = char('0' + n % 10);
        *--p = '.';
        do
            *--p = char('0' + n % 10);
        while (n /= 10);
        if (std::signbit(v))
            *--p = '-';
        out.append(p, end);
        return;
    }
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 6);
    out.append(buf, r.ptr);
}

std::string formatStat(double v)
{
    std::string s;
    appendStat(s, v);
    return s;
}

} // namespace llmscope
