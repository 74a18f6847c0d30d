// Comparisons: golden against test off the GUI thread as their own job (progress, Cancel),
// with the same numbers as `llmscope compare`; the files of a compared op for the element
// view; and the comparison's CSV and JSON reports. The comparison shown is the document's;
// a new source abandons the one still running.
#pragma once
#include <QObject>

#include <QCoroTask>

#include <memory>
#include <optional>
#include <utility>

#include "core/compare/compare_run.h"
#include "core/requests/request_pairing.h"
#include "document/compared_files.h"

class Job;
class QTemporaryDir;
class QThreadPool;
class SessionDocument;

class CompareController : public QObject {
    Q_OBJECT
public:
    explicit CompareController(SessionDocument *doc, QObject *parent = nullptr);

    Job *job() const { return m_job; }
    void setThreadPool(QThreadPool *pool) { m_pool = pool; }
    // Runs o (its cancel flag is the job's); the result, or null and the reason. The job ends
    // saying the first divergent op, or why it failed.
    QCoro::Task<std::pair<std::shared_ptr<const llmscope::CompareResult>, QString>> run(llmscope::CompareOptions o);
    // Each side as its chosen request's view (llama-server's slots; requests/request_pairing.h),
    // off the GUI thread, written in a new folder under the user's cache: the folders to compare
    // and what was chosen, cut and lined up, with the folder (removed when its last holder lets
    // it go: keepViews once the comparison is shown); or null and the reason. The job is busy
    // meanwhile, as it is comparing.
    struct Views {
        llmscope::RequestPairing pairing;
        std::shared_ptr<QTemporaryDir> folder;
    };
    QCoro::Task<std::pair<std::optional<Views>, QString>> pairRequests(QString golden,
                                                                       llmscope::RequestChoice goldenChoice,
                                                                       QString test,
                                                                       llmscope::RequestChoice testChoice);
    void keepViews(std::shared_ptr<QTemporaryDir> folder) { m_views = std::move(folder); } // the shown comparison's
    // The document's comparison's reports into folder; the files, or empty and error says why.
    QStringList writeReports(const QString &folder, QString *error) const;
    // "First divergent: ..." or "Every operation passed".
    static QString conclusion(const llmscope::CompareResult &r);

private:
    SessionDocument *m_doc;
    QThreadPool *m_pool;
    Job *m_job;
    std::shared_ptr<QTemporaryDir> m_views; // the shown comparison's request views
};
