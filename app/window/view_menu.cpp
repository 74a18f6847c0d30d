#include "app/window/view_menu.h"

#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QTabWidget>

#include "app/window/language_menu.h"
#include "views/op_tree_panel.h"

ViewMenu::ViewMenu(QMainWindow *window, OpTreePanel *ops, QTabWidget *pages, Calls calls) : QMenu(tr("&View"), window)
{
    addAction(tr("&Find operation"), this, [ops] {
        ops->searchEdit()->setFocus();
        ops->searchEdit()->selectAll();
    })->setShortcut(QKeySequence::Find);
    addAction(tr("Edit -&ids"), this, [ops] {
        ops->idsEdit()->setFocus();
        ops->idsEdit()->selectAll();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    addAction(tr("&Refresh inspector"), this, calls.refresh)->setShortcut(QKeySequence::Refresh);
    addSeparator();
    for (int i = 0; i < pages->count(); ++i) { // the central tabs: Ctrl+1 .. Ctrl+5
        QWidget *page = pages->widget(i);
        addAction(pages->tabText(i), this, [show = calls.showPage, page] {
            show(page);
        })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    addSeparator();
    for (QDockWidget *d : window->findChildren<QDockWidget *>())
        addAction(d->toggleViewAction());
    addSeparator();
    // The language: remembered, and in effect at once (the window is built again around the session).
    addMenu(new LanguageMenu(window, calls.switchLanguage));
}
