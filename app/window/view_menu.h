// View: find an operation, edit -ids, refresh the inspector, bring a central page forward
// (Ctrl+1 ..), show or hide each dock, and the language.
#pragma once
#include <QMenu>

#include <functional>

class OpTreePanel;
class QMainWindow;
class QTabWidget;

class ViewMenu : public QMenu {
    Q_OBJECT
public:
    struct Calls {
        std::function<void(QWidget *page)> showPage; // a central page brought forward
        std::function<void()> refresh; // the inspector read again
        std::function<void(const QString &code)> switchLanguage; // the window again, in that language
    };
    // The docks and pages the window has now: build after them.
    ViewMenu(QMainWindow *window, OpTreePanel *ops, QTabWidget *pages, Calls calls);
};
