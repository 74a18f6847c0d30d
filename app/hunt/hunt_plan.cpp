#include "app/hunt/hunt_plan.h"

#include "document/layer_words.h"
#include "document/reason_words.h"
#include "document/rounds_words.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/compare/divergence_cause.h"
#include "core/compare/op_verdicts.h"
#include "core/compare/pair_standard.h"
#include "core/dump/op_info_csv.h"
#include "core/dump/token_record.h"
#include "core/launch/dump_options.h"
#include "core/util/arg_reader.h"
#include "core/util/error.h"

// The words' translation context ("HuntText" in translations/).
class HuntText {
    Q_DECLARE_TR_FUNCTIONS(HuntText)
};

using namespace llmscope;

namespace hunt {

namespace {
QString pct(double v)
{
    return QString::number(v * 100, 'g', 3);
}
} // namespace

Request parseRequest(const QStringList &args)
{
    Request r;
    llmscope::ArgReader reader(toWords(args), "hunt");
    while (reader.next()) {
        const QString a = QString::fromStdString(reader.option());
        auto value = [&reader] { return QString::fromStdString(reader.value()); };
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            r.help = true;
            return r;
        } else if (a == QLatin1String("--golden")) {
            r.golden = value();
        } else if (a == QLatin1String("--test")) {
            r.test = value();
        } else if (a == QLatin1String("-o") || a == QLatin1String("--output")) {
            r.folder = value();
        } else if (a == QLatin1String("-er")) {
            r.rounds = value().trimmed();
            if (r.rounds.compare(QLatin1String("all"), Qt::CaseInsensitive) == 0)
                r.rounds = QStringLiteral("all");
        } else if (a == QLatin1String("--timeout")) {
            r.timeoutSeconds = llmscope::parseTimeout(value().toStdString());
        } else if (a == QLatin1String("--standard")) {
            const QString v = value();
            r.standard = llmscope::parseStandard(v.toStdString());
            if (!r.standard)
                throw llmscope::Error("--standard: '" + v.toStdString() + "' is not exact, rounding, engine or msit");
        } else {
            reader.unknown();
        }
    }
    if (r.golden.isEmpty() || r.test.isEmpty())
        throw llmscope::Error("--golden and --test are both required");
    return r;
}

namespace {
bool isAll(const QString &rounds)
{
    return rounds.trimmed().compare(QLatin1String("all"), Qt::CaseInsensitive) == 0;
}
} // namespace

QString dumpRounds(const QString &rounds)
{
    return isAll(rounds) ? QStringLiteral("0,%1").arg(std::numeric_limits<int32_t>::max()) : rounds;
}

QStringList statsArgs(const QString &rounds)
{
    // one statistic.csv a round: many rounds of a file a tensor cost the program its time;
    // fused chains left whole, read at their ends: the kernels the program runs unobserved
    return {"--type", "model", "stats", "--stats-csv", "--keep-fusion", "-er", dumpRounds(rounds)};
}

QStringList plainArgs()
{
    return {"--type", "model"}; // the topology once; no node is read, no graph changed
}

QString testPlainDir()
{
    return QStringLiteral("test-unobserved");
}
QString goldenFusedDir()
{
    return QStringLiteral("golden-fused");
}
QString testFusedDir()
{
    return QStringLiteral("test-fused");
}

QString stepFusedWalk(const OpResult &op, const FusedChainRecord &chain)
{
    return HuntText::tr("step 3 of 4: op %1 ends a chain the test computed fused (%2): both runs again, dumping every "
                        "operation's outputs in round %3 with their data as the programs ran, fusion kept")
        .arg(QString::fromStdString(op.label()), QString::fromStdString(chain.types))
        .arg(op.round);
}

QString stepObserverCheck()
{
    return HuntText::tr("checking that observing changed nothing: the test once more with the probe loaded but reading "
                        "nothing, its tokens and results held against the observed run's");
}

QString observerChangedUnexplained(const QString &check)
{
    return HuntText::tr("no operation departs beyond its budget as observed, but %1: the fault lies where observing "
                        "changes what runs (a kernel the probe keeps from running, such as a fused chain it reads "
                        "inside, or a graph it splits); compare the two runs' logits with llmscope compare")
        .arg(check);
}

