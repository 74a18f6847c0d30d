#include "compare/observer_check.h"

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
        ++c.roundsCompared;
        const OutputRecord &o = observed->second;
        if (plain.stats.digest != o.stats.digest || plain.dims != o.dims || plain.dtype != o.dtype) {
            c.resultDiffers = round;
            c.name = o.name;
            const double diff = sketchDifferenceNorm(plain.stats.sketch, o.stats.sketch);
            c.relativeError = plain.stats.l2norm > 0 && plain.dims == o.dims
                                  ? diff / plain.stats.l2norm
                                  : std::numeric_limits<double>::quiet_NaN();
            break;
        }
        c.name = plain.name;
    }
    return c;
}

std::string observerCheckText(const ObserverCheck &c)
{
    if (c.resultDiffers) {
        std::string error;
        if (std::isfinite(c.relativeError)) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " (relative error about %.3g)", c.relativeError);
            error = buf;
        }
        return "observing changed the program's results: round " + std::to_string(*c.resultDiffers) + "'s " +
               c.name + " differs from the run the probe only watched" + error +
               ", from the same tokens; what the dump shows is the observed program, not the one that runs "
               "unobserved (try --keep-fusion)";
    }
    if (c.tokensDiffer)
        return "observing changed the program's choices: from round " + std::to_string(*c.tokensDiffer) +
               " it consumed other tokens than the run the probe only watched" +
               (c.roundsCompared ? " (the " + std::to_string(c.roundsCompared) + " round(s) before agree bit for bit)"
                                 : std::string());
    if (c.roundsCompared == 0)
        return "the observer check compared nothing: the two runs recorded no result of the same round (a dump "
               "from an older probe, or a program whose rounds the probe cannot read)";
    return "observing changed nothing: " + std::to_string(c.roundsCompared) +
           " round(s) computed the same results bit for bit as the run the probe only watched (" + c.name + ")";
}

} // namespace llmscope
