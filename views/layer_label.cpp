#include "layer_label.h"

#include <QCoreApplication>
#include <QRegularExpression>

int llamaLayerOf(const QString &name)
{
    static const QRegularExpression layer(QStringLiteral("^Layer(\\d+)$"));
    const auto m = layer.match(name);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QString layerLabel(const QString &name)
{
    const int n = llamaLayerOf(name);
    return n < 0 ? name : QCoreApplication::translate("LayerLabel", "%1 (blk.%2)").arg(name).arg(n);
}
