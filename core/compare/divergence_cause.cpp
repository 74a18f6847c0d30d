#include "core/compare/divergence_cause.h"

#include "core/compare/op_verdicts.h"

namespace llmscope {

DivergenceCause divergenceCause(const CompareResult &r, const OpResult &op)
{
    if (!op.unreadable.empty())
        return {DivergenceCause::Kind::Unreadable, nullptr};
    if (op.worstInput < 0 || size_t(op.worstInput) >= r.rows.size())
        return {DivergenceCause::Kind::Itself, nullptr};
    const CompareRow &in = r.rows[size_t(op.worstInput)];
    if (op.worstInputIsWeight)
        return (in.quantization && in.quantization->explained()) || !weightDiffers(in) // its quantization, or
            ? DivergenceCause{DivergenceCause::Kind::Itself, nullptr} // rounding: the op's own error
            : DivergenceCause{DivergenceCause::Kind::Weight, &in};
    if (!in.passed)
        return {DivergenceCause::Kind::Input, &in};
    return {DivergenceCause::Kind::Itself, nullptr};
}

Reason causeWords(const CompareResult &r, const OpResult &op)
{
    const DivergenceCause cause = divergenceCause(r, op);
    switch (cause.kind) {
    case DivergenceCause::Kind::Weight:
        return Reason(Said::CauseWeight, {leafLabel(*cause.row), errorWords(*cause.row, leafError(*cause.row))});
    case DivergenceCause::Kind::Input:
        return Reason(Said::CauseInput,
                      {cause.row->tensorName.empty() ? Finding(std::to_string(cause.row->golden.index)) // "its input 1"
                                                     : Finding(cause.row->tensorName),
                       errorWords(*cause.row, leafError(*cause.row))});
    case DivergenceCause::Kind::Itself:
        return op.addedError > 0 && !judgesOps(r.standard) ? Reason(Said::CauseItself) : Reason();
    case DivergenceCause::Kind::Unreadable: break;
    }
    return {};
}

} // namespace llmscope
