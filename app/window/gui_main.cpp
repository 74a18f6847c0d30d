// The window's entry point, in a library of its own: llmscope loads it only to open a window,
// so the command-line tools start without Qt's GUI libraries (a third of a compare's time on a
// warm cache went to loading them).
#include <QApplication>

#include "app/hunt/hunt_action.h"
#include "app/hunt/hunt_plan.h"
#include "app/session/launch_history.h"
#include "app/window/gui_main.h"
#include "app/window/i18n.h"
#include "app/window/main_window.h"
#include "app/workspace/workspace.h"
#include "core/launch/dump_options.h"

#include <QDir>
#include <QTimer>

#include <cstdio>

namespace {

// --screenshot: the window as a picture once it is shown, and once the dump is in (or failed).
// The window that is open then (a language switch replaces the first).
void saveWhenShown(QApplication &app, MainWindow &first, const QString &file, bool waitForDump)
{
    auto save = [&app, file](bool dumpOk) {
        QTimer::singleShot(0, &app, [&app, file, dumpOk] { // after the views have followed the dump
            MainWindow *window = nullptr;
            for (QWidget *w : QApplication::topLevelWidgets())
                if (auto *m = qobject_cast<MainWindow *>(w); m && m->isVisible())
                    window = m;
            const bool saved = window && window->grab().save(file);
            if (!saved)
                std::fprintf(stderr, "llmscope: cannot save the window to %s\n", qPrintable(file));
            app.exit(saved && dumpOk ? 0 : 1);
        });
    };
    if (!waitForDump) {
        save(true);
        return;
    }
    QObject::connect(first.workspace(), &Workspace::dumpLoaded, &app, [save] { save(true); });
    QObject::connect(first.workspace(), &Workspace::dumpFailed, &app,
                     [save](const QString &folder, const QString &why) {
                         std::fprintf(stderr, "llmscope: cannot open %s: %s\n", qPrintable(folder), qPrintable(why));
                         save(false);
                     });
}

} // namespace

extern "C" int llmscope_gui_main(int argc, char **argv, const char *language, const char *dump, int launchCount,
                                 const char *const *launchArgs, const char *screenshot)
{
    QApplication app(argc, argv);
    probeLibraryPath(); // found now, from where this program starts: a rebuild may replace it later
    QApplication::setApplicationName(QStringLiteral("llmscope"));
    QApplication::setOrganizationName(QStringLiteral("llmscope"));
    QApplication::setApplicationVersion(QStringLiteral(LLMSCOPE_VERSION));
    installTranslations(app, QString::fromLocal8Bit(language));
    auto *main = new MainWindow; // a language switch replaces it: each deletes itself on close
    main->setAttribute(Qt::WA_DeleteOnClose);
    main->show();
    MainWindow &window = *main;
    if (*screenshot)
        saveWhenShown(app, window, QString::fromLocal8Bit(screenshot), *dump != 0);
    if (*dump)
        window.workspace()->openDump(QString::fromLocal8Bit(dump));
    std::vector<std::string> args(launchArgs, launchArgs + launchCount);
    if (!args.empty() && args[0] == "--hunt") { // checked by main() with the same reader as `llmscope hunt`
        QStringList rest;
        for (size_t i = 1; i < args.size(); ++i)
            rest << QString::fromStdString(args[i]);
        const hunt::Request request = hunt::parseRequest(rest);
        HuntSide g, t;
        QString error;
        auto read = [&error](const QString &line, HuntSide &side) {
            llmscope::DumpOptions o;
            if (!LaunchHistory::parseLaunchLine(line, true, &o, &side.settings, &error))
                return false;
            side.command = o.command;
            return true;
        };
        if (!read(request.golden, g) || !read(request.test, t))
            window.workspace()->say(QObject::tr("Cannot hunt: %1").arg(error), Workspace::Tone::Failure);
        else
            window.workspace()->runHunt(g, t, QDir(request.folder).absolutePath(), request.rounds, request.standard);
    } else if (!args.empty()) {
        window.launch(llmscope::parseDumpOptions(args)); // checked by main() before the window loads
    }
    return app.exec();
}
