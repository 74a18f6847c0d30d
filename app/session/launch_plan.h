// How a program is started under the probe: one owner of the probe's environment, for
// `llmscope dump` and the window's live sessions alike. Checks what can be checked before
// starting (the probe library, the program, the output folder's free space) and says what to do.
#pragma once
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include "core/launch/dump_options.h"

struct LaunchPlan {
    QString program; // absolute path of the executable
    QStringList arguments;
    QString workingDirectory; // empty: the caller's
    QProcessEnvironment environment;
    QString dumpRoot; // the msit_dump_* folder made for this run
};

struct LaunchSettings {
    QString workingDirectory; // where the program runs; relative -o is taken from here
    QMap<QString, QString> environment; // set for the program (after the caller's environment)
    QStringList unset; // removed from it
};

// The probe library: LLMSCOPE_PROBE_LIB, else libllmscope_probe.so beside this program
// (util/program_files.h).
QString probeLibraryPath();

// The executable a command's program names (a path from the working folder, else found in
// PATH); throws llmscope::Error saying why it cannot run. Checked before a job that runs several
// programs starts, so that the last one's typo does not wait for the first one's run.
QString findProgram(const std::string &program, const QString &workingDirectory = {});

// What can stop a launch before anything runs or is written: the probe library, the working
// folder, the program, the -config file. Throws llmscope::Error saying what to do; touches
// nothing, so a window checks it before it leaves what it shows.
void checkLaunch(const llmscope::DumpOptions &o, const LaunchSettings &settings = {});

// Throws llmscope::Error with a message that says what to do (checkLaunch's first). Makes the
// dump folder.
LaunchPlan planLaunch(const llmscope::DumpOptions &o, const LaunchSettings &settings = {});
