#include "launch_history.h"

#include <QSettings>

#include <cctype>

#include "util/error.h"

using namespace llmscope;

namespace {

bool isAssignment(const std::string &s)
{
    const size_t eq = s.find('=');
    if (eq == 0 || eq == std::string::npos)
        return false;
    for (size_t i = 0; i < eq; ++i)
        if (!(std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_'))
            return false;
    return !std::isdigit(static_cast<unsigned char>(s[0]));
}

} // namespace

QString LaunchHistory::commandLineFor(const DumpOptions &o, const LaunchSettings &s)
{
    std::vector<std::string> words;
    for (auto it = s.environment.begin(); it != s.environment.end(); ++it)
        words.push_back((it.key() + QLatin1Char('=') + it.value()).toStdString());
    words.push_back("llmscope");
    words.push_back("dump");
    const auto args = dumpArguments(o);
    words.insert(words.end(), args.begin(), args.end());
    return QString::fromStdString(joinCommand(words));
}

bool LaunchHistory::parseLaunchLine(const QString &line, bool plainCommand, DumpOptions *o, LaunchSettings *settings,
                                    QString *error)
{
    try {
        std::vector<std::string> words = splitCommand(line.toStdString());
        LaunchSettings &s = *settings;
        size_t i = 0;
        for (; i < words.size() && isAssignment(words[i]); ++i) {
            const size_t eq = words[i].find('=');
            s.environment.insert(QString::fromStdString(words[i].substr(0, eq)),
                                 QString::fromStdString(words[i].substr(eq + 1)));
        }
        const auto isLlmscope = [](const std::string &w) {
            return w == "llmscope" || (w.size() > 9 && w.compare(w.size() - 9, 9, "/llmscope") == 0);
        };
        if (plainCommand && i < words.size() && !isLlmscope(words[i])) { // the program itself
            *o = parseDumpOptions({"--exec", joinCommand(std::vector<std::string>(words.begin() + long(i), words.end()))});
            return true;
        }
        if (i + 1 >= words.size() || !isLlmscope(words[i]) || words[i + 1] != "dump")
            throw Error(tr("expected 'llmscope dump --exec \"...\" [options]', optionally after NAME=value "
                           "settings").toStdString());
        *o = parseDumpOptions(std::vector<std::string>(words.begin() + long(i) + 2, words.end()));
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
