// msit's -ids: operation ids such as "3" or "3_1_2", comma separated.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace llmscope {

class OpIds {
public:
    // Empty text selects nothing by id (an empty selection as a whole means "all").
    // Throws Error naming the entry that does not match ^\d+(_\d+)*$.
    static OpIds parse(std::string_view text);

    bool empty() const { return m_ids.empty(); }
    const std::vector<std::string> &ids() const { return m_ids; }
    // With child on, "3" matches "3" and "3_1_2" but not "30"; with child off, only "3".
    bool matches(std::string_view opId, bool child) const;
    // True when opId is an ancestor of a selected id ("3" for "3_1"): the op must be
    // descended into, although it is not itself selected.
    bool isAncestorOfSelected(std::string_view opId) const;
    std::string text() const;

private:
    std::vector<std::string> m_ids;
};

} // namespace llmscope
