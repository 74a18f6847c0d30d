// Session > Spread: `llmscope spread` in the window, as its own job (each run's dump and the
// comparisons as progress, Cancel stopping the run under way). Each run is a child
// `llmscope dump` of its command line, in the passes the command line makes (spread_plan.h:
// statistics, then the suspect rounds' tensors); every two runs are compared off the GUI
// thread; the reports are written beside the dumps, and the result is handed to the caller (the
// workspace puts it in the document: the one place it is kept).
#pragma once
#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "app/spread/spread_plan.h"
#include "core/run_spread/spread.h"

class Job;

class SpreadAction : public QObject {
    Q_OBJECT
public:
    explicit SpreadAction(QObject *parent = nullptr);

    Job *job() const { return m_job; }
    // The llmscope program whose `dump` each run is (default: this program).
    void setProgram(const QString &path) { m_program = path; }
    // Runs it into request.folder; the runs compared (also when one departs), or null when they
    // were not (finished says why).
    QCoro::Task<std::shared_ptr<const llmscope::SpreadResult>> run(spread::Request request);
    void cancel();
    bool isRunning() const;
    QString folder() const { return m_folder; }

signals:
    void finished(bool ok, const QString &message);
    // Each line a run's llmscope dump writes, as it comes (the program's own output and the dump's
    // words), for the console: what a run is doing while it runs, and why it failed.
    void childOutput(const QString &text);

private:
    // One run's `llmscope dump` with these options into out; the dump folder it made. Throws
    // llmscope::Error in the window's words, or spread::Cancelled.
    QCoro::Task<std::string> dumpRun(spread::Run command, QStringList options, QString out,
                                     std::shared_ptr<std::atomic<bool>> cancelled);

    Job *m_job;
    QString m_program;
    QString m_folder;
    QString m_doing; // what a comparison under way is said to do
    size_t m_at = 0; // the run being dumped
};
