// What `llmscope spread` and Session > Spread run: the command lines given, each once per
// --vary value (the flag and the value added to it), each of those --repeat times; runs of
// one command line are one configuration (held to bit-identity). With --fusion on,off each is run
// with the backends' fusion on and off: two configurations.
//
// Every pass observes the program as it runs: fused chains are read at their last op.
// The runs dump in passes: statistics of every op first (with their sketches, from which
// compare estimates each op's error, and their bytes' digests, which tell bit-identity), then
// every op's tensors of the rounds where the first departure and the first nondeterministic op
// were found, until both are measured from tensors. Runs whose rounds held other positions (the
// prompt at once against one token a round) dump every tensor at once, to be lined up row by
// row; so does --tensors. With --kv-cache every pass dumps the cache too: lined up by the round
// whose last position is the reference round's (one sequence's cells hold its positions in
// order), so its rows are compared position by position.
#pragma once
#include "core/requests/requests.h"
#include <QStringList>

#include <string>
#include <vector>

#include "core/run_spread/spread.h"

namespace spread {

// One run of a spread: a command line, and with --fusion the backends' fusion on or off.
struct Run {
    std::string command;
    std::string fusion; // "on", "off", or empty: as the program runs by default
    int timeoutSeconds = 0; // --timeout: each pass's program stopped after it (0: never)
    // What reports and the window call it, one per configuration ("CMD [fusion off]").
    std::string label() const;
    // The dump options it adds to every pass: fusion kept as the program runs (--keep-fusion),
    // and with "off" the backends' own switches off (--no-fusion); --timeout where set.
    QStringList options() const;
};

struct Request {
    std::vector<std::string> commands; // --run, as given
    std::string flag; // --vary's flag ("-t"), empty for none
    std::vector<std::string> values; // --vary's values ("1", "4")
    std::vector<std::string> fusion; // --fusion's values ("on", "off"), empty for none
    int repeat = 1;
    int timeoutSeconds = 0; // --timeout
    std::string folder = "llmscope_spread", rounds = "all";
    bool tensors = false; // every tensor in one pass, no statistics first
    bool kvCache = false; // the KV cache dumped too (--kv-cache), compared by position
    llmscope::RequestChoice request; // --seq S / --request N: that request of each run (tensors, one pass)
    bool help = false;

    std::vector<Run> runs() const; // the expanded runs, in order
};

// Reads `llmscope spread`'s arguments; throws llmscope::Error naming what is wrong.
Request parseRequest(const std::vector<std::string> &args);
// --vary's text ("-t 1,2,4") into the request; throws Error when it holds no flag and values.
void setVary(Request &r, const std::string &text);
// --fusion's text ("on,off") into the request; throws Error on a value other than on and off.
void setFusion(Request &r, const std::string &text);

constexpr int kSteps = 2; // dump each run, compare every two
constexpr int kMostPasses = 4; // a statistics pass, then at most three of suspect rounds' tensors

// `llmscope dump` options of a pass: the first (statistics, or every tensor with --tensors),
// every tensor (runs to be lined up by position), a later pass's rounds of tensors.
QStringList firstPass(const Request &r);
// The observer check's run: the probe loaded, reading nothing, each round's results recorded.
QStringList observerPass();
QStringList tensorPass(const Request &r);
QStringList suspectPass(const Request &r, const llmscope::SpreadSuspects &s);
// Whether some two runs of a statistics pass must be lined up by position (then every run dumps
// its tensors again, in one pass).
bool mustLineUp(const std::vector<llmscope::SpreadRun> &runs);

} // namespace spread