QString fusedKernelWrong(const OpResult &op, const FusedChainRecord &chain, const OpResult *unfused)
{
    QStringList ops;
    for (size_t k = 0; k < chain.ids.size(); ++k)
        ops << QStringLiteral("%1 %2").arg(QString::fromStdString(chain.ids[k]),
                                           QString::fromStdString(chain.names[k]));
    QString s =
        HuntText::tr("found: round %1, the fused chain %2 (%3), computed fused on %4: its end departs (relative "
                     "error %5 %, inputs %6 %)")
            .arg(op.round)
            .arg(QString::fromStdString(chain.types), ops.join(QStringLiteral(", ")),
                 QString::fromStdString(chain.backend.empty() ? std::string("the test's backend") : chain.backend))
            .arg(pct(op.outputError), pct(op.inputError));
    s += QLatin1Char('\n') +
        (unfused
             ? HuntText::tr("  computed op by op, with fusion off, the same ops agree with golden's (relative error "
                            "%1 %): the fused kernel is wrong")
                   .arg(pct(unfused->outputError))
             : HuntText::tr("  computed op by op, with fusion off, the same ops agree with golden's: the fused "
                            "kernel is wrong"));
    return s;
}

QStringList followingTokens(const QStringList &options, const QString &goldenDump)
{
    return options + QStringList{"--follow-tokens", goldenDump};
}

QString roundsText(const QString &rounds)
{
    return roundsWords(rounds);
}

bool inputsAlreadyDepart(const OpResult &op)
{
    // an NMSE beyond the largest any one op may add (MUL_MAT's 5e-4): more than rounding upstream
    return op.inputError * op.inputError > engineBudget("MUL_MAT", 0, 0).nmse;
}

bool agreesUnfused(const OpResult &op)
{
    // within what any one op may add (MUL_MAT's NMSE 5e-4): rounding, not a fault
    return op.outputError * op.outputError <= engineBudget("MUL_MAT", 0, 0).nmse;
}

QStringList walkArgs(int64_t round)
{
    const QString r = QString::number(round);
    return {"--type", "model", "tensor", "-stp", "1", "-er", r + "," + r};
}

QString goldenWalkDir()
{
    return QStringLiteral("golden-walk");
}
QString testWalkDir()
{
    return QStringLiteral("test-walk");
}
QString goldenFirstDir()
{
    return QStringLiteral("golden-first");
}
QString testFirstDir()
{
    return QStringLiteral("test-first");
}

QString stepWalk(const OpResult &suspect, bool clearedByElements)
{
    const QString why = clearedByElements
        ? HuntText::tr("element by element it is within its budget")
        : HuntText::tr("its inputs already differ from golden's by %1 %, more than any one op may add")
              .arg(pct(suspect.inputError));
    return HuntText::tr("step 3 of 4, walking back from op %1 (%2): both runs again, dumping every operation's outputs "
                        "in round %3 with their data")
        .arg(QString::fromStdString(suspect.label()), why)
        .arg(suspect.round);
}

QString stepCompareWalk()
{
    return HuntText::tr(
        "step 4 of 4, walking back: comparing them element by element for the first operation that departs");
}

QString walkedTo(const OpResult &first)
{
    return HuntText::tr(
               "the first operation that departs element by element: round %1, op %2; dumping it with its inputs")
        .arg(first.round)
        .arg(QString::fromStdString(first.label()));
}

std::string cacheRead(const CompareResult &r, const OpResult &op)
{
    if (op.worstInput < 0 || size_t(op.worstInput) >= r.rows.size())
        return {};
    std::string name = r.rows[size_t(op.worstInput)].tensorName;
    if (name.rfind("cache_", 0) != 0)
        return {};
    if (const size_t space = name.find(' '); space != std::string::npos)
        name.resize(space); // "cache_k_l0 (view)": the cache itself
    return name;
}

namespace {
// A write into that cache: llama.cpp's SET_ROWS named "cache_k_l0 (view)" for cache_k_l0.
bool writesInto(const OpResult &op, const std::string &cache)
{
    return op.opType == "SET_ROWS" && op.name.rfind(cache + " ", 0) == 0;
}
} // namespace

