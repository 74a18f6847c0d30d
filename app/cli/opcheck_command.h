// `llmscope opcheck -i DUMP`: msit llm opcheck's replay of each dumped op against a float64
// reference, its report as .xlsx, .csv and .json, and a summary with the coverage.
#pragma once
#include <QStringList>

int runOpcheckCommand(const QStringList &args);
