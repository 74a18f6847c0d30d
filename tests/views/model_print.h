// An item model printed as an indented tree, one row a line, the given columns' display text
// joined by " | ": a model's whole shape and content compared in one assertion, as a reader
// would see it, without a widget.
#pragma once
#include <QAbstractItemModel>
#include <QStringList>

#include <functional>

namespace testing {

inline QString printModel(const QAbstractItemModel &m, const QList<int> &columns)
{
    QStringList lines;
    std::function<void(const QModelIndex &, int)> walk = [&](const QModelIndex &parent, int depth) {
        for (int r = 0; r < m.rowCount(parent); ++r) {
            QStringList cells;
            for (int c : columns)
                cells << m.index(r, c, parent).data().toString();
            while (!cells.isEmpty() && cells.last().isEmpty())
                cells.removeLast();
            lines << QString(depth * 2, QLatin1Char(' ')) + cells.join(QStringLiteral(" | "));
            walk(m.index(r, 0, parent), depth + 1);
        }
    };
    walk({}, 0);
    return lines.join(QLatin1Char('\n'));
}

} // namespace testing
