#include "quant_report_action.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <QCoroProcess>

#include <csignal>
#include <unistd.h>

#include "launch/dump_options.h"
#include "util/error.h"

using namespace llmscope;

QuantReportAction::QuantReportAction(QObject *parent)
    : QObject(parent), m_program(QCoreApplication::applicationFilePath())
{
}

void QuantReportAction::readErrors()
{
    if (!m_process)
        return;
    m_pending += m_process->readAllStandardError();
    static const QRegularExpression step(QStringLiteral("^llmscope quant-report: step (\\d) of \\d: (.*)$"));
    for (qsizetype nl; (nl = m_pending.indexOf('\n')) >= 0;) {
        const QString line = QString::fromUtf8(m_pending.left(nl));
        m_pending.remove(0, nl + 1);
        m_said << line;
        const auto m = step.match(line);
        if (m.hasMatch())
            emit stepStarted(m.captured(1).toInt(), m.captured(2));
    }
}

QCoro::Task<bool> QuantReportAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget)
{
    if (m_process)
        co_return false;
    m_report.reset();
    m_said.clear();
    m_pending.clear();
    m_cancelled = false;
    m_folder = QDir(folder).absolutePath();
    if (golden.settings.workingDirectory != test.settings.workingDirectory ||
        golden.settings.environment != test.settings.environment || golden.settings.unset != test.settings.unset) {
        emit finished(false, tr("golden and test must run in the same folder with the same environment for a "
                                "quantization report (they differ): launch them by their command lines"));
        co_return false;
    }
    QStringList args{"quant-report",
                     "--golden", QString::fromStdString(joinCommand(golden.command)),
                     "--test", QString::fromStdString(joinCommand(test.command)),
                     "-o", m_folder};
    if (!rounds.isEmpty())
        args << "-er" << rounds;
    if (!budget.isEmpty())
        args << "--budget" << budget;
    QProcess *p = new QProcess(this);
    m_process = p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = golden.settings.environment.begin(); it != golden.settings.environment.end(); ++it)
        env.insert(it.key(), it.value());
    for (const QString &u : golden.settings.unset)
        env.remove(u);
    p->setProcessEnvironment(env);
    if (!golden.settings.workingDirectory.isEmpty())
        p->setWorkingDirectory(golden.settings.workingDirectory);
    // Its own process group: Cancel stops it and the programs it runs, all at once.
    p->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(p, &QProcess::readyReadStandardError, this, &QuantReportAction::readErrors);
    p->start(m_program, args);
    const bool started = co_await qCoro(p).waitForStarted(-1);
    bool ok = false;
    QString message;
    if (!started) {
        message = tr("cannot run %1: %2").arg(m_program, p->errorString());
    } else {
        co_await qCoro(p).waitForFinished(-1);
        readErrors();
        if (m_cancelled) {
            message = tr("quantization report cancelled");
        } else if (p->exitStatus() != QProcess::NormalExit || p->exitCode() != 0) {
            message = tr("the quantization report could not be made:\n%1").arg(m_said.join(QLatin1Char('\n')));
        } else {
            try {
                QFile f(m_folder + QStringLiteral("/quant_report.json"));
                if (!f.open(QIODevice::ReadOnly))
                    throw Error(tr("%1 was not written").arg(f.fileName()).toStdString());
                m_report = parseQuantReport(f.readAll().toStdString());
                ok = true;
                message = tr("quantization report: KL divergence %1, top-1 agreement %2 %; %3 weights ranked, in %4")
                              .arg(m_report->meanKl, 0, 'g', 3)
                              .arg(m_report->top1 * 100, 0, 'g', 3)
                              .arg(m_report->weights.size())
                              .arg(m_folder);
            } catch (const Error &e) {
                message = QString::fromUtf8(e.what());
            }
        }
    }
    p->deleteLater();
    m_process = nullptr;
    emit finished(ok, message);
    co_return ok;
}

void QuantReportAction::cancel()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    m_cancelled = true;
    const qint64 pid = m_process->processId();
    if (pid > 0)
        ::kill(-pid_t(pid), SIGKILL); // the group: quant-report, its dumps and their programs
    m_process->kill();
}
