// `llmscope quant-report --golden "CMD" --test "CMD" -o DIR`: what a quantized model loses
// against its F32 golden, weight by weight, and which weights to keep in a higher type for a
// size budget (quant/quant_report.h).
#pragma once
#include <QStringList>

int runQuantReportCommand(const QStringList &args);
