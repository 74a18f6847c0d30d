#include "document/layer_words.h"

#include <QCoreApplication>
#include <QRegularExpression>

QString layerWords(const std::string &nodeName)
{
    // the name llama.cpp gave it, then what the probe adds: " (view)", " (permuted)", ...
    static const QRegularExpression layer(QStringLiteral("^[A-Za-z_][\\w.]*-(\\d+)(?: \\(.*\\))?$"));
    const auto m = layer.match(QString::fromStdString(nodeName));
    if (!m.hasMatch())
        return {};
    return QCoreApplication::translate("LayerWords", "layer %1 (blk.%1)").arg(m.captured(1));
}

int llamaLayerOf(const QString &groupName)
{
    static const QRegularExpression layer(QStringLiteral("^Layer(\\d+)$"));
    const auto m = layer.match(groupName);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QString layerLabel(const QString &groupName)
{
    const int n = llamaLayerOf(groupName);
    return n < 0 ? groupName : QCoreApplication::translate("LayerLabel", "%1 (blk.%2)").arg(groupName).arg(n);
}
