// One operation's id as msit writes it: the position of each op folder from the model down,
// joined by '_' ("3", "3_1_2"). The one reader of ids: selections, mapping files, sorting
// dumps, grouping ops into layers and naming their folders all go through it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmscope {

class OpId {
public:
    OpId() = default;
    // nullopt unless text is digits joined by single '_' (^\d+(_\d+)*$).
    static std::optional<OpId> parse(std::string_view text);
    // An id already read from a dump or a topology: parts that are no number read as 0, so
    // ids still sort and group.
    static OpId lenient(std::string_view text);

    const std::vector<int64_t> &parts() const { return m_parts; }
    bool empty() const { return m_parts.empty(); }
    int64_t layer() const { return m_parts.empty() ? -1 : m_parts.front(); } // the top-level op
    int64_t last() const { return m_parts.empty() ? -1 : m_parts.back(); } // its place in its parent
    std::string text() const;
    // Numeric part by part: "2" < "10", "3" < "3_1".
    friend bool operator<(const OpId &a, const OpId &b) { return a.m_parts < b.m_parts; }
    friend bool operator==(const OpId &a, const OpId &b) { return a.m_parts == b.m_parts; }

private:
    std::vector<int64_t> m_parts;
};

// The top-level op's id text of an id ("3" of "3_1_2"), without reading numbers.
inline std::string_view opGroup(std::string_view id)
{
    return id.substr(0, id.find('_'));
}

} // namespace llmscope
