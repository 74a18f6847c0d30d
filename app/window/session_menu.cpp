#include "app/window/session_menu.h"

#include <QRegularExpression>
#include <QToolBar>

#include "app/hunt/hunt_dialog.h"
#include "app/spread/spread_dialog.h"
#include "app/window/compare_dialog.h"
#include "app/window/launch_dialog.h"
#include "app/workspace/workspace.h"
#include "core/util/error.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"

using namespace llmscope;

QToolBar *SessionMenu::toolBar(QAction *open) const
{
    auto *bar = new QToolBar(tr("Session"), m_window);
    bar->setObjectName(QStringLiteral("SessionToolBar")); // window state is saved by this name
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addActions({m_launch, m_again, m_stop});
    bar->addSeparator();
    bar->addAction(open);
    static const QRegularExpression mnemonic(QStringLiteral("\\(&.\\)|&(?=.)|\\.\\.\\.$"));
    for (QAction *a : bar->actions())
        a->setIconText(a->text().remove(mnemonic));
    return bar;
}

SessionMenu::SessionMenu(Workspace *workspace, OpTreePanel *ops, QWidget *window)
    : QMenu(tr("&Session"), window), m_ws(workspace), m_ops(ops), m_window(window)
{
    m_launch = addAction(tr("&Launch program..."), this, &SessionMenu::showLaunchDialog);
    m_launch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_again = addAction(tr("Run a&gain"), m_ws, &Workspace::runAgain);
    m_again->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_stop = addAction(tr("&Stop"), m_ws, &Workspace::stop);
    m_stop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    addSeparator();
    m_apply = addAction(tr("&Apply selection"), this, [this] { m_ws->applySelection(m_ops->model()->idsText()); });
    m_apply->setToolTip(tr("Dump the checked operations from the program's next graph on"));
    addSeparator();
    m_compare = addAction(tr("&Compare dumps..."), this, &SessionMenu::showCompareDialog);
    m_compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    QAction *hunt = m_hunt =
        addAction(tr("&Hunt the first divergent operation..."), this, [this] { showHuntDialog(false); });
    hunt->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    hunt->setToolTip(tr("Run a golden and a test program, compare, and open the first operation that departs"));
    m_opcheck = addAction(tr("&Replay operations (opcheck)"), m_ws, &Workspace::opcheck);
    m_opcheck->setObjectName(QStringLiteral("opcheckAction"));
    m_opcheck->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_opcheck->setToolTip(tr("Replay each operation of the open dump on its own dumped inputs: is its kernel wrong, "
                             "or were its inputs? (dump with --type tensor -tiling)"));
    QAction *quant = addAction(tr("&Quantization report..."), this, [this] { showHuntDialog(true); });
    quant->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    quant->setToolTip(tr("An F32 golden against its quantized model: which weights lose the most, and which to "
                         "keep in a higher type"));
    QAction *spread = addAction(tr("S&pread..."), this, [this] {
        SpreadDialog d(m_window);
        spread::Request r;
        QString error;
        if (d.exec() == QDialog::Accepted && d.request(&r, &error))
            m_ws->runSpread(r);
    });
    spread->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    spread->setToolTip(tr("One prompt run several ways side by side (the same program N times, thread counts, batch "
                          "sizes, devices): the first op where the runs part, and the run that departs"));
    connect(m_ops, &OpTreePanel::applyRequested, m_ws, &Workspace::applySelection);
}

void SessionMenu::updateActions()
{
    const bool running = m_ws->session()->isRunning();
    m_again->setEnabled(m_ws->canRunAgain());
    m_stop->setEnabled(running);
    const bool canApply = m_ws->canApply();
    const bool rerun = !canApply && m_ws->canRunAgainWithIds();
    m_apply->setEnabled(canApply || rerun);
    m_ops->setApplyEnabled(
        canApply || rerun,
        canApply    ? tr("Send this selection to the running program: it dumps these operations from its "
                            "next graph on (Ctrl+Return)")
            : rerun ? tr("The program has ended: run it again, dumping the checked operations from its "
                         "first round (Ctrl+Return). A program that ends before you can pick may have an "
                         "option to slow it (the sample program's --pace-ms)")
                    : tr("Launch a program (Session > Launch, Ctrl+L) to apply a selection while it runs"),
        rerun);
    m_opcheck->setEnabled(!running && !m_ws->document()->source().dumpRoot.isEmpty());
}

void SessionMenu::showLaunchDialog()
{
    LaunchDialog dialog(m_window);
    if (const auto &last = m_ws->lastLaunch())
        dialog.setOptions(last->first, last->second);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    try {
        m_ws->launch(dialog.options(), dialog.settings(), &error);
    } catch (const Error &e) { // the dialog checked the options: only a race with the file system
        m_ws->say(tr("Cannot launch: %1").arg(QString::fromUtf8(e.what())), Workspace::Tone::Failure);
    }
}

void SessionMenu::showCompareDialog()
{
    CompareDialog d(m_window);
    if (d.exec() == QDialog::Accepted && !d.golden().isEmpty() && !d.test().isEmpty())
        m_ws->compare(d.golden(), d.test(), {}, {}, d.goldenRequest(), d.testRequest());
}

void SessionMenu::showHuntDialog(bool quantReport)
{
    if (const QString why = m_ws->busyReason(); !why.isEmpty() && !m_ws->session()->isRunning()) {
        m_ws->say(why, Workspace::Tone::Warning);
        return;
    }
    HuntDialog d(m_window, quantReport ? HuntDialog::Purpose::QuantReport : HuntDialog::Purpose::Hunt);
    if (d.exec() != QDialog::Accepted)
        return;
    HuntSide golden, test;
    QString error;
    if (!d.sides(&golden, &test, &error))
        m_ws->say(error, Workspace::Tone::Step); // the dialog checked them: only a file changed since could say this
    else if (quantReport)
        m_ws->runQuantReport(golden, test, d.folder(), d.rounds(), d.budget());
    else
        m_ws->runHunt(golden, test, d.folder(), d.rounds());
}
