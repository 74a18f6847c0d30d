#include "core/compare/observer_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "core/dump/output_record.h"
#include "core/dump/token_record.h"
#include "core/requests/requests.h"
#include "core/tensor/sketch.h"

namespace llmscope {

namespace {

// Each round's sequences' requests, as the k-th request of that sequence: a request served in
// the same slot later can repeat an earlier one's tokens and positions, never its ordinal.
std::map<int64_t, std::map<int32_t, int>> ordinals(const std::vector<Request> &requests)
{
    std::map<int64_t, std::map<int32_t, int>> out; // round -> sequence -> ordinal
    std::map<int32_t, int> seen;
    for (const Request &r : requests) {
        const int k = seen[r.sequence]++;
        for (int64_t round : r.rounds)
            out[round][r.sequence] = k;
    }
    return out;
}

// A round's tokens, positions and sequences with their requests' ordinals, as one key.
std::string composition(const TokenRecord &t, const std::map<int32_t, int> &ordinal)
{
    std::string k;
    for (const auto *v : {&t.tokens, &t.positions, &t.sequences}) {
        for (int32_t x : *v)
            k += std::to_string(x) + ',';
        k += ';';
    }
    for (const auto &[seq, n] : ordinal)
        k += std::to_string(seq) + ':' + std::to_string(n) + ',';
    return k;
}

// One result held against the other's: whether it differs, and by how much (NaN: unknown).
std::pair<bool, double> resultDifference(const OutputRecord &plain, const OutputRecord &o)
{
    const bool differs = plain.stats.digest != o.stats.digest || plain.dims != o.dims || plain.dtype != o.dtype;
    const double error = !differs ? 0
        : plain.stats.l2norm > 0 && plain.dims == o.dims
        ? sketchDifferenceNorm(plain.stats.sketch, o.stats.sketch) / plain.stats.l2norm
        : std::numeric_limits<double>::quiet_NaN();
    return {differs, error};
}

void noteResult(ObserverCheck &c, int64_t round, const OutputRecord &plain, const OutputRecord &o)
{
    const auto [differs, error] = resultDifference(plain, o);
    if (c.resultDiffers) { // after the first difference: how far it grows
        c.largestRelativeError = std::isnan(error) ? error : std::max(c.largestRelativeError, error);
        return;
    }
    ++c.roundsCompared;
    c.name = differs ? o.name : plain.name;
    if (differs) {
        c.resultDiffers = round;
        c.relativeError = c.largestRelativeError = error;
    }
}

// Requests: each request's tokens by position against the same request's (the k-th of its
// sequence), then each observed round against the plain run's round of the same composition.
ObserverCheck checkByRequest(const std::map<int64_t, OutputRecord> &plainOut,
                             const std::map<int64_t, OutputRecord> &observedOut,
                             const std::map<int64_t, TokenRecord> &plainTokens,
                             const std::map<int64_t, TokenRecord> &observedTokens,
                             const std::vector<Request> &plainRequests, const std::vector<Request> &observedRequests)
{
    ObserverCheck c;
    // request -> position -> (token, the round that consumed it)
    auto tokensOf = [](const Request &r, const std::map<int64_t, TokenRecord> &records) {
        std::map<int32_t, std::pair<int32_t, int64_t>> out;
        for (int64_t round : r.rounds) {
            const TokenRecord &t = records.at(round);
            for (size_t i = 0; i < t.tokens.size(); ++i)
                if (t.sequences[i] == r.sequence && t.positions.size() == t.tokens.size())
                    out.emplace(t.positions[i], std::make_pair(t.tokens[i], round));
        }
        return out;
    };
    std::map<int32_t, int> seen; // sequence -> requests of it so far, plain's
    std::map<std::pair<int32_t, int>, const Request *> plainByOrdinal;
    for (const Request &r : plainRequests)
        plainByOrdinal[{r.sequence, seen[r.sequence]++}] = &r;
    seen.clear();
    for (const Request &r : observedRequests) {
        const auto p = plainByOrdinal.find({r.sequence, seen[r.sequence]++});
        if (p == plainByOrdinal.end())
            continue;
        const auto mine = tokensOf(r, observedTokens), theirs = tokensOf(*p->second, plainTokens);
        for (const auto &[position, token] : mine) {
            const auto other = theirs.find(position);
            if (other != theirs.end() && other->second.first != token.first &&
                (!c.tokensDiffer || token.second < *c.tokensDiffer))
                c.tokensDiffer = token.second;
        }
    }
    const auto plainOrdinals = ordinals(plainRequests), observedOrdinals = ordinals(observedRequests);
    auto ordinalsOf = [](const std::map<int64_t, std::map<int32_t, int>> &all, int64_t round) {
        const auto it = all.find(round);
        return it == all.end() ? std::map<int32_t, int>() : it->second;
    };
    std::map<std::string, int64_t> plainRounds; // composition -> plain's round
    for (const auto &[round, t] : plainTokens)
        plainRounds.emplace(composition(t, ordinalsOf(plainOrdinals, round)), round);
    for (const auto &[round, o] : observedOut) {
        if (c.tokensDiffer && round >= *c.tokensDiffer)
            break; // later rounds computed from other inputs: not comparable
        const auto t = observedTokens.find(round);
        const auto same = t == observedTokens.end()
            ? plainRounds.end()
            : plainRounds.find(composition(t->second, ordinalsOf(observedOrdinals, round)));
        const auto plain = same == plainRounds.end() ? plainOut.end() : plainOut.find(same->second);
        if (plain == plainOut.end()) {
            ++c.batchedOtherwise;
            continue;
        }
        noteResult(c, round, plain->second, o);
    }
    return c;
}

} // namespace

ObserverCheck checkObserver(const std::string &plainDump, const std::string &observedDump)
{
    ObserverCheck c;
    const auto plainOut = readOutputRecords(plainDump), observedOut = readOutputRecords(observedDump);
    const auto plainTokens = readTokenRecords(plainDump), observedTokens = readTokenRecords(observedDump);
    const auto plainRequests = requestsOf(plainTokens), observedRequests = requestsOf(observedTokens);
    if (servesRequests(plainRequests) || servesRequests(observedRequests))
        return checkByRequest(plainOut, observedOut, plainTokens, observedTokens, plainRequests, observedRequests);
    for (const auto &[round, plain] : plainOut) {
        const auto observed = observedOut.find(round);
        if (observed == observedOut.end())
            continue;
        const auto pt = plainTokens.find(round), ot = observedTokens.find(round);
        if (pt != plainTokens.end() && ot != observedTokens.end() && pt->second.tokens != ot->second.tokens) {
            c.tokensDiffer = round; // later rounds computed from other inputs: not comparable
            break;
        }
        noteResult(c, round, plain, observed->second);
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
        return Reason(c.onlyRounding() ? Said::ObserverChangedRounding : Said::ObserverChangedBy,
                      {round, c.name, error});
    }
    if (c.tokensDiffer && c.batchedOtherwise)
        return Reason(Said::ObserverChoicesBatched,
                      {std::to_string(*c.tokensDiffer), std::to_string(c.batchedOtherwise)});
    if (c.tokensDiffer)
        return c.roundsCompared
            ? Reason(Said::ObserverChoicesAfter, {std::to_string(*c.tokensDiffer), std::to_string(c.roundsCompared)})
            : Reason(Said::ObserverChoices, {std::to_string(*c.tokensDiffer)});
    if (c.batchedOtherwise)
        return Reason(Said::ObserverNothingBatched,
                      {std::to_string(c.roundsCompared), c.name.empty() ? std::string("-") : c.name,
                       std::to_string(c.batchedOtherwise)});
    if (c.roundsCompared == 0)
        return Reason(Said::ObserverComparedNothing);
    return Reason(Said::ObserverNothing, {std::to_string(c.roundsCompared), c.name});
}

std::string observerCheckText(const ObserverCheck &c)
{
    return observerCheckReason(c).english();
}

} // namespace llmscope
