#include "quant_report_command.h"

#include <QDir>

#include <cstdio>

#include "child_dump.h"
#include "compare/compare_run.h"
#include "compare/report.h"
#include "quant/quant_report.h"
#include "util/error.h"

using namespace llmscope;

namespace {

const char *kUsage = R"(usage: llmscope quant-report --golden "CMD" --test "CMD" [-o DIR] [-er RANGES]
                            [--budget SHARE] [--keep-type TYPE]

Which weights a quantized model loses its accuracy through, and which to keep in a higher type:
  1. runs golden (the F32 or F16 model) dumping every operation's outputs and the logits,
  2. runs test (the quantized model) the same way, consuming golden's tokens round by round
     (--follow-tokens), so that both see the same inputs however their choices differ,
  3. compares them: each weight is read from both programs' model files,
  4. ranks the weights and writes DIR/quant_report.json, DIR/quant_report.csv and
     DIR/tensor-types.txt (llama-quantize's --tensor-type lines, for
     llmscope-make-model --tensor-types or llama-quantize).

  --golden CMD      the reference program (as for llmscope dump --exec)
  --test CMD        the same program on the quantized model
  -o DIR            where the dumps and the report go (default: ./llmscope_quant)
  -er RANGES        rounds to dump and compare (default: 0,15: the prompt and 15 tokens)
  --budget SHARE    extra bytes allowed for the weights kept higher, as a share of the test's
                    weight bytes: 10% or 0.1 (default: 10%)
  --keep-type TYPE  the type they are kept in (default: q8_0; f16 for weights already q8_0)

Per weight: its quantization error, the NMSE its op adds to the activations, its estimated
share of the logits' error, and that share per MiB it costs to keep higher. Per round: the KL
divergence of the next-token distributions and top-1 agreement, as llama-perplexity
--kl-divergence reports them.

Exit status: 0 the report was written, 2 it could not be made.
)";

void say(const QString &s)
{
    std::fputs(s.toLocal8Bit().constData(), stderr);
    std::fflush(stderr);
}

double parseBudget(const QString &v)
{
    QString t = v.trimmed();
    const bool percent = t.endsWith(QLatin1Char('%'));
    if (percent)
        t.chop(1);
    bool ok = false;
    double x = t.toDouble(&ok);
    if (ok && percent)
        x /= 100;
    if (!ok || !(x >= 0) || x > 10)
        throw Error("--budget: '" + v.toStdString() + "' is not a share such as 10% or 0.1");
    return x;
}

} // namespace

int runQuantReportCommand(const QStringList &args)
{
    QString golden, test, out = QStringLiteral("llmscope_quant"), rounds = QStringLiteral("0,15");
    QuantReportOptions options;
    try {
        for (int i = 0; i < args.size(); ++i) {
            const QString &a = args[i];
            auto value = [&]() -> QString {
                if (i + 1 >= args.size())
                    throw Error(a.toStdString() + " needs a value (see llmscope quant-report --help)");
                return args[++i];
            };
            if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
                std::fputs(kUsage, stdout);
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
                options.budget = parseBudget(value());
            } else if (a == QLatin1String("--keep-type")) {
                options.keepType = value().toStdString();
            } else {
                throw Error("unknown option '" + a.toStdString() + "' (see llmscope quant-report --help)");
            }
        }
        if (golden.isEmpty() || test.isEmpty())
            throw Error("--golden and --test are both required");
    } catch (const Error &e) {
        say(QStringLiteral("llmscope quant-report: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
    const QDir dir(out);
    auto step = [](const QString &text) { say(QStringLiteral("llmscope quant-report: %1\n").arg(text)); };
    try {
        const QStringList dumpOptions{"--type", "model", "tensor", "-stp", "1", "-er", rounds};
        step(QStringLiteral("step 1 of 4: golden, every operation's outputs in rounds %1").arg(rounds));
        const QString g = runChildDump(golden, dumpOptions, dir.absoluteFilePath(QStringLiteral("golden")));
        step(QStringLiteral("step 2 of 4: test, the same, consuming golden's tokens"));
        const QString t = runChildDump(test, dumpOptions + QStringList{"--follow-tokens", g},
                                       dir.absoluteFilePath(QStringLiteral("test")));
        step(QStringLiteral("step 3 of 4: comparing them, weights from both programs' model files"));
        CompareOptions o;
        o.goldenPath = g.toStdString();
        o.myPath = t.toStdString();
        o.standard = Standard::Engine;
        const CompareResult result = runCompare(o);
        writeCompareReports(result, dir.absoluteFilePath(QStringLiteral("compare")).toStdString());
        step(QStringLiteral("step 4 of 4: ranking the weights"));
        const QuantReport report = buildQuantReport(result, options);
        writeQuantReport(report, dir.absolutePath().toStdString());
        std::fputs(quantReportSummary(report).c_str(), stdout);
        if (result.firstDivergent >= 0)
            say(QStringLiteral("  note: beyond quantization, op %1 diverges: %2 (see the compare report)\n")
                    .arg(QString::fromStdString(result.ops[size_t(result.firstDivergent)].label()),
                         QString::fromStdString(result.ops[size_t(result.firstDivergent)].verdict)));
        say(QStringLiteral("  report: %1 (quant_report.json, quant_report.csv, tensor-types.txt)\n")
                .arg(dir.absolutePath()));
        return 0;
    } catch (const Error &e) {
        say(QStringLiteral("llmscope quant-report: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
}
