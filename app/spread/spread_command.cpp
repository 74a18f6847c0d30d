#include "app/spread/spread_command.h"
#include "app/cli/say.h"

#include <QDir>

#include <algorithm>
#include <cstdio>
#include <map>

#include "app/cli/child_steps.h"
#include "app/hunt/hunt_plan.h"
#include "app/spread/spread_plan.h"
#include "app/spread/spread_runner.h"
#include "core/compare/report_text.h"
#include "core/config/run_config.h"
#include "core/run_spread/spread.h" // core
#include "core/util/arg_reader.h"
#include "core/util/error.h"
#include "core/util/text.h"

using namespace llmscope;

namespace {

const char *kUsage =
    R"(usage: llmscope spread --run "CMD" [--run "CMD" ...] [--vary "FLAG V1,V2,..."] [--fusion on,off] [--repeat N]
                       [-o DIR] [-er RANGES] [--tensors] [--kv-cache] [--seq S | --request N] [--timeout SECONDS]

Runs one prompt several times side by side and names the first operation where the runs part,
and the run that departs:
  1. dumps every run's statistics (llmscope dump --type model stats: with the sketches that
     estimate each op's error and the digests that tell bit-identity), one folder each under DIR,
  2. compares every two runs op by op,
  3. dumps the tensors of the rounds where the runs first part (and where runs of one command
     first differ) and measures those again, element by element,
  4. for each op and round, its spread (the largest relative euclidean distance of its outputs
     between two runs), whether a pair parts beyond its standard, and the run farthest from the
     others.
Runs that computed other positions a round (the prompt at once against one token a round) dump
every tensor at once and are lined up by position.
The standard depends on the pair: two runs of one command must be bit-identical (nondeterminism
is named apart: the ops whose outputs differ, and how many runs differ from the first); runs of
different commands are held to ggml's cross-backend budgets (llmscope compare --standard engine).

  --run CMD        a program to run (as for llmscope dump --exec); give it again for more
  --vary "FLAG VALUES"
                   each --run once per value, FLAG and the value added to its command line:
                   --vary "-t 1,2,4" (thread counts), --vary "--batch 1,512" (one token at a time
                   against the whole prompt), --vary "--device cpu,vulkan", --vary "--flash-attn on,off"
  --fusion on,off  each run with the backends' fusion on and off (their own switches:
                   GGML_CPU_DISABLE_FUSION, GGML_VK_DISABLE_FUSION, GGML_CUDA_DISABLE_FUSION),
                   every op read as the program computes it (a fused chain at its last op):
                   where the two part, a fused kernel departs from the unfused ones
  --repeat N       each run N times (determinism: runs of one command must be bit-identical)
  --timeout SECONDS
                   stop each run's program after SECONDS (as llmscope dump --timeout)
  -o DIR           where the dumps and reports go (default: ./llmscope_spread)
  -er RANGES       rounds to dump (default: all)
  --tensors        every run's tensors in one pass (no statistics first)
  --kv-cache       dump the KV cache too; runs computing other positions a round compare it
                   position by position (one sequence's cells hold its positions in order)
  --seq S          each run's request in sequence S (llama-server's slot S; 0 for a program of
                   one sequence): its rounds alone, its rows cut out of rounds shared with other
                   sequences, lined up by position (as compare --my-seq); tensors, one pass
  --request N      each run's request N (`llmscope info` lists them)

Writes DIR/spread.json (each run, each op's spread, first_departure with the run's index,
nondeterministic) and DIR/spread.csv.
Each command also runs once with the probe loaded but reading nothing, and its results are
held against the observed run's (as dump --check-observer): where observing changed a run's
results, the spread says so first.
Exit status: 0 no run departs beyond its standard, 1 one does, 2 it could not run, 4 none
departs as observed but observing changed a run's results (what was compared is not what the
program computes unobserved).
)";

using cli::say;

void sayProgress(const spread::Progress &p)
{
    using Stage = spread::Progress::Stage;
    const std::string of = std::to_string(p.run + 1) + "/" + std::to_string(p.runs) + ": " + p.label;
    switch (p.stage) {
    case Stage::Dump:
        say(p.pass == QLatin1String("unobserved") ? "llmscope spread: observer " + of + ", the probe reading nothing\n"
                                                  : "llmscope spread: " + p.pass.toStdString() + " " + of + "\n");
        break;
    case Stage::Observed: say("  " + p.text + "\n"); break;
    case Stage::LineUp:
        say("llmscope spread: the runs computed other positions a round: every tensor, to line them up by position\n");
        break;
    case Stage::Compare: say("llmscope spread: comparing every two runs op by op\n"); break;
    case Stage::Measure:
        say("llmscope spread: rounds " + std::to_string(p.firstRound) + " to " + std::to_string(p.lastRound) +
            " part by their statistics: their tensors, to measure\n");
        break;
    }
}

