#include "compare/observer_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "dump/output_record.h"
#include "dump/token_record.h"
#include "tensor/sketch.h"

namespace llmscope {

ObserverCheck checkObserver(const std::string &plainDump, const std::string &observedDump)
{
    ObserverCheck c;
    const auto plainOut = readOutputRecords(plainDump), observedOut = readOutputRecords(observedDump);
    const auto plainTokens = readTokenRecords(plainDump), observedTokens = readTokenRecords(observedDump);
    for (const auto &[round, plain] : plainOut) {
        const auto observed = observedOut.find(round);
        if (observed == observedOut.end())
            continue;
        const auto pt = plainTokens.find(round), ot = observedTokens.find(round);
        if (pt != plainTokens.end() && ot != observedTokens.end() && pt->second.tokens != ot->second.tokens) {
            c.tokensDiffer = round; // later rounds computed from other inputs: not comparable
            break;
        }
        const OutputRecord &o = observed->second;
        const bool differs = plain.stats.digest != o.stats.digest || plain.dims != o.dims || plain.dtype != o.dtype;
        const double error = !differs ? 0
                             : plain.stats.l2norm > 0 && plain.dims == o.dims
                                 ? sketchDifferenceNorm(plain.stats.sketch, o.stats.sketch) / plain.stats.l2norm
                                 : std::numeric_limits<double>::quiet_NaN();
        if (c.resultDiffers) { // after the first difference: how far it grows, and whether the tokens part
            c.largestRelativeError = std::isnan(error) ? error : std::max(c.largestRelativeError, error);
            continue;
        }
        ++c.roundsCompared;
        if (differs) {
            c.resultDiffers = round;
            c.name = o.name;
            c.relativeError = c.largestRelativeError = error;
            continue;
        }
        c.name = plain.name;
    }
    return c;
}

Reason observerCheckReason(const ObserverCheck &c)
{
    if (c.resultDiffers) {
        const std::string round = std::to_string(*c.resultDiffers);
        if (!std::isfinite(c.relativeError))
            return Reason(Said::ObserverChanged, {round, c.name});
        char error[32];
        std::snprintf(error, sizeof error, "%.3g", c.relativeError);
        return Reason(c.onlyRounding() ? Said::ObserverChangedRounding : Said::ObserverChangedBy, {round, c.name, error});
    }
    if (c.tokensDiffer)
        return c.roundsCompared ? Reason(Said::ObserverChoicesAfter,
                                         {std::to_string(*c.tokensDiffer), std::to_string(c.roundsCompared)})
                                : Reason(Said::ObserverChoices, {std::to_string(*c.tokensDiffer)});
    if (c.roundsCompared == 0)
        return Reason(Said::ObserverComparedNothing);
    return Reason(Said::ObserverNothing, {std::to_string(c.roundsCompared), c.name});
}

std::string observerCheckText(const ObserverCheck &c)
{
    return observerCheckReason(c).english();
}

} // namespace llmscope