QStringList cacheTraceArgs(const OpResult &reader, const CompareResult &stats, const std::string &cache)
{
    // The group of a write into that cache where the statistics have one (a model whose later
    // layers read an earlier layer's cache), else the reader's own.
    std::string id = reader.opId;
    for (const OpResult &op : stats.ops)
        if (writesInto(op, cache)) {
            id = op.opId;
            break;
        }
    const QString group = QString::fromStdString(id.substr(0, id.find('_')));
    return {"--type",
            "model",
            "tensor",
            "-tiling",
            "--kv-cache",
            "-ids",
            group,
            "-opname",
            "set_rows",
            "-er",
            "0," + QString::number(reader.round)};
}

QString goldenTraceDir()
{
    return QStringLiteral("golden-cache");
}
QString testTraceDir()
{
    return QStringLiteral("test-cache");
}

bool anyCacheWrite(const CompareResult &trace, const std::string &cache)
{
    return std::any_of(trace.ops.begin(), trace.ops.end(), [&](const OpResult &op) { return writesInto(op, cache); });
}

namespace {
// A write's row of the trace, element by element: its output (the cache after) or an input
// (2: the cache before); NaN where not compared.
double rowError(const CompareResult &trace, const OpResult &op, bool input, int index)
{
    for (size_t i : op.rows) {
        const CompareRow &row = trace.rows[i];
        if (row.golden.input == input && row.golden.index == index && row.computed)
            return double(row.metrics.relEuclidean);
    }
    return double(NAN);
}
} // namespace

const OpResult *firstCacheWrite(const CompareResult &trace, const std::string &cache, double departing)
{
    // A write that departs on its own, or one after which the cache departs by a good part of
    // what its reader found while it did not before (rows it was given that already departed):
    // rounding, a thousandth, never is; a cache that departed before the write is the rounds
    // between (cacheGap).
    const double floor = std::max(1e-3, 0.1 * departing);
    for (const OpResult &op : trace.ops) { // in round order, then graph order
        if (!writesInto(op, cache))
            continue;
        const double before = rowError(trace, op, true, 2);
        if (!op.passed || (op.outputError > floor && !(before > 0.5 * op.outputError)))
            return &op;
    }
    return nullptr;
}

QString stepCacheTrace(const OpResult &reader, const std::string &cache)
{
    return HuntText::tr(
               "following the state back: what departs in op %1 comes in through the KV cache %2, which earlier "
               "writes filled; both runs again, dumping every write into it in rounds 0-%3 with the whole cache "
               "after each")
        .arg(QString::fromStdString(reader.label()), QString::fromStdString(cache))
        .arg(reader.round);
}

QString cacheWrittenBy(const OpResult &writer)
{
    return HuntText::tr("the cache departs first after round %1's write, op %2: it is compared and replayed there")
        .arg(writer.round)
        .arg(QString::fromStdString(writer.label()));
}

QString noCacheWrites(const OpResult &reader, const std::string &cache)
{
    return HuntText::tr(
               "element by element, op %1 is within its budget on the inputs it was given, and no write into the "
               "KV cache %2 it reads was found in rounds 0-%3 (see the report): not followed further")
        .arg(QString::fromStdString(reader.label()), QString::fromStdString(cache))
        .arg(reader.round);
}

QString cacheWrittenRight(const OpResult &reader, const std::string &cache)
{
    return HuntText::tr(
               "element by element, op %1 is within its budget on the inputs it was given, and every write into "
               "the KV cache %2 it reads left the cache within budget up to round %3: what departs comes in "
               "another way (see its inputs in the report)")
        .arg(QString::fromStdString(reader.label()), QString::fromStdString(cache))
        .arg(reader.round);
}

QString writtenRowsDepart(const OpResult &writer)
{
    return HuntText::tr(
               "op %1 stores in the KV cache the rows it was given within its budget, and those already depart: "
               "hunt round %2 alone (-er %2,%2) for the operation that computed them")
        .arg(QString::fromStdString(writer.label()))
        .arg(writer.round);
}

std::optional<CacheGap> cacheGap(const CompareResult &trace, const std::string &cache)
{
    CacheGap last; // the write before: its round and what it left
    for (const OpResult &op : trace.ops) {
        if (!writesInto(op, cache))
            continue;
        const double before = rowError(trace, op, true, 2), after = rowError(trace, op, false, 0);
        // worse than the write before left it, beyond what rounding moves: 2x (as an op may
        // carry its inputs' error) and 1e-4 (float16 rounding of the rows written between)
        if (std::isfinite(before) && before > 2 * last.left + 1e-4)
            return CacheGap{last.after, op.round, last.left, before};
        last.after = op.round;
        last.left = std::isfinite(after) ? after : last.left;
    }
    return std::nullopt;
}

