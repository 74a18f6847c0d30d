#include "core/run_spread/spread.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/compare/report_text.h"
#include "core/dump/op_names.h"
#include "core/requests/request_pairing.h"
#include "core/run_spread/batch_alignment.h"
#include "core/select/op_id.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope {
namespace {

// Every output element the same on both sides: computed, no difference among the finite
// ones, and NaN and Inf in the same places (a NaN against a NaN is the same; compare counts it
// among the non-finite pairs that are not one Inf, so those must be exactly the NaNs).
bool bitIdentical(const CompareResult &r, const OpResult &op)
{
    for (size_t i : op.rows) {
        const CompareRow &row = r.rows[i];
        if (row.golden.input)
            continue;
        if (row.skipped)
            continue;
        if (row.unreadable || row.golden.dims != row.my.dims)
            return false;
        const Metrics &m = row.metrics;
        const bool digests = row.golden.stats && row.my.stats && row.golden.stats->digest && row.my.stats->digest;
        const bool same = row.computed
            ? m.maxAbsErr == 0 && m.nanGolden == m.nanMy && m.infGolden == m.infMy && m.nonFiniteMismatch == m.nanGolden
            : digests ? row.golden.stats->digest == row.my.stats->digest // the bytes' digests
                      : row.statsRelDiff == 0;
        if (!same)
            return false;
    }
    return true;
}

// Its outputs compared from statistics alone (no tensors dumped).
bool fromStatistics(const CompareResult &r, const OpResult &op)
{
    for (size_t i : op.rows)
        if (!r.rows[i].golden.input && !r.rows[i].statsOnly)
            return false;
    return true;
}

// By round, then by the op's place in the graph (2_9 before 2_10).
bool before(const SpreadOp &a, const SpreadOp &b)
{
    if (a.round != b.round)
        return a.round < b.round;
    const std::optional<OpId> x = OpId::parse(a.opId), y = OpId::parse(b.opId);
    if (x && y)
        return *x < *y;
    return a.opId < b.opId;
}

} // namespace

std::string SpreadOp::label() const
{
    return opLabel(opId, name, type);
}

namespace {

// What the pairs say of one op, gathered over every pair.
struct SpreadAcc {
    SpreadOp op;
    std::vector<double> distance; // summed over the pairs each run is in
    std::vector<int> parting; // the pairs beyond their standard each run is in
};

// Each run's configuration against run 0's.
void readConfigurations(SpreadResult &res)
{
    res.configurations.resize(res.runs.size());
    try {
        const RunConfig first = readRunConfig(res.runs[0].dump);
        for (size_t k = 1; k < res.runs.size(); ++k) {
            try {
                res.configurations[k] = diffConfigs(first, readRunConfig(res.runs[k].dump));
            } catch (const Error &) { // a dump without its status: nothing to say
            }
        }
    } catch (const Error &) { // run 0's dump without its status: nothing to hold the others to
    }
}

// The two dumps runs i and j are compared as: the chosen request of each, lined up by
// position; or run j lined up with run i by position where their configurations differ; or
// the dumps themselves.
std::pair<std::string, std::string> pairedDumps(SpreadResult &res, size_t i, size_t j, const RequestChoice &request,
                                                const std::string &workDir)
{
    std::string golden = res.runs[i].dump, test = res.runs[j].dump;
    const std::string pairName = std::to_string(i) + "-" + std::to_string(j);
    if (request.chosen() && !workDir.empty()) {
        const RequestPairing p = pairRequests(golden, request, test, request, workDir + "/requests-" + pairName);
        if (i == 0 && j == 1) // golden and my are runs 1 and 2 here
            for (std::string note : p.notes) {
                for (const auto &[side, run] : {std::pair{std::string("golden"), std::string("run 1")},
                                                std::pair{std::string("my"), std::string("run 2")}})
                    if (note.rfind(side + ": ", 0) == 0)
                        note = run + "'s " + note.substr(side.size() + 2);
                res.requestNotes.push_back(note);
            }
        return {p.golden, p.my};
    }
    if (!workDir.empty() && res.runs[i].config != res.runs[j].config)
        if (const auto a = alignByPosition(res.runs[i].dump, test, workDir + "/aligned-" + pairName)) {
            test = a->dump;
            res.aligned.push_back({int(i), int(j), a->aligned, a->copied, a->leftOut, a->dump});
        }
    return {golden, test};
}

// The farthest run: in the most pairs beyond their standard, then the largest summed
// distance. Of equals (two configurations of two runs each, or two runs), one of another
// configuration than the first run's, then any but the first: the first run is the
// reference. Then the earliest. -1 when every run agrees.
int farthestRun(const SpreadAcc &a, const std::vector<SpreadRun> &runs)
{
    const auto rank = [&](size_t k) {
        const bool fused = std::find(a.op.fusedRuns.begin(), a.op.fusedRuns.end(), int(k)) != a.op.fusedRuns.end();
        return std::make_tuple(a.parting[k], a.distance[k], fused, runs[k].config != runs[0].config, k != 0);
    };
    int far = -1;
    for (size_t k = 0; k < runs.size(); ++k)
        if ((a.distance[k] > 0 || a.parting[k] > 0) && (far < 0 || rank(k) > rank(size_t(far))))
            far = int(k);
    return far;
}

} // namespace

