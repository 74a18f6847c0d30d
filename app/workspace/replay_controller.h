// Session > Replay operations: llmscope opcheck on the dump shown, off the GUI thread as its
// own job (progress, Cancel). The result is written into the document, what fails is said
// with why, and the first failure is put under the cursor; for the op picked, its float64
// reference is computed beside its output for the element view. A new source abandons the
// replay and any reference still being computed.
#pragma once
#include <QObject>
#include <QTemporaryDir>

#include <QCoroTask>

#include <memory>

#include "document/compared_files.h"
#include "document/console_tone.h"

class Cursor;
class Job;
class QThreadPool;
class SessionDocument;

class ReplayController : public QObject {
    Q_OBJECT
public:
    ReplayController(SessionDocument *doc, Cursor *cursor, QObject *parent = nullptr);
    ~ReplayController() override;

    Job *job() const { return m_job; }
    void setThreadPool(QThreadPool *pool) { m_pool = pool; }
    // Replays the document's dump; false (and status says why) when it could not.
    QCoro::Task<bool> run();
    // op's reference in the round looked at (else its first replayed round) beside its output:
    // referenceShown says the two files; nothing when the op was not replayed; a later call wins.
    QCoro::Task<> showReference(QString op);

signals:
    void said(const QString &text, ConsoleTone tone);
    void status(const QString &text, int timeoutMs);
    void referenceShown(const ComparedFiles &files); // golden: the reference, test: the output

private:
    SessionDocument *m_doc;
    Cursor *m_cursor;
    QThreadPool *m_pool;
    Job *m_job;
    uint64_t m_sourceGen = 0, m_shownGen = 0; // late results of another source, or of an earlier pick, dropped
    std::unique_ptr<QTemporaryDir> m_dir; // the references shown
};
