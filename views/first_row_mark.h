// How a table marks the row it opens on (a comparison's first divergent op, a spread's first
// departure): bold, on amber, alike in every table.
#pragma once
#include <QBrush>
#include <QColor>
#include <QFont>
#include <QVariant>

inline QVariant firstRowMark(int role)
{
    if (role == Qt::BackgroundRole)
        return QBrush(QColor(255, 214, 80));
    if (role == Qt::FontRole) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}
