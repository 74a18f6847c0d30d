#include "hunt_plan.h"

#include <QCoreApplication>

// The words' translation context ("HuntText" in translations/).
class HuntText {
    Q_DECLARE_TR_FUNCTIONS(HuntText)
};

using namespace llmscope;

namespace hunt {

namespace {
QString pct(double v)
{
    return QString::number(v * 100, 'g', 3);
}
} // namespace

QStringList statsArgs(const QString &rounds)
{
    return {"--type", "model", "stats", "-er", rounds};
}

QStringList tensorArgs(const OpResult &op)
{
    const QString round = QString::number(op.round);
    return {"--type", "model", "tensor", "-ids", QString::fromStdString(op.opId), "-child", "False", "-er",
            round + "," + round};
}

QString goldenStatsDir() { return QStringLiteral("golden-stats"); }
QString testStatsDir() { return QStringLiteral("test-stats"); }
QString goldenTensorsDir() { return QStringLiteral("golden-tensors"); }
QString testTensorsDir() { return QStringLiteral("test-tensors"); }

QString stepStats(const QString &rounds)
{
    return HuntText::tr("step 1 of 4: statistics of every operation in rounds %1, golden and test (cheap: seven numbers a "
              "tensor, no payload)").arg(rounds);
}

QString stepCompareStats()
{
    return HuntText::tr("step 2 of 4: comparing the statistics to find the first operation whose output departs");
}

QString suspect(const OpResult &op)
{
    return HuntText::tr("first divergent by statistics: round %1, op %2 (statistics differ by %3 %)")
        .arg(op.round)
        .arg(QString::fromStdString(op.label()), pct(op.outputError));
}

QString stepTensors(const OpResult &op)
{
    return HuntText::tr("step 3 of 4: both runs again, dumping only op %1 in round %2, its inputs before and outputs after, "
              "with their data").arg(QString::fromStdString(op.opId)).arg(op.round);
}

QString stepCompareTensors()
{
    return HuntText::tr("step 4 of 4: comparing its tensors element by element");
}

QString nothingDiverges(const QString &rounds)
{
    return HuntText::tr("every operation's statistics agree in rounds %1: nothing diverges there").arg(rounds);
}

QString notDumped(const OpResult &op)
{
    return HuntText::tr("the second runs did not dump op %1").arg(QString::fromStdString(op.opId));
}

QString found(const CompareResult &r, const OpResult &op)
{
    QString s = HuntText::tr("found: round %1, op %2 in %3\n  output cosine %4, relative error %5 % (inputs %6 %, added %7 %)")
                    .arg(op.round)
                    .arg(QString::fromStdString(op.label()), QString::fromStdString(op.opPath))
                    .arg(op.outputCosine, 0, 'f', 6)
                    .arg(pct(op.outputError), pct(op.inputError), pct(op.addedError));
    if (op.worstInputIsWeight && op.worstInput >= 0)
        s += QLatin1Char('\n') + HuntText::tr("  the weight %1 differs between golden and test: the op's error comes in through it")
                                     .arg(QString::fromStdString(r.rows[size_t(op.worstInput)].tensorName));
    else if (op.addedError > 0)
        s += QLatin1Char('\n') + HuntText::tr("  its inputs agree more than its output: the op itself adds the error");
    return s;
}

const OpResult *findOp(const CompareResult &r, const std::string &opId)
{
    for (const auto &x : r.ops)
        if (x.opId == opId)
            return &x;
    return nullptr;
}

} // namespace hunt
