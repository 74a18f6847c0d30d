#include "app/cli/compare_command.h"
#include "app/cli/say.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <unistd.h>

#include "core/compare/compare_run.h"
#include "core/compare/divergence_cause.h"
#include "core/compare/manual_compare.h"
#include "core/compare/op_verdicts.h"
#include "core/compare/report.h"
#include "core/compare/report_text.h"
#include "core/requests/request_pairing.h"
#include "core/util/arg_reader.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace {

const char *kUsage = R"(usage: llmscope compare --golden-path A --my-path B [options]

Compares a golden dump with a test dump (msit/msProbe layouts, folders of .bin/.npy files, or
two tensor files) and writes msit_cmp_report_{UTC time}.csv in msit llm compare's columns, plus
a .json with every metric for the desktop app. Given two metadata.json files written by
dump_data() (msit's manual mapping; manual/llmscope_dump_data.py, core/manual/dump_data.h), it
pairs them by data id and token id and writes msit's cmp_report.csv.

  -gp, --golden-path PATH   the reference dump, folder or file
  -mp, --my-path PATH       the dump, folder or file to check
  -o, --output DIR          where the reports go (default: ./)
  --mapping FILE            JSON pairs of op ids for operations the automatic matching cannot
                            pair: {"3_1": "3_4"} or {"pairs": [{"golden": "3_1", "my": "3_4"}]}
  --standard S              how an operation is judged (default: chosen from what the two
                            runs were, as their dumps record it, and said first):
                            exact: the same command, libraries and machine: every op bit
                              for bit
                            rounding: one backend and the same types on both sides (another
                              build, SIMD width or thread count): the NMSE an op adds beyond
                              what its inputs' error explains, within what float rounding in
                              another order may change (its reduction length, its compute
                              type, the values a narrower type rounds differently)
                            engine: other backends, or other types: ggml's cross-backend
                              budgets (test-backend-ops), within 1e-7 (1e-6 SOFT_MAX, 5e-4
                              MUL_MAT, MUL_MAT_ID, OUT_PROD, FLASH_ATTN_EXT); the default
                              when a dump does not record its run
                            Under these three an op that moves data (GET_ROWS, same-type
                            copies, views) adds nothing, and a weight that differs fails its
                            op (beyond its quantization).
                            msit: msit's per-element rule by dtype (below), every tensor pair;
                              the default when a side is not an llmscope dump
  --rel-tol X               msit: per-element relative tolerance (default by dtype: fp32 1e-7,
                            fp16 1e-3, bf16 1e-2, int8 1); implies --standard msit
  --pass-rate X             msit: share of elements that must be within it (default 0.9999
                            for fp32, 0.999 otherwise); implies --standard msit
  --threads N               worker threads (default: one per core)

Requests (llama-server's slots; `llmscope info DUMP` lists a dump's requests):
  --golden-request N        golden's request N alone (its rounds, its tokens' rows)
  --my-request N            the same for the dump to check
  --golden-seq S            golden's request in sequence S (a slot), when it served one
  --my-seq S                the same for the dump to check
                            Where the two sides batched the request's positions otherwise,
                            my is lined up in golden's rounds by position. The views are
                            written under the output folder's requests/.

Quantized weights: where a dump names the model files its program loaded, weights it cannot
give as stored (statistics only, quantized blocks) are read from both files, once each, and
ggml's own types (q4_0, q6_K, iq4_nl, ...) are dequantized by the libggml-base.so llmscope was
built with (LLMSCOPE_GGML_LIBRARY names another). A weight stored in another type on the test
side is quantization when it differs from golden's by at most 1.25 times what requantizing
golden's to that type gives (with no such figure, by at most 50 %); the op is then judged on
what it adds beyond its inputs' error and 4 times its weight's.

Exit status: 0 every pair passed, 1 something failed or had no partner, 2 the comparison
could not run.
)";

using cli::say;

double parseNumber(const std::string &option, const std::string &v, double lo, double hi)
{
    char *end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(d >= lo && d <= hi))
        throw llmscope::Error(option + ": '" + v + "' must be a number from " + llmscope::formatStat(lo) + " to " +
                              llmscope::formatStat(hi));
    return d;
}

using llmscope::report::percent;
using llmscope::report::sig3;

