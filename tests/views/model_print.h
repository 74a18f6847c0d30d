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

// A table model printed as a reader sees it: the column headers, then each row (under its
// own header, where the model gives rows one), the cells' display text joined by " | ".
inline QString printTable(const QAbstractItemModel &m)
{
    bool rowHeaders = false;
    for (int r = 0; r < m.rowCount(); ++r)
        rowHeaders = rowHeaders || !m.headerData(r, Qt::Vertical).toString().isEmpty();
    QStringList lines, header;
    if (rowHeaders)
        header << QString();
    for (int c = 0; c < m.columnCount(); ++c)
        header << m.headerData(c, Qt::Horizontal).toString();
    lines << header.join(QStringLiteral(" | "));
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cells;
        if (rowHeaders)
            cells << m.headerData(r, Qt::Vertical).toString();
        for (int c = 0; c < m.columnCount(); ++c)
            cells << m.index(r, c).data().toString();
        lines << cells.join(QStringLiteral(" | "));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace testing
