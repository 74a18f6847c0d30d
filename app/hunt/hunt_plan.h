// The hunt for the first divergent operation, as `llmscope hunt` and the window's Hunt both
// run it: what each of its four steps dumps, and the words that say what it does and why.
// One owner, so the command line and the window say and do the same.
#pragma once
#include <QString>
#include <QStringList>

#include "core/dump/probe_status.h"

#include <optional>

#include "core/compare/compare_run.h"
#include "core/compare/precision_standard.h"
#include "core/dump/fusion_record.h"
#include "core/opcheck/opcheck_run.h"

namespace hunt {

constexpr int kSteps = 4;

// What a hunt is asked for, on the command line (`llmscope hunt ...`) or for the window
// (`llmscope --hunt ...`): one reader for both.
struct Request {
    QString golden, test; // command lines
    QString folder = QStringLiteral("llmscope_hunt"); // -o
    QString rounds = QStringLiteral("all"); // -er: every round both programs run
    std::optional<llmscope::Standard> standard; // --standard
    int timeoutSeconds = 0; // --timeout: each pass's program stopped after it (0: never)
    bool help = false; // -h, --help
};
// --golden CMD --test CMD [-o DIR] [-er RANGES] [--standard exact|rounding|engine|msit]; throws Error that
// names the option at fault (an unknown one, a missing value, a missing --golden or --test).
Request parseRequest(const QStringList &args);

// `llmscope dump` options of step 1 (statistics of every op) and step 3 (the suspect's full
// tensors, its inputs before and outputs after, in its round only). The two graphs may hold
// the same nodes in another order (CPU against a device backend): each side dumps its own id
// of the op the comparison paired.
enum class Side { Golden, Test };
// -er for `llmscope dump`: "all" is every round there is; anything else as given.
QString dumpRounds(const QString &rounds);
// Step 1 keeps fusion (--keep-fusion): the chains the backend fuses are read at their ends.
QStringList statsArgs(const QString &rounds);
// The observer check (compare/observer_check.h): the test with the probe loaded, reading nothing.
QStringList plainArgs();
QString testPlainDir();
QString stepObserverCheck();
// The suspect ends a fused chain: the round's outputs dumped fusion kept, compared element by element.
QString goldenFusedDir();
QString testFusedDir();
QString stepFusedWalk(const llmscope::OpResult &op, const llmscope::FusedChainRecord &chain);
// Nothing departs as observed, yet observing changed the test's results (check: in words).
QString observerChangedUnexplained(const QString &check);
// The suspect ends a chain the test computed fused, and its ops agree computed one by one
// (unfused: the suspect as the unfused pass compared it, where it did).
QString fusedKernelWrong(const llmscope::OpResult &op, const llmscope::FusedChainRecord &chain,
                         const llmscope::OpResult *unfused);
QStringList tensorArgs(const llmscope::OpResult &suspect, Side side);
// The test's options for a pass after golden's has run: it consumes the tokens golden's dump
// recorded (--follow-tokens), so that its rounds after a different choice stay comparable.
QStringList followingTokens(const QStringList &options, const QString &goldenDump);
// A PyTorch golden (compare/framework_pairing.h): both runs dump the suspect's whole round, as a
// module's input lies in another of the engine's ops, and the first op that departs element by
// element is the one found.
QStringList roundTensorArgs(const llmscope::OpResult &suspect);
QString stepRoundTensors(const llmscope::OpResult &op);

// The folders of each dump and report under the hunt's output folder.
QString goldenStatsDir();
QString testStatsDir();
QString goldenTensorsDir();
QString testTensorsDir();

QString stepStats(const QString &rounds);
QString stepCompareStats();
// "standard rounding: both sides ran on CPU ...": the standard the comparison chose, and why.
QString standardWords(const llmscope::CompareResult &r);
QString suspect(const llmscope::CompareResult &r, const llmscope::OpResult &op);
QString stepTensors(const llmscope::OpResult &op);
QString stepCompareTensors();

// A test whose weights are stored in other types than golden's (a quantized model): statistics
// bound errors from below only, too loosely to tell a kernel's error from its weights'
// quantization, so step 1 is done again with every op's outputs (and the logits) in full.
bool quantizedTest(const llmscope::CompareResult &statsResult);
QStringList outputsArgs(const QString &rounds);
QString goldenOutputsDir();
QString testOutputsDir();
QString stepOutputs(const llmscope::CompareResult &statsResult, const QString &rounds);
// Within every budget, a quantized test's products are replayed on their own inputs
// (product_replay.h): ggml's budgets for a quantized pair are wide enough to hide a kernel's
// fault (a feature never written is 1/2048 of a 2048-wide product's power).
QString testProductsDir();
QString stepProducts(const QString &rounds);
// Every product within its bound: how many were replayed, and how many could not be (failed:
// why none could).
QString productsWithinBounds(int replayed, int skipped, const QString &failed);
// A product within ggml's budget whose kernel is wrong on its own inputs: said before the end.
QString productWrongWithinBudget();
// The weights whose quantization costs most, by the NMSE their ops add (three, in words).
QString costliestWeights(const llmscope::CompareResult &r);
// Nothing beyond tolerance; under the engine standard, also the op adding the most error for
// its budget and its share of it.
QString nothingDiverges(const QString &rounds, const llmscope::CompareResult &r);
QString notDumped(const llmscope::OpResult &op);
// The end: the op, its errors, and where its error comes from.
QString found(const llmscope::CompareResult &r, const llmscope::OpResult &op);

// Whether the element comparison confirms the suspect (under the engine standard it may find
// it within its budget), and the words when it does not.
// What replaying the op on the test's own inputs says (llmscope opcheck): its kernel wrong, or
// within its bound while its inputs already differ.
QString replayed(const llmscope::CompareResult &r, const llmscope::OpcheckRow &test, const llmscope::OpResult &op);
bool confirmed(const llmscope::CompareResult &r, const llmscope::OpResult &op);
QString cleared(const llmscope::OpResult &op, int64_t round, llmscope::Standard standard);

// The walk back. The suspect the statistics gave may not be the first op that departs: its
// statistics may overstate it (cleared element by element), or its inputs already differ by
// more than any one op may add (the largest budget, MUL_MAT's), so the fault lies upstream of
// it. Then every op's outputs in its round are dumped with their data and compared: the first
// that departs element by element is dumped with its inputs and found.
bool inputsAlreadyDepart(const llmscope::OpResult &op);
// A fused chain's end, computed unfused, gives golden's result (within rounding).
bool agreesUnfused(const llmscope::OpResult &op);
QStringList walkArgs(int64_t round);
QString goldenWalkDir();
QString testWalkDir();
QString goldenFirstDir();
QString testFirstDir();
QString stepWalk(const llmscope::OpResult &suspect, bool clearedByElements);
QString stepCompareWalk();
QString walkedTo(const llmscope::OpResult &first);
// The op the walk reached departs by its producers' outputs, yet on the inputs it was given it
// is within its budget: its error comes in through an input no op of the round computes.
QString explainedByItsInputs(const llmscope::OpResult &op);
// State across rounds. The KV cache an op's worst input reads ("cache_k_l0"), or empty.
std::string cacheRead(const llmscope::CompareResult &r, const llmscope::OpResult &op);
// Every write into that cache (its layer's, found in the statistics) in rounds 0 to the reader's,
// with the whole cache before and after each (--kv-cache) and its parameters: the trace of the
// state it read.
QStringList cacheTraceArgs(const llmscope::OpResult &reader, const llmscope::CompareResult &stats,
                           const std::string &cache);
bool anyCacheWrite(const llmscope::CompareResult &trace, const std::string &cache);
QString noCacheWrites(const llmscope::OpResult &reader, const std::string &cache);
QString goldenTraceDir();
QString testTraceDir();
// The first write into cache (by round, then graph order) after which the cache departs: on
// its own, or by a good part of `departing` (the error its reader found in it).
const llmscope::OpResult *firstCacheWrite(const llmscope::CompareResult &trace, const std::string &cache,
                                          double departing);
QString stepCacheTrace(const llmscope::OpResult &reader, const std::string &cache);
QString cacheWrittenBy(const llmscope::OpResult &writer);
QString cacheWrittenRight(const llmscope::OpResult &reader, const std::string &cache);
QString writtenRowsDepart(const llmscope::OpResult &writer);
// Between two writes into the cache, the cache changed without one: the first write that
// finds the cache departing before it writes (its destination, input 2) while the write before
// it had left the cache within rounding. after: that earlier write's round (-1: none), before:
// the later one's; the rounds between changed the cache otherwise (a context shift's
// re-rotation, a defragmentation, a sequence copy: graphs of their own).
struct CacheGap {
    int64_t after = -1, before = -1;
    double left = 0, found = 0; // the cache's relative error after the earlier write, before the later
};
std::optional<CacheGap> cacheGap(const llmscope::CompareResult &trace, const std::string &cache);
QStringList cacheGapArgs(const CacheGap &gap); // the rounds between, whole, the KV cache too
QString goldenGapDir();
QString testGapDir();
QString stepCacheGap(const std::string &cache, const CacheGap &gap);
QString cacheGapUnfollowed(const std::string &cache, const CacheGap &gap);
// The program's own copies into the cache in the gap's rounds (outside any graph: a sequence
// copied between parallel slots' cache streams), as each run's probe noted and checked them. A
// copy unlike its source, or a copy one run made and the other did not, is the finding (found);
// otherwise the words say what was seen of copies, for the end that cannot follow further.
struct CopyVerdict {
    bool found = false;
    QString words;
};
// incomplete: a run made more copies than its probe notes (ProbeStatus::stateCopiesDropped).
CopyVerdict cacheCopies(const std::vector<llmscope::StateCopy> &golden, const std::vector<llmscope::StateCopy> &test,
                        const std::string &cache, const CacheGap &gap, bool incomplete = false);

// The first round whose tokens the two programs' dumps record differently (the test's own
// choice, where it consumed golden's), or nullopt when they agree or either records none.
std::optional<int64_t> firstTokenDifference(const QString &goldenDump, const QString &testDump);
// Nothing departs beyond its budget in the rounds compared, yet the programs chose other
// tokens from round `round` on: never "nothing diverges".
QString tokensDifferUnexplained(const QString &rounds, int64_t round);
// "rounds 0-3", "round 0", or "every round" for all (rounds_words.h).
QString roundsText(const QString &rounds);

// The op with this id in a comparison's result, or null.
const llmscope::OpResult *findOp(const llmscope::CompareResult &r, const std::string &opId);

} // namespace hunt