SpreadResult computeSpread(std::vector<SpreadRun> runs, const PairCompare &compare, const std::string &workDir,
                           const RequestChoice &request)
{
    if (runs.size() < 2)
        throw Error("a spread needs at least two runs");
    const PairCompare pair = compare ? compare : [](const std::string &g, const std::string &t) {
        CompareOptions o;
        o.goldenPath = g;
        o.myPath = t;
        o.standard = Standard::Engine;
        return runCompare(o);
    };
    SpreadResult res;
    res.runs = std::move(runs);
    const size_t n = res.runs.size();
    readConfigurations(res);
    // Each run's op ids as run 0's (graphs may differ: flash attention on and off), from the
    // pair of run 0 with it; every op is kept under run 0's id.
    std::vector<std::map<std::pair<int64_t, std::string>, std::string>> asFirst(n);
    std::map<std::pair<int64_t, std::string>, SpreadAcc> byOp;
    std::vector<int> firstOfConfig(n, -1); // each run's configuration's first run
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k <= i; ++k)
            if (res.runs[k].config == res.runs[i].config) {
                firstOfConfig[i] = int(k);
                break;
            }
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const auto [golden, test] = pairedDumps(res, i, j, request, workDir);
            const CompareResult r = pair(golden, test);
            ++res.comparedPairs;
            if (const size_t unpaired = r.onlyGolden.size() + r.onlyMy.size())
                res.unpaired.push_back({int(i), int(j), int(unpaired)});
            const bool sameConfig = res.runs[i].config == res.runs[j].config;
            for (const OpResult &op : r.ops) {
                if (i == 0)
                    asFirst[j][{op.round, op.myOpId.empty() ? op.opId : op.myOpId}] = op.opId;
                std::string id = op.opId;
                if (i > 0) { // run i's id, as run 0's
                    const auto known = asFirst[i].find({op.round, op.opId});
                    if (known == asFirst[i].end())
                        continue; // an op run 0 does not have: the pairs with run 0 say so
                    id = known->second;
                }
                SpreadAcc &a = byOp[{op.round, id}];
                if (a.distance.empty()) {
                    a.op.round = op.round;
                    a.op.opId = id;
                    a.op.name = op.name;
                    a.op.type = op.opType;
                    a.distance.assign(n, 0);
                    a.parting.assign(n, 0);
                    a.op.fromFirst.assign(n, NAN);
                    a.op.fromFirst[0] = 0;
                    a.op.fromTensors = true;
                }
                a.op.fromTensors = a.op.fromTensors && !fromStatistics(r, op);
                if (!op.fusedChain.empty())
                    a.op.fusedChain = op.fusedChain;
                for (const auto &[fused, k] : {std::pair{op.goldenFused, int(i)}, std::pair{op.myFused, int(j)}})
                    if (fused && std::find(a.op.fusedRuns.begin(), a.op.fusedRuns.end(), k) == a.op.fusedRuns.end())
                        a.op.fusedRuns.push_back(k);
                const bool identical = bitIdentical(r, op);
                // Not identical with no finite difference: from tensors, NaN or Inf elsewhere (as far
                // as can be); from statistics, a difference below what they resolve (not known).
                double d = op.unreadable.empty() && std::isfinite(op.outputError) ? op.outputError : INFINITY;
                if (!identical && d == 0)
                    d = fromStatistics(r, op) ? NAN : INFINITY;
                a.op.spread = std::fmax(a.op.spread, identical ? 0.0 : d); // NaN: not known, left out
                a.distance[i] += identical || std::isnan(d) ? 0 : d;
                a.distance[j] += identical || std::isnan(d) ? 0 : d;
                if (i == 0)
                    a.op.fromFirst[j] = identical ? 0 : d;
                const bool parts = sameConfig ? !identical : !op.passed;
                if (parts && !a.op.departs)
                    // the runs counted from 1 in words, as they ran
                    a.op.why = sameConfig
                        ? Reason(Said::SpreadNotIdentical, {std::to_string(i + 1), std::to_string(j + 1)})
                        : Reason(Said::SpreadBeyondBudget,
                                 {std::to_string(i + 1), std::to_string(j + 1), joined(op.verdict)});
                a.op.departs = a.op.departs || parts;
                a.parting[i] += parts;
                a.parting[j] += parts;
                if (sameConfig && int(i) == firstOfConfig[j] && !identical)
                    ++a.op.differing;
            }
        }
    for (auto &entry : byOp) {
        entry.second.op.farthest = farthestRun(entry.second, res.runs);
        res.ops.push_back(std::move(entry.second.op));
    }
    std::stable_sort(res.ops.begin(), res.ops.end(), before);
    summarise(res);
    return res;
}

