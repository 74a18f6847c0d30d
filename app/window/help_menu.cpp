#include "app/window/help_menu.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <functional>

namespace {

QString plain(QString text)
{
    return text.remove(QLatin1Char('&')).remove(QStringLiteral("..."));
}

} // namespace

HelpMenu::HelpMenu(QMainWindow *window) : QMenu(tr("&Help"), window), m_window(window)
{
    setObjectName(QStringLiteral("HelpMenu"));
    QAction *start = addAction(tr("&Getting started"), this, &HelpMenu::showGettingStarted);
    start->setShortcut(QKeySequence::HelpContents);
    addAction(tr("&Keyboard shortcuts"), this, &HelpMenu::showShortcuts)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    addSeparator();
    addAction(tr("&About llmscope"), this, &HelpMenu::showAbout);
}

QStringList HelpMenu::shortcutLines() const
{
    QStringList lines;
    std::function<void(const QMenu *, const QString &)> walk = [&](const QMenu *menu, const QString &path) {
        for (QAction *a : menu->actions()) {
            const QString where = path + QStringLiteral(" > ") + plain(a->text());
            if (a->menu())
                walk(a->menu(), where);
            else if (!a->shortcut().isEmpty())
                lines << where + QLatin1Char('\t') + a->shortcut().toString(QKeySequence::NativeText);
        }
    };
    for (QAction *top : m_window->menuBar()->actions())
        if (top->menu())
            walk(top->menu(), plain(top->text()));
    return lines;
}

void HelpMenu::showGettingStarted()
{
    QMessageBox box(
        QMessageBox::Information, tr("Getting started"),
        tr("<h3>Find the first operation that goes wrong</h3>"
           "<ol><li><b>Two runs that should agree</b> (the CPU and a GPU backend, F32 and a quantized "
           "model): Session &gt; Hunt (Ctrl+H) runs both, compares every operation and opens the first "
           "that departs, its weight named when that is where the difference comes in.</li>"
           "<li><b>One program that should give the same numbers every time</b> (run to run, with more "
           "threads, another batch size or device): Session &gt; Spread (Ctrl+Shift+P) runs it several ways "
           "and names the first operation where the runs part, and the run that departs.</li>"
           "<li><b>Two dumps you already have</b>: Session &gt; Compare dumps (Ctrl+D). The Diff tab lists "
           "each operation's verdict; the heatmap shows failed operations in red (\u2717) and passed ones in "
           "blue, the first divergent marked \u25C6.</li>"
           "<li><b>Is it the kernel or its inputs?</b> Open a dump made with <code>--type tensor "
           "-tiling</code> and Session &gt; Replay operations (Ctrl+Shift+O): each operation is computed "
           "again in float64 from its own dumped inputs.</li>"
           "<li><b>A running program</b>: Session &gt; Launch (Ctrl+L); its operations fill the tree on the "
           "left; check some and Apply (Ctrl+Return) to dump them from its next round on.</li></ol>"
           "<p>Search the tree (Ctrl+F) by id, name, type or weight name. Every shortcut: Help &gt; "
           "Keyboard shortcuts.</p>"),
        QMessageBox::Ok, m_window);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

void HelpMenu::showShortcuts()
{
    QDialog d(m_window);
    d.setWindowTitle(tr("Keyboard shortcuts"));
    auto *text = new QTextBrowser(&d);
    QString html = QStringLiteral("<table cellpadding=\"3\">");
    for (const QString &line : shortcutLines())
        html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>")
                    .arg(line.section(QLatin1Char('\t'), 0, 0).toHtmlEscaped(),
                         line.section(QLatin1Char('\t'), 1).toHtmlEscaped());
    html += QStringLiteral("</table>");
    text->setHtml(html);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &d);
    connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    auto *layout = new QVBoxLayout(&d);
    layout->addWidget(text);
    layout->addWidget(buttons);
    d.resize(520, 480);
    d.exec();
}

void HelpMenu::showAbout()
{
    QMessageBox::about(m_window, tr("About llmscope"),
                       tr("<b>llmscope %1</b><p>Finds the first operation where an accelerated LLM "
                          "inference departs from its reference. Reads and writes msit's dump format.</p>")
                           .arg(QStringLiteral(LLMSCOPE_VERSION)));
}
