#include "hunt_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QtConcurrent>

#include <QCoroFuture>

#include "compare/report.h"
#include "opcheck/opcheck_run.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "opcheck/ggml_cpu_replay.h"
#endif
#include "util/error.h"

using namespace llmscope;

namespace hunt {
namespace {

// The words' translation context, as hunt_plan's.
class HuntRunnerText {
    Q_DECLARE_TR_FUNCTIONS(HuntRunnerText)
};

// Both sides dumped with their options, then compared; the comparison's reports written
// under folder/report (the CSV and JSON, as llmscope compare writes them).
QCoro::Task<std::shared_ptr<const CompareResult>> pass(const Steps &steps, QStringList goldenOptions,
                                                      QStringList testOptions, QString goldenOut, QString testOut,
                                                      int compareStep, QString compareText, QString report)
{
    auto goldenRun = steps.dump(Side::Golden, goldenOptions, goldenOut); // named: g++ 12 and co_await temporaries
    const QString goldenDump = co_await goldenRun;
    auto testRun = steps.dump(Side::Test, testOptions, testOut);
    const QString testDump = co_await testRun;
    steps.say(compareText, compareStep);
    auto comparing = steps.compare(goldenDump, testDump);
    auto result = co_await comparing;
    writeCompareReports(*result, report.toStdString());
    co_return result;
}

// The op replayed on the test's own dump of it (llmscope opcheck), off the calling thread: a
// large op's float64 reference takes a while.
QCoro::Task<OpcheckRow> replay(QString testDump, std::string opId)
{
    auto running = QtConcurrent::run([testDump, opId] {
        OpcheckRow row;
        row.verdict = "ERROR";
        try {
            OpcheckOptions o;
            o.input = testDump.toStdString();
            o.ids = opId;
#ifdef LLMSCOPE_GGML_REPLAY
            o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
            for (const auto &r : runOpcheck(o).rows)
                if (r.opId == opId)
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

QCoro::Task<Outcome> run(Steps steps, QString folder, QString rounds)
{
    Outcome out;
    const QDir dir(folder);
    auto end = [&](Outcome::End e, const QString &message) {
        out.end = e;
        out.message = message;
        steps.say(message, 0);
    };
    try {
        steps.say(stepStats(rounds), 1);
        const QStringList stats = statsArgs(rounds);
        auto statsPass = pass(steps, stats, stats, dir.absoluteFilePath(goldenStatsDir()),
                              dir.absoluteFilePath(testStatsDir()), 2, stepCompareStats(),
                              dir.absoluteFilePath(QStringLiteral("report-stats")));
        out.stats = co_await statsPass;
        if (out.stats->standard == Standard::Engine && quantizedTest(*out.stats)) {
            const QStringList outputs = outputsArgs(rounds);
            auto outputsPass = pass(steps, outputs, outputs, dir.absoluteFilePath(goldenOutputsDir()),
                                    dir.absoluteFilePath(testOutputsDir()), 2, stepOutputs(*out.stats, rounds),
                                    dir.absoluteFilePath(QStringLiteral("report-outputs")));
            out.stats = co_await outputsPass;
        }
        if (out.stats->firstDivergent < 0) {
            end(Outcome::End::NothingDiverges, nothingDiverges(rounds, *out.stats));
            co_return out;
        }
        const OpResult suspectOp = out.stats->ops[size_t(out.stats->firstDivergent)];
        steps.say(suspect(*out.stats, suspectOp), -1);

        const bool across = out.stats->acrossFrameworks;
        steps.say(across ? stepRoundTensors(suspectOp) : stepTensors(suspectOp), 3);
        auto tensorPass = pass(steps, across ? roundTensorArgs(suspectOp) : tensorArgs(suspectOp, Side::Golden),
                               across ? roundTensorArgs(suspectOp) : tensorArgs(suspectOp, Side::Test),
                               dir.absoluteFilePath(goldenTensorsDir()), dir.absoluteFilePath(testTensorsDir()), 4,
                               stepCompareTensors(), dir.absoluteFilePath(QStringLiteral("report-tensors")));
        out.tensors = co_await tensorPass;
        if (across && out.tensors->firstDivergent < 0) {
            end(Outcome::End::NothingDiverges, nothingDiverges(QString::number(suspectOp.round), *out.tensors));
            co_return out;
        }
        const OpResult *op = across ? &out.tensors->ops[size_t(out.tensors->firstDivergent)]
                                    : findOp(*out.tensors, suspectOp.opId);
        if (!op) {
            end(Outcome::End::NotDumped, notDumped(suspectOp) + HuntRunnerText::tr("; see %1").arg(dir.absolutePath()));
            co_return out;
        }
        end(Outcome::End::Found, found(*out.tensors, *op));
        auto replaying = replay(dir.absoluteFilePath(testTensorsDir()), op->myOpId.empty() ? op->opId : op->myOpId);
        out.replay = co_await replaying;
        steps.say(replayed(*out.tensors, *out.replay, *op), -1);
        steps.say(HuntRunnerText::tr("dumps and reports kept in %1").arg(dir.absolutePath()), -1);
        if (!confirmed(*out.tensors, *op))
            end(Outcome::End::Cleared, cleared(*op));
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
