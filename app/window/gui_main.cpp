// The window's entry point, in a library of its own: llmscope loads it only to open a window,
// so the command-line tools start without Qt's GUI libraries (a third of a compare's time on a
// warm cache went to loading them).
#include <QApplication>

#include "gui_main.h"
#include "i18n.h"
#include "launch/dump_options.h"
#include "main_window.h"
#include "hunt_action.h"
#include "launch_dialog.h"

#include <QDir>

extern "C" int llmscope_gui_main(int argc, char **argv, const char *language, const char *dump, int launchCount,
                                 const char *const *launchArgs)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("llmscope"));
    QApplication::setOrganizationName(QStringLiteral("llmscope"));
    QApplication::setApplicationVersion(QStringLiteral(LLMSCOPE_VERSION));
    installTranslations(app, QString::fromLocal8Bit(language));
    MainWindow window;
    window.show();
    if (*dump)
        window.openDump(QString::fromLocal8Bit(dump));
    std::vector<std::string> args(launchArgs, launchArgs + launchCount);
    if (!args.empty() && args[0] == "--hunt") { // --hunt --golden CMD --test CMD [-o DIR] [-er RANGES]
        QString golden, test, folder = QStringLiteral("llmscope_hunt"), rounds = QStringLiteral("0,0");
        for (size_t i = 1; i + 1 < args.size(); i += 2) {
            const QString value = QString::fromStdString(args[i + 1]);
            if (args[i] == "--golden")
                golden = value;
            else if (args[i] == "--test")
                test = value;
            else if (args[i] == "-o")
                folder = value;
            else if (args[i] == "-er")
                rounds = value;
        }
        HuntSide g, t;
        QString error;
        auto read = [&error](const QString &line, HuntSide &side) {
            llmscope::DumpOptions o;
            if (!LaunchDialog::parseLaunchLine(line, true, &o, &side.settings, &error))
                return false;
            side.command = o.command;
            return true;
        };
        if (!read(golden, g) || !read(test, t))
            window.note(QObject::tr("Cannot hunt: %1").arg(error));
        else
            window.hunt(g, t, QDir(folder).absolutePath(), rounds);
    } else if (!args.empty()) {
        window.launch(llmscope::parseDumpOptions(args)); // checked by main() before the window loads
    }
    return app.exec();
}
