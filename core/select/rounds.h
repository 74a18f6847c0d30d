// msit's -er: inclusive [l,r] pairs of rounds (graph executions), "3,5,7,7" = 3,4,5,7.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmscope {

class Rounds {
public:
    Rounds() : m_ranges{{0, 0}} {} // msit's default: round 0 only
    static Rounds all();
    // Throws Error naming the bad part: odd count, non-numbers, l > r, over 500 characters.
    // "all" is accepted when allowAll (msit's config file).
    static Rounds parse(std::string_view text, bool allowAll = false);

    bool contains(int64_t round) const;
    bool isAll() const { return m_all; }
    const std::vector<std::pair<int64_t, int64_t>> &ranges() const { return m_ranges; }
    std::string text() const;

private:
    bool m_all = false;
    std::vector<std::pair<int64_t, int64_t>> m_ranges;
};

} // namespace llmscope
