// The console: the program's output as it prints it (stderr in red), and llmscope's own lines
// coloured by what they say (information, warning, failure, a step of a hunt). At most
// kLines are kept.
#pragma once
#include <QPlainTextEdit>

#include "document/console_tone.h"

class ConsoleView : public QPlainTextEdit {
    Q_OBJECT
public:
    static constexpr int kLines = 5000;
    explicit ConsoleView(QWidget *parent = nullptr);

    void say(const QString &text, ConsoleTone tone);
    // other's text (a window built again in another language), following what comes next as it did
    void continueFrom(const ConsoleView &other);

protected:
    void resizeEvent(QResizeEvent *e) override; // at the newest line, it stays there whatever the size
};
