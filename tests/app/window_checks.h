// What the window suites look at on screen, shared.
#pragma once
#include <QImage>
#include <QWidget>

namespace testing {

// Dark pixels (text) in the top rows of w as drawn: a label whose first line is in view
// has some; one centred below an empty band has none.
inline int inkAtTop(QWidget *w, int rows = 14)
{
    const QImage top = w->grab(QRect(0, 0, w->width(), rows)).toImage();
    int ink = 0;
    for (int y = 0; y < top.height(); ++y)
        for (int x = 0; x < top.width(); ++x)
            ink += qGray(top.pixel(x, y)) < 100;
    return ink;
}

} // namespace testing