// msit's manual mapping: two metadata.json files from dump_data(), compared by data id.
int runManualCompare(const std::string &golden, const std::string &my, const std::string &output)
{
    using namespace llmscope;
    std::vector<ManualRow> rows;
    std::string path;
    try {
        rows = compareManual(golden, my);
        makeDirs(output);
        path = output + "/cmp_report.csv";
        writeFileAtomic(path, manualReportCsv(rows));
    } catch (const Error &e) {
        say(std::string("llmscope compare: ") + e.what() + "\n");
        return 2;
    }
    size_t passed = 0;
    for (const auto &r : rows)
        passed += r.compared && r.pair.passed;
    say("llmscope compare: " + std::to_string(rows.size()) + " data ids and tokens (manual mapping), " +
        std::to_string(passed) + " passed\n");
    for (const auto &r : rows)
        if (!(r.compared && r.pair.passed))
            say("  " + r.dataId + " token " + r.tokenId + ": " + r.pair.failReason.english() + "\n");
    say("  report: " + path + "\n");
    return passed == rows.size() && !rows.empty() ? 0 : 1;
}

struct RequestChoices {
    llmscope::RequestChoice golden, my;
};

// The options; a status to exit with when they end the command (help, or an error said).
std::optional<int> readCompareOptions(const QStringList &args, llmscope::CompareOptions &o, std::string &output,
                                      RequestChoices &requests)
{
    using namespace llmscope;
    try {
        ArgReader r(toWords(args), "compare");
        while (r.next()) {
            const std::string &a = r.option();
            auto value = [&r] { return r.value(); };
            if (a == "-h" || a == "--help") {
                std::fputs(kUsage, stdout);
                return 0;
            } else if (a == "-gp" || a == "--golden-path") {
                o.goldenPath = value();
            } else if (a == "-mp" || a == "--my-path") {
                o.myPath = value();
            } else if (a == "-o" || a == "--output") {
                output = value();
            } else if (a == "--mapping") {
                o.mappingFile = value();
            } else if (a == "--standard") {
                const std::string v = value();
                o.standard = parseStandard(v);
                if (!o.standard)
                    throw Error("--standard: '" + v + "' is not exact, rounding, engine or msit");
            } else if (a == "--rel-tol") {
                o.relTol = parseNumber(a, value(), 0, 1e30);
            } else if (a == "--pass-rate") {
                o.passRate = parseNumber(a, value(), 0, 1);
            } else if (a == "--threads") {
                o.threads = unsigned(parseNumber(a, value(), 1, 256));
            } else if (a == "--golden-request" || a == "--golden-seq") {
                requests.golden = parseRequestChoice(a, value(), a == "--golden-seq");
            } else if (a == "--my-request" || a == "--my-seq" || a == "--test-request" || a == "--test-seq") {
                requests.my = parseRequestChoice(a, value(), a == "--my-seq" || a == "--test-seq");
            } else {
                r.unknown();
            }
        }
        if (o.goldenPath.empty() || o.myPath.empty())
            throw Error("--golden-path and --my-path are both required");
        if (o.standard && judgesOps(*o.standard) && (o.relTol || o.passRate))
            throw Error("--rel-tol and --pass-rate set msit's per-element rule, which --standard " +
                        std::string(standardName(*o.standard)) +
                        " does not use: "
                        "drop them, or use --standard msit");
    } catch (const Error &e) {
        say(std::string("llmscope compare: ") + e.what() + "\n");
        return 2;
    }

    return std::nullopt;
}

