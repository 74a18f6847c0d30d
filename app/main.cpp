#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <string>

#include <dlfcn.h>

#include "app/cli/cli.h"
#include "app/hunt/hunt_plan.h"
#include "app/window/gui_main.h"
#include "core/launch/dump_options.h"
#include "core/util/error.h"
#include "core/util/program_files.h"

namespace {

bool haveDisplay()
{
    return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
        qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
}

} // namespace

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    if (auto status = runCli(args))
        return *status;
    QString language, dump, screenshot;
    std::vector<std::string> launch; // --exec and the dump options after it: a live session at once
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--lang") && i + 1 < args.size()) {
            language = args[++i];
        } else if (args[i] == QLatin1String("--screenshot")) {
            if (i + 1 == args.size() || args[i + 1].startsWith(QLatin1Char('-'))) {
                std::fputs("llmscope: --screenshot needs a file to save the window to (llmscope --screenshot FILE.png "
                           "[DUMP_FOLDER])\n",
                           stderr);
                return 2;
            }
            screenshot = args[++i];
        } else if (args[i] == QLatin1String("--exec") || args[i] == QLatin1String("--hunt")) {
            for (; i < args.size(); ++i)
                launch.push_back(args[i].toStdString());
        } else {
            dump = args[i];
        }
    }
    if (!screenshot.isEmpty() && !launch.empty()) { // a picture of a dump, not of a run that would outlive it
        std::fputs("llmscope: --screenshot saves the window on a dump folder; it does not take --exec or --hunt\n",
                   stderr);
        return 2;
    }
    if (!launch.empty() && launch[0] == "--hunt") { // the window's hunt: read as `llmscope hunt` reads it
        try {
            QStringList rest;
            for (size_t i = 1; i < launch.size(); ++i)
                rest << QString::fromStdString(launch[i]);
            const hunt::Request request = hunt::parseRequest(rest);
            if (request.help) {
                std::fputs("llmscope --hunt opens the window on a hunt; it takes the options of llmscope hunt "
                           "(see llmscope hunt --help)\n",
                           stdout);
                return 0;
            }
            if (request.timeoutSeconds > 0) // the window's runs are live, and its Stop ends one that hangs
                throw llmscope::Error("--timeout is for llmscope hunt on the command line; in the window, Stop ends a "
                                      "run that hangs");
        } catch (const llmscope::Error &e) {
            std::fprintf(stderr, "llmscope --hunt: %s\n", e.what());
            return 2;
        }
    } else if (!launch.empty()) {
        try {
            llmscope::parseDumpOptions(launch);
        } catch (const llmscope::Error &e) {
            std::fprintf(stderr, "llmscope: %s\n", e.what());
            return 2;
        }
    }
    if (!haveDisplay()) {
        std::fputs("llmscope: no display to open the window on (DISPLAY is not set).\n"
                   "Run it under 'xvfb-run -a llmscope', or use the headless commands ('llmscope --help').\n",
                   stderr);
        return 2;
    }
    const std::string library = llmscope::besideProgram("libllmscope_gui.so");
    void *gui = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto run = gui ? reinterpret_cast<LlmscopeGuiMain>(::dlsym(gui, "llmscope_gui_main")) : nullptr;
    if (!run) {
        std::fprintf(stderr,
                     "llmscope: cannot load the window from %s: %s\nRebuild with scripts/test or use the "
                     "headless commands ('llmscope --help').\n",
                     library.c_str(), ::dlerror());
        return 2;
    }
    std::vector<const char *> launchArgs;
    for (const auto &a : launch)
        launchArgs.push_back(a.c_str());
    return run(argc, argv, language.toLocal8Bit().constData(), dump.toLocal8Bit().constData(), int(launchArgs.size()),
               launchArgs.data(), screenshot.toLocal8Bit().constData());
}