QStringList cacheGapArgs(const CacheGap &gap)
{
    return {"--type",
            "model",
            "tensor",
            "-tiling",
            "--kv-cache",
            "-er",
            QString::number(gap.after + 1) + "," + QString::number(gap.before - 1)};
}

QString goldenGapDir()
{
    return QStringLiteral("golden-between");
}
QString testGapDir()
{
    return QStringLiteral("test-between");
}

// "round 3", "rounds 3-5"
QString roundSpan(int64_t first, int64_t last)
{
    return first == last ? HuntText::tr("round %1").arg(first) : HuntText::tr("rounds %1-%2").arg(first).arg(last);
}

QString stepCacheGap(const std::string &cache, const CacheGap &gap)
{
    const QString was =
        gap.after < 0 ? HuntText::tr("before any write") : HuntText::tr("after round %1's write").arg(gap.after);
    return HuntText::tr("the KV cache %1 was %2 % off %3 and %4 % off when round %5 wrote into it: %6 changed it "
                        "without a write (a context shift's re-rotation, a defragmentation or a sequence copy: graphs "
                        "of their own); both runs again, dumping all of it with the KV cache")
        .arg(QString::fromStdString(cache), pct(gap.left), was, pct(gap.found))
        .arg(gap.before)
        .arg(roundSpan(gap.after + 1, gap.before - 1));
}

QString cacheGapUnfollowed(const std::string &cache, const CacheGap &gap)
{
    if (gap.before - 1 < gap.after + 1)
        return HuntText::tr(
                   "the KV cache %1 changed between round %2's write and round %3's without a write the probe "
                   "reads (the same round's other ops, or the program's own copy into it): not followed further")
            .arg(QString::fromStdString(cache))
            .arg(gap.after)
            .arg(gap.before);
    return HuntText::tr("the KV cache %1 changed in %2 without a write, and nothing computed there departs as dumped: "
                        "the cache changed where the probe does not read (see the report)")
        .arg(QString::fromStdString(cache), roundSpan(gap.after + 1, gap.before - 1));
}

namespace {
// "before round 3 (stream 0 -> 1)"
QString copyWhen(const StateCopy &c)
{
    if (c.fromStream < 0 || c.toStream < 0)
        return HuntText::tr("before round %1").arg(c.beforeRound);
    return HuntText::tr("before round %1 (stream %2 -> %3)").arg(c.beforeRound).arg(c.fromStream).arg(c.toStream);
}

// One copy on both sides: the same round and streams (not bytes: the two runs' caches may be of
// other types or sizes).
bool sameCopy(const StateCopy &a, const StateCopy &b)
{
    return a.beforeRound == b.beforeRound && a.fromStream == b.fromStream && a.toStream == b.toStream;
}

const StateCopy *unmatched(const std::vector<StateCopy> &in, const std::vector<StateCopy> &other)
{
    for (const StateCopy &c : in)
        if (std::none_of(other.begin(), other.end(), [&](const StateCopy &o) { return sameCopy(c, o); }))
            return &c;
    return nullptr;
}
} // namespace

