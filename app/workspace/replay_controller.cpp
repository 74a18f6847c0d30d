#include "app/workspace/replay_controller.h"
#include "document/reason_words.h"

#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>

#include "document/job_pool.h"
#include <QtConcurrent>

#include <QCoroFuture>

#include "app/workspace/job.h"
#include "core/opcheck/opcheck_run.h"
#include "core/tensor/bin_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "document/cursor.h"
#include "document/session_document.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "core/opcheck/ggml_cpu_replay.h"
#endif

using namespace llmscope;

ReplayController::ReplayController(SessionDocument *doc, Cursor *cursor, QObject *parent)
    : QObject(parent), m_doc(doc), m_cursor(cursor), m_pool(jobPool()),
      m_job(new Job(Job::Kind::Opcheck, tr("replay"), this))
{
    connect(doc, &SessionDocument::sourceChanged, this, [this] {
        ++m_sourceGen;
        ++m_shownGen; // a reference still being computed belongs to the previous source
        m_job->abandon(tr("replay of the previous source stopped"));
    });
}

ReplayController::~ReplayController() = default;

QCoro::Task<bool> ReplayController::run()
{
    QPointer<ReplayController> self(this);
    if (m_doc->source().dumpRoot.isEmpty()) {
        emit status(tr("Open a dump first (File > Open dump folder)"), 10000);
        co_return false;
    }
    if (m_job->isRunning()) {
        emit status(tr("A replay is running; cancel it first"), 10000);
        co_return false;
    }
    const uint64_t source = m_sourceGen;
    const Job::Run run = m_job->begin(tr("Replaying the operations of %1...").arg(m_doc->source().dumpRoot));
    auto report = m_job->reporter(run.generation);
    OpcheckOptions o;
    o.input = m_doc->source().dumpRoot.toStdString();
#ifdef LLMSCOPE_GGML_REPLAY
    o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
    auto future = QtConcurrent::run(
        m_pool, [o, report, cancelled = run.cancelled]() -> std::pair<std::shared_ptr<OpcheckResult>, QString> {
            try {
                auto r = runOpcheck(o, [&](uint64_t done, uint64_t total) {
                    report(qint64(done), qint64(total), tr("Replaying: %1 of %2 operations").arg(done).arg(total));
                    return !*cancelled;
                });
                return {std::make_shared<OpcheckResult>(std::move(r)), QString()};
            } catch (const Error &e) {
                return {nullptr, errorWords(e)};
            }
        });
    auto [result, error] = co_await future;
    if (!self || m_sourceGen != source || !m_job->isCurrent(run.generation))
        co_return false; // another source, or its replay, owns what is shown
    if (!result) {
        m_job->end(run.generation, false, error);
        emit status(tr("Could not replay: %1").arg(error), 15000);
        co_return false;
    }
    // Operations and outputs counted apart (an op has several outputs, views are checked too):
    // the verdicts add up to the outputs they judge.
    const int outputs = result->pass + result->warn + result->fail + result->skip + result->error;
    const QString summary = tr("Replayed %1 of %2 operations that run a kernel; %3 outputs: %4 pass, %5 warn, %6 fail, "
                               "%7 skipped, %8 not replayable")
                                .arg(result->replayedOps)
                                .arg(result->ops - result->viewOps)
                                .arg(outputs)
                                .arg(result->pass)
                                .arg(result->warn)
                                .arg(result->fail)
                                .arg(result->skip)
                                .arg(result->error);
    m_job->end(run.generation, true, summary);
    emit said(QStringLiteral("[llmscope] ") + summary,
              result->fail || result->error ? ConsoleTone::Warning : ConsoleTone::Info);
    int listed = 0;
    for (const auto &row : result->rows) // what fails, with why: the kernels to look at
        if (isBad(row.verdict) && listed++ < 10) {
            const GraphOp *op = m_doc->graph()->find(row.opId); // the engine's name of the node, where known
            emit said(tr("[llmscope]   %1 round %2 %3 %4 (%5): %6")
                          .arg(QLatin1String(verdictName(row.verdict)))
                          .arg(row.round)
                          .arg(QString::fromStdString(row.opId), QString::fromStdString(op ? op->name : row.opName),
                               QString::fromStdString(row.opType), reasonWords(row.reason)),
                      ConsoleTone::Failure);
        }
    m_doc->setReplay(result);
    if (const OpcheckRow *first = firstFailing(*result)) { // where to look first, picked
        m_cursor->setRound(first->round);
        m_cursor->setOp(QString::fromStdString(first->opId));
    }
    co_return true;
}

QCoro::Task<> ReplayController::showReference(QString op)
{
    QPointer<ReplayController> self(this);
    const auto replay = m_doc->results().replay;
    if (!replay)
        co_return;
    const int64_t round = m_cursor->round();
    const OpcheckRow *row = nullptr;
    for (const auto &r : replay->rows) // the round picked, else the op's first round replayed
        if (QString::fromStdString(r.opId) == op && isJudged(r.verdict) &&
            (!row || (r.round == round && row->round != round)))
            row = &r;
    if (!row)
        co_return;
    if (!m_dir)
        m_dir = std::make_unique<QTemporaryDir>();
    const uint64_t gen = ++m_shownGen;
    const OpcheckRow picked = *row;
    // named as the output is (after/outtensor0.bin), which is how the element view pairs files
    const QString out = QString::fromStdString(picked.tensorPath);
    const QString file =
        m_dir->filePath(QStringLiteral("%1_round%2/after/").arg(op).arg(picked.round)) + QFileInfo(out).fileName();
    auto future = QtConcurrent::run(m_pool, [picked, file]() -> QString {
        try {
            makeDirs(QFileInfo(file).path().toStdString());
            writeBin(file.toStdString(), replayReference(picked));
            return {};
        } catch (const Error &e) {
            return errorWords(e);
        }
    });
    const QString error = co_await future;
    if (!self || gen != m_shownGen || !m_doc->results().replay)
        co_return; // another op was picked meanwhile, or another source opened
    if (!error.isEmpty()) {
        emit status(tr("Could not replay %1: %2").arg(op, error), 10000);
        co_return;
    }
    emit referenceShown(
        {tr("%1 in round %2: the float64 replay on its own inputs (left) against its output (right): %3")
             .arg(op)
             .arg(picked.round)
             .arg(QLatin1String(verdictName(picked.verdict))),
         {file},
         {QString::fromStdString(picked.tensorPath)},
         {}});
}
