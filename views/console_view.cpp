#include "views/console_view.h"

#include <QFontDatabase>
#include <QScrollBar>

ConsoleView::ConsoleView(QWidget *parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setMaximumBlockCount(kLines);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setPlaceholderText(tr("The program's output appears here while it runs."));
}

void ConsoleView::continueFrom(const ConsoleView &other)
{
    document()->setHtml(other.document()->toHtml());
    moveCursor(QTextCursor::End);
    ensureCursorVisible();
}

void ConsoleView::resizeEvent(QResizeEvent *e)
{
    QScrollBar *bar = verticalScrollBar();
    const bool following = bar->value() == bar->maximum();
    QPlainTextEdit::resizeEvent(e);
    if (following)
        bar->setValue(bar->maximum());
}

void ConsoleView::say(const QString &text, ConsoleTone tone)
{
    static const char *const colours[] = {nullptr, "#8a2020", "#206020", "#a05000", "#b00000", "#205080"};
    QString t = text;
    if (t.endsWith(QLatin1Char('\n')))
        t.chop(1);
    const char *colour = colours[int(tone)];
    if (!colour)
        appendPlainText(t);
    else
        appendHtml(QStringLiteral("<span style=\"color:%1\">%2</span>").arg(QLatin1String(colour), t.toHtmlEscaped()));
}
