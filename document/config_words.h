// What differs between two runs' configurations (config/run_config.h), in the window's
// language: "3 of 64 settings differ: environment 1 (GGML_VK_VISIBLE_DEVICES); run 2
// (command, CPU threads)". The names core gives settings are said in that language too; variables
// and libraries keep their own.
#pragma once
#include <QString>

#include "core/config/run_config.h"

QString configDiffWords(const llmscope::ConfigDiff &d);
