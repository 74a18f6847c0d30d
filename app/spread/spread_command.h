// `llmscope spread --run "CMD" [--run "CMD" ...] [--vary "FLAG V1,V2"] [--repeat N] [-o DIR]
// [-er RANGES]`: one prompt run several times side by side (the same program N times, thread
// counts, batch sizes, devices, flash attention on and off), each run dumped, every two runs
// compared op by op, and the first op where they part named with the run that departs.
#pragma once
#include <QStringList>

int runSpreadCommand(const QStringList &args);
