#include "app/workspace/compare_controller.h"

#include <QDir>
#include <QPointer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThreadPool>

#include "document/job_pool.h"
#include <QtConcurrent>

#include <QCoroFuture>

#include "app/workspace/job.h"
#include "core/compare/report.h"
#include "core/util/error.h"
#include "document/layer_words.h"
#include "document/reason_words.h"
#include "document/session_document.h"

using namespace llmscope;

CompareController::CompareController(SessionDocument *doc, QObject *parent)
    : QObject(parent), m_doc(doc), m_pool(jobPool()), m_job(new Job(Job::Kind::Compare, tr("comparison"), this))
{
    connect(doc, &SessionDocument::sourceChanged, this,
            [this] { m_job->abandon(tr("comparison of the previous source stopped")); });
}

QString CompareController::conclusion(const CompareResult &r)
{
    if (r.firstDivergent < 0)
        return tr("Every operation passed");
    const OpResult &op = r.ops[size_t(r.firstDivergent)];
    const QString layer = layerWords(op.name); // llama.cpp's count, as its weights' blk.N
    return layer.isEmpty() ? tr("First divergent: %1").arg(QString::fromStdString(op.label()))
                           : tr("First divergent: %1 in %2").arg(QString::fromStdString(op.label()), layer);
}

QCoro::Task<std::pair<std::shared_ptr<const CompareResult>, QString>> CompareController::run(CompareOptions o)
{
    QPointer<CompareController> self(this);
    const Job::Run run = m_job->begin(
        tr("Comparing %1 with %2...").arg(QString::fromStdString(o.goldenPath), QString::fromStdString(o.myPath)));
    auto report = m_job->reporter(run.generation);
    o.cancel = run.cancelled.get();
    auto progress = [report](uint64_t done, uint64_t total, const std::string &op) {
        report(qint64(done), qint64(total), tr("Comparing: %1").arg(QString::fromStdString(op)));
    };
    auto future = QtConcurrent::run(
        m_pool, [o, progress, keep = run.cancelled]() -> std::pair<std::shared_ptr<const CompareResult>, QString> {
            try {
                return {std::make_shared<const CompareResult>(runCompare(o, progress)), QString()};
            } catch (const Error &e) {
                return {nullptr, errorWords(e)};
            }
        });
    auto outcome = co_await future;
    if (self)
        m_job->end(run.generation, outcome.first != nullptr,
                   outcome.first ? conclusion(*outcome.first) : outcome.second);
    co_return outcome;
}

QCoro::Task<std::pair<std::optional<CompareController::Views>, QString>> CompareController::pairRequests(
    QString golden, RequestChoice goldenChoice, QString test, RequestChoice testChoice)
{
    QPointer<CompareController> self(this);
    const Job::Run run = m_job->begin(tr("Cutting the chosen requests out of %1 and %2...").arg(golden, test));
    // Beside the user's other caches, not /tmp: a large dump's view is linked where it can be.
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    QDir().mkpath(cache);
    auto folder = std::make_shared<QTemporaryDir>(cache + QStringLiteral("/request-views-XXXXXX"));
    auto future = QtConcurrent::run(m_pool, [=]() -> std::pair<std::optional<Views>, QString> {
        if (!folder->isValid())
            return {std::nullopt, tr("cannot make a folder for the requests' views: %1").arg(folder->errorString())};
        try {
            return {Views{llmscope::pairRequests(golden.toStdString(), goldenChoice, test.toStdString(), testChoice,
                                                 folder->path().toStdString()),
                          folder},
                    QString()};
        } catch (const Error &e) {
            return {std::nullopt, errorWords(e)};
        } catch (const std::exception &e) { // the file system's, or memory
            return {std::nullopt, QString::fromLocal8Bit(e.what())};
        }
    });
    auto outcome = co_await future;
    if (self)
        m_job->end(run.generation, outcome.first.has_value(), outcome.first ? tr("Requests cut out") : outcome.second);
    co_return outcome;
}

QStringList CompareController::writeReports(const QString &folder, QString *error) const
{
    if (!m_doc->results().comparison) {
        *error = tr("Nothing to export: compare two dumps first (Session > Compare dumps, Ctrl+D).");
        return {};
    }
    try {
        const QString csv =
            QString::fromStdString(writeCompareReports(*m_doc->results().comparison, folder.toStdString()));
        return {csv, csv.left(csv.size() - 4) + QStringLiteral(".json")};
    } catch (const Error &e) {
        *error = errorWords(e);
        return {};
    }
}
