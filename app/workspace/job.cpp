#include "app/workspace/job.h"

#include <QCoreApplication>

Job::Job(Kind kind, QString title, QObject *parent) : QObject(parent), m_kind(kind), m_title(std::move(title)) {}

Job::~Job()
{
    if (m_cancelled)
        m_cancelled->store(true); // nobody is left to take its results: its worker stops
}

Job::Run Job::begin(const QString &what)
{
    if (m_cancelled)
        m_cancelled->store(true); // the run before: its results are no longer wanted
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    ++m_generation;
    m_running = true;
    emit started(what);
    return {m_generation, m_cancelled};
}

void Job::setProgress(qint64 done, qint64 total, const QString &what)
{
    if (m_running)
        emit progressed(done, total, what);
}

std::function<void(qint64, qint64, const QString &)> Job::reporter(uint64_t generation)
{
    QPointer<Job> self(this);
    return [self, generation](qint64 done, qint64 total, const QString &what) {
        QMetaObject::invokeMethod(qApp, [self, generation, done, total, what] {
            if (self && self->isCurrent(generation))
                self->setProgress(done, total, what);
        });
    };
}

void Job::end(uint64_t generation, bool ok, const QString &message)
{
    if (!isCurrent(generation) || !m_running)
        return;
    m_running = false;
    m_cancelled.reset();
    emit finished(ok, message);
}

void Job::abandon(const QString &message)
{
    if (!m_running)
        return;
    if (m_cancelled)
        m_cancelled->store(true);
    emit cancelRequested();
    ++m_generation; // its late results are no longer current
    m_running = false;
    m_cancelled.reset();
    emit finished(false, message);
}

void Job::cancel()
{
    if (!m_running)
        return;
    if (m_cancelled)
        m_cancelled->store(true);
    emit cancelRequested();
}
