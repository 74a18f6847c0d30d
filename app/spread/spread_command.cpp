#include "spread/spread_command.h"
#include "cli/say.h"

#include <QDir>

#include <cstdio>
#include <map>

#include "child_dump.h"
#include "spread/spread_plan.h"
#include "compare/report_text.h"
#include "hunt/hunt_plan.h"
#include "spread/spread.h" // core
#include "util/arg_reader.h"
#include "util/error.h"
#include "util/text.h"

using namespace llmscope;

namespace {

const char *kUsage = R"(usage: llmscope spread --run "CMD" [--run "CMD" ...] [--vary "FLAG V1,V2,..."] [--repeat N]
                       [-o DIR] [-er RANGES]

Runs one prompt several times side by side and names the first operation where the runs part,
and the run that departs:
  1. dumps every run's tensors (llmscope dump --type model tensor), one folder each under DIR,
  2. compares every two runs op by op,
  3. for each op and round, its spread (the largest relative euclidean distance of its outputs
     between two runs), whether a pair parts beyond its standard, and the run farthest from the
     others.
The standard depends on the pair: two runs of one command must be bit-identical (nondeterminism
is named apart: the ops whose outputs differ, and how many runs differ from the first); runs of
different commands are held to ggml's cross-backend budgets (llmscope compare --standard engine).

  --run CMD        a program to run (as for llmscope dump --exec); give it again for more
  --vary "FLAG VALUES"
                   each --run once per value, FLAG and the value added to its command line:
                   --vary "-t 1,2,4" (thread counts), --vary "--batch 1,512" (one token at a time
                   against the whole prompt), --vary "--device cpu,vulkan", --vary "--flash-attn on,off"
  --repeat N       each run N times (determinism: runs of one command must be bit-identical)
  -o DIR           where the dumps and reports go (default: ./llmscope_spread)
  -er RANGES       rounds to dump (default: all)

Writes DIR/spread.json (each run, each op's spread, first_departure with the run's index,
nondeterministic) and DIR/spread.csv.
Exit status: 0 no run departs beyond its standard, 1 one does, 2 it could not run.
)";

using cli::say;

void sayResult(const SpreadResult &r, const std::string &folder)
{
    using report::num;
    say("\nllmscope spread: " + std::to_string(r.runs.size()) + " runs, " + std::to_string(r.comparedPairs) +
        " pairs compared op by op\n");
    for (size_t k = 0; k < r.runs.size(); ++k)
        say("  run " + std::to_string(k) + ": " + r.runs[k].command + "\n");
    int listed = 0;
    for (const SpreadOp &o : r.ops)
        if ((o.departs || o.spread > 0) && listed++ < 12)
            say("  round " + std::to_string(o.round) + "  " + o.label() + "  spread " + num(o.spread) +
                (o.departs ? "  PARTS" : "") + (o.farthest >= 0 ? "  farthest: run " + std::to_string(o.farthest) : "") +
                "\n");
    if (r.departs()) {
        const SpreadOp &o = r.ops[size_t(r.firstDeparture)];
        say("first departure: round " + std::to_string(o.round) + ", " + o.label() + ": run " +
            std::to_string(r.departingRun) + " departs (" + r.runs[size_t(r.departingRun)].command + ")\n  " + o.why.english() +
            "\n");
    } else {
        say("no run departs beyond its standard: runs of one command bit-identical, the others within ggml's "
            "budgets\n");
    }
    for (const auto &a : r.aligned)
        say("  runs " + std::to_string(a.first) + " and " + std::to_string(a.second) +
            " computed other positions a round: lined up by position (" + std::to_string(a.aligned) +
            " files row by row, " + std::to_string(a.copied) + " taken once, " + std::to_string(a.leftOut) +
            " left out: attention over the cache, the cache, index inputs)\n");
    for (const auto &u : r.unpaired)
        say("  runs " + std::to_string(u.first) + " and " + std::to_string(u.second) + ": " + std::to_string(u.tensors) +
            " tensors of one have no partner in the other (left out when lined up, or an op or round only one ran): not compared\n");
    if (!r.nondeterministic.empty()) {
        const SpreadOp &o = r.ops[r.nondeterministic.front()];
        say("nondeterministic: " + std::to_string(r.nondeterministic.size()) +
            " op outputs differ between runs of one command; the first: round " + std::to_string(o.round) + ", " +
            o.label() + " (" + std::to_string(o.differing) + " run(s) differ from the first)\n");
    }
    say("reports: " + folder + "/spread.json, spread.csv\n");
}

} // namespace

int runSpreadCommand(const QStringList &args)
{
    spread::Request q;
    try {
        q = spread::parseRequest(toWords(args));
    } catch (const Error &e) {
        say(std::string("llmscope spread: ") + e.what() + "\n");
        return 2;
    }
    if (q.help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    int argc = 1;
    char name[] = "llmscope";
    char *argv[] = {name, nullptr};
    std::optional<QCoreApplication> app; // runChildDump runs QProcess
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    try {
        const QString folder = QDir(QString::fromStdString(q.folder)).absolutePath();
        QDir().mkpath(folder);
        std::vector<SpreadRun> runs;
        std::map<std::string, int> configs;
        const std::vector<std::string> commands = q.runs();
        for (size_t k = 0; k < commands.size(); ++k) {
            say("llmscope spread: run " + std::to_string(k + 1) + "/" + std::to_string(commands.size()) + ": " +
                commands[k] + "\n");
            SpreadRun run;
            run.command = commands[k];
            run.config = configs.emplace(commands[k], int(configs.size())).first->second;
            run.dump = runChildDump(QString::fromStdString(commands[k]),
                                    {"--type", "model", "tensor", "-er", hunt::dumpRounds(QString::fromStdString(q.rounds))},
                                    folder + QStringLiteral("/run-%1").arg(k))
                           .toStdString();
            runs.push_back(std::move(run));
        }
        say("llmscope spread: comparing every two runs op by op\n");
        const SpreadResult r = computeSpread(std::move(runs), {}, folder.toStdString());
        writeSpreadReports(r, folder.toStdString());
        sayResult(r, folder.toStdString());
        return r.departs() ? 1 : 0;
    } catch (const std::exception &e) { // llmscope's Error, and a file system's or memory's
        say(std::string("llmscope spread: ") + e.what() + "\n");
        return 2;
    }
}
