// The page shown before anything else: what to do first (launch a program, open a dump),
// what a program running under the probe does, or why a launch or an opened dump failed.
#pragma once
#include <QLabel>

class StartPage : public QLabel {
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);

    void showWelcome();
    void showRunning(const QString &program);
    void showLaunchFailed(const QString &error);
    void showOpenFailed(const QString &error);

signals:
    void launchRequested();
    void openRequested();
};