void summarise(SpreadResult &res)
{
    res.firstDeparture = res.departingRun = -1;
    res.nondeterministic.clear();
    for (size_t k = 0; k < res.ops.size(); ++k) {
        if (res.ops[k].departs && res.firstDeparture < 0) {
            res.firstDeparture = int(k);
            res.departingRun = res.ops[k].farthest;
        }
        if (res.ops[k].differing > 0)
            res.nondeterministic.push_back(k);
    }
}

SpreadSuspects suspectsOf(const SpreadResult &r)
{
    SpreadSuspects s;
    auto take = [&](int k) {
        if (k < 0)
            return;
        const SpreadOp &o = r.ops[size_t(k)];
        if (o.fromTensors)
            return;
        s.firstRound = s.firstRound < 0 ? o.round : std::min(s.firstRound, o.round);
        s.lastRound = std::max(s.lastRound, o.round);
    };
    take(r.firstDeparture);
    take(r.nondeterministic.empty() ? -1 : int(r.nondeterministic.front()));
    return s;
}

void mergeExact(SpreadResult &base, const SpreadResult &exact)
{
    std::map<std::pair<int64_t, std::string>, const SpreadOp *> measured;
    for (const SpreadOp &o : exact.ops)
        measured[{o.round, o.opId}] = &o;
    for (SpreadOp &o : base.ops)
        if (const auto m = measured.find({o.round, o.opId}); m != measured.end())
            o = *m->second;
    summarise(base);
    // The dumps that show the first departure element by element: this pass's, where it measured
    // it (never lined up: runs that need that dump their tensors in one pass).
    const bool here = base.departs() &&
        measured.count({base.ops[size_t(base.firstDeparture)].round, base.ops[size_t(base.firstDeparture)].opId});
    if (here || base.exactRuns.empty())
        base.exactRuns = exact.runs;
}

int SpreadResult::departurePartner() const
{
    if (!departs())
        return -1;
    return departingRun > 0 ? departingRun : 1;
}

std::string SpreadResult::departureDump() const
{
    const int k = departurePartner();
    if (k < 0)
        return {};
    const std::vector<SpreadRun> &dumped = exactRuns.empty() ? runs : exactRuns;
    for (const Aligned &a : aligned)
        if (a.first == 0 && a.second == k) // runs lined up by position dumped tensors in one pass
            return a.dump;
    return dumped[size_t(k)].dump;
}

std::string SpreadResult::departureReference() const
{
    return exactRuns.empty() ? runs[0].dump : exactRuns[0].dump;
}

int SpreadResult::observerChanged() const
{
    for (size_t k = 0; k < runs.size(); ++k)
        if (runs[k].observer && runs[k].observer->changed() && !runs[k].observer->onlyRounding())
            return int(k);
    return -1;
}

