#include "views/start_page.h"

#include <QAction>

StartPage::StartPage(QWidget *parent) : QLabel(parent)
{
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    connect(this, &QLabel::linkActivated, this, [this](const QString &link) {
        if (QAction *a = m_actions.value(link))
            a->trigger();
    });
    showWelcome();
}

void StartPage::showWelcome()
{
    setText(tr("<h2>Find the first operation that goes wrong</h2>"
               "<p><a href=\"launch\">Launch a program</a> (Ctrl+L) under the probe: its operations appear on the "
               "left as it runs; check the ones to dump and press Apply (Ctrl+Return).</p>"
               "<p><a href=\"open\">Open a dump folder</a> (Ctrl+O) written by llmscope or by <code>msit llm "
               "dump</code>, or drop one on this window.</p>"
               "<p><a href=\"hunt\">Hunt the first divergent operation</a> (Ctrl+H): a golden and a test program "
               "run and compared, and the window opens on the operation where they part, and why.</p>"
               "<p><a href=\"compare\">Compare two dumps</a> (Ctrl+D) you already have.</p>"));
}

void StartPage::showRunning(const QString &program)
{
    setText(tr("<h2>%1 is running under the probe</h2>"
               "<p>Its operations fill the tree on the left as it computes: model, layers, the ggml "
               "nodes of each.</p><p>Check the operations to dump (or type ids such as "
               "<code>2_29,3</code>) and press <b>Apply</b> (Ctrl+Return): the program dumps them from "
               "its next graph on, and the tree marks them.</p><p>The program's output is in the "
               "console below; Stop is Ctrl+. and Run again Ctrl+R.</p>")
                .arg(program.toHtmlEscaped()));
}

void StartPage::showLaunchFailed(const QString &error)
{
    setText(tr("<h2>Could not launch the program</h2><p>%1</p>").arg(error.toHtmlEscaped()));
}

void StartPage::showOpenFailed(const QString &error)
{
    setText(tr("<h2>Could not open the dump</h2><p>%1</p>").arg(error.toHtmlEscaped()));
}
