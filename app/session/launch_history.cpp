#include "app/session/launch_history.h"

#include <QSettings>

#include "core/util/error.h"

using namespace llmscope;

QString LaunchHistory::commandLineFor(const DumpOptions &o, const LaunchSettings &s)
{
    CommandLine c{{}, {"llmscope", "dump"}};
    for (auto it = s.environment.begin(); it != s.environment.end(); ++it)
        c.environment.emplace_back(it.key().toStdString(), it.value().toStdString());
    const auto args = dumpArguments(o);
    c.words.insert(c.words.end(), args.begin(), args.end());
    return QString::fromStdString(joinCommandLine(c));
}

bool LaunchHistory::parseLaunchLine(const QString &line, bool plainCommand, DumpOptions *o, LaunchSettings *settings,
                                    QString *error)
{
    try {
        // The settings before the program or `llmscope`, and those --exec's own line begins
        // with, all go to the launch's environment (the line's last).
        const CommandLine c = parseCommandLine(line.toStdString());
        const auto isLlmscope = [](const std::string &w) {
            return w == "llmscope" || (w.size() > 9 && w.compare(w.size() - 9, 9, "/llmscope") == 0);
        };
        if (plainCommand && !isLlmscope(c.words[0])) { // the program itself
            *o = parseDumpOptions({"--exec", joinCommand(c.words)});
        } else if (c.words.size() >= 2 && isLlmscope(c.words[0]) && c.words[1] == "dump") {
            *o = parseDumpOptions(std::vector<std::string>(c.words.begin() + 2, c.words.end()));
        } else {
            throw Error(tr("expected 'llmscope dump --exec \"...\" [options]', optionally after NAME=value "
                           "settings")
                            .toStdString());
        }
        Environment all = c.environment;
        all.insert(all.end(), o->environment.begin(), o->environment.end());
        for (const auto &[k, v] : all)
            settings->environment.insert(QString::fromStdString(k), QString::fromStdString(v));
        o->environment.clear();
        return true;
    } catch (const Error &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

void LaunchHistory::remember(const QString &commandLine, const QString &workingDirectory)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("launch/recent")).toStringList();
    const QString entry = commandLine + QLatin1Char('\n') + workingDirectory;
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kRecentKept)
        recent.removeLast();
    settings.setValue(QStringLiteral("launch/recent"), recent);
}

QStringList LaunchHistory::recent()
{
    return QSettings().value(QStringLiteral("launch/recent")).toStringList();
}

QStringList LaunchHistory::presetNames()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("launch/presets"));
    return settings.childKeys();
}

QStringList LaunchHistory::preset(const QString &name)
{
    return QSettings().value(QStringLiteral("launch/presets/") + name).toStringList();
}

void LaunchHistory::savePreset(const QString &name, const QString &commandLine, const QString &workingDirectory)
{
    QSettings().setValue(QStringLiteral("launch/presets/") + name, QStringList{commandLine, workingDirectory});
}

void LaunchHistory::removePreset(const QString &name)
{
    QSettings().remove(QStringLiteral("launch/presets/") + name);
}