CopyVerdict cacheCopies(const std::vector<StateCopy> &golden, const std::vector<StateCopy> &test,
                        const std::string &cache, const CacheGap &gap, bool incomplete)
{
    const QString name = QString::fromStdString(cache);
    for (const StateCopy &c : test)
        if (c.checked && c.rowsDiffering > 0)
            return {true,
                    HuntText::tr("found: the test program's copy into the KV cache %1 %2, made outside any graph (a "
                                 "sequence copied between parallel slots' cache streams, or a saved state "
                                 "restored), left %3 of its %4 rows unlike their source (the first: row %5): the "
                                 "copy is wrong, not a kernel")
                        .arg(name, copyWhen(c))
                        .arg(c.rowsDiffering)
                        .arg(c.rows)
                        .arg(c.firstDiffering)};
    const auto onlyOne = [&](const StateCopy &c, bool goldenCopied) {
        return CopyVerdict{
            true,
            (goldenCopied ? HuntText::tr("found: golden's run copied the KV cache %1 %2 outside any graph (a sequence "
                                         "copied between parallel slots' cache streams, or a saved state restored), "
                                         "and test's run made no such copy: the program's own bookkeeping of its "
                                         "sequences (llama.cpp's KV cache), not a kernel, left the cache behind")
                          : HuntText::tr("found: test's run copied into the KV cache %1 %2 outside any graph (a "
                                         "sequence copied between parallel slots' cache streams, or a saved state "
                                         "restored), and golden's run made no such copy: the program's own "
                                         "bookkeeping of its sequences (llama.cpp's KV cache), not a kernel, changed "
                                         "the cache"))
                .arg(name, copyWhen(c))};
    };
    if (const StateCopy *c = unmatched(golden, test))
        return onlyOne(*c, true);
    if (const StateCopy *c = unmatched(test, golden))
        return onlyOne(*c, false);
    const QString span = roundSpan(gap.after + 1, gap.before);
    if (incomplete) // past the notes' limit: what was not noted may be there
        return {false,
                HuntText::tr("a run made more copies into its KV cache outside any graph than the probe notes: "
                             "what copies in %1 did to the KV cache %2 is not known")
                    .arg(span, name)};
    if (test.empty())
        return {false,
                HuntText::tr("neither run copied into the KV cache %1 outside any graph in %2 (the probe notes "
                             "and checks llama.cpp's copies between cache streams)")
                    .arg(name, span)};
    const auto exact = [](const std::vector<StateCopy> &side) {
        return std::all_of(side.begin(), side.end(),
                           [](const StateCopy &c) { return c.checked && c.rowsDiffering == 0; });
    };
    if (!exact(golden) || !exact(test))
        return {false,
                HuntText::tr("both runs copied into the KV cache %1 outside any graph in %2 alike, and not every "
                             "copy could be held against its source (see each dump's status, state_copies)")
                    .arg(name, span)};
    return {false,
            HuntText::tr("both runs copied into the KV cache %1 outside any graph in %2 alike, each copy equal "
                         "to its source: what they copied already departed")
                .arg(name, span)};
}

QString explainedByItsInputs(const OpResult &op)
{
    return HuntText::tr("element by element, op %1 is within its budget on the inputs it was given: what departs comes "
                        "in through an input no operation of round %2 computes (a weight, the program's input, or the "
                        "KV cache an earlier round wrote); see its inputs in the report")
        .arg(QString::fromStdString(op.label()))
        .arg(op.round);
}

std::optional<int64_t> firstTokenDifference(const QString &goldenDump, const QString &testDump)
{
    try {
        const auto g = readTokenRecords(goldenDump.toStdString()), t = readTokenRecords(testDump.toStdString());
        for (const auto &[round, rec] : t) {
            const auto it = g.find(round);
            if (it != g.end() && (rec.replaced || rec.tokens != it->second.tokens))
                return round;
        }
        // the test stopped early (its own end of text) where golden went on
        if (!t.empty() && !g.empty() && g.rbegin()->first > t.rbegin()->first)
            return t.rbegin()->first + 1;
    } catch (const std::exception &) { // unreadable records tell nothing
    }
    return std::nullopt;
}

QString tokensDifferUnexplained(const QString &rounds, int64_t round)
{
    return HuntText::tr(
               "no operation departs beyond its budget in %1, yet the two programs chose different tokens from "
               "round %2 on: the difference lies in what was not compared (widen -er, or compare the logits "
               "element by element with llmscope compare)")
        .arg(roundsText(rounds))
        .arg(round);
}

QStringList tensorArgs(const OpResult &op, Side side)
{
    const QString round = QString::number(op.round);
    const std::string &id = side == Side::Test && !op.myOpId.empty() ? op.myOpId : op.opId;
    // -tiling and --kv-cache: its parameters and every input (attention's K and V are the
    // cache), so that its kernel can be replayed on what it was given; kernel: the backend that
    // ran it (ggml's CPU kernels are held to what they specify)
    return {"--type",  "model",
            "tensor",  "kernel",
            "-ids",    QString::fromStdString(id),
            "-child",  "False",
            "-er",     round + "," + round,
            "-tiling", "--kv-cache"};
}

QStringList roundTensorArgs(const OpResult &op)
{
    const QString round = QString::number(op.round);
    return {"--type", "model", "tensor", "kernel", "-er", round + "," + round, "-tiling", "--kv-cache"};
}