void sayResult(const SpreadResult &r, const std::string &folder)
{
    using report::num;
    say("\nllmscope spread: " + std::to_string(r.runs.size()) + " runs, " + std::to_string(r.comparedPairs) +
        " pairs compared op by op\n");
    for (size_t k = 0; k < r.runs.size(); ++k) // counted from 1, as they ran (spread.json: indices from 0)
        say("  run " + std::to_string(k + 1) + ": " + r.runs[k].command + "\n");
    for (const std::string &note : r.requestNotes) // runs 1 and 2's request, as compare says it
        say("  " + note + "\n");
    // What differs between each run's configuration and the first's, before any tensor.
    for (size_t k = 1; k < r.configurations.size(); ++k)
        if (const auto &d = r.configurations[k])
            say("  configuration, run " + std::to_string(k + 1) + " against run 1: " + configDiffSummary(*d) + "\n");
    if (const int c = r.observerChanged(); c >= 0)
        say("observer: observing changed run " + std::to_string(c + 1) +
            "'s results: " + observerCheckText(*r.runs[size_t(c)].observer) +
            "; what follows compares the runs as observed, not as the program computes unobserved\n");
    int listed = 0;
    for (const SpreadOp &o : r.ops)
        if ((o.departs || o.spread > 0) && listed++ < 12)
            say("  round " + std::to_string(o.round) + "  " + o.label() + "  spread " + num(o.spread) +
                (o.departs ? "  PARTS" : "") +
                (o.farthest >= 0 ? "  farthest: run " + std::to_string(o.farthest + 1) : "") + "\n");
    if (r.departs()) {
        const SpreadOp &o = r.ops[size_t(r.firstDeparture)];
        say("first departure: round " + std::to_string(o.round) + ", " + o.label() + ": run " +
            std::to_string(r.departingRun + 1) + " departs (" + r.runs[size_t(r.departingRun)].command + ")\n  " +
            o.why.english() + "\n");
        if (!o.fusedChain.empty()) {
            const bool fused = std::find(o.fusedRuns.begin(), o.fusedRuns.end(), r.departingRun) != o.fusedRuns.end();
            say("  it ends the chain " + o.fusedChain +
                (fused ? ", which the departing run computed fused: its fused kernel "
                         "parts from the unfused ops\n"
                       : ", computed fused by other runs than the departing one\n"));
        }
    } else if (const int c = r.observerChanged(); c >= 0) {
        say("no run departs beyond its standard as observed, but observing changed run " + std::to_string(c + 1) +
            "'s results: the fault may lie where observing changes what runs; compare its two runs' logits with "
            "llmscope compare (" +
            r.runs[size_t(c)].dump + " and its unobserved run)\n");
    } else {
        say("no run departs beyond its standard: runs of one command bit-identical, the others within ggml's "
            "budgets\n");
    }
    for (const auto &a : r.aligned)
        say("  runs " + std::to_string(a.first + 1) + " and " + std::to_string(a.second + 1) +
            " computed other positions a round: lined up by position (" + std::to_string(a.aligned) +
            " files row by row, " + std::to_string(a.copied) + " taken once, " + std::to_string(a.leftOut) +
            " left out: attention over the cache, the cache, index inputs)\n");
    for (const auto &u : r.unpaired)
        say("  runs " + std::to_string(u.first + 1) + " and " + std::to_string(u.second + 1) + ": " +
            std::to_string(u.tensors) +
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
    try {
        const QString folder = QDir(QString::fromStdString(q.folder)).absolutePath();
        spread::Steps steps;
        steps.dump = [](const spread::Run &c, QStringList options, QString out) -> QCoro::Task<std::string> {
            ChildDump d{{}, QString::fromStdString(c.command), options, out, {}, {}}; // named: see child_steps.cpp
            co_return (co_await runChildDump(std::move(d))).toStdString();
        };
        steps.compare = [folder, request = q.request](std::vector<SpreadRun> runs) -> QCoro::Task<SpreadResult> {
            co_return computeSpread(std::move(runs), {}, folder.toStdString(), request);
        };
        steps.say = sayProgress;
        spread::Outcome o = runToEnd([&] { return spread::run(steps, q, folder); });
        if (!o.result)
            std::rethrow_exception(o.error);
        const SpreadResult &r = *o.result;
        sayResult(r, folder.toStdString());
        return r.departs() ? 1 : r.observerChanged() >= 0 ? 4 : 0;
    } catch (const std::exception &e) { // llmscope's Error, and a file system's or memory's
        say(std::string("llmscope spread: ") + e.what() + "\n");
        return 2;
    }
}
