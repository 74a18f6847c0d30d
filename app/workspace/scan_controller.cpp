#include "app/workspace/scan_controller.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QThreadPool>

#include "document/job_pool.h"
#include <QtConcurrent>

#include <QCoroFuture>
#include <QCoroTimer>

#include "app/workspace/dump_scan.h"
#include "app/workspace/job.h"
#include "document/session_document.h"

using namespace llmscope;

namespace {
// Its operations as a live graph counts them: the layers (groups) apart.
int operations(const OpGraph &g)
{
    return int(g.size() - g.groups().size());
}
} // namespace

ScanController::ScanController(SessionDocument *doc, QObject *parent)
    : QObject(parent), m_doc(doc), m_pool(jobPool()), m_job(new Job(Job::Kind::Scan, tr("scan"), this))
{
    connect(doc, &SessionDocument::sourceChanged, this,
            [this] { m_job->abandon(tr("scan of the previous source stopped")); });
}

QCoro::Task<bool> ScanController::run(QString folder, bool withStats)
{
    QPointer<ScanController> self(this);
    const Job::Run run = m_job->begin(tr("Scanning %1...").arg(folder));
    const uint64_t gen = run.generation;
    auto current = [self, gen] { return self && self->m_job->isCurrent(gen); };
    const std::string path = folder.toStdString();
    // The operations first (their topology file is found without walking the tensors), so a
    // large dump shows its tree at once; the files and statistics follow round by round.
    bool early = false;
    std::vector<FusedChainRecord> fused; // the chains the dump says its backend computed fused
    if (withStats) {
        auto topoFuture = QtConcurrent::run(m_pool, [path] { return dumpscan::readEarlyTopology(path); });
        dumpscan::EarlyTopology e = co_await topoFuture;
        if (!current())
            co_return false;
        fused = e.fused;
        if (e.topology) {
            early = true;
            OpGraph graph(*e.topology);
            graph.nameBackends(e.backends);
            graph.markFused(e.fused);
            m_doc->setGraph(std::move(graph));
            emit topologyRead(operations(*m_doc->graph()));
            emit topologyShown(folder, operations(*m_doc->graph()));
        }
    }
    // Each round is handed over as soon as it is read: the scan queues it and asks this
    // thread to take what is queued. This thread takes rounds for one slice of time at a
    // time and lets the event loop run between slices, so a scan faster than the views (a
    // dump with its writer's index) never stalls the window; the scan's end takes the rest,
    // slice by slice, before it says it is done, so the files and statistics always come
    // before dumpLoaded, in round order.
    auto handover = std::make_shared<dumpscan::RoundHandover>();
    // The rounds taken are freed on the pool's threads: a round's records are copied into the
    // document, and freeing 600 of them took the GUI thread as long as the copy.
    auto takeSlice = [self, gen, handover, sliceMs = m_takeSliceMs,
                      pool = m_pool] { // true when nothing is left to take
        QElapsedTimer slice;
        slice.start();
        std::vector<DumpRounds::Chunk> taken;
        const auto done = [&](bool all) {
            if (!taken.empty()) {
                auto freed = std::make_shared<std::vector<DumpRounds::Chunk>>(std::move(taken));
                pool->start([freed = std::move(freed)] { freed->clear(); });
            }
            return all;
        };
        while (auto round = handover->takeOne()) {
            if (!self || !self->m_job->isCurrent(gen))
                return done(true);
            self->m_doc->addRounds(*round);
            taken.push_back(std::move(*round));
            if (slice.elapsed() >= sliceMs)
                return done(false);
        }
        return done(true);
    };
    auto take = std::make_shared<std::function<void()>>();
    *take = [takeSlice, again = std::weak_ptr<std::function<void()>>(take)] {
        if (!takeSlice())
            if (const auto next = again.lock())
                QMetaObject::invokeMethod(qApp, *next, Qt::QueuedConnection);
    };
    auto report = m_job->reporter(gen);
    auto future =
        QtConcurrent::run(m_pool, [path, handover, take, report, cancelled = run.cancelled, withStats, early] {
            return dumpscan::scanRounds(
                path, *handover, withStats && early, withStats && !early,
                [take] { QMetaObject::invokeMethod(qApp, *take, Qt::QueuedConnection); },
                [report](uint64_t done, uint64_t total) { report(qint64(done), qint64(total), {}); }, *cancelled);
        });
    dumpscan::Outcome scan = co_await future;
    while (!takeSlice()) // the rounds not taken yet
        co_await QCoro::sleepFor(std::chrono::milliseconds(0));
    if (!current())
        co_return false; // a newer scan, or another source, owns what is shown
    if (!scan.error.isEmpty()) {
        m_job->end(gen, false, scan.error);
        emit status(tr("Could not open %1").arg(folder), 0);
        emit dumpFailed(folder, scan.error);
        co_return false;
    }
    if (scan.topology) {
        OpGraph graph(*scan.topology);
        graph.markFused(fused);
        m_doc->setGraph(std::move(graph));
        emit topologyRead(operations(*m_doc->graph()));
        m_doc->addRounds({{}, std::move(scan.stats), {}});
    }
    if (!scan.requests.empty())
        m_doc->addRounds({{}, {}, std::move(scan.requests)});
    const QString summary = tr("%n tensor(s) in %1 round(s)", nullptr, scan.tensors).arg(scan.rounds) +
        (scan.problems ? tr("; %n file(s) could not be read", nullptr, scan.problems) : QString());
    m_job->end(gen, true, summary);
    emit status(summary, 0);
    // Which files, and why: a damaged copy, a hostile file, another tool's layout.
    for (const QString &line : scan.problemLines)
        emit said(tr("cannot read %1").arg(line), ConsoleTone::Warning);
    if (size_t(scan.problems) > scan.problemLines.size())
        emit said(tr("...and %1 more files that could not be read ('llmscope info %2' lists them all)")
                      .arg(size_t(scan.problems) - scan.problemLines.size())
                      .arg(folder),
                  ConsoleTone::Warning);
    emit dumpLoaded(folder, scan.tensors, scan.rounds, scan.problems);
    co_return true;
}
