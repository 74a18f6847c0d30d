// An error whose reason is a finding (text/reason.h), so the window words it in the user's
// language; its what() is the English, as any Error's.
#pragma once
#include "core/text/reason.h"
#include "core/util/error.h"

namespace llmscope {

class ReasonError : public Error {
public:
    explicit ReasonError(Reason r) : Error(r.english()), m_reason(std::move(r)) {}
    const Reason &reason() const { return m_reason; }

private:
    Reason m_reason;
};

} // namespace llmscope
