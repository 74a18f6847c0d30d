// What the running program's probe has seen and written, updated as the counters arrive: an
// empty dump is obvious while it happens. It shows the document's program and clears with
// each new source.
#pragma once
#include <QWidget>

#include "core/live/live_protocol.h"

class QFormLayout;
class QLabel;
class SessionDocument;

class CountersView : public QWidget {
    Q_OBJECT
public:
    explicit CountersView(QWidget *parent = nullptr);

    void setState(const QString &state, const QString &message);
    void setProcess(const llmscope::live::Hello &hello);
    void setDumpFolder(const QString &folder);
    void setCounters(const llmscope::live::Counters &c);
    void setLastRound(const llmscope::live::Round &r);
    void clear();
    void follow(SessionDocument *doc);
    QString text() const; // everything shown, one line each (tests, copying)

private:
    void showFilledRows();

    QFormLayout *m_form;
    QLabel *m_state, *m_process, *m_folder, *m_rounds, *m_ops, *m_tensors, *m_last;
};
