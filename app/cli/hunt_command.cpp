#include "hunt_command.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include <cstdio>
#include <optional>

#include "compare/compare_run.h"
#include "compare/report.h"
#include "dump/dump_layout.h"
#include "session/hunt_plan.h"
#include "util/error.h"

using namespace llmscope;

namespace {

const char *kUsage = R"(usage: llmscope hunt --golden "CMD" --test "CMD" [-o DIR] [-er RANGES] [--standard engine|msit]

Finds the first operation where the test program departs from the golden one:
  1. runs both with statistics of every operation (--type model stats),
  2. compares the statistics and takes the first divergent operation,
  3. runs both again dumping only that operation's full tensors, inputs and outputs,
  4. compares them element by element and reports it.
Every dump is kept under DIR (default ./llmscope_hunt): golden-stats, test-stats,
golden-tensors, test-tensors, and the reports.

  --golden CMD     the reference program (as for llmscope dump --exec)
  --test CMD       the program to check
  -o DIR           where the dumps and reports go (default: ./llmscope_hunt)
  -er RANGES       rounds to compare (default: 0,0, the prompt)
  --standard S     how ops are judged, as llmscope compare's --standard (default: engine,
                   ggml's cross-backend budgets; msit: msit's per-element table)

Exit status: 0 a divergent operation was found, 1 every operation passed (or the suspect the
statistics gave passed element by element), 2 it could not run.
)";

void say(const QString &s)
{
    std::fputs(s.toLocal8Bit().constData(), stderr);
    std::fflush(stderr);
}

// Runs `llmscope dump` (this same program) and returns the dump folder it made, or throws.
QString dump(const QString &cmd, const QStringList &options, const QString &out)
{
    QDir(out).removeRecursively(); // a hunt's dump of this step, made afresh
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(QStringLiteral("/proc/self/exe"), QStringList{"dump", "--exec", cmd} + options + QStringList{"-o", out});
    if (!p.waitForFinished(-1) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QString err = QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
        throw Error("llmscope dump of '" + cmd.toStdString() + "' failed:\n" + err.toStdString());
    }
    const auto dumps = dumpsInside(QDir(out).absolutePath().toStdString());
    if (dumps.empty())
        throw Error("llmscope dump wrote no dump folder under " + out.toStdString());
    return QString::fromStdString(dumps.front());
}

} // namespace

int runHuntCommand(const QStringList &args)
{
    QString golden, test, out = QStringLiteral("llmscope_hunt"), rounds = QStringLiteral("0,0");
    std::optional<Standard> standard;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        auto value = [&]() -> QString {
            if (i + 1 >= args.size())
                throw Error(a.toStdString() + " needs a value (see llmscope hunt --help)");
            return args[++i];
        };
        try {
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
            } else if (a == QLatin1String("--standard")) {
                const QString v = value();
                standard = parseStandard(v.toStdString());
                if (!standard)
                    throw Error("--standard: '" + v.toStdString() + "' is not engine or msit");
            } else {
                throw Error("unknown option '" + a.toStdString() + "' (see llmscope hunt --help)");
            }
        } catch (const Error &e) {
            say(QStringLiteral("llmscope hunt: %1\n").arg(QString::fromUtf8(e.what())));
            return 2;
        }
    }
    if (golden.isEmpty() || test.isEmpty()) {
        say(QStringLiteral("llmscope hunt: --golden and --test are both required\n"));
        return 2;
    }
    const QDir dir(out);
    auto step = [](const QString &text) { say(QStringLiteral("llmscope hunt: %1\n").arg(text)); };
    try {
        step(hunt::stepStats(rounds));
        const QStringList statsOptions = hunt::statsArgs(rounds);
        const QString gStats = dump(golden, statsOptions, dir.absoluteFilePath(hunt::goldenStatsDir()));
        const QString tStats = dump(test, statsOptions, dir.absoluteFilePath(hunt::testStatsDir()));

        step(hunt::stepCompareStats());
        CompareOptions o;
        o.standard = standard;
        o.goldenPath = gStats.toStdString();
        o.myPath = tStats.toStdString();
        const CompareResult statsResult = runCompare(o);
        writeCompareReports(statsResult, dir.absoluteFilePath("report-stats").toStdString());
        if (statsResult.firstDivergent < 0) {
            step(hunt::nothingDiverges(rounds, statsResult));
            return 1;
        }
        const OpResult &suspect = statsResult.ops[size_t(statsResult.firstDivergent)];
        say(QStringLiteral("  %1\n").arg(hunt::suspect(statsResult, suspect)));

        step(hunt::stepTensors(suspect));
        const QString gTensors = dump(golden, hunt::tensorArgs(suspect, hunt::Side::Golden),
                                      dir.absoluteFilePath(hunt::goldenTensorsDir()));
        const QString tTensors = dump(test, hunt::tensorArgs(suspect, hunt::Side::Test),
                                      dir.absoluteFilePath(hunt::testTensorsDir()));

        step(hunt::stepCompareTensors());
        o.goldenPath = gTensors.toStdString();
        o.myPath = tTensors.toStdString();
        const CompareResult result = runCompare(o);
        const std::string report = writeCompareReports(result, dir.absoluteFilePath("report-tensors").toStdString());
        const OpResult *op = hunt::findOp(result, suspect.opId);
        if (!op) {
            step(hunt::notDumped(suspect) + QStringLiteral("; see ") + dir.absolutePath());
            return 2;
        }
        step(hunt::found(result, *op));
        say(QStringLiteral("  dumps and reports: %1 (element report %2)\n")
                .arg(dir.absolutePath(), QString::fromStdString(report)));
        if (!hunt::confirmed(result, *op)) {
            step(hunt::cleared(*op));
            return 1;
        }
        return 0;
    } catch (const Error &e) {
        say(QStringLiteral("llmscope hunt: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
}
