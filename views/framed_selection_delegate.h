// A selected cell keeps its own colour and is framed instead of filled: in the element tables
// the worst value is the one selected, and the selection's blue read as "passed" (the heatmap's
// blue) over the cell's red.
#pragma once
#include <QPainter>
#include <QStyledItemDelegate>

class FramedSelectionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *p, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem o(option);
        const bool selected = o.state & QStyle::State_Selected;
        o.state &= ~QStyle::State_Selected;
        QStyledItemDelegate::paint(p, o, index);
        if (!selected)
            return;
        p->save();
        p->setPen(QPen(option.palette.color(QPalette::Highlight), 2));
        p->setBrush(Qt::NoBrush);
        p->drawRect(QRectF(option.rect).adjusted(1, 1, -1, -1));
        p->restore();
    }
};
