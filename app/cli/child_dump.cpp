#include "child_dump.h"

#include <QDir>
#include <QProcess>

#include "compare/compare_run.h"
#include "dump/dump_layout.h"
#include "util/error.h"

using namespace llmscope;

QString runChildDump(const QString &cmd, const QStringList &options, const QString &out)
{
    QDir(out).removeRecursively(); // this step's dump, made afresh
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

hunt::Steps childSteps(QString golden, QString test, std::optional<Standard> standard,
                       std::function<void(const QString &text, int step)> say)
{
    hunt::Steps steps;
    steps.dump = [golden, test](hunt::Side side, QStringList options, QString out) -> QCoro::Task<QString> {
        co_return runChildDump(side == hunt::Side::Golden ? golden : test, options, out);
    };
    steps.compare = [standard](QString g, QString t) -> QCoro::Task<std::shared_ptr<const CompareResult>> {
        CompareOptions o;
        o.standard = standard;
        o.goldenPath = g.toStdString();
        o.myPath = t.toStdString();
        co_return std::make_shared<const CompareResult>(runCompare(o));
    };
    steps.say = std::move(say);
    return steps;
}
