// Several runs of one prompt side by side: each pair of runs compared op by op, and per op
// and round the spread (the largest output error between two runs), whether any pair parts
// beyond its standard, the first op where the runs part, and the run that departs.
//
// The standard depends on the pair: two runs of one configuration (the same command) must be
// bit-identical, element for element; runs of different configurations (threads, batch,
// device, flash attention) are held to ggml's cross-backend budgets (compare's engine
// standard). Runs of one configuration that are not bit-identical are named apart as
// nondeterminism, with how many of them differ from the first.
#pragma once
#include "core/requests/requests.h"
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/compare/observer_check.h"
#include "core/config/run_config.h"

namespace llmscope {

struct SpreadRun {
    std::string command; // the program's command line
    std::string dump; // its dump folder
    int config = 0; // runs of one configuration share it (the same command)
    // Its observer check: the first pass's dump held against the same command run with the probe
    // loaded but reading nothing (compare/observer_check.h); unset where none ran.
    std::optional<ObserverCheck> observer = std::nullopt;
};

struct SpreadOp {
    int64_t round = 0;
    std::string opId, name, type;
    double spread = 0; // the largest relative euclidean distance of its outputs between two runs
    bool departs = false; // some pair beyond its standard here
    int farthest = -1; // the run farthest from the others here (the largest summed distance)
    int differing = 0; // runs whose output is not bit-identical to their configuration's first run
    // Each run's distance from run 0 here (0: bit-identical; NaN: not compared, or from statistics
    // that tell the bytes differ but resolve no distance).
    std::vector<double> fromFirst;
    Reason why; // the first pair beyond its standard
    bool fromTensors = false; // every pair compared from tensors (first pass, or mergeExact's)
    // The chain it ends where some run computed it fused ("RMS_NORM+MUL"), and which runs did:
    // of runs equally far from the others, one that computed it fused is the farthest (the
    // unfused ops are the reference a fused kernel must match).
    std::string fusedChain;
    std::vector<int> fusedRuns;
    std::string label() const; // "3_29 ffn_out-2 (MUL_MAT)"
};

struct SpreadResult {
    std::vector<SpreadRun> runs;
    std::vector<SpreadOp> ops; // by round, then graph order (ids as numbers)
    int firstDeparture = -1; // index into ops; -1 when no pair parts beyond its standard
    int departingRun = -1; // at the first departure, the run farthest from the others
    std::vector<size_t> nondeterministic; // ops where runs of one configuration differ, in order
    int comparedPairs = 0;
    // Pairs whose rounds held other positions (a prompt at once against one token a round),
    // compared after lining the second up with the first by position (spread/batch_alignment.h).
    struct Aligned {
        int first = 0, second = 0;
        int aligned = 0, copied = 0, leftOut = 0; // files gathered row by row, taken once, not compared
        std::string dump; // the second, lined up
    };
    std::vector<Aligned> aligned;
    std::vector<std::string> requestNotes; // with a request chosen: what runs 1 and 2 held of it (request_pairing.h)
    // Pairs where tensors of one run have no partner in the other (an op or round only one has):
    // what was not compared.
    struct Unpaired {
        int first = 0, second = 0, tensors = 0;
    };
    std::vector<Unpaired> unpaired;
    // The runs dumped again with the suspect ops' tensors (a statistics-first spread's second
    // pass, mergeExact); empty when the first pass dumped tensors.
    std::vector<SpreadRun> exactRuns;
    // The dump to compare run 0 with to see the departure: the departing run's, lined up where it
    // was (of the second pass, where there was one); empty when none departs.
    std::string departureDump() const;
    int departurePartner() const; // the run it is (never 0: another when run 0 is the farthest)
    std::string departureReference() const; // run 0's dump to compare it with (the second pass's, where there was one)
    bool departs() const { return firstDeparture >= 0; }
    // The first run whose observer check says observing changed it beyond float rounding; -1 none.
    int observerChanged() const;
    // What differs between each run's configuration and run 0's (llmscope config-diff), before
    // any tensor; none for run 0 and for a run whose dump has no status to read.
    std::vector<std::optional<ConfigDiff>> configurations;
};

// Pairs every two runs with compare(golden, test) (runCompare under the engine standard when
// unset); runs must have dumped tensors for element-wise identity (statistics alone are held
// to their estimate). With workDir, two runs whose rounds held other positions are lined up
// by position first, the second rewritten under workDir. With a request chosen (and workDir),
// every two runs compare that request of each (requests/request_pairing.h). Throws Error with
// fewer than two runs, or a run without that request.
using PairCompare = std::function<CompareResult(const std::string &golden, const std::string &test)>;
SpreadResult computeSpread(std::vector<SpreadRun> runs, const PairCompare &compare = {},
                           const std::string &workDir = {}, const RequestChoice &request = {});

// The first departure, the departing run and the nondeterministic ops, from ops (in order).
void summarise(SpreadResult &r);

// A statistics-first spread's suspects: the rounds of the first departure and of the first
// nondeterministic op, where those were judged from statistics; every op's tensors of those
// rounds are dumped on the next pass. Empty when both were measured from tensors (or none).
struct SpreadSuspects {
    int64_t firstRound = -1, lastRound = -1;
    bool empty() const { return firstRound < 0; }
};
SpreadSuspects suspectsOf(const SpreadResult &r);
// A later pass's measures (every two runs of the suspect rounds' tensors) in place of the
// first's for the same op and round; the first departure and the departing run again.
void mergeExact(SpreadResult &base, const SpreadResult &exact);

// msit-style reports: spread.csv (one row per op and round) and spread.json (the runs, each
// op's spread, first_departure, nondeterministic), written atomically into folder.
void writeSpreadReports(const SpreadResult &r, const std::string &folder);
// A new spread into folder removes an earlier one's reports first: one that then fails leaves none
// to read as its own.
void removeSpreadReports(const std::string &folder);
std::string spreadJson(const SpreadResult &r);

} // namespace llmscope
