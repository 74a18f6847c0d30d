// View > Language: the system's, English or 简体中文, remembered (QSettings ui/language) and in
// effect from the next start, which it offers to do at once.
#pragma once
#include <QMenu>

#include <functional>

class LanguageMenu : public QMenu {
    Q_OBJECT
public:
    // beforeRestart: what to end before the window starts again (a running program).
    LanguageMenu(QWidget *window, std::function<void()> beforeRestart);

private:
    void choose(const QString &code); // "" the system's, "en", "zh_CN"

    QWidget *m_window;
    std::function<void()> m_beforeRestart;
};
