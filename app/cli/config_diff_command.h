// `llmscope config-diff A B`: what differs between two runs' configurations (environment,
// libraries and drivers, hardware, the command and its threads, the model files), read from
// what the probe recorded beside each dump; as text, JSON and xlsx.
#pragma once
#include <QStringList>

int runConfigDiffCommand(const QStringList &args);
