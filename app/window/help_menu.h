// Help: getting started (what to do first, in the window's own words), every keyboard
// shortcut of the window's menus (read from the actions themselves, so the list is never
// stale), and About.
#pragma once
#include <QMenu>

class QMainWindow;

class HelpMenu : public QMenu {
    Q_OBJECT
public:
    explicit HelpMenu(QMainWindow *window);

    // The shortcuts of every menu action of the window, as "Menu > Action<tab>Ctrl+X" lines.
    QStringList shortcutLines() const;
    void showGettingStarted();
    void showShortcuts();

private:
    void showAbout();

    QMainWindow *m_window;
};
