// `llmscope hunt --golden "CMD" --test "CMD" -o DIR`: finds the first operation where a test
// program departs from a golden one, in two passes, saying at each step what it does and why:
// statistics of every operation in both runs, the first divergent operation from them, then
// both runs again dumping that operation's full tensors only, compared element by element.
#pragma once
#include <QStringList>

int runHuntCommand(const QStringList &args);
