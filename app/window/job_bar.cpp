#include "app/window/job_bar.h"

#include <QHBoxLayout>
#include <QMetaEnum>
#include <QProgressBar>
#include <QPushButton>

#include "app/workspace/job.h"

JobBar::JobBar(Job *job, QWidget *parent)
    : QWidget(parent), m_job(job), m_progress(new QProgressBar(this)), m_cancel(new QPushButton(tr("Cancel"), this))
{
    const QString kind = QString::fromLatin1(QMetaEnum::fromType<Job::Kind>().valueToKey(int(job->kind())));
    setObjectName(QStringLiteral("JobBar") + kind); // tests and screenshots find each job's own
    m_cancel->setObjectName(QStringLiteral("Cancel") + kind);
    m_cancel->setToolTip(tr("Cancel the %1").arg(job->title()));
    m_progress->setFixedWidth(220);
    m_cancel->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_progress);
    row->addWidget(m_cancel);
    hide();
    connect(m_cancel, &QPushButton::clicked, job, &Job::cancel);
    connect(job, &Job::started, this, [this] {
        showProgress(0, 0);
        setVisible(true);
    });
    connect(job, &Job::progressed, this,
            [this](qint64 done, qint64 total, const QString &) { showProgress(done, total); });
    connect(job, &Job::finished, this, [this] { hide(); });
}

void JobBar::showProgress(qint64 done, qint64 total)
{
    const bool steps = m_job->kind() == Job::Kind::Hunt || m_job->kind() == Job::Kind::Report;
    // Large counts (files, tensors) scaled into the bar's int range.
    const int scale = total > (1 << 30) ? int(total >> 30) + 1 : 1;
    m_progress->setRange(0, int(total / scale));
    m_progress->setValue(int(done / scale));
    m_progress->setFormat(steps && total > 0 ? tr("%1: step %2 of %3").arg(m_job->title()).arg(done + 1).arg(total)
                                             : tr("%1: %p%").arg(m_job->title()));
}
