#include "core/select/op_id.h"

namespace llmscope {

std::optional<OpId> OpId::parse(std::string_view text)
{
    OpId id;
    int64_t part = 0;
    bool digits = false;
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            if (part > (INT64_MAX - 9) / 10)
                return std::nullopt;
            part = part * 10 + (c - '0');
            digits = true;
        } else if (c == '_' && digits) {
            id.m_parts.push_back(part);
            part = 0;
            digits = false;
        } else {
            return std::nullopt;
        }
    }
    if (!digits)
        return std::nullopt;
    id.m_parts.push_back(part);
    return id;
}

OpId OpId::lenient(std::string_view text)
{
    OpId id;
    size_t from = 0;
    while (from <= text.size()) {
        const size_t cut = std::min(text.find('_', from), text.size());
        const auto parsed = parse(text.substr(from, cut - from));
        id.m_parts.push_back(parsed ? parsed->m_parts.front() : 0);
        from = cut + 1;
    }
    return id;
}

std::string OpId::text() const
{
    std::string out;
    for (size_t i = 0; i < m_parts.size(); ++i)
        out += (i ? "_" : "") + std::to_string(m_parts[i]);
    return out;
}

} // namespace llmscope
