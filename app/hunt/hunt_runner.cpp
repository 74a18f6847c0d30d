#include "app/hunt/hunt_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QtConcurrent>

#include <QCoroFuture>

#include "app/hunt/product_replay.h"
#include "core/compare/report.h"
#include "core/dump/fusion_record.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/opcheck/opcheck_run.h"
#include "document/config_words.h"
#include "document/job_pool.h"
#include "document/reason_words.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "core/opcheck/ggml_cpu_replay.h"
#endif
#include "core/util/error.h"

using namespace llmscope;

namespace hunt {
namespace {

// The words' translation context, as hunt_plan's.
class HuntRunnerText {
    Q_DECLARE_TR_FUNCTIONS(HuntRunnerText)
};

// Whether a dump records the tokens its program consumed (a PyTorch golden's does not).
bool recordsTokens(const QString &dump)
{
    try {
        return !readTokenRecords(dump.toStdString()).empty();
    } catch (const std::exception &) {
        return false;
    }
}

// Both sides dumped with their options, then compared; the comparison's reports written
// under folder/report (the CSV and JSON, as llmscope compare writes them). The test consumes
// the tokens golden's dump recorded, where it records them.
QCoro::Task<std::shared_ptr<const CompareResult>> pass(const Steps &steps, QStringList goldenOptions,
                                                       QStringList testOptions, QString goldenOut, QString testOut,
                                                       int compareStep, QString compareText, QString report,
                                                       QString *goldenDumpOut = nullptr, QString *testDumpOut = nullptr)
{
    auto goldenRun = steps.dump(Side::Golden, goldenOptions, goldenOut); // named: g++ 12 and co_await temporaries
    const QString goldenDump = co_await goldenRun;
    if (recordsTokens(goldenDump))
        testOptions = followingTokens(testOptions, goldenDump);
    auto testRun = steps.dump(Side::Test, testOptions, testOut);
    const QString testDump = co_await testRun;
    if (goldenDumpOut)
        *goldenDumpOut = goldenDump;
    if (testDumpOut)
        *testDumpOut = testDump;
    steps.say(compareText, compareStep);
    auto comparing = steps.compare(goldenDump, testDump);
    auto result = co_await comparing;
    writeCompareReports(*result, report.toStdString());
    co_return result;
}

// The test side's id of a paired op.
std::string testId(const OpResult &op)
{
    return op.myOpId.empty() ? op.opId : op.myOpId;
}

// The op replayed on the test's own dump of it (llmscope opcheck), off the calling thread: a
// large op's float64 reference takes a while.
QCoro::Task<OpcheckRow> replay(QString testDump, std::string opId, int64_t round = -1)
{
    auto running = QtConcurrent::run(jobPool(), [testDump, opId, round] {
        OpcheckRow row;
        row.verdict = Verdict::Error;
        try {
            OpcheckOptions o;
            o.input = testDump.toStdString();
            o.ids = opId;
#ifdef LLMSCOPE_GGML_REPLAY
            o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
            for (const auto &r : runOpcheck(o).rows)
                if (r.opId == opId && (round < 0 || r.round == round))
                    return r;
            row.reason = "its outputs are not in " + o.input;
        } catch (const std::exception &e) {
            row.reason = e.what();
        }
        return row;
    });
    co_return co_await running;
}

} // namespace

Steps withTimeout(Steps steps, int seconds)
{
    if (seconds > 0)
        steps.dump = [dump = std::move(steps.dump), seconds](Side side, QStringList options, QString out) {
            return dump(side, options + QStringList{"--timeout", QString::number(seconds)}, out);
        };
    return steps;
}

QCoro::Task<Outcome> run(Steps steps, QString folder, QString rounds)
{
    Outcome out;
    const QDir dir(folder);
    auto end = [&](Outcome::End e, const QString &message) {
        out.end = e;
        out.message = message;
        steps.say(message, e == Outcome::End::Failed || e == Outcome::End::Cancelled ? Steps::kFailedEnd : 0);
    };
    try {
        steps.say(stepStats(rounds), 1);
        const QStringList stats = statsArgs(rounds);
        QString goldenStats, testStats;
        auto statsPass =
            pass(steps, stats, stats, dir.absoluteFilePath(goldenStatsDir()), dir.absoluteFilePath(testStatsDir()), 2,
                 stepCompareStats(), dir.absoluteFilePath(QStringLiteral("report-stats")), &goldenStats, &testStats);
        out.stats = co_await statsPass;
        if (out.stats->config) // what differs between the runs, before any tensor
            steps.say(HuntRunnerText::tr("configuration: %1 (llmscope config-diff %2 %3 lists each)")
                          .arg(configDiffWords(*out.stats->config), goldenStats, testStats),
                      -1);
        if (!out.stats->standardWhy.empty()) // what every verdict below is held to, and why
            steps.say(standardWords(*out.stats), -1);
        // The observer check: the test again, the probe reading nothing, consuming the same tokens.
        steps.say(stepObserverCheck(), -1);
        QStringList plain = plainArgs();
        if (recordsTokens(goldenStats))
            plain = followingTokens(plain, goldenStats);
        auto plainRun = steps.dump(Side::Test, plain, dir.absoluteFilePath(testPlainDir()));
        const QString testPlain = co_await plainRun;
        out.observer = checkObserver(testPlain.toStdString(), testStats.toStdString());
        const QString observerWords = reasonWords(observerCheckReason(*out.observer));
        steps.say(observerWords, -1);
        if (out.observer->changed()) // what the probe knew it could not observe as the program runs
            for (const ProbeStatus &st : readProbeStatuses(testStats.toStdString()))
                for (const std::string &w : st.warnings)
                    steps.say(HuntRunnerText::tr("the test's probe said: %1").arg(QString::fromStdString(w)), -1);
        // Where the programs chose other tokens, "nothing diverges" is never the end (unless
        // quantization explains the logits' error, and so their choices); nor where observing
        // changed the test's results.
        const bool quantized = judgesOps(out.stats->standard) && quantizedTest(*out.stats);
        const std::optional<int64_t> tokensDiffer =
            quantized ? std::nullopt : firstTokenDifference(goldenStats, testStats);
        // A change in the last bits only (the probe splitting a device's graph) leaves the
        // verdicts standing: said above, it is no fault.
        const bool observerChanged = out.observer->changed() && !out.observer->onlyRounding();
        auto unlessTokensDiffer = [&](Outcome::End e, const QString &words, const QString &compared) {
            if (observerChanged)
                end(Outcome::End::Unexplained, observerChangedUnexplained(observerWords));
            else if (tokensDiffer)
                end(Outcome::End::Unexplained, tokensDifferUnexplained(compared, *tokensDiffer));
            else
                end(e, words);
        };
        auto notDumpedEnd = [&](const OpResult &o) {
            end(Outcome::End::NotDumped, notDumped(o) + HuntRunnerText::tr("; see %1").arg(dir.absolutePath()));
        };
        if (quantized) {
            const QStringList outputs = outputsArgs(rounds);
            auto outputsPass = pass(steps, outputs, outputs, dir.absoluteFilePath(goldenOutputsDir()),
                                    dir.absoluteFilePath(testOutputsDir()), 2, stepOutputs(*out.stats, rounds),
                                    dir.absoluteFilePath(QStringLiteral("report-outputs")));
            out.stats = co_await outputsPass;
        }
        if (out.stats->firstDivergent < 0 && quantized) {
            steps.say(stepProducts(rounds), 3);
            QStringList products = productsArgs(dumpRounds(rounds));
            if (const QString golden = QString::fromStdString(out.stats->goldenRoot); recordsTokens(golden))
                products = followingTokens(products, golden);
            auto productsRun = steps.dump(Side::Test, products, dir.absoluteFilePath(testProductsDir()));
            const QString productsDump = co_await productsRun;
            auto replaying = replayProducts(productsDump, steps.cancelled);
            const ProductsReplayed replayedProducts = co_await replaying;
            if (replayedProducts.cancelled)
                throw Cancelled{};
            if (const auto wrong = firstWrong(replayedProducts, *out.stats)) {
                steps.say(productWrongWithinBudget(), -1);
                out.tensors = out.stats;
                out.replay = wrong->first;
                end(Outcome::End::Found, found(*out.stats, wrong->second));
                steps.say(replayed(*out.stats, *out.replay, wrong->second), -1);
                steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
                co_return out;
            }
            steps.say(productsWithinBounds(replayedProducts.judged, replayedProducts.skipped, replayedProducts.failed),
                      -1);
        }
        if (out.stats->firstDivergent < 0) {
            unlessTokensDiffer(Outcome::End::NothingDiverges, nothingDiverges(rounds, *out.stats), rounds);
            co_return out;
        }
        OpResult suspectOp = out.stats->ops[size_t(out.stats->firstDivergent)];
        steps.say(suspect(*out.stats, suspectOp), -1);

        const bool across = out.stats->acrossFrameworks;
        // The suspect ends a chain the test computed fused (or is another output of its kernel):
        // the round's outputs as it ran, fusion kept, compared element by element. The first that
        // departs there is the suspect; where it ends a chain whose ops agree computed one by one
        // (step 3 reads them, so the backend runs them unfused), the fused kernel is wrong.
        const auto testChains =
            across ? std::map<int64_t, std::vector<FusedChainRecord>>{} : readFusionRecords(testStats.toStdString());
        std::shared_ptr<const CompareResult> endUnfused; // the chain's end computed unfused, where step 3 read it
        if (const FusedChainRecord *chain = chainWriting(testChains, suspectOp.round, testId(suspectOp))) {
            steps.say(stepFusedWalk(suspectOp, *chain), 3);
            const QStringList walk = walkArgs(suspectOp.round) + QStringList{QStringLiteral("--keep-fusion")};
            QString goldenFused, testFused;
            auto fusedPass =
                pass(steps, walk, walk, dir.absoluteFilePath(goldenFusedDir()), dir.absoluteFilePath(testFusedDir()), 4,
                     stepCompareWalk(), dir.absoluteFilePath(QStringLiteral("report-fused")), &goldenFused, &testFused);
            const auto fused = co_await fusedPass;
            if (fused->firstDivergent >= 0) {
                suspectOp = fused->ops[size_t(fused->firstDivergent)];
                const auto fusedChains = readFusionRecords(testFused.toStdString());
                if (const FusedChainRecord *fusedEnd = chainWriting(fusedChains, suspectOp.round, testId(suspectOp))) {
                    steps.say(stepTensors(suspectOp), 3);
                    auto unfusedPass =
                        pass(steps, tensorArgs(suspectOp, Side::Golden), tensorArgs(suspectOp, Side::Test),
                             dir.absoluteFilePath(goldenTensorsDir()), dir.absoluteFilePath(testTensorsDir()), 4,
                             stepCompareTensors(), dir.absoluteFilePath(QStringLiteral("report-tensors")));
                    const auto unfused = co_await unfusedPass;
                    const OpResult *alone = findOp(*unfused, suspectOp.opId);
                    // The fused kernel is wrong only where the same ops computed one by one give
                    // golden's result; where the end departs unfused too, an op of the chain (or a
                    // weight it reads) is, and the walk below finds it.
                    endUnfused = unfused;
                    if (alone && agreesUnfused(*alone)) {
                        out.walk = fused;
                        out.tensors = unfused;
                        out.fusedChain = *fusedEnd;
                        end(Outcome::End::Found, fusedKernelWrong(suspectOp, *fusedEnd, alone));
                        // The chain replayed whole on the inputs it was given (its end's dump, fusion
                        // kept, holds the chain's inputs): float64, and ggml's CPU kernels unfused.
                        QStringList chainArgs = tensorArgs(suspectOp, Side::Test) << QStringLiteral("--keep-fusion");
                        if (recordsTokens(goldenFused))
                            chainArgs = followingTokens(chainArgs, goldenFused);
                        auto chainRun =
                            steps.dump(Side::Test, chainArgs, dir.absoluteFilePath(QStringLiteral("test-chain")));
                        const QString chainDump = co_await chainRun;
                        auto replaying = replay(chainDump, testId(suspectOp));
                        out.replay = co_await replaying;
                        steps.say(replayed(*fused, *out.replay, suspectOp), -1);
                        steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
                        co_return out;
                    }
                }
                steps.say(walkedTo(suspectOp), 3);
            }
        }
        QString testTensors = dir.absoluteFilePath(testTensorsDir());
        if (endUnfused && findOp(*endUnfused, suspectOp.opId)) {
            out.tensors = endUnfused; // step 3 read this op already
        } else {
            steps.say(across ? stepRoundTensors(suspectOp) : stepTensors(suspectOp), 3);
            auto tensorPass = pass(steps, across ? roundTensorArgs(suspectOp) : tensorArgs(suspectOp, Side::Golden),
                                   across ? roundTensorArgs(suspectOp) : tensorArgs(suspectOp, Side::Test),
                                   dir.absoluteFilePath(goldenTensorsDir()), testTensors, 4, stepCompareTensors(),
                                   dir.absoluteFilePath(QStringLiteral("report-tensors")));
            out.tensors = co_await tensorPass;
        }
        if (across && out.tensors->firstDivergent < 0) {
            unlessTokensDiffer(Outcome::End::NothingDiverges,
                               nothingDiverges(QStringLiteral("%1,%1").arg(suspectOp.round), *out.tensors), rounds);
            co_return out;
        }
        const OpResult *op =
            across ? &out.tensors->ops[size_t(out.tensors->firstDivergent)] : findOp(*out.tensors, suspectOp.opId);
        if (!op) {
            notDumpedEnd(suspectOp);
            co_return out;
        }
        // The walk back: from statistics, the suspect may not be the first op that departs.
        const bool clearedByElements = !confirmed(*out.tensors, *op);
        if (!across && !quantized && (clearedByElements || inputsAlreadyDepart(*op))) {
            steps.say(stepWalk(*op, clearedByElements), 3);
            const QStringList walk = walkArgs(suspectOp.round);
            auto walkPass =
                pass(steps, walk, walk, dir.absoluteFilePath(goldenWalkDir()), dir.absoluteFilePath(testWalkDir()), 4,
                     stepCompareWalk(), dir.absoluteFilePath(QStringLiteral("report-walk")));
            out.walk = co_await walkPass;
            if (out.walk->firstDivergent < 0 && clearedByElements) {
                unlessTokensDiffer(Outcome::End::Cleared, cleared(*op, suspectOp.round, out.stats->standard),
                                   QString::number(suspectOp.round));
                co_return out;
            }
            const OpResult first =
                out.walk->firstDivergent >= 0 ? out.walk->ops[size_t(out.walk->firstDivergent)] : suspectOp;
            if (first.opId != suspectOp.opId) {
                steps.say(walkedTo(first), 3);
                testTensors = dir.absoluteFilePath(testFirstDir());
                auto firstPass = pass(steps, tensorArgs(first, Side::Golden), tensorArgs(first, Side::Test),
                                      dir.absoluteFilePath(goldenFirstDir()), testTensors, 4, stepCompareTensors(),
                                      dir.absoluteFilePath(QStringLiteral("report-first")));
                out.tensors = co_await firstPass;
                op = findOp(*out.tensors, first.opId);
                if (!op) {
                    notDumpedEnd(first);
                    co_return out;
                }
            }
        }
        end(Outcome::End::Found, found(*out.tensors, *op));
        auto replaying = replay(testTensors, op->myOpId.empty() ? op->opId : op->myOpId);
        out.replay = co_await replaying;
        steps.say(replayed(*out.tensors, *out.replay, *op), -1);
        const std::string cache = confirmed(*out.tensors, *op) ? std::string() : cacheRead(*out.tensors, *op);
        if (cache.empty())
            steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
        if (confirmed(*out.tensors, *op))
            co_return out;
        // It departs by what it was given, not on its own. Where that is the KV cache, the state
        // is followed back to the write after which the cache departs, in whichever round.
        if (cache.empty()) {
            unlessTokensDiffer(Outcome::End::Cleared, explainedByItsInputs(*op), QString::number(op->round));
            co_return out;
        }
        const OpResult reader = *op;
        steps.say(stepCacheTrace(reader, cache), 3);
        QStringList traceGolden = cacheTraceArgs(reader, *out.stats, cache), traceTest = traceGolden;
        const QString testTrace = dir.absoluteFilePath(testTraceDir());
        auto tracePass = pass(steps, traceGolden, traceTest, dir.absoluteFilePath(goldenTraceDir()), testTrace, 4,
                              stepCompareTensors(), dir.absoluteFilePath(QStringLiteral("report-cache")));
        const auto trace = co_await tracePass;
        const OpResult *writer = firstCacheWrite(*trace, cache, reader.inputError);
        const std::optional<CacheGap> gap = writer ? std::nullopt : cacheGap(*trace, cache);
        // The program's own copies into the cache where it changed (no graph makes them): each
        // run's probe noted and checked them.
        std::optional<CopyVerdict> copies;
        if (gap) {
            bool incomplete = false;
            const auto copiesIn = [&](const std::string &root) {
                return stateCopiesInto(root, cache, gap->after + 1, gap->before, &incomplete);
            };
            const auto goldenCopies = copiesIn(trace->goldenRoot), testCopies = copiesIn(trace->myRoot);
            copies = cacheCopies(goldenCopies, testCopies, cache, *gap, incomplete);
            if (copies->found) {
                steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
                end(Outcome::End::Found, copies->words);
                co_return out;
            }
        }
        if (gap && gap->before - 1 >= gap->after + 1) {
            // Every write right, yet the cache departs between two of them: the rounds between
            // changed it otherwise. Their every op, the cache too, compared; the first departing ends it.
            steps.say(stepCacheGap(cache, *gap), 3);
            const QStringList between = cacheGapArgs(*gap);
            const QString testBetween = dir.absoluteFilePath(testGapDir());
            auto gapPass = pass(steps, between, between, dir.absoluteFilePath(goldenGapDir()), testBetween, 4,
                                stepCompareTensors(), dir.absoluteFilePath(QStringLiteral("report-between")));
            const auto changed = co_await gapPass;
            if (changed->firstDivergent >= 0) {
                const OpResult &culprit = changed->ops[size_t(changed->firstDivergent)];
                out.tensors = changed;
                end(Outcome::End::Found, found(*changed, culprit));
                auto replayingShift = replay(testBetween, testId(culprit), culprit.round);
                out.replay = co_await replayingShift;
                steps.say(replayed(*changed, *out.replay, culprit), -1);
                steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
                co_return out;
            }
        }
        if (!writer) {
            if (copies)
                steps.say(copies->words, -1);
            steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
            unlessTokensDiffer(Outcome::End::Cleared,
                               gap                                 ? cacheGapUnfollowed(cache, *gap)
                                   : !anyCacheWrite(*trace, cache) ? noCacheWrites(reader, cache)
                                                                   : cacheWrittenRight(reader, cache),
                               QString::number(reader.round));
            co_return out;
        }
        steps.say(cacheWrittenBy(*writer), 3);
        out.tensors = trace;
        end(Outcome::End::Found, found(*trace, *writer));
        auto replayingWrite = replay(testTrace, testId(*writer), writer->round);
        out.replay = co_await replayingWrite;
        steps.say(replayed(*trace, *out.replay, *writer), -1);
        steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
        // A write right on the rows it was given, which already departed: the lead is that round,
        // which the tokens differing does not change.
        if (!confirmed(*trace, *writer)) {
            if (observerChanged)
                unlessTokensDiffer(Outcome::End::Cleared, writtenRowsDepart(*writer), QString::number(writer->round));
            else
                end(Outcome::End::Cleared, writtenRowsDepart(*writer));
        }
    } catch (const Cancelled &) {
        end(Outcome::End::Cancelled,
            HuntRunnerText::tr("cancelled; the dumps written so far are kept in %1").arg(dir.absolutePath()));
    } catch (const std::exception &e) { // llmscope's errors, and any other: the hunt ends, saying why
        end(Outcome::End::Failed, HuntRunnerText::tr("stopped: %1").arg(QString::fromUtf8(e.what())));
    } catch (...) {
        end(Outcome::End::Failed, HuntRunnerText::tr("stopped: an unexpected error"));
    }
    co_return out;
}

} // namespace hunt
