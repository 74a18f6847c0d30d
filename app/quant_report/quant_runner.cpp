#include "app/quant_report/quant_runner.h"

#include <QCoreApplication>
#include <QDir>

#include "app/hunt/product_replay.h"
#include "core/compare/report.h"
#include "core/util/error.h"
#include "document/reason_words.h"
#include "document/rounds_words.h"

using namespace llmscope;

namespace quant {
namespace {

// The words' translation context ("QuantText" in translations/).
class QuantText {
    Q_DECLARE_TR_FUNCTIONS(QuantText)
};

} // namespace

double parseBudget(const QString &value)
{
    QString t = value.trimmed();
    const bool percent = t.endsWith(QLatin1Char('%'));
    if (percent)
        t.chop(1);
    bool ok = false;
    double x = t.toDouble(&ok);
    if (ok && percent)
        x /= 100;
    if (!ok || !(x >= 0) || x > 10)
        throw Error("--budget: '" + value.toStdString() + "' is not a share such as 10% or 0.1");
    return x;
}

QString stepText(int step, const QString &rounds)
{
    switch (step) {
    case 1: return QuantText::tr("step 1 of 5: golden, every operation's outputs in %1").arg(roundsWords(rounds));
    case 2: return QuantText::tr("step 2 of 5: test, the same, consuming golden's tokens");
    case 3: return QuantText::tr("step 3 of 5: comparing them, weights from both programs' model files");
    case 4:
        return QuantText::tr("step 4 of 5: the test's matrix products again, with their inputs, each replayed on what "
                             "it was given (a kernel's fault is not its weight's quantization)");
    default: return QuantText::tr("step 5 of 5: ranking the weights");
    }
}

namespace {
// A product whose kernel is wrong on its own inputs: in the reader's language (english false),
// or in English for the report's notes.
QString kernelWrongWords(const OpcheckRow &row, const QString &op, bool english)
{
    static const char *const text =
        QT_TRANSLATE_NOOP("QuantText",
                          "round %1, op %2: its kernel is wrong on its own inputs (%3): the error it adds is "
                          "the kernel's, not its weight's quantization (llmscope hunt tells more)");
    return (english ? QString::fromUtf8(text) : QuantText::tr(text))
        .arg(row.round)
        .arg(op, english ? QString::fromStdString(row.reason.english()) : reasonWords(row.reason));
}
} // namespace

QString summary(const QuantReport &report, const QString &folder)
{
    return QuantText::tr("quantization report: KL divergence %1, top-1 agreement %2 %; %3 weights ranked, in %4")
        .arg(report.meanKl, 0, 'g', 3)
        .arg(report.top1 * 100, 0, 'g', 3)
        .arg(report.weights.size())
        .arg(folder);
}

QCoro::Task<Outcome> run(hunt::Steps steps, QString folder, QString rounds, QuantReportOptions options)
{
    Outcome out;
    const QDir dir(folder);
    try {
        const QStringList dumpOptions{"--type", "model", "tensor", "-stp", "1", "-er", rounds};
        steps.say(stepText(1, rounds), 1);
        auto goldenRun = steps.dump(hunt::Side::Golden, dumpOptions, dir.absoluteFilePath(QStringLiteral("golden")));
        const QString g = co_await goldenRun;
        steps.say(stepText(2), 2);
        auto testRun = steps.dump(hunt::Side::Test, hunt::followingTokens(dumpOptions, g),
                                  dir.absoluteFilePath(QStringLiteral("test")));
        const QString t = co_await testRun;
        steps.say(stepText(3), 3);
        auto comparing = steps.compare(g, t);
        out.comparison = co_await comparing;
        writeCompareReports(*out.comparison, dir.absoluteFilePath(QStringLiteral("compare")).toStdString());
        QString kernelEnglish;
        if (out.comparison->firstDivergent < 0) { // beyond a budget, the comparison says which op already
            steps.say(stepText(4), 4);
            auto productsRun = steps.dump(hunt::Side::Test, hunt::followingTokens(hunt::productsArgs(rounds), g),
                                          dir.absoluteFilePath(QStringLiteral("test-products")));
            const QString products = co_await productsRun;
            auto replaying = hunt::replayProducts(products, steps.cancelled);
            const hunt::ProductsReplayed replayed = co_await replaying;
            if (replayed.cancelled)
                throw hunt::Cancelled{};
            if (!replayed.failed.isEmpty())
                throw Error("the test's matrix products could not be replayed: " + replayed.failed.toStdString());
            if (const auto wrong = hunt::firstWrong(replayed, *out.comparison)) {
                const QString label = QString::fromStdString(wrong->second.label());
                out.kernelWrong = kernelWrongWords(wrong->first, label, false);
                kernelEnglish = kernelWrongWords(wrong->first, label, true);
            }
        }
        steps.say(stepText(5), 5);
        out.report = buildQuantReport(*out.comparison, options);
        if (!kernelEnglish.isEmpty()) // the report's notes are English
            out.report->notes.push_back(kernelEnglish.toStdString());
        writeQuantReport(*out.report, dir.absolutePath().toStdString());
        out.ok = true;
        out.message = summary(*out.report, dir.absolutePath());
        if (!out.kernelWrong.isEmpty())
            out.message += QStringLiteral("; ") + out.kernelWrong;
    } catch (const hunt::Cancelled &) {
        out.message = QuantText::tr("quantization report cancelled");
    } catch (const Error &e) {
        out.message = QuantText::tr("the quantization report could not be made: %1").arg(QString::fromUtf8(e.what()));
    }
    steps.say(out.message, 0);
    co_return out;
}

} // namespace quant
