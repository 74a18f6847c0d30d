// The window's entry point, in a library of its own: llmscope loads it only to open a window,
// so the command-line tools start without Qt's GUI libraries (a third of a compare's time on a
// warm cache went to loading them).
#include <QApplication>

#include "gui_main.h"
#include "i18n.h"
#include "launch/dump_options.h"
#include "main_window.h"

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
    if (launchCount > 0) {
        std::vector<std::string> args(launchArgs, launchArgs + launchCount);
        window.launch(llmscope::parseDumpOptions(args)); // checked by main() before the window loads
    }
    return app.exec();
}
