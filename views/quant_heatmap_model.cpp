#include "views/quant_heatmap_model.h"

#include <QFont>

#include <algorithm>
#include <cmath>

using namespace llmscope;

namespace {
// The order a llama block computes them in; other kinds follow, then the model's own.
const QStringList kOrder{"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
} // namespace

QuantHeatmapModel::QuantHeatmapModel(QObject *parent) : QAbstractTableModel(parent) {}

void QuantHeatmapModel::setReport(std::shared_ptr<const QuantReport> report)
{
    beginResetModel();
    m_report = report ? std::move(report) : std::make_shared<const QuantReport>();
    m_kinds.clear();
    m_layers = 0;
    m_maxShare = 0;
    QStringList other, own;
    for (const auto &w : m_report->weights) {
        const QString kind = QString::fromStdString(w.kind);
        m_layers = std::max(m_layers, w.layer + 1);
        QStringList &list = w.layer < 0 ? own : other;
        if (!kOrder.contains(kind) && !list.contains(kind))
            list << kind;
        if (std::isfinite(w.share))
            m_maxShare = std::max(m_maxShare, w.share);
    }
    for (const QString &k : kOrder)
        for (const auto &w : m_report->weights)
            if (w.layer >= 0 && QString::fromStdString(w.kind) == k) {
                m_kinds << k;
                break;
            }
    m_kinds << other << own;
    m_cell.assign(size_t(m_kinds.size()), std::vector<int>(size_t(m_layers + 1), -1));
    for (size_t i = 0; i < m_report->weights.size(); ++i) {
        const auto &w = m_report->weights[i];
        const int row = int(m_kinds.indexOf(QString::fromStdString(w.kind)));
        const int col = w.layer < 0 ? m_layers : w.layer;
        if (row >= 0)
            m_cell[size_t(row)][size_t(col)] = int(i);
    }
    endResetModel();
}

int QuantHeatmapModel::weightAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.row() >= int(m_cell.size()) || index.column() > m_layers)
        return -1;
    return m_cell[size_t(index.row())][size_t(index.column())];
}

QModelIndex QuantHeatmapModel::indexOf(const std::string &name) const
{
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c) {
            const int w = m_cell[size_t(r)][size_t(c)];
            if (w >= 0 && m_report->weights[size_t(w)].name == name)
                return index(r, c);
        }
    return {};
}

QColor QuantHeatmapModel::colourFor(double share, double maxShare)
{
    if (!std::isfinite(share))
        return QColor(0xd0, 0xd0, 0xd0);
    const double t = maxShare > 0 ? std::clamp(std::sqrt(share / maxShare), 0.0, 1.0) : 0; // small shares stay visible
    // White through amber to deep red.
    const int r = int(255 - 55 * t), g = int(255 - 215 * t), b = int(255 - 235 * t);
    return QColor(r, g, b);
}

int QuantHeatmapModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_kinds.size());
}

int QuantHeatmapModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_kinds.isEmpty() ? 0 : m_layers + 1;
}

QVariant QuantHeatmapModel::data(const QModelIndex &index, int role) const
{
    const int i = weightAt(index);
    if (i < 0)
        return role == Qt::BackgroundRole ? QVariant(QColor(0xf4, 0xf4, 0xf4)) : QVariant();
    const WeightCost &w = m_report->weights[size_t(i)];
    switch (role) {
    case Qt::DisplayRole: return QString::number(w.share * 100, 'f', 1);
    case Qt::BackgroundRole: return colourFor(w.share, m_maxShare);
    case Qt::ForegroundRole:
        return colourFor(w.share, m_maxShare).lightness() < 120 ? QColor(Qt::white) : QColor(Qt::black);
    case Qt::FontRole: {
        QFont f;
        f.setBold(w.chosen);
        return f;
    }
    case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
    case Qt::ToolTipRole:
        return tr("%1 (%2)\nshare of the logits' error: %3 %\nquantization error: %4 %, as %5: %6 %\n"
                  "its op %7 adds NMSE %8\n%9 bytes, %10 as %5%11")
            .arg(QString::fromStdString(w.name), QString::fromStdString(w.myType))
            .arg(w.share * 100, 0, 'g', 3)
            .arg(w.quantError * 100, 0, 'g', 3)
            .arg(QString::fromStdString(w.keepType))
            .arg(w.keepError * 100, 0, 'g', 3)
            .arg(QString::fromStdString(w.op))
            .arg(w.addedNmse, 0, 'g', 3)
            .arg(w.myBytes)
            .arg(w.keepBytes)
            .arg(w.chosen ? tr("\nchosen to keep higher (tensor-types.txt)") : QString());
    case WeightIndexRole: return i;
    case ShareRole: return w.share;
    case ChosenRole: return w.chosen;
    default: return {};
    }
}

QVariant QuantHeatmapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section < m_kinds.size() ? m_kinds[section] : QVariant();
    return section < m_layers ? tr("layer %1").arg(section) : tr("model");
}
