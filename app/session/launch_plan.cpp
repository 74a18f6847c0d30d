#include "app/session/launch_plan.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>

#include "core/dump/dump_layout.h"
#include "core/dump/dump_writer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/program_files.h"

using llmscope::Error;

namespace {
// A reason the user reads: in the window's language (the command line keeps English, having
// no translator installed).
std::string said(const char *text, const QString &a)
{
    return QCoreApplication::translate("LaunchPlan", text).arg(a).toStdString();
}
} // namespace

QString probeLibraryPath()
{
    const QString env = qEnvironmentVariable("LLMSCOPE_PROBE_LIB");
    if (!env.isEmpty())
        return env;
    return QString::fromStdString(llmscope::besideProgram("libllmscope_probe.so"));
}

QString findProgram(const std::string &name, const QString &workingDirectory)
{
    const QString program = QString::fromStdString(name);
    const QDir cwd(workingDirectory.isEmpty() ? QDir::currentPath() : workingDirectory);
    const QString found = program.contains(QLatin1Char('/'))
        ? QFileInfo(cwd.absoluteFilePath(program)).absoluteFilePath()
        : QStandardPaths::findExecutable(program);
    if (!found.isEmpty() && QFileInfo(found).isFile() && QFileInfo(found).isExecutable())
        return found;
    if (program.contains(QLatin1Char('/')))
        throw Error(said(QT_TRANSLATE_NOOP("LaunchPlan", "cannot run '%1': no such executable file"), program));
    // as a shell, a bare name is looked up in PATH only; one in the working folder is named
    const QFileInfo here(cwd.absoluteFilePath(program));
    if (here.isFile() && here.isExecutable())
        throw Error(said(QT_TRANSLATE_NOOP("LaunchPlan",
                                           "cannot run '%1': not found in PATH; the one in the working "
                                           "folder runs as ./%1"),
                         program));
    throw Error(said(QT_TRANSLATE_NOOP("LaunchPlan",
                                       "cannot run '%1': not found in PATH; give its path, such as ./%1 "
                                       "or /path/to/%1"),
                     program));
}

void checkLaunch(const llmscope::DumpOptions &o, const LaunchSettings &settings)
{
    // what the user typed first, then the install
    const QDir cwd(settings.workingDirectory.isEmpty() ? QDir::currentPath() : settings.workingDirectory);
    if (!settings.workingDirectory.isEmpty() && !QFileInfo(settings.workingDirectory).isDir())
        throw Error(
            said(QT_TRANSLATE_NOOP("LaunchPlan", "the working folder '%1' does not exist"), settings.workingDirectory));
    if (o.command.empty())
        throw Error(QCoreApplication::translate("LaunchPlan", "no program to run").toStdString());
    findProgram(o.command.at(0), settings.workingDirectory);
    if (!o.configFile.empty() && !QFileInfo(cwd.absoluteFilePath(QString::fromStdString(o.configFile))).isFile())
        throw Error(
            said(QT_TRANSLATE_NOOP("LaunchPlan", "-config '%1' is not a file"), QString::fromStdString(o.configFile)));
    const QString probe = probeLibraryPath();
    if (!QFileInfo(probe).isFile())
        throw Error(said(QT_TRANSLATE_NOOP("LaunchPlan",
                                           "the probe library is missing (looked for %1); build the "
                                           "project (scripts/test or cmake --build) or set LLMSCOPE_PROBE_LIB"),
                         probe));
}

LaunchPlan planLaunch(const llmscope::DumpOptions &o, const LaunchSettings &settings)
{
    checkLaunch(o, settings);
    LaunchPlan plan;
    const QString probe = probeLibraryPath();
    const QDir cwd(settings.workingDirectory.isEmpty() ? QDir::currentPath() : settings.workingDirectory);
    plan.workingDirectory = settings.workingDirectory;
    plan.program = findProgram(o.command.at(0), settings.workingDirectory);
    for (size_t i = 1; i < o.command.size(); ++i)
        plan.arguments << QString::fromStdString(o.command[i]);

    const std::string output = cwd.absoluteFilePath(QString::fromStdString(o.output)).toStdString();
    llmscope::makeDirs(output);
    const uint64_t free = llmscope::freeBytesAt(output);
    if (free < llmscope::kMinFreeBytes)
        throw Error(llmscope::diskSpaceMessage(free) + " (output folder '" + output + "')");
    // One dump folder per second, as msit names them: never write into an earlier one.
    for (;;) {
        plan.dumpRoot = QDir(QString::fromStdString(output))
                            .absoluteFilePath(QString::fromStdString(llmscope::dumpFolderName(std::time(nullptr))));
        if (!QFileInfo::exists(plan.dumpRoot))
            break;
        QThread::msleep(200);
    }
    llmscope::makeDirs(plan.dumpRoot.toStdString());

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = settings.environment.begin(); it != settings.environment.end(); ++it)
        env.insert(it.key(), it.value());
    for (const QString &k : settings.unset)
        env.remove(k);
    for (const auto &[k, v] : o.environment) // the command line's own settings, after the dialog's
        env.insert(QString::fromStdString(k), QString::fromStdString(v));
    for (const auto &[k, v] : llmscope::probeEnvironment(o, plan.dumpRoot.toStdString()))
        env.insert(QString::fromStdString(k), QString::fromStdString(v));
    // Weights' statistics kept between runs, unless the user's environment, the dialog's or the
    // command's says where, or "off".
    if (!env.contains(QStringLiteral("LLMSCOPE_WEIGHT_CACHE")))
        env.insert(QStringLiteral("LLMSCOPE_WEIGHT_CACHE"), QString::fromStdString(llmscope::defaultWeightCache()));
    env.insert(QStringLiteral("LD_PRELOAD"),
               QString::fromStdString(
                   llmscope::preloadWith(env.value(QStringLiteral("LD_PRELOAD")).toStdString(), probe.toStdString())));
    plan.environment = env;
    return plan;
}
