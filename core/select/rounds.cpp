#include "core/select/rounds.h"

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {

Rounds Rounds::all()
{
    Rounds r;
    r.m_all = true;
    r.m_ranges.clear();
    return r;
}

Rounds Rounds::parse(std::string_view text, bool allowAll)
{
    const std::string t = trim(text);
    if (t.size() > 500)
        throw Error("er: longer than msit's 500-character limit (" + std::to_string(t.size()) + " characters)");
    if (allowAll && toLower(t) == "all")
        return all();
    if (t.empty())
        throw Error("er: empty; give pairs such as 1,3 (rounds 1 to 3)");
    const auto parts = split(t, ',');
    if (parts.size() % 2)
        throw Error("er: '" + t + "' has " + std::to_string(parts.size()) +
                    " numbers; it needs pairs l,r (e.g. 3,5,7,7 for rounds 3,4,5,7)");
    Rounds r;
    r.m_ranges.clear();
    for (size_t i = 0; i < parts.size(); i += 2) {
        auto l = parseInt(trim(parts[i])), h = parseInt(trim(parts[i + 1]));
        if (!l || *l < 0)
            throw Error("er: '" + trim(parts[i]) + "' is not a round number");
        if (!h || *h < 0)
            throw Error("er: '" + trim(parts[i + 1]) + "' is not a round number");
        if (*l > *h)
            throw Error("er: range " + std::to_string(*l) + "," + std::to_string(*h) + " ends before it starts");
        r.m_ranges.emplace_back(*l, *h);
    }
    return r;
}

bool Rounds::contains(int64_t round) const
{
    if (m_all)
        return true;
    for (const auto &[l, h] : m_ranges)
        if (round >= l && round <= h)
            return true;
    return false;
}

std::string Rounds::text() const
{
    if (m_all)
        return "all";
    std::string s;
    for (const auto &[l, h] : m_ranges)
        s += (s.empty() ? "" : ",") + std::to_string(l) + "," + std::to_string(h);
    return s;
}

} // namespace llmscope