std::string spreadJson(const SpreadResult &r)
{
    using nlohmann::json;
    auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    json j;
    j["version"] = 1;
    json runs = json::array();
    for (size_t k = 0; k < r.runs.size(); ++k) {
        json run{{"index", k}, {"command", r.runs[k].command}, {"config", r.runs[k].config}, {"dump", r.runs[k].dump}};
        if (const auto &o = r.runs[k].observer)
            run["observer"] = {{"changed", o->changed()},
                               {"only_rounding", o->onlyRounding()},
                               {"rounds_compared", o->roundsCompared},
                               {"text", observerCheckText(*o)}};
        runs.push_back(std::move(run));
    }
    j["runs"] = runs;
    json configs = json::array(); // each run's configuration against run 0's
    for (size_t k = 1; k < r.configurations.size(); ++k)
        if (const auto &d = r.configurations[k])
            configs.push_back({{"run", k},
                               {"against_run", 0},
                               {"summary", configDiffSummary(*d)},
                               {"diff", json::parse(configDiffJson(*d))}});
    j["configurations"] = configs;
    j["observer_changed_run"] = r.observerChanged();
    json exact = json::array(); // a statistics-first spread's second pass: the suspects' tensors
    for (size_t k = 0; k < r.exactRuns.size(); ++k)
        exact.push_back({{"index", k}, {"dump", r.exactRuns[k].dump}});
    j["second_pass"] = exact;
    j["compared_pairs"] = r.comparedPairs;
    j["standard"] = "bit-identical within a configuration; ggml's budgets between configurations";
    auto opJson = [&](const SpreadOp &o) {
        return json{{"round", o.round},
                    {"op_id", o.opId},
                    {"op_name", o.name},
                    {"op_type", o.type},
                    {"spread", number(o.spread)},
                    {"departs", o.departs},
                    {"farthest_run", o.farthest},
                    {"differing_runs", o.differing},
                    {"why", o.why.english()},
                    {"from_tensors", o.fromTensors},
                    {"fused_chain", o.fusedChain},
                    {"fused_runs", o.fusedRuns},
                    {"from_first_run", [&] {
                         json a = json::array();
                         for (double d : o.fromFirst)
                             a.push_back(number(d));
                         return a;
                     }()}};
    };
    json ops = json::array();
    for (const SpreadOp &o : r.ops)
        ops.push_back(opJson(o));
    j["ops"] = ops;
    if (r.departs()) {
        const SpreadOp &o = r.ops[size_t(r.firstDeparture)];
        j["first_departure"] = {{"round", o.round},      {"op_id", o.opId},        {"label", o.label()},
                                {"run", r.departingRun}, {"why", o.why.english()}, {"fused_chain", o.fusedChain}};
    } else {
        j["first_departure"] = nullptr;
    }
    json nd = json::array();
    for (size_t k : r.nondeterministic)
        nd.push_back({{"round", r.ops[k].round},
                      {"op_id", r.ops[k].opId},
                      {"label", r.ops[k].label()},
                      {"differing_runs", r.ops[k].differing}});
    j["nondeterministic"] = nd;
    json aligned = json::array();
    for (const auto &a : r.aligned)
        aligned.push_back({{"runs", {a.first, a.second}},
                           {"files_aligned", a.aligned},
                           {"files_copied", a.copied},
                           {"files_left_out", a.leftOut}});
    j["aligned_by_position"] = aligned;
    json unpaired = json::array();
    for (const auto &u : r.unpaired)
        unpaired.push_back({{"runs", {u.first, u.second}}, {"tensors", u.tensors}});
    j["unpaired"] = unpaired;
    return j.dump(2) + "\n";
}

void writeSpreadReports(const SpreadResult &r, const std::string &folder)
{
    std::ostringstream csv;
    csv << "round,op_id,op_name,op_type,spread,departs,farthest_run,differing_runs\n";
    const auto cell = report::csvField;
    for (const SpreadOp &o : r.ops)
        csv << o.round << ',' << cell(o.opId) << ',' << cell(o.name) << ',' << cell(o.type) << ','
            << report::num(o.spread) << ',' << (o.departs ? "1" : "0") << ',' << o.farthest << ',' << o.differing
            << '\n';
    writeFileAtomic(folder + "/spread.csv", csv.str());
    writeFileAtomic(folder + "/spread.json", spreadJson(r));
}

void removeSpreadReports(const std::string &folder)
{
    std::error_code ec; // a folder not made yet has none
    for (const char *name : {"/spread.csv", "/spread.json"})
        std::filesystem::remove(folder + name, ec);
}

} // namespace llmscope
