// Whether observing changed the program: a dumped run held against a run of the same command
// with the probe loaded but reading nothing, round by round, on the tokens each round consumed
// (dump/token_record.h) and the digest of each round's result (dump/output_record.h). On one
// machine the same command computes the same bits, so any difference is the observer's doing
// (it keeps ggml from fusing what it reads, or splits the graph). A program that serves several
// requests (llama-server's slots) batches them by its own timing, which differs from run to run:
// there each request's tokens are held against the same request's by position, and a round's
// result against the other run's round of the same tokens, positions and sequences, if any.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/text/reason.h"

namespace llmscope {

struct ObserverCheck {
    int64_t roundsCompared = 0; // rounds both recorded, up to the first difference
    std::optional<int64_t> resultDiffers; // the first round whose result differs, from the same tokens
    std::optional<int64_t> tokensDiffer; // the first round whose tokens differ (the runs chose otherwise)
    std::string name; // the result's node ("result_output")
    double relativeError = 0; // resultDiffers: ||observed - plain|| / ||plain||, from sketches (NaN: unknown)
    double largestRelativeError = 0; // the same, the largest over that round and the later ones compared
    // Requests: rounds whose tokens the other run batched otherwise (before any token differs).
    // Tokens that then differ still count as a change (nothing shows observing changed nothing),
    // but are not blamed on observing: a batch-dependent result differs run to run anyway.
    int64_t batchedOtherwise = 0;
    bool changed() const { return resultDiffers.has_value() || tokensDiffer.has_value(); }
    // The results changed only in their last bits, from the same tokens in every round: a
    // relative error of at most kRoundingChange (about a hundred float32 units) in the first
    // round that differs and every later one, as summing in another order gives (a device's
    // graph split where the probe reads it). What departs by that little is no kernel's fault,
    // and the verdicts hold for the program within rounding.
    static constexpr double kRoundingChange = 1e-5;
    bool onlyRounding() const
    {
        return resultDiffers.has_value() && !tokensDiffer.has_value() && relativeError <= kRoundingChange &&
            largestRelativeError <= kRoundingChange;
    }
};

// Reads both dumps' records; throws Error when either holds a malformed one.
ObserverCheck checkObserver(const std::string &plainDump, const std::string &observedDump);

// What was compared and, where observing changed the results, the first round and by how much.
Reason observerCheckReason(const ObserverCheck &c);
std::string observerCheckText(const ObserverCheck &c); // its English

} // namespace llmscope
