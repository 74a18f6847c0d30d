// What the window suites look at on screen, shared.
#pragma once
#include <QAbstractItemModel>
#include <QChart>
#include <QChartView>
#include <QFontMetrics>
#include <QLegend>
#include <QLegendMarker>
#include <QImage>
#include <QStringList>
#include <QWidget>

#include <functional>

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

// The leaves a tree view's model shows (the operations, not their groups), as role gives them.
inline QStringList shownLeaves(const QAbstractItemModel &m, int role = Qt::DisplayRole)
{
    QStringList leaves;
    std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
        for (int r = 0; r < m.rowCount(parent); ++r) {
            const QModelIndex i = m.index(r, 0, parent);
            if (!m.hasChildren(i))
                leaves << i.data(role).toString();
            walk(i);
        }
    };
    walk({});
    return leaves;
}

// A chart's legend names cut short, as Qt laid it out ("rou..." below the plot, "r" beside it):
// the names whose marker and text are wider than their share of the legend. None when it is hidden.
inline QStringList cutLegendNames(QChart *chart)
{
    QStringList cut;
    QLegend *legend = chart->legend();
    if (!legend->isVisible())
        return cut;
    const QFontMetrics fm(legend->font());
    const auto markers = legend->markers();
    const bool row = legend->alignment() & (Qt::AlignTop | Qt::AlignBottom);
    const double share =
        row ? legend->geometry().width() / std::max<qsizetype>(1, markers.size()) : legend->geometry().width();
    for (QLegendMarker *m : markers)
        if (fm.horizontalAdvance(m->label()) + fm.height() > share)
            cut << m->label();
    return cut;
}

} // namespace testing