QStringList outputsArgs(const QString &rounds)
{
    return {"--type", "model", "tensor", "-stp", "1", "-er", dumpRounds(rounds)};
}

QString goldenStatsDir()
{
    return QStringLiteral("golden-stats");
}
QString goldenOutputsDir()
{
    return QStringLiteral("golden-outputs");
}
QString testOutputsDir()
{
    return QStringLiteral("test-outputs");
}
QString testStatsDir()
{
    return QStringLiteral("test-stats");
}
QString goldenTensorsDir()
{
    return QStringLiteral("golden-tensors");
}
QString testTensorsDir()
{
    return QStringLiteral("test-tensors");
}

QString stepStats(const QString &rounds)
{
    return HuntText::tr(
               "step 1 of 4: statistics of every operation in %1, golden and test, the test consuming golden's "
               "tokens (cheap: a few numbers a tensor, no payload)")
        .arg(roundsText(rounds));
}

QString stepCompareStats()
{
    return HuntText::tr("step 2 of 4: comparing the statistics to find the first operation whose output departs");
}

// What "within its budget" means under the standard the pair was held to.
QString budgetMeaning(Standard s)
{
    switch (s) {
    case Standard::Exact: return HuntText::tr("the same run must differ by");
    case Standard::Rounding: return HuntText::tr("float rounding in another order may change");
    default: return HuntText::tr("two engines of one model may differ by");
    }
}

QString standardWords(const CompareResult &r)
{
    return HuntText::tr("standard %1").arg(reasonWords(r.standardWhy));
}

QString suspect(const CompareResult &r, const OpResult &op)
{
    if (!judgesOps(r.standard)) // msit's figure: the statistics' largest relative difference
        return HuntText::tr("first divergent by statistics: round %1, op %2 (statistics differ by %3 %)")
            .arg(op.round)
            .arg(QString::fromStdString(op.label()), pct(op.outputError));
    bool statsBased = false, estimated = false;
    for (size_t i : op.rows) {
        statsBased = statsBased || r.rows[i].statsOnly;
        estimated = estimated || (!r.rows[i].golden.input && !std::isnan(r.rows[i].statsEstimate));
    }
    QString s = (estimated ? HuntText::tr("first divergent by statistics: round %1, op %2 (relative error about %3 %, "
                                          "estimated from the sketches)")
                     : statsBased
                     ? HuntText::tr("first divergent by statistics: round %1, op %2 (relative error at least %3 %)")
                     : HuntText::tr("first divergent: round %1, op %2 (relative error %3 %)"))
                    .arg(op.round)
                    .arg(QString::fromStdString(op.label()), pct(op.outputError));
    if (!op.verdict.empty())
        s += QStringLiteral(": ") + reasonWords(op.verdict);
    return s;
}

QString stepRoundTensors(const OpResult &op)
{
    return HuntText::tr(
               "step 3 of 4: both runs again, dumping round %1 whole with its data (a PyTorch golden: a module's "
               "input lies in another of the engine's ops)")
        .arg(op.round);
}

QString stepTensors(const OpResult &op)
{
    const QString ids = op.myOpId.empty() || op.myOpId == op.opId
        ? QString::fromStdString(op.opId)
        : HuntText::tr("%1 (test's %2)").arg(QString::fromStdString(op.opId), QString::fromStdString(op.myOpId));
    return HuntText::tr(
               "step 3 of 4: both runs again, dumping only op %1 in round %2, its inputs before and outputs after, "
               "with their data")
        .arg(ids)
        .arg(op.round);
}

QString stepCompareTensors()
{
    return HuntText::tr("step 4 of 4: comparing its tensors element by element");
}

bool quantizedTest(const CompareResult &r)
{
    for (const auto &w : r.weights)
        if (w.row.quantization && w.row.quantization->explained())
            return true;
    for (const auto &row : r.rows)
        if (row.quantization && row.quantization->explained())
            return true;
    return false;
}

QString stepOutputs(const CompareResult &r, const QString &rounds)
{
    QStringList types;
    for (const auto &w : r.weights)
        if (w.goldenType != w.myType && !types.contains(QString::fromStdString(w.myType)))
            types << QString::fromStdString(w.myType);
    return HuntText::tr("the test's weights are stored as %1: statistics cannot tell a kernel's error from "
                        "quantization's, so every operation's outputs in %2 are dumped and compared element "
                        "by element, golden and test")
        .arg(types.join(QStringLiteral(", ")), roundsText(rounds));
}

