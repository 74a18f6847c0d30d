// A job's progress and its own Cancel in the status bar, shown while it runs: a scan, a
// comparison, a hunt and a report can run side by side, and Cancel stops only its own.
#pragma once
#include <QWidget>

class Job;
class QProgressBar;
class QPushButton;

class JobBar : public QWidget {
    Q_OBJECT
public:
    JobBar(Job *job, QWidget *parent = nullptr);
    QProgressBar *progress() const { return m_progress; }
    QPushButton *cancelButton() const { return m_cancel; }

private:
    void showProgress(qint64 done, qint64 total);

    Job *m_job;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};
