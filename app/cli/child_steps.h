// The steps of commands that dump two programs in turn (hunt, quant-report) as the command
// line runs them: each side a child `llmscope dump` (session/child_dump.h), its dump folder
// returned or its own words thrown as an Error; the two dumps compared here.
#pragma once
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <QCoroTask>

#include <functional>
#include <optional>

#include "app/hunt/hunt_runner.h"
#include "app/session/child_dump.h"
#include "core/compare/precision_standard.h"

// golden's and test's command lines dumped by runChildDump, compared by standard (the
// engine's when unset); say gets every line.
hunt::Steps childSteps(QString golden, QString test, std::optional<llmscope::Standard> standard,
                       std::function<void(const QString &text, int step)> say);

// A runner on such steps, run to its end inside waitFor (which a task that throws would leave
// waiting: the runners catch what their steps throw). start makes the runner's task once a
// QCoreApplication is there (made for it when there is none): a task runs from its making, its
// child processes with it.
template <typename Start>
auto runToEnd(Start start)
{
    int argc = 1;
    char name[] = "llmscope";
    char *argv[] = {name, nullptr};
    std::optional<QCoreApplication> app;
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    return QCoro::waitFor(start());
}
