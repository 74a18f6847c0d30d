// Core's reasons in the window's language: each finding's English pattern translated (context
// "Reason", marked in core/text/reason.cpp) and filled with its values, worded in turn.
#pragma once
#include <QString>

#include "text/reason.h"

QString reasonWords(const llmscope::Finding &f);
QString reasonWords(const llmscope::Reason &r); // findings joined by "; " ("；" in Chinese)
