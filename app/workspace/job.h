// One kind of long work the workspace runs (scanning a dump, comparing, hunting, a
// quantization report): its own progress, its own Cancel, and "the newest request wins":
// begin() hands out a new generation and cancels the run before it, whose late results the
// owner drops by checking isCurrent(). Lives on the GUI thread; workers report through the
// reporter(), which may be called from any thread.
#pragma once
#include <QObject>
#include <QPointer>

#include <atomic>
#include <functional>
#include <memory>

class Job : public QObject {
    Q_OBJECT
public:
    enum class Kind { Scan, Compare, Hunt, Report, Opcheck, Spread };
    Q_ENUM(Kind)

    Job(Kind kind, QString title, QObject *parent = nullptr);
    ~Job() override;

    Kind kind() const { return m_kind; }
    QString title() const { return m_title; }
    bool isRunning() const { return m_running; }

    struct Run {
        uint64_t generation = 0;
        std::shared_ptr<std::atomic<bool>> cancelled; // set by cancel() or by the next begin()
    };
    // A new run (what: a line for the status bar); the one before it, if still going, is cancelled.
    Run begin(const QString &what);
    bool isCurrent(uint64_t generation) const { return generation == m_generation; }
    // Progress of the current run; total 0: busy, amount unknown. GUI thread.
    void setProgress(qint64 done, qint64 total, const QString &what = {});
    // The same from any thread, for the run of that generation (dropped once it is not current).
    std::function<void(qint64 done, qint64 total, const QString &what)> reporter(uint64_t generation);
    // Ends the run of that generation (a stale one is ignored).
    void end(uint64_t generation, bool ok, const QString &message);
    void cancel();
    // Cancels the current run and ends it at once (what it was for has gone: a new source);
    // whatever it still hands over is dropped as stale.
    void abandon(const QString &message);

signals:
    void started(const QString &what);
    void progressed(qint64 done, qint64 total, const QString &what);
    void finished(bool ok, const QString &message);
    void cancelRequested(); // for work that is not a flag: a hunt's running program, a child process

private:
    Kind m_kind;
    QString m_title;
    bool m_running = false;
    uint64_t m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
};
