#include "app/hunt/hunt_command.h"
#include "app/cli/say.h"

#include "app/cli/child_steps.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <optional>

#include "app/hunt/hunt_plan.h"
#include "app/hunt/hunt_runner.h"
#include "app/session/launch_plan.h"
#include "core/compare/compare_run.h"
#include "core/compare/report.h"
#include "core/dump/dump_layout.h"
#include "core/launch/command_line.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {

const char *kHuntUsage =
    R"(usage: llmscope hunt --golden "CMD" --test "CMD" [-o DIR] [-er RANGES] [--standard exact|rounding|engine|msit]
                     [--timeout SECONDS]

Finds the first operation where the test program departs from the golden one:
  1. runs both with statistics of every operation (--type model stats) in every round, the
     test consuming golden's tokens (--follow-tokens) so that later rounds stay comparable;
     the statistics carry error sketches, from which compare estimates each op's error,
  2. compares the statistics and takes the first divergent operation,
  3. runs both again dumping only that operation's full tensors, inputs and outputs,
  4. compares them element by element and reports it, then replays it (llmscope opcheck)
     to say whether its kernel or its inputs are at fault.
Where the suspect is within its budget element by element, or its inputs already differ by
more than any one op may add, the hunt walks back: every op's outputs in that round are
dumped and compared element by element, and the first that departs is dumped with its
inputs and reported. Where the programs chose different tokens, it never ends in "nothing
diverges". Every dump is kept under DIR (default ./llmscope_hunt): golden-stats, test-stats,
golden-tensors, test-tensors, golden-walk, test-walk, golden-first, test-first, and the
reports.

  --golden CMD     the reference program (as for llmscope dump --exec)
  --test CMD       the program to check
  -o DIR           where the dumps and reports go (default: ./llmscope_hunt)
  -er RANGES       rounds to compare (default: all, every round both programs run)
  --standard S     how ops are judged, as llmscope compare's --standard (exact, rounding,
                   engine, msit; default: chosen from what the two runs were, said first)
  --timeout SECONDS
                   stop each run's program after SECONDS (as llmscope dump --timeout): a
                   program that hangs ends the hunt, saying so, instead of holding it

Exit status: 0 a divergent operation was found, 1 every operation passed (or the suspect the
statistics gave passed element by element, and so did its round's outputs; or nothing departs
where compared while the programs chose other tokens, said so), 2 it could not run.
)";

using cli::say;

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
        std::fputs(kHuntUsage, stdout);
        return 0;
    }
    // Both programs found before the first runs: a typo in the test's waits for no golden run.
    for (const auto &[side, line] : {std::pair{"golden", request.golden}, std::pair{"test", request.test}}) {
        try {
            findProgram(parseCommandLine(line.toStdString()).words.at(0));
        } catch (const Error &e) {
            say(QStringLiteral("llmscope hunt: the %1 command cannot run: %2\n")
                    .arg(QLatin1String(side), QString::fromUtf8(e.what())));
            return 2;
        }
    }
    const hunt::Steps steps =
        hunt::withTimeout(childSteps(request.golden, request.test, request.standard,
                                     [](const QString &text, int step) {
                                         const bool detail = step < 0 && step != hunt::Steps::kFailedEnd;
                                         say(detail ? QStringLiteral("  %1\n").arg(text)
                                                    : QStringLiteral("llmscope hunt: %1\n").arg(text));
                                     }),
                          request.timeoutSeconds);
    const hunt::Outcome outcome = runToEnd([&] { return hunt::run(steps, request.folder, request.rounds); });
    switch (outcome.end) {
    case hunt::Outcome::End::Found: return 0;
    case hunt::Outcome::End::NothingDiverges:
    case hunt::Outcome::End::Cleared:
    case hunt::Outcome::End::Unexplained: return 1;
    default: return 2;
    }
}
