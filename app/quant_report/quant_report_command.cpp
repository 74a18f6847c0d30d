#include "app/quant_report/quant_report_command.h"
#include "app/cli/say.h"

#include <QCoreApplication>
#include <QDir>

#include <cstdio>
#include <optional>

#include "app/cli/child_steps.h"
#include "app/quant_report/quant_runner.h"
#include "core/compare/compare_run.h"
#include "core/compare/report.h"
#include "core/launch/dump_options.h"
#include "core/quant/quant_report.h"
#include "core/util/arg_reader.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {

const char *kQuantReportUsage = R"(usage: llmscope quant-report --golden "CMD" --test "CMD" [-o DIR] [-er RANGES]
                            [--budget SHARE] [--keep-type TYPE] [--timeout SECONDS]

Which weights a quantized model loses its accuracy through, and which to keep in a higher type:
  1. runs golden (the F32 or F16 model) dumping every operation's outputs and the logits,
  2. runs test (the quantized model) the same way, consuming golden's tokens round by round
     (--follow-tokens), so that both see the same inputs however their choices differ,
  3. compares them: each weight is read from both programs' model files,
  4. where every operation is within its budget, runs test once more and replays each matrix
     product on its own inputs (llmscope opcheck): a kernel that is wrong is named in a note,
     its error the kernel's and not its weight's quantization,
  5. ranks the weights and writes DIR/quant_report.json, DIR/quant_report.csv and
     DIR/tensor-types.txt (llama-quantize's --tensor-type lines, for
     llmscope-make-model --tensor-types or llama-quantize).

  --golden CMD      the reference program (as for llmscope dump --exec)
  --test CMD        the same program on the quantized model
  -o DIR            where the dumps and the report go (default: ./llmscope_quant)
  -er RANGES        rounds to dump and compare (default: 0,15: the prompt and 15 tokens)
  --budget SHARE    extra bytes allowed for the weights kept higher, as a share of the test's
                    weight bytes: 10% or 0.1 (default: 10%)
  --keep-type TYPE  the type they are kept in (default: q8_0; f16 for weights already q8_0)
  --timeout SECONDS stop each run's program after SECONDS (as llmscope dump --timeout)

Per weight: its quantization error, the NMSE its op adds to the activations, its estimated
share of the logits' error, and that share per MiB it costs to keep higher. Per round: the KL
divergence of the next-token distributions and top-1 agreement, as llama-perplexity
--kl-divergence reports them.

Exit status: 0 the report was written, 2 it could not be made.
)";

using cli::say;

} // namespace

int runQuantReportCommand(const QStringList &args)
{
    QString golden, test, out = QStringLiteral("llmscope_quant"), rounds = QStringLiteral("0,15");
    QuantReportOptions options;
    int timeout = 0;
    try {
        ArgReader r(toWords(args), "quant-report");
        while (r.next()) {
            const QString a = QString::fromStdString(r.option());
            auto value = [&r] { return QString::fromStdString(r.value()); };
            if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
                std::fputs(kQuantReportUsage, stdout);
                return 0;
            } else if (a == QLatin1String("--golden")) {
                golden = value();
            } else if (a == QLatin1String("--test")) {
                test = value();
            } else if (a == QLatin1String("-o") || a == QLatin1String("--output")) {
                out = value();
            } else if (a == QLatin1String("-er")) {
                rounds = value();
            } else if (a == QLatin1String("--budget")) {
                options.budget = quant::parseBudget(value());
            } else if (a == QLatin1String("--keep-type")) {
                options.keepType = value().toStdString();
            } else if (a == QLatin1String("--timeout")) {
                timeout = parseTimeout(value().toStdString());
            } else {
                r.unknown();
            }
        }
        if (golden.isEmpty() || test.isEmpty())
            throw Error("--golden and --test are both required");
    } catch (const Error &e) {
        say(QStringLiteral("llmscope quant-report: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
    const hunt::Steps steps =
        hunt::withTimeout(childSteps(golden, test, Standard::Engine,
                                     [](const QString &text, int step) {
                                         if (step > 0)
                                             say(QStringLiteral("llmscope quant-report: %1\n").arg(text));
                                     }),
                          timeout);
    const quant::Outcome outcome = runToEnd([&] { return quant::run(steps, out, rounds, options); });
    if (!outcome.ok) {
        say(QStringLiteral("llmscope quant-report: %1\n").arg(outcome.message));
        return 2;
    }
    std::fputs(quantReportSummary(*outcome.report).c_str(), stdout);
    const CompareResult &result = *outcome.comparison;
    if (result.firstDivergent >= 0)
        say(QStringLiteral("  note: beyond quantization, op %1 diverges: %2 (see the compare report)\n")
                .arg(QString::fromStdString(result.ops[size_t(result.firstDivergent)].label()),
                     QString::fromStdString(result.ops[size_t(result.firstDivergent)].verdict.english())));
    if (!outcome.kernelWrong.isEmpty())
        say(QStringLiteral("  note: %1\n").arg(outcome.kernelWrong));
    say(QStringLiteral("  report: %1 (quant_report.json, quant_report.csv, tensor-types.txt)\n")
            .arg(QDir(out).absolutePath()));
    return 0;
}
