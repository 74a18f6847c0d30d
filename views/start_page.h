// The page shown before anything else: what to do first (launch a program, open a dump, hunt
// the first divergent op, compare two dumps), what a program running under the probe does, or
// why a launch or an opened dump failed.
#pragma once
#include <QHash>
#include <QLabel>

class QAction;

class StartPage : public QLabel {
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);

    // The welcome page's links ("launch", "open", "hunt", "compare") trigger these actions.
    void offer(QHash<QString, QAction *> actions) { m_actions = std::move(actions); }
    void showWelcome();
    void showRunning(const QString &program);
    void showLaunchFailed(const QString &error);
    void showOpenFailed(const QString &error);

private:
    QHash<QString, QAction *> m_actions;
};
