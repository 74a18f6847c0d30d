// Core's reasons in the window's language: each finding's English pattern translated (context
// "Reason", marked in core/text/reason.cpp) and filled with its values, worded in turn.
#pragma once
#include <QString>

#include <exception>

#include "core/text/reason.h"

QString reasonWords(const llmscope::Finding &f);
QString reasonWords(const llmscope::Reason &r); // findings joined by "; " ("；" in Chinese)
// An exception's message in the window's language where core gave its reason
// (text/reason_error.h), else as it came.
QString errorWords(const std::exception &e);
