#include "app/window/i18n.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

QString installTranslations(QCoreApplication &app, const QString &language)
{
    QString lang = language;
    if (lang.isEmpty())
        lang = qEnvironmentVariable("LLMSCOPE_LANG");
    if (lang.isEmpty()) // chosen in the window's View > Language
        lang = QSettings().value(QStringLiteral("ui/language")).toString();
    if (lang.isEmpty())
        lang = QLocale::system().name();
    if (!lang.startsWith(QLatin1String("zh")))
        return QStringLiteral("en");
    auto *own = new QTranslator(&app);
    if (own->load(QStringLiteral(":/i18n/llmscope_zh_CN.qm")))
        QCoreApplication::installTranslator(own);
    auto *qt = new QTranslator(&app);
    if (qt->load(QStringLiteral("qtbase_zh_CN"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    return QStringLiteral("zh_CN");
}
