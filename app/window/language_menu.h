// View > Language: the system's, English or 简体中文, remembered (QSettings ui/language) and
// in effect at once: the window is built again in the new language around the same session
// (a running program goes on, the dump, comparison and replay stay shown).
#pragma once
#include <QMenu>

#include <functional>

class LanguageMenu : public QMenu {
    Q_OBJECT
public:
    // switchTo: builds the window again in the language chosen ("" the system's, "en", "zh_CN").
    LanguageMenu(QWidget *window, std::function<void(const QString &code)> switchTo);
};
