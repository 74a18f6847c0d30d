// A window's or dialog's opening size, no larger than what the screen it opens on leaves free:
// on a laptop's 1366x768 its title bar, status bar and buttons stay in view.
#pragma once
#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

inline QSize fittingScreen(QSize wanted, const QWidget *w)
{
    const QScreen *s = w->screen() ? w->screen() : QGuiApplication::primaryScreen();
    if (!s)
        return wanted;
    return wanted.boundedTo(s->availableGeometry().size() - QSize(16, 48)); // the frame and title bar
}
