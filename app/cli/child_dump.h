// Runs `llmscope dump` (this same program) as a child for commands that dump two programs in
// turn (hunt, quant-report): waits for it and returns the dump folder it made, or throws Error
// with the child's own words.
#pragma once
#include <QString>
#include <QStringList>

QString runChildDump(const QString &cmd, const QStringList &options, const QString &out);
