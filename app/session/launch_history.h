// The launches remembered between sessions (QSettings launch/recent and launch/presets): the
// recent ones, newest first, and presets by name, each a launch line ("K=V llmscope dump
// --exec ... [options]") and its working folder; and the reading and writing of such lines.
// The Launch dialog, the Hunt dialog and the window share it; none of them owns it.
#pragma once
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include "app/session/launch_plan.h"
#include "core/launch/dump_options.h"

class LaunchHistory {
    Q_DECLARE_TR_FUNCTIONS(LaunchHistory)
public:
    static constexpr int kRecentKept = 10;

    // "K=V ... llmscope dump --exec ... [options]": environment, then the command.
    static QString commandLineFor(const llmscope::DumpOptions &o, const LaunchSettings &s);
    // Reads such a line (or, with plainCommand, a program's own command line) into o and s
    // (whose working folder it keeps); false (and error says why) when it cannot.
    static bool parseLaunchLine(const QString &line, bool plainCommand, llmscope::DumpOptions *o, LaunchSettings *s,
                                QString *error);

    // A launch the user ran: first among the recent ones ("line\nfolder" each).
    static void remember(const QString &commandLine, const QString &workingDirectory);
    static QStringList recent();
    static QStringList presetNames();
    // A preset's launch line and working folder; empty when there is none by that name.
    static QStringList preset(const QString &name);
    static void savePreset(const QString &name, const QString &commandLine, const QString &workingDirectory);
    static void removePreset(const QString &name);
};
