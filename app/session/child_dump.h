// A dump pass run as a child `llmscope dump` (this same program), for the command line and the
// window alike: asynchronous (the caller's event loop goes on while it runs), the child's stderr
// kept and passed on line by line as it comes, stopped when its caller cancels. Its own timeout is
// the dump's (--timeout among the options: the child keeps it).
#pragma once
#include <QString>
#include <QStringList>

#include <QCoroTask>

#include <exception>
#include <functional>
#include <utility>
#include <string>

#include "core/util/error.h"

struct ChildDump {
    QString program; // llmscope: /proc/self/exe where empty
    QString command; // the program run under the probe, a command line
    QStringList options; // `llmscope dump` options but --exec and -o
    QString out; // the pass's folder, made afresh
    std::function<bool()> cancelled; // checked before it starts and while it runs
    std::function<void(const QString &line)> line; // each line the child writes to stderr
};

// How a child dump failed: the fields the command line and the window word in their own ways.
struct ChildDumpFailed : llmscope::Error {
    enum class Kind { NotStarted, Crashed, Failed, NoDump } kind;
    QString said; // the child's stderr, trimmed (NotStarted: why it could not start)
    int status = -1; // Failed: the target's exit status where llmscope dump said it, else -1
    QString lastWords; // Failed: the target's own last error line before that, else empty
    ChildDumpFailed(Kind k, QString s, const std::string &what);
};
struct ChildDumpCancelled {};

// The dump folder written under out; throws ChildDumpFailed, or ChildDumpCancelled once cancelled
// (the child killed first and waited for).
QCoro::Task<QString> runChildDump(ChildDump d);

// The same, never throwing: the dump folder, or what it threw. For QCoro::waitFor, which an
// exception thrown through it leaves waiting for ever.
QCoro::Task<std::pair<QString, std::exception_ptr>> runChildDumpCaught(ChildDump d);
