// Reading a dump folder into the document as its own job (progress, Cancel): its operations
// first (the model topology file is found without walking the tensors, so a large dump shows
// its tree at once), then its files and statistics round by round. The newest scan wins: an
// older one is cancelled and its late rounds dropped, as is a scan of a previous source.
#pragma once
#include <QObject>

#include <QCoroTask>

#include "document/console_tone.h"

class Job;
class QThreadPool;
class SessionDocument;

class ScanController : public QObject {
    Q_OBJECT
public:
    // The longest the GUI thread spends taking a scan's rounds before the event loop runs.
    static constexpr qint64 kTakeSliceMs = 8;

    explicit ScanController(SessionDocument *doc, QObject *parent = nullptr);

    Job *job() const { return m_job; }
    void setThreadPool(QThreadPool *pool) { m_pool = pool; }
    void setTakeSlice(qint64 ms) { m_takeSliceMs = ms; } // 0: one round at a time
    // Reads folder into the document; withStats: its statistics and topology are the source's.
    // By value: the coroutine outlives its callers' arguments.
    QCoro::Task<bool> run(QString folder, bool withStats);

signals:
    void topologyRead(int operations); // an opened dump's, into the document
    void topologyShown(const QString &folder, int operations); // before its files
    void dumpLoaded(const QString &folder, int tensors, int rounds, int problems);
    void dumpFailed(const QString &folder, const QString &message);
    void said(const QString &text, ConsoleTone tone);
    void status(const QString &text, int timeoutMs);

private:
    SessionDocument *m_doc;
    QThreadPool *m_pool;
    Job *m_job;
    qint64 m_takeSliceMs = kTakeSliceMs;
};
