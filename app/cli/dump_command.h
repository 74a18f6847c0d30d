// `llmscope dump`: runs the target with the probe preloaded, then says what the dump holds.
#pragma once
#include <QStringList>

int runDumpCommand(const QStringList &args);
