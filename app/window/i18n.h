// UI language: English source strings, Simplified Chinese translation.
#pragma once
#include <QString>

class QCoreApplication;

// Installs translators for `language` ("en", "zh_CN"; empty: LLMSCOPE_LANG, else the one
// chosen in the window (QSettings ui/language), else the system locale). Returns the language
// in effect.
QString installTranslations(QCoreApplication &app, const QString &language = {});