QString testProductsDir()
{
    return QStringLiteral("test-products");
}

QString stepProducts(const QString &rounds)
{
    return HuntText::tr("step 3 of 4: every operation within its budget; the test's matrix products in %1 again, with "
                        "their inputs, each replayed on what it was given: a budget for quantized weights may hide a "
                        "kernel's fault, the reference of what the kernel computes does not")
        .arg(roundsText(rounds));
}

QString productsWithinBounds(int replayed, int skipped, const QString &failed)
{
    if (!failed.isEmpty())
        return HuntText::tr(
                   "replay: the test's matrix products could not be replayed (%1): what follows rests on ggml's "
                   "budgets alone")
            .arg(failed);
    if (replayed == 0)
        return HuntText::tr("replay: none of the test's matrix products could be replayed (llmscope opcheck on %1 says "
                            "why): what follows rests on ggml's budgets alone")
            .arg(testProductsDir());
    QString s =
        HuntText::tr("replay: each of the test's %n matrix product(s) is within its bound on the inputs it was given",
                     nullptr, replayed);
    if (skipped > 0)
        s += HuntText::tr(" (%n not replayed: llmscope opcheck on %1 says why)", nullptr, skipped)
                 .arg(testProductsDir());
    return s;
}

QString productWrongWithinBudget()
{
    return HuntText::tr("a matrix product within ggml's budget for this pair is wrong on its own inputs: its kernel, "
                        "not the quantization, adds the error");
}

QString costliestWeights(const CompareResult &r)
{
    struct Cost {
        std::string weight, op;
        double added;
    };
    std::vector<Cost> costs;
    for (const auto &op : r.ops) {
        if (op.quantizedWeight.empty())
            continue;
        const double added = std::max(0.0, op.nmse - op.inputError * op.inputError);
        auto it =
            std::find_if(costs.begin(), costs.end(), [&](const Cost &c) { return c.weight == op.quantizedWeight; });
        if (it == costs.end())
            costs.push_back({op.quantizedWeight, op.label(), added});
        else if (added > it->added)
            *it = {op.quantizedWeight, op.label(), added};
    }
    std::sort(costs.begin(), costs.end(), [](const Cost &a, const Cost &b) { return a.added > b.added; });
    QString s;
    for (size_t i = 0; i < costs.size() && i < 3; ++i) {
        const WeightComparison *w = r.weight(costs[i].weight);
        s += QLatin1Char('\n') +
            HuntText::tr("    %1 (%2, relative error %3 %): its op %4 adds NMSE %5")
                .arg(QString::fromStdString(costs[i].weight), QString::fromStdString(w ? w->myType : std::string("?")),
                     pct(w && w->row.computed ? w->row.metrics.relEuclidean : std::numeric_limits<double>::quiet_NaN()),
                     QString::fromStdString(costs[i].op))
                .arg(costs[i].added, 0, 'g', 3);
    }
    return s;
}

QString nothingDiverges(const QString &rounds, const CompareResult &r)
{
    if (!judgesOps(r.standard))
        return HuntText::tr("every operation's statistics agree in %1: nothing diverges there").arg(roundsText(rounds));
    if (quantizedTest(r))
        return HuntText::tr("no kernel adds error beyond what quantization explains in %1; the weights whose "
                            "quantization costs most (llmscope quant-report ranks them all):%2")
            .arg(roundsText(rounds), costliestWeights(r));
    QString s = HuntText::tr("every operation is within its budget in %1: nothing diverges beyond what %2")
                    .arg(roundsText(rounds), budgetMeaning(r.standard));
    if (r.mostAdded >= 0) {
        const OpResult &op = r.ops[size_t(r.mostAdded)];
        s += QLatin1Char('\n') +
            HuntText::tr("  the most error for its budget: round %1, op %2 adds NMSE %3 by its statistics, "
                         "%4 % of the %5 allowed for %6")
                .arg(op.round)
                .arg(QString::fromStdString(op.label()))
                .arg(op.ownNmse, 0, 'g', 3)
                .arg(pct(op.budgetShare))
                .arg(op.budget, 0, 'g', 3)
                .arg(QString::fromStdString(op.opType));
    }
    return s;
}

