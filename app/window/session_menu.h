// Session: launch, run again, stop and apply for a program under the probe; compare, hunt,
// replay and the quantization report; each action opens its dialog and hands what was chosen
// to the workspace, and is enabled when the workspace can take it.
#pragma once
#include <QMenu>

class OpTreePanel;
class QToolBar;
class Workspace;

class SessionMenu : public QMenu {
    Q_OBJECT
public:
    SessionMenu(Workspace *workspace, OpTreePanel *ops, QWidget *window);

    QAction *launchAction() const { return m_launch; }
    QAction *againAction() const { return m_again; }
    QAction *stopAction() const { return m_stop; }
    QAction *huntAction() const { return m_hunt; }
    QAction *compareAction() const { return m_compare; }
    // Launch, Run again and Stop, then open: buttons worded as the menu, without its mnemonics
    // (a toolbar has none: "(&L)" would show as "(L)").
    QToolBar *toolBar(QAction *open) const;
    void showLaunchDialog();
    void updateActions(); // what the workspace can take now

private:
    void showCompareDialog();
    void showHuntDialog(bool quantReport);

    Workspace *m_ws;
    OpTreePanel *m_ops;
    QWidget *m_window;
    QAction *m_launch, *m_again, *m_stop, *m_apply, *m_opcheck, *m_hunt, *m_compare;
};
