#include "hunt_command.h"

#include "child_dump.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include <cstdio>
#include <optional>

#include "compare/compare_run.h"
#include "compare/report.h"
#include "dump/dump_layout.h"
#include "session/hunt_plan.h"
#include "util/error.h"

using namespace llmscope;

namespace {

const char *kUsage = R"(usage: llmscope hunt --golden "CMD" --test "CMD" [-o DIR] [-er RANGES] [--standard engine|msit]

Finds the first operation where the test program departs from the golden one:
  1. runs both with statistics of every operation (--type model stats),
  2. compares the statistics and takes the first divergent operation,
  3. runs both again dumping only that operation's full tensors, inputs and outputs,
  4. compares them element by element and reports it.
Every dump is kept under DIR (default ./llmscope_hunt): golden-stats, test-stats,
golden-tensors, test-tensors, and the reports.

  --golden CMD     the reference program (as for llmscope dump --exec)
  --test CMD       the program to check
  -o DIR           where the dumps and reports go (default: ./llmscope_hunt)
  -er RANGES       rounds to compare (default: 0,0, the prompt)
  --standard S     how ops are judged, as llmscope compare's --standard (default: engine,
                   ggml's cross-backend budgets; msit: msit's per-element table)

Exit status: 0 a divergent operation was found, 1 every operation passed (or the suspect the
statistics gave passed element by element), 2 it could not run.
)";

void say(const QString &s)
{
    std::fputs(s.toLocal8Bit().constData(), stderr);
    std::fflush(stderr);
}

} // namespace

int runHuntCommand(const QStringList &args)
{
    hunt::Request request;
    try {
        request = hunt::parseRequest(args);
    } catch (const Error &e) {
        say(QStringLiteral("llmscope hunt: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
    if (request.help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    const QString golden = request.golden, test = request.test, out = request.folder, rounds = request.rounds;
    const std::optional<Standard> standard = request.standard;
    const QDir dir(out);
    auto step = [](const QString &text) { say(QStringLiteral("llmscope hunt: %1\n").arg(text)); };
    try {
        step(hunt::stepStats(rounds));
        const QStringList statsOptions = hunt::statsArgs(rounds);
        const QString gStats = runChildDump(golden, statsOptions, dir.absoluteFilePath(hunt::goldenStatsDir()));
        const QString tStats = runChildDump(test, statsOptions, dir.absoluteFilePath(hunt::testStatsDir()));

        step(hunt::stepCompareStats());
        CompareOptions o;
        o.standard = standard;
        o.goldenPath = gStats.toStdString();
        o.myPath = tStats.toStdString();
        CompareResult statsResult = runCompare(o);
        writeCompareReports(statsResult, dir.absoluteFilePath("report-stats").toStdString());
        if (statsResult.standard == Standard::Engine && hunt::quantizedTest(statsResult)) {
            step(hunt::stepOutputs(statsResult, rounds));
            const QStringList outputs = hunt::outputsArgs(rounds);
            o.goldenPath = runChildDump(golden, outputs, dir.absoluteFilePath(hunt::goldenOutputsDir())).toStdString();
            o.myPath = runChildDump(test, outputs, dir.absoluteFilePath(hunt::testOutputsDir())).toStdString();
            statsResult = runCompare(o);
            writeCompareReports(statsResult, dir.absoluteFilePath("report-outputs").toStdString());
        }
        if (statsResult.firstDivergent < 0) {
            step(hunt::nothingDiverges(rounds, statsResult));
            return 1;
        }
        const OpResult &suspect = statsResult.ops[size_t(statsResult.firstDivergent)];
        say(QStringLiteral("  %1\n").arg(hunt::suspect(statsResult, suspect)));

        step(hunt::stepTensors(suspect));
        const QString gTensors = runChildDump(golden, hunt::tensorArgs(suspect, hunt::Side::Golden),
                                      dir.absoluteFilePath(hunt::goldenTensorsDir()));
        const QString tTensors = runChildDump(test, hunt::tensorArgs(suspect, hunt::Side::Test),
                                      dir.absoluteFilePath(hunt::testTensorsDir()));

        step(hunt::stepCompareTensors());
        o.goldenPath = gTensors.toStdString();
        o.myPath = tTensors.toStdString();
        const CompareResult result = runCompare(o);
        const std::string report = writeCompareReports(result, dir.absoluteFilePath("report-tensors").toStdString());
        const OpResult *op = hunt::findOp(result, suspect.opId);
        if (!op) {
            step(hunt::notDumped(suspect) + QStringLiteral("; see ") + dir.absolutePath());
            return 2;
        }
        step(hunt::found(result, *op));
        say(QStringLiteral("  dumps and reports: %1 (element report %2)\n")
                .arg(dir.absolutePath(), QString::fromStdString(report)));
        if (!hunt::confirmed(result, *op)) {
            step(hunt::cleared(*op));
            return 1;
        }
        return 0;
    } catch (const Error &e) {
        say(QStringLiteral("llmscope hunt: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
}
