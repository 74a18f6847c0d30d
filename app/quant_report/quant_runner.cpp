#include "quant_runner.h"

#include <QCoreApplication>
#include <QDir>

#include "compare/report.h"
#include "rounds_words.h"
#include "util/error.h"

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
    case 1: return QuantText::tr("step 1 of 4: golden, every operation's outputs in %1").arg(roundsWords(rounds));
    case 2: return QuantText::tr("step 2 of 4: test, the same, consuming golden's tokens");
    case 3: return QuantText::tr("step 3 of 4: comparing them, weights from both programs' model files");
    default: return QuantText::tr("step 4 of 4: ranking the weights");
    }
}

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
        steps.say(stepText(4), 4);
        out.report = buildQuantReport(*out.comparison, options);
        writeQuantReport(*out.report, dir.absolutePath().toStdString());
        out.ok = true;
        out.message = summary(*out.report, dir.absolutePath());
    } catch (const hunt::Cancelled &) {
        out.message = QuantText::tr("quantization report cancelled");
    } catch (const Error &e) {
        out.message = QuantText::tr("the quantization report could not be made: %1").arg(QString::fromUtf8(e.what()));
    }
    steps.say(out.message, 0);
    co_return out;
}

} // namespace quant
