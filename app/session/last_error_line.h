// What a failed program said last on its stderr ("cannot load model ..."), told apart from what
// llmscope adds there (the probe's "[llmscope] ..." lines, `llmscope dump:` lines): the live
// session's end and a spread run's failure both lead with it.
#pragma once
#include <QString>
#include <QStringList>

// The last line of lines, in order, that is the program's own and not empty; trimmed, at most 300
// characters. Empty where there is none.
QString lastErrorLine(const QStringList &lines);
