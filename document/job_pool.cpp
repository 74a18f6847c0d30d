#include "document/job_pool.h"

#include <QThread>
#include <QThreadPool>

#include <algorithm>

namespace {
struct JobPool : QThreadPool {
    JobPool()
    {
        setObjectName("llmscope jobs");
        setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
    }
};
Q_GLOBAL_STATIC(JobPool, pool)
} // namespace

QThreadPool *jobPool()
{
    return pool();
}
