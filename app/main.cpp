#include <QApplication>
#include <QCoreApplication>

#include <cstdio>

#include "cli.h"
#include "i18n.h"
#include "main_window.h"

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
    QString language, dump;
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--lang") && i + 1 < args.size())
            language = args[++i];
        else
            dump = args[i];
    }
    if (!haveDisplay()) {
        std::fputs("llmscope: no display to open the window on (DISPLAY is not set).\n"
                   "Run it under 'xvfb-run -a llmscope', or use the headless commands ('llmscope --help').\n",
                   stderr);
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("llmscope"));
    QApplication::setApplicationVersion(QStringLiteral(LLMSCOPE_VERSION));
    installTranslations(app, language);
    MainWindow window;
    window.show();
    if (!dump.isEmpty())
        window.openDump(dump);
    return app.exec();
}
