// A word-wrapped label's height for its width. Layouts inside a QSplitter or a QTabWidget
// size a label by its size hint, which fits long text (or Chinese, which wraps anywhere) on
// too few lines; called on resize and after setText, it keeps every line in view.
#pragma once
#include <QLabel>

#include <algorithm>

inline void fitLabelHeight(QLabel *label)
{
    label->setMinimumHeight(std::max(0, label->heightForWidth(std::max(100, label->width())))); // -1: no text
}
