#include "app/session/child_dump.h"

#include <QCoreApplication>
#include <QDir>
#include <QFuture>
#include <QPromise>
#include <QTimer>
#include <QProcess>
#include <QRegularExpression>

#include <QCoroFuture>

#include <chrono>
#include <memory>

#include "app/session/last_error_line.h"
#include "core/dump/dump_layout.h"

using namespace std::chrono_literals;

ChildDumpFailed::ChildDumpFailed(Kind k, QString s, const std::string &what)
    : llmscope::Error(what), kind(k), said(std::move(s))
{
}

namespace {

// From a failed `llmscope dump`'s stderr: the status its target exited with ("the target exited
// with status N") and the target's own last line before it (-1 and empty where it did not say).
std::pair<int, QString> failedProgram(const QString &said)
{
    static const QRegularExpression exited(QStringLiteral("^llmscope dump: the target exited with status (\\d+)"));
    const QStringList lines = said.split(QLatin1Char('\n'));
    for (qsizetype i = lines.size() - 1; i >= 0; --i)
        if (const auto m = exited.match(lines[i]); m.hasMatch())
            return {m.captured(1).toInt(), lastErrorLine(lines.mid(0, i))};
    return {-1, QString()};
}

} // namespace

QCoro::Task<QString> runChildDump(ChildDump d)
{
    const auto cancelled = [&d] { return d.cancelled && d.cancelled(); };
    if (cancelled())
        throw ChildDumpCancelled{};
    QDir(d.out).removeRecursively(); // this pass's dump, made afresh
    const QString program = d.program.isEmpty() ? QStringLiteral("/proc/self/exe") : d.program;
    QByteArray bytes, partial; // before the process: it may still speak while it is destroyed
    bool stopping = false; // a cancel asked the child to stop
    QPromise<void> ended; // the child finished, or never started
    auto p = std::make_unique<QProcess>();
    p->setProcessChannelMode(QProcess::SeparateChannels);
    // each whole line decoded once (a character split between two reads stays whole)
    auto take = [&bytes, &partial, &d](const QByteArray &more) {
        bytes += more;
        partial += more;
        qsizetype nl;
        while ((nl = partial.indexOf('\n')) >= 0) {
            QByteArray line = partial.left(nl);
            if (line.endsWith('\r'))
                line.chop(1);
            if (d.line)
                d.line(QString::fromLocal8Bit(line));
            partial.remove(0, nl + 1);
        }
    };
    QObject::connect(p.get(), &QProcess::readyReadStandardError, p.get(),
                     [&take, proc = p.get()] { take(proc->readAllStandardError()); });
    // One wait for the end, awaited once: QCoro 0.8's timed waits leave their connection to
    // QProcess::finished behind when they time out, which the end then calls on a freed
    // awaiter. A failed start emits no finished: its error ends the wait too.
    ended.start();
    const QFuture<void> done = ended.future();
    QObject::connect(p.get(), &QProcess::finished, p.get(), [&ended] { ended.finish(); });
    QObject::connect(p.get(), &QProcess::errorOccurred, p.get(), [&ended](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            ended.finish();
    });
    // A cancel reaches the child within a tenth of a second: asked to stop (SIGTERM), `llmscope
    // dump` stops its target and waits for it before it ends; killed if it has not in 15 s.
    auto *watch = new QTimer(p.get());
    QObject::connect(watch, &QTimer::timeout, p.get(), [&stopping, &cancelled, proc = p.get()] {
        if (stopping || !cancelled())
            return;
        stopping = true;
        proc->terminate();
        QTimer::singleShot(15s, proc, [proc] { proc->kill(); });
    });
    watch->start(100ms);
    // the application quitting while the dump runs (the window closed): the child and its
    // target stop with it rather than outlive it
    if (QCoreApplication::instance())
        QObject::connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, p.get(), [proc = p.get()] {
            proc->terminate();
            if (!proc->waitForFinished(15000))
                proc->kill();
        });
    p->start(program, QStringList{"dump", "--exec", d.command} + d.options + QStringList{"-o", d.out});
    co_await done;
    watch->stop();
    if (stopping)
        throw ChildDumpCancelled{};
    take(p->readAllStandardError());
    if (d.line && !partial.isEmpty())
        d.line(QString::fromLocal8Bit(partial));
    const QString said = QString::fromLocal8Bit(bytes).trimmed();
    if (cancelled())
        throw ChildDumpCancelled{};
    const std::string cmd = d.command.toStdString();
    if (p->error() == QProcess::FailedToStart)
        throw ChildDumpFailed(ChildDumpFailed::Kind::NotStarted, p->errorString(),
                              "could not start " + program.toStdString() + ": " + p->errorString().toStdString());
    if (p->exitStatus() != QProcess::NormalExit)
        throw ChildDumpFailed(ChildDumpFailed::Kind::Crashed, said,
                              "llmscope dump of '" + cmd + "' crashed:\n" + said.toStdString());
    if (p->exitCode() != 0) {
        ChildDumpFailed f(ChildDumpFailed::Kind::Failed, said,
                          "llmscope dump of '" + cmd + "' failed:\n" + said.toStdString());
        std::tie(f.status, f.lastWords) = failedProgram(said);
        throw f;
    }
    const auto dumps = llmscope::dumpsInside(QDir(d.out).absolutePath().toStdString());
    if (dumps.empty())
        throw ChildDumpFailed(ChildDumpFailed::Kind::NoDump, said,
                              "llmscope dump wrote no dump folder under " + d.out.toStdString());
    co_return QString::fromStdString(dumps.front());
}

QCoro::Task<std::pair<QString, std::exception_ptr>> runChildDumpCaught(ChildDump d)
{
    try {
        co_return {co_await runChildDump(std::move(d)), nullptr};
    } catch (...) {
        co_return {QString(), std::current_exception()};
    }
}
