#include "core/select/op_ids.h"
#include "core/select/op_id.h"

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

bool isPrefixPath(std::string_view prefix, std::string_view id)
{
    return id.size() > prefix.size() && startsWith(id, prefix) && id[prefix.size()] == '_';
}

} // namespace

OpIds OpIds::parse(std::string_view text)
{
    OpIds out;
    const std::string t = trim(text);
    if (t.empty())
        return out;
    for (const auto &raw : split(t, ',')) {
        const std::string id = trim(raw);
        if (!OpId::parse(id))
            throw Error("ids: '" + id + "' is not an operation id (digits joined by '_', e.g. 3 or 3_1)");
        out.m_ids.push_back(id);
    }
    return out;
}

bool OpIds::matches(std::string_view opId, bool child) const
{
    for (const auto &id : m_ids)
        if (opId == id || (child && isPrefixPath(id, opId)))
            return true;
    return false;
}

bool OpIds::isAncestorOfSelected(std::string_view opId) const
{
    for (const auto &id : m_ids)
        if (isPrefixPath(opId, id))
            return true;
    return false;
}

std::string OpIds::text() const
{
    std::string s;
    for (const auto &id : m_ids)
        s += (s.empty() ? "" : ",") + id;
    return s;
}

} // namespace llmscope