// The summary on stderr: counts, the first divergent op and where its error comes from, the
// ops adding the most, the unpaired, the report. The exit status.
int sayCompareSummary(const llmscope::CompareResult &res, const std::string &csv)
{
    using namespace llmscope;
    size_t passed = 0;
    for (const auto &r : res.rows)
        passed += r.passed;
    if (res.config) // what differs between the runs, before any tensor
        say("llmscope compare: configuration: " + configDiffSummary(*res.config) +
            (res.config->differences.empty() ? "\n" : " (llmscope config-diff GOLDEN MY lists each)\n"));
    say("llmscope compare: standard " + res.standardWhy.english() + "\n");
    say("  " + std::to_string(res.rows.size()) + " tensor pairs (" + res.method.english() + "), " +
        std::to_string(passed) + " passed, " + std::to_string(res.rows.size() - passed) + " failed; " +
        std::to_string(res.onlyGolden.size()) + " only in golden, " + std::to_string(res.onlyMy.size()) +
        " only in my\n");
    for (const auto &w : res.warnings)
        say("  warning: " + w + "\n");
    const bool engine = judgesOps(res.standard);
    auto opLine = [&](const OpResult &op) {
        const std::string where = "round " + std::to_string(op.round) + ", op " + op.label() + " in " + op.opPath;
        if (!op.unreadable.empty())
            return where + ": could not be compared: " + op.unreadable.english();
        const std::string cosine = std::isnan(op.outputCosine) ? "not told by statistics"
            : op.fromStats                                     ? "about " + formatStat(op.outputCosine)
                                                               : formatStat(op.outputCosine);
        std::string s = where + ": output cosine " + cosine + ", relative error " + percent(op.outputError) +
            " (inputs " + percent(op.inputError) + ", added " + percent(op.addedError) + "), NMSE " + sig3(op.nmse);
        if (engine && op.budget > 0)
            s += ", adds " + sig3(op.ownNmse) + " = " + percent(op.budgetShare) + " of its budget " + sig3(op.budget);
        else if (engine)
            s += ", adds " + sig3(op.ownNmse) +
                (op.budgetKind == Standard::Exact ? " (the same run: must add none)"
                                                  : " (it moves data: must add none)");
        return s;
    };
    if (res.firstDivergent >= 0) {
        const OpResult &first = res.ops[size_t(res.firstDivergent)];
        say("  first divergent: " + opLine(first) + "\n");
        if (const Reason cause = causeWords(res, first); !cause.empty())
            say("  " + cause.english() + "\n");
        for (size_t i : first.rows)
            if (!res.rows[i].passed)
                say("    " + res.rows[i].golden.path + ": " + (res.rows[i].unreadable ? "unreadable: " : "") +
                    res.rows[i].failReason.english() + "\n");
        say("  " + std::to_string(res.firstDivergent) + " operations before it passed\n");
    } else if (!res.rows.empty()) {
        say("  every operation passed\n");
    }
    // The ops adding the most: for their budget under the engine standard, else outright.
    auto weight = [engine](const OpResult *op) { return engine ? op->budgetShare : op->addedError; };
    std::vector<const OpResult *> worst;
    for (const auto &op : res.ops)
        if (weight(&op) > 0 && op.unreadable.empty())
            worst.push_back(&op);
    std::stable_sort(worst.begin(), worst.end(), [&](auto *a, auto *b) { return weight(a) > weight(b); });
    if (!worst.empty())
        say(engine ? "  most error added for its budget:\n" : "  largest error added by one operation:\n");
    for (size_t i = 0; i < worst.size() && i < 5; ++i)
        say("    " + opLine(*worst[i]) + "\n");
    for (size_t i = 0; i < res.onlyGolden.size() && i < 3; ++i)
        say("  only in golden: " + res.onlyGolden[i].path + "\n");
    for (size_t i = 0; i < res.onlyMy.size() && i < 3; ++i)
        say("  only in my: " + res.onlyMy[i].path + "\n");
    say("  report: " + csv + " (and .json)\n");
    return res.allPassed() ? 0 : 1;
}

} // namespace

int runCompareCommand(const QStringList &args)
{
    using namespace llmscope;
    CompareOptions o;
    std::string output = "./";
    RequestChoices requests;
    if (const auto status = readCompareOptions(args, o, output, requests))
        return *status;
    if (requests.golden.chosen() || requests.my.chosen()) {
        try {
            const RequestPairing p =
                pairRequests(o.goldenPath, requests.golden, o.myPath, requests.my, output + "/requests");
            for (const std::string &note : p.notes)
                say("llmscope compare: " + note + "\n");
            o.goldenPath = p.golden;
            o.myPath = p.my;
        } catch (const std::exception &e) { // llmscope's Error, the file system's, memory
            say(std::string("llmscope compare: ") + e.what() + "\n");
            return 2;
        }
    }
    if (isManualMetadata(o.goldenPath) && isManualMetadata(o.myPath))
        return runManualCompare(o.goldenPath, o.myPath, output);

    const bool tty = isatty(fileno(stderr));
    auto progress = [tty](uint64_t done, uint64_t total, const std::string &op) {
        if (!tty || !total)
            return;
        const int width = 30, filled = int(width * done / total);
        std::fprintf(stderr, "\r[%s%s] %3d%% %llu/%llu pairs  %.40s\033[K", std::string(size_t(filled), '#').c_str(),
                     std::string(size_t(width - filled), ' ').c_str(), int(100 * done / total),
                     (unsigned long long)done, (unsigned long long)total, op.c_str());
    };
    CompareResult res;
    std::string csv;
    try {
        res = runCompare(o, progress);
        if (tty)
            std::fputs("\r\033[K", stderr);
        csv = writeCompareReports(res, output);
    } catch (const Error &e) {
        if (tty)
            std::fputs("\r\033[K", stderr);
        say(std::string("llmscope compare: ") + e.what() + "\n");
        return 2;
    }

    return sayCompareSummary(res, csv);
}
