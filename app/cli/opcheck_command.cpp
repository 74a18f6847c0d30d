#include "app/cli/opcheck_command.h"
#include "app/cli/say.h"

#include <cstring>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include <unistd.h>

#include "core/compare/report_text.h"
#include "core/dump/dump_layout.h"
#include "core/opcheck/opcheck_report.h"
#include "core/opcheck/opcheck_run.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "core/opcheck/ggml_cpu_replay.h"
#endif
#include "core/opcheck/opcheck_xlsx.h"
#include "core/util/arg_reader.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace {

const char *kOpcheckUsage =
    R"(usage: llmscope opcheck -i DUMP [-o DIR] [-ids IDS] [-opname NAMES] [-metric abs cos_sim kl]
                        [--standard bounds|msit|msprobe]

Replays each dumped operation on its dumped inputs with a float64 reference and holds its
dumped outputs against it, as msit llm opcheck did for Ascend's ops: whether the kernel is
wrong given the inputs it really had. Dump the program with --type tensor (inputs and
outputs) and -tiling (each op's parameters in op_param.json).

  -i, --input DUMP          the dump folder (msit_dump_*, or the -o folder above it)
  -o, --output DIR          where the reports go (default: ./): opcheck_result_{UTC time}.xlsx
                            (sheet opcheck_result, msit's columns), and the same rows as .csv
                            and .json
  -ids IDS                  only these op ids (msit's -ids: 2_22,3; an id takes its children)
  -opname NAMES             only these op types (case-insensitive prefixes: mul_mat,rope)
  -metric abs cos_sim kl    more columns: abs_precision_rate(%) and max_abs_error,
                            cosine_similarity, kl_divergence (relative error is always given)
  --standard bounds|msit|msprobe
                            bounds (default): each element within the error a correct kernel
                            may make, below; msit: msit's per-dtype rule, the share of elements
                            within a relative error (float32 2^-20 for 99.99 %, float16 2^-10
                            and bfloat16 2^-8 for 99.9 %), computed in float64; msprobe:
                            msProbe's rule for each kind of op: every element equal for ops
                            that move elements; ULP errors for matrix products (float32: mean
                            under 64 ULP or under 5 % beyond 32 ULP; float16 and bfloat16:
                            under 0.1 % beyond 1 ULP; or fewer than ggml's CPU kernel, and a
                            warning up to twice as many); a relative error of 2^-20 (float32)
                            with an absolute one for small values for element-wise arithmetic;
                            for the rest each error against ggml's CPU kernel's (RMSE, relative
                            errors, small values, error balance: over twice fails)
  --no-cpu-replay           do not also run each op on ggml's own CPU kernels (by default an
                            output beyond its bound is charged to its kernel only when it is
                            more than twice as far from float64 as ggml's CPU kernel on the
                            same inputs; otherwise it warns: the bound is too tight there)
  -c, --csv-path OP_CSV     msit's op CSV of ATB ops: refused; each ggml op's type and
                            parameters are read from op_param.json beside its tensors

Each output element is held to the error a correct float32 kernel may make on it, given its
inputs: a few roundings of its output type for element-wise ops (relative to the terms of a
sum), k roundings of the compute type over sum |a b| for a dot product of length k (float16
or bfloat16 operands round to theirs; quantized weights meet 8-bit activations), and the
scores' error carried through the softmax for attention. An output is
  PASS   every element within its bound
  WARN   at most 0.1 % of its elements beyond it (the worst ratio is given)
  FAIL   more beyond it, or NaN/Inf where the reference has none
  SKIP   not replayed: a view (no kernel runs), an op or a use of it with no reference yet,
         or parameters not dumped (the reason is given)
  ERROR  its files could not be read
The summary gives the coverage: ops replayed of the dumped ops that are not views.

Exit status: 0 nothing failed, 1 an output failed or could not be read, 2 opcheck could not run.
)";

using cli::say;

struct Options {
    llmscope::OpcheckOptions check;
    std::string output = ".";
};

Options parseOptions(const QStringList &args)
{
    using llmscope::Error;
    Options o;
    bool noCpu = false;
    llmscope::ArgReader r(llmscope::toWords(args), "opcheck");
    while (r.next()) {
        const std::string &a = r.option();
        auto value = [&r] { return r.value(); };
        if (a == "-i" || a == "--input") {
            o.check.input = value();
        } else if (a == "-o" || a == "--output") {
            o.output = value();
        } else if (a == "-ids" || a == "--operation-ids") {
            o.check.ids = value();
        } else if (a == "-opname" || a == "--operation-name") {
            o.check.opNames = value();
        } else if (a == "-metric" || a == "--metric") {
            while (r.valueFollows()) {
                const std::string m = r.value();
                if (m != "abs" && m != "cos_sim" && m != "kl")
                    throw Error("-metric: '" + m + "' is not one of abs, cos_sim, kl");
                o.check.metrics.push_back(m);
            }
        } else if (a == "--no-cpu-replay") {
            noCpu = true;
        } else if (a == "--standard") {
            const std::string v = value();
            using S = llmscope::OpcheckOptions::Standard;
            if (v != "bounds" && v != "msit" && v != "msprobe")
                throw Error("--standard: '" + v + "' is not one of bounds, msit, msprobe");
            o.check.standard = v == "msit" ? S::Msit : v == "msprobe" ? S::Msprobe : S::Bounds;
        } else if (a == "-c" || a == "--csv-path") {
            throw Error(a +
                        ": msit's op CSV lists Ascend ATB ops; llmscope reads each ggml op's type and parameters "
                        "from op_param.json beside its tensors. Dump with -tiling and leave " +
                        a + " out");
        } else {
            r.unknown();
        }
    }
    if (o.check.input.empty())
        throw Error("-i is required: the dump folder to check (see llmscope opcheck --help)");
#ifdef LLMSCOPE_GGML_REPLAY
    if (!noCpu)
        o.check.cpuReplay = llmscope::opcheck::ggmlCpuReplay;
#endif
    return o;
}

// The reports' paths, written side by side: .xlsx, .csv and .json of one name.
std::string writeReports(const llmscope::OpcheckResult &r, const Options &o)
{
    using namespace llmscope;
    makeDirs(o.output);
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    const std::string base = o.output + "/opcheck_result_" + stamp;
    writeFileAtomic(base + ".csv", opcheckCsv(r, o.check.metrics));
    writeFileAtomic(base + ".json", opcheckJson(r));
    const std::string partial = base + ".xlsx.partial"; // never a half-written workbook under its name
    try {
        writeOpcheckXlsx(partial, r, o.check.metrics);
        std::filesystem::rename(partial, base + ".xlsx");
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        throw;
    }
    return base;
}

void saySummary(const llmscope::OpcheckResult &r, const std::string &base)
{
    using llmscope::report::num;
    say("\nllmscope opcheck: " + r.root + "\n");
    say("  ops:         " + std::to_string(r.ops) + " dumped, " + std::to_string(r.viewOps) + " views (no kernel; " +
        std::to_string(r.viewsChecked) + " checked as data movement), " + std::to_string(r.replayedOps) +
        " replayed: coverage " + num(r.coverage()) + " % of the ops that run a kernel\n");
    say("  outputs:     " + std::to_string(r.pass) + " PASS, " + std::to_string(r.warn) + " WARN, " +
        std::to_string(r.fail) + " FAIL, " + std::to_string(r.skip) + " SKIP, " + std::to_string(r.error) + " ERROR\n");
    int listed = 0;
    for (const auto &row : r.rows)
        if ((llmscope::isBad(row.verdict) || row.verdict == llmscope::Verdict::Warn) && listed++ < 12)
            say("  " + std::string(llmscope::verdictName(row.verdict)) +
                std::string(12 - std::strlen(llmscope::verdictName(row.verdict)), ' ') + "round " +
                std::to_string(row.round) + " " + row.opId + " " + row.opType + " (" + row.opName +
                "): " + row.reason.english() + "\n");
    std::map<std::string, int> skipped; // why ops were not replayed, and how often
    for (const auto &row : r.rows)
        if (row.verdict == llmscope::Verdict::Skip)
            ++skipped[row.reason.english()];
    for (const auto &[why, n] : skipped)
        say("  SKIP        " + std::to_string(n) + "x " + why + "\n");
    say("  reports:     " + base + ".xlsx, .csv, .json\n");
}

} // namespace

int runOpcheckCommand(const QStringList &args)
{
    using namespace llmscope;
    for (const auto &a : args)
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(kOpcheckUsage, stdout);
            return 0;
        }
    try {
        const Options o = parseOptions(args);
        int lastTenth = -1;
        const OpcheckResult r = runOpcheck(o.check, [&](uint64_t done, uint64_t total) {
            const int tenth = total ? int(10 * done / total) : 10;
            if (tenth != lastTenth && isatty(STDERR_FILENO)) { // a line that redraws: for a terminal only
                lastTenth = tenth;
                say("llmscope opcheck: " + std::to_string(done) + " of " + std::to_string(total) + " ops\r");
            }
            return true;
        });
        const std::string base = writeReports(r, o);
        saySummary(r, base);
        return r.fail || r.error ? 1 : 0;
    } catch (const Error &e) {
        say(std::string("llmscope opcheck: ") + e.what() + "\n");
        return 2;
    }
}