QString notDumped(const OpResult &op)
{
    return HuntText::tr("the second runs did not dump op %1").arg(QString::fromStdString(op.opId));
}

QString found(const CompareResult &r, const OpResult &op)
{
    // its msit path, then where llama.cpp counts it (its weights' blk.N)
    const QString layer = layerWords(op.name);
    const QString where = layer.isEmpty()
        ? QString::fromStdString(op.opPath)
        : HuntText::tr("%1, llama.cpp's %2").arg(QString::fromStdString(op.opPath), layer);
    QString at = where;
    // where the test ran on several backends (a device or a server beside the CPU), the one this
    // op ran on, as the test's kernel CSV names it
    if (runFacts(r.myRoot).backends.size() > 1) {
        const auto backends = readOpBackends(r.myRoot);
        const auto b = backends.find(op.myOpId.empty() ? op.opId : op.myOpId);
        if (b != backends.end())
            at = HuntText::tr("%1, computed on %2").arg(where, QString::fromStdString(b->second));
    }
    QString s =
        HuntText::tr("found: round %1, op %2 in %3\n  output cosine %4, relative error %5 % (inputs %6 %, added %7 %)")
            .arg(op.round)
            .arg(QString::fromStdString(op.label()), at)
            .arg(op.outputCosine, 0, 'f', 6)
            .arg(pct(op.outputError), pct(op.inputError), pct(op.addedError));
    const DivergenceCause cause = divergenceCause(r, op);
    const bool weightDiffers = cause.kind == DivergenceCause::Kind::Weight;
    if (judgesOps(r.standard) && !weightDiffers)
        s += QLatin1Char('\n') +
            (op.passed ? HuntText::tr("  within its budget: it adds NMSE %1, %2 % of the %3 allowed for %4")
                             .arg(op.ownNmse, 0, 'g', 3)
                             .arg(pct(op.budgetShare))
                             .arg(op.budget, 0, 'g', 3)
                             .arg(QString::fromStdString(op.opType))
                       : QStringLiteral("  ") + reasonWords(op.verdict));
    if (const Reason words = causeWords(r, op); !words.empty())
        s += QStringLiteral("\n  ") + reasonWords(words);
    return s;
}

QString replayed(const CompareResult &r, const OpcheckRow &test, const OpResult &op)
{
    if (test.verdict == Verdict::Skip)
        return HuntText::tr("replay: not replayed (%1)").arg(reasonWords(test.reason));
    if (test.verdict == Verdict::Error)
        return HuntText::tr("replay: could not be read (%1)").arg(reasonWords(test.reason));
    if (test.verdict == Verdict::Fail)
        return HuntText::tr("replay: on the inputs it was given, the test's kernel is wrong: %1 (llmscope opcheck)")
            .arg(reasonWords(test.reason));
    const DivergenceCause cause = divergenceCause(r, op);
    QString s = HuntText::tr("replay: on the inputs it was given, the test's kernel is within its bound (%1)")
                    .arg(QLatin1String(verdictName(test.verdict)));
    if (cause.kind == DivergenceCause::Kind::Weight || cause.kind == DivergenceCause::Kind::Input)
        s += HuntText::tr(": its error comes in through %1, which differs from golden's")
                 .arg(reasonWords(leafLabel(*cause.row)));
    else if (op.inputError > 0)
        s += HuntText::tr(": its inputs already differ from golden's by %1 %, and its error comes from them")
                 .arg(pct(op.inputError));
    if (test.verdict == Verdict::Warn)
        s += QStringLiteral("; ") + reasonWords(test.reason);
    return s;
}

bool confirmed(const CompareResult &r, const OpResult &op)
{
    return !judgesOps(r.standard) || !op.passed;
}

QString cleared(const OpResult &op, int64_t round, Standard standard)
{
    return HuntText::tr(
               "element by element, op %1 is within its budget: the statistics overstated it, and no operation's "
               "outputs in round %2 depart beyond what %3")
        .arg(QString::fromStdString(op.label()))
        .arg(round)
        .arg(budgetMeaning(standard));
}

const OpResult *findOp(const CompareResult &r, const std::string &opId)
{
    for (const auto &x : r.ops)
        if (x.opId == opId)
            return &x;
    return nullptr;
}

} // namespace hunt
