// `llmscope compare --golden-path A --my-path B`: msit llm compare's report, and a summary
// that names the first divergent operation.
#pragma once
#include <QStringList>

int runCompareCommand(const QStringList &args);
