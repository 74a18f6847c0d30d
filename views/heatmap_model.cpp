#include "heatmap_model.h"

#include "select/op_id.h"
#include <QBrush>
#include <QFont>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>

using namespace llmscope;

namespace {

// "ffn_out-2" -> "ffn_out", "Qcur-2 (view)" -> "Qcur (view)", "cache_k_l2 (view)" ->
// "cache_k (view)": the kind of node, the same in every layer.
QString kindOf(const QString &name)
{
    static const QRegularExpression layer(QStringLiteral("(-|_l)\\d+(?=( \\(|$))"));
    QString k = name;
    k.remove(layer);
    return k.isEmpty() ? name : k;
}

// A perceptual ramp from dark blue through green to yellow (viridis' ends and middle).
QColor ramp(double t)
{
    static const QColor stops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140), QColor(94, 201, 98),
                                   QColor(253, 231, 37)};
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor(int(a.red() + (b.red() - a.red()) * f), int(a.green() + (b.green() - a.green()) * f),
                  int(a.blue() + (b.blue() - a.blue()) * f));
}

} // namespace

HeatmapModel::HeatmapModel(QObject *parent) : QAbstractTableModel(parent) {}

void HeatmapModel::clear()
{
    beginResetModel();
    m_rowNames.clear();
    m_kinds.clear();
    m_cellOp.clear();
    m_where.clear();
    m_stats.clear();
    m_diff.clear();
    m_rounds.clear();
    m_firstOp.clear();
    m_firstRound = -1;
    m_round = -1;
    m_lo = m_hi = 0;
    endResetModel();
    emit roundsChanged();
}

void HeatmapModel::setOps(const std::vector<live::TopoOp> &groups, const std::vector<live::TopoOp> &ops)
{
    beginResetModel();
    m_rowNames.clear();
    m_kinds.clear();
    m_kindNodes.clear();
    m_cellOp.clear();
    m_where.clear();
    QHash<QString, int> rowOf;
    for (const auto &g : groups) {
        rowOf.insert(QString::fromStdString(g.id), int(m_rowNames.size()));
        m_rowNames << QString::fromStdString(g.name);
    }
    m_cellOp.assign(size_t(m_rowNames.size()), {});
    // A layer's nodes of one kind ("Qcur") are told apart by their op type ("Qcur (ROPE)"),
    // and those of one kind and type by their order ("norm (2nd)"): the same in every layer.
    struct Seen {
        QHash<QString, int> perKind;           // kind -> nodes of it in the row
        QHash<QString, QSet<QString>> types;   // kind -> op types among them
        QHash<QString, int> perKindType;       // "kind\ttype" -> nodes so far
    };
    std::vector<Seen> seen(size_t(m_rowNames.size()));
    auto rowOfOp = [&](const live::TopoOp &o) {
        const auto r = rowOf.find(QString::fromStdString(std::string(opGroup(o.id))));
        return r == rowOf.end() ? -1 : *r;
    };
    for (const auto &o : ops)
        if (const int r = rowOfOp(o); r >= 0) {
            const QString base = kindOf(QString::fromStdString(o.name));
            ++seen[size_t(r)].perKind[base];
            seen[size_t(r)].types[base].insert(QString::fromStdString(o.type));
        }
    static const char *const kOrdinals[] = {"", "", "2nd", "3rd"};
    auto ordinal = [](int n) {
        return n < 4 ? QString::fromLatin1(kOrdinals[n]) : QStringLiteral("%1th").arg(n);
    };
    for (const auto &o : ops) {
        const QString id = QString::fromStdString(o.id);
        const int row = rowOfOp(o);
        if (row < 0)
            continue;
        Seen &here = seen[size_t(row)];
        const QString base = kindOf(QString::fromStdString(o.name)), type = QString::fromStdString(o.type);
        const int n = ++here.perKindType[base + QLatin1Char('\t') + type];
        QString kind = base;
        if (here.perKind.value(base) > 1) {
            QStringList parts;
            if (here.types.value(base).size() > 1)
                parts << type;
            if (n > 1)
                parts << ordinal(n);
            if (!parts.isEmpty())
                kind += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
        }
        m_kindNodes[kind] << QString::fromStdString(o.name);
        int col = int(m_kinds.indexOf(kind));
        if (col < 0) {
            col = int(m_kinds.size());
            m_kinds << kind;
        }
        auto &cells = m_cellOp[size_t(row)];
        if (cells.size() <= size_t(col))
            cells.resize(size_t(col) + 1);
        cells[size_t(col)] = id;
        m_where.insert(id, {row, col});
    }
    for (auto &cells : m_cellOp)
        cells.resize(size_t(m_kinds.size()));
    endResetModel();
    recompute();
}

void HeatmapModel::addStats(const live::RoundStats &s)
{
    auto &round = m_stats[s.round];
    for (const auto &o : s.stats)
        round.insert(QString::fromStdString(o.id), o);
    while (m_stats.size() > kRoundsKept) // a long run: the oldest rounds go
        m_stats.erase(m_stats.begin());
    updateRounds();
    if (m_mode == Mode::RoundsByLayers) { // a new row of rounds
        beginResetModel();
        endResetModel();
        recompute();
    } else if (m_round < 0 || m_round == s.round) {
        recompute(); // the newest round is shown: it just changed
    }
    emit roundsChanged();
}

void HeatmapModel::setCompare(const CompareResult &r)
{
    m_diff.clear();
    for (const OpResult &op : r.ops) {
        if (!op.unreadable.empty())
            continue;
        DiffCell c;
        c.cosine = op.outputCosine;
        c.relEuclidean = op.outputError;
        c.added = op.addedError;
        c.budgetShare = op.budgetShare;
        c.passed = op.passed;
        for (size_t row : op.rows) { // the largest over its outputs
            const CompareRow &x = r.rows[row];
            if (x.golden.input)
                continue;
            c.maxRelErr = std::max(c.maxRelErr, x.computed ? x.metrics.maxRelErr : x.statsRelDiff);
        }
        m_diff[op.round].insert(QString::fromStdString(op.opId), c);
    }
    m_firstOp.clear();
    m_firstRound = -1;
    if (r.firstDivergent >= 0) {
        m_firstOp = QString::fromStdString(r.ops[size_t(r.firstDivergent)].opId);
        m_firstRound = r.ops[size_t(r.firstDivergent)].round;
    }
    beginResetModel();
    updateRounds();
    endResetModel();
    recompute();
    emit roundsChanged();
}

void HeatmapModel::clearCompare()
{
    beginResetModel();
    m_diff.clear();
    m_firstOp.clear();
    m_firstRound = -1;
    updateRounds();
    endResetModel();
    recompute();
    emit roundsChanged();
}

void HeatmapModel::updateRounds()
{
    m_rounds.clear();
    for (const auto &[k, v] : m_stats)
        m_rounds.push_back(k);
    for (const auto &[k, v] : m_diff)
        m_rounds.push_back(k);
    std::sort(m_rounds.begin(), m_rounds.end());
    m_rounds.erase(std::unique(m_rounds.begin(), m_rounds.end()), m_rounds.end());
}

void HeatmapModel::setMetric(Metric m)
{
    m_metric = m;
    recompute();
}

void HeatmapModel::setScale(Scale s)
{
    m_scale = s;
    recompute();
}

void HeatmapModel::setRound(int64_t round)
{
    m_round = round;
    recompute();
}

int64_t HeatmapModel::round() const
{
    if (m_round >= 0 || m_rounds.empty())
        return m_round;
    return m_rounds.back();
}

std::vector<int64_t> HeatmapModel::rounds() const
{
    return m_rounds;
}

double HeatmapModel::valueAt(int layer, int kind, int64_t round) const
{
    if (layer < 0 || kind < 0 || size_t(layer) >= m_cellOp.size() || size_t(kind) >= m_cellOp[size_t(layer)].size())
        return NAN;
    const QString &id = m_cellOp[size_t(layer)][size_t(kind)];
    if (isDiffMetric(m_metric)) {
        const auto d = m_diff.find(round);
        if (id.isEmpty() || d == m_diff.end())
            return NAN;
        const auto it = d->second.find(id);
        if (it == d->second.end())
            return NAN;
        switch (m_metric) {
        case Metric::CosineDistance: return 1 - it->cosine;
        case Metric::MaxRelError: return it->maxRelErr;
        case Metric::RelEuclidean: return it->relEuclidean;
        case Metric::BudgetShare: return it->budgetShare;
        default: return it->added;
        }
    }
    const auto r = m_stats.find(round);
    if (id.isEmpty() || r == m_stats.end())
        return NAN;
    const auto it = r->second.find(id);
    if (it == r->second.end())
        return NAN;
    const live::OpStats &s = *it;
    switch (m_metric) {
    case Metric::MaxAbs: return std::max(std::fabs(s.max), std::fabs(s.min));
    case Metric::Mean: return s.mean;
    case Metric::L2Norm: return s.l2norm;
    case Metric::NanInf: return double(s.nan + s.inf);
    case Metric::Change: {
        if (r == m_stats.begin())
            return NAN;
        const auto &prev = std::prev(r)->second;
        const auto p = prev.find(id);
        if (p == prev.end())
            return NAN;
        return std::fabs(s.l2norm - p->l2norm) / std::max(std::fabs(p->l2norm), 1e-30);
    }
    default: return NAN; // the diff metrics, handled above
    }
}

int64_t HeatmapModel::roundAt(int row) const
{
    if (m_mode == Mode::LayersByKinds)
        return round();
    if (row < 0 || size_t(row) >= m_rounds.size())
        return -1;
    return m_rounds[size_t(row)];
}

QString HeatmapModel::opAt(int row, int col) const
{
    const int layer = m_mode == Mode::LayersByKinds ? row : col;
    const int kind = m_mode == Mode::LayersByKinds ? col : m_kind;
    if (layer < 0 || kind < 0 || size_t(layer) >= m_cellOp.size() || size_t(kind) >= m_cellOp[size_t(layer)].size())
        return {};
    return m_cellOp[size_t(layer)][size_t(kind)];
}

double HeatmapModel::value(int row, int col) const
{
    if (m_mode == Mode::LayersByKinds)
        return valueAt(row, col, round());
    return valueAt(col, m_kind, roundAt(row));
}

void HeatmapModel::setMode(Mode m, int kind)
{
    beginResetModel();
    m_mode = m;
    m_kind = std::clamp(kind, 0, std::max(0, int(m_kinds.size()) - 1));
    endResetModel();
    recompute();
}

void HeatmapModel::setThreshold(double t)
{
    m_threshold = t;
    recompute();
}

void HeatmapModel::recompute()
{
    m_lo = INFINITY;
    m_hi = -INFINITY;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c) {
            const double v = value(r, c);
            if (!std::isfinite(v) || (m_scale == Scale::Log && v <= 0))
                continue;
            m_lo = std::min(m_lo, v);
            m_hi = std::max(m_hi, v);
        }
    if (m_lo > m_hi)
        m_lo = m_hi = 0;
    if (rowCount() && columnCount())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

QColor HeatmapModel::colourFor(double v) const
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return QColor(230, 0, 120);
    if (m_metric == Metric::NanInf)
        return v > 0 ? QColor(230, 0, 120) : QColor(235, 235, 235);
    if (!std::isnan(m_threshold) && v > m_threshold)
        return QColor(255, 40, 40); // over the threshold: flagged, whatever the ramp says
    double t = 0;
    if (m_scale == Scale::Diverging) { // white at zero, blue below, red above, by the larger side
        const double span = std::max(std::fabs(m_lo), std::fabs(m_hi));
        const double f = span > 0 ? std::clamp(v / span, -1.0, 1.0) : 0;
        return f < 0 ? QColor(int(255 + (33 - 255) * -f), int(255 + (102 - 255) * -f), int(255 + (172 - 255) * -f))
                     : QColor(int(255 + (178 - 255) * f), int(255 + (24 - 255) * f), int(255 + (43 - 255) * f));
    }
    if (m_scale == Scale::Log) {
        if (v <= 0 || m_lo <= 0)
            return QColor(200, 200, 200);
        t = m_hi > m_lo ? (std::log(v) - std::log(m_lo)) / (std::log(m_hi) - std::log(m_lo)) : 1;
    } else {
        t = m_hi > m_lo ? (v - m_lo) / (m_hi - m_lo) : 1;
    }
    return ramp(t);
}

double HeatmapModel::valueOfOp(const QString &id) const
{
    const auto it = m_where.find(id);
    return it == m_where.end() ? NAN : valueAt(it->first, it->second, round());
}

QModelIndex HeatmapModel::indexForOp(const QString &id) const
{
    const auto it = m_where.find(id);
    if (it == m_where.end())
        return {};
    if (m_mode == Mode::LayersByKinds)
        return index(it->first, it->second);
    return it->second == m_kind && rowCount() ? index(rowCount() - 1, it->first) : QModelIndex(); // its newest round
}

int HeatmapModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_mode == Mode::LayersByKinds ? int(m_rowNames.size()) : (m_kinds.isEmpty() ? 0 : int(m_rounds.size()));
}

int HeatmapModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_mode == Mode::LayersByKinds ? int(m_kinds.size()) : (m_kinds.isEmpty() ? 0 : int(m_rowNames.size()));
}

QVariant HeatmapModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const QString id = opAt(index.row(), index.column());
    const int64_t cellRound = roundAt(index.row());
    if (role == OpIdRole)
        return id;
    const double v = value(index.row(), index.column());
    if (role == ValueRole)
        return v;
    const bool first = !id.isEmpty() && id == m_firstOp && cellRound == m_firstRound;
    if (role == FirstDivergentRole)
        return first;
    if (role == FlaggedRole)
        return first || (!std::isnan(m_threshold) && v > m_threshold);
    if (role == Qt::BackgroundRole) {
        const QColor c = colourFor(v);
        return c.isValid() ? QBrush(c) : QVariant();
    }
    if (role == Qt::DisplayRole) {
        if (first)
            return QStringLiteral("\u25C6"); // the first divergent op: where to look
        const auto r = m_stats.find(cellRound);
        if (r != m_stats.end() && !id.isEmpty()) {
            const auto it = r->second.find(id);
            if (it != r->second.end() && (it->nan || it->inf))
                return QStringLiteral("!"); // NaN or Inf in the output, whatever the statistic shown
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        const int layer = m_mode == Mode::LayersByKinds ? index.row() : index.column();
        const int kind = m_mode == Mode::LayersByKinds ? index.column() : m_kind;
        if (id.isEmpty())
            return tr("%1: no %2 in this layer").arg(m_rowNames.value(layer), m_kinds.value(kind));
        QString tip = tr("%1 %2, round %3").arg(id, m_kinds.value(kind)).arg(cellRound);
        const auto r = m_stats.find(cellRound);
        if (r != m_stats.end()) {
            const auto it = r->second.find(id);
            if (it != r->second.end())
                tip += tr("\nmax %1, min %2, mean %3, L2 norm %4\nNaN %5, Inf %6")
                           .arg(it->max, 0, 'g', 6)
                           .arg(it->min, 0, 'g', 6)
                           .arg(it->mean, 0, 'g', 6)
                           .arg(it->l2norm, 0, 'g', 6)
                           .arg(it->nan)
                           .arg(it->inf);
            else
                tip += tr("\nnot dumped in this round");
        }
        const auto d = m_diff.find(cellRound);
        if (d != m_diff.end()) {
            const auto it = d->second.find(id);
            if (it != d->second.end())
                tip += tr("\ngolden vs test: cosine %1, max relative error %2, relative euclidean %3, added "
                          "by this op %4%5")
                           .arg(it->cosine, 0, 'f', 6)
                           .arg(it->maxRelErr, 0, 'g', 4)
                           .arg(it->relEuclidean, 0, 'g', 4)
                           .arg(it->added, 0, 'g', 4)
                           .arg(first ? tr("\nthe first divergent operation") : (it->passed ? QString() : tr("\nfailed")));
        }
        return tip;
    }
    if (role == Qt::ForegroundRole) { // marks readable on dark and light cells alike
        const QColor c = colourFor(v);
        return QBrush(c.isValid() && c.lightnessF() < 0.55 ? Qt::white : Qt::black);
    }
    if (role == Qt::FontRole && first) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignCenter);
    return {};
}

QVariant HeatmapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (m_mode == Mode::RoundsByLayers)
        return orientation == Qt::Horizontal ? m_rowNames.value(section) : tr("round %1").arg(roundAt(section));
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) { // the engine's names of the column's nodes
        const QStringList &nodes = m_kindNodes.value(m_kinds.value(section));
        return tr("%1\n%n node(s): %2", nullptr, int(nodes.size()))
            .arg(m_kinds.value(section),
                 nodes.size() > 4 ? QStringLiteral("%1, %2 ... %3").arg(nodes.front(), nodes.at(1), nodes.back())
                                  : nodes.join(QStringLiteral(", ")));
    }
    if (orientation == Qt::Horizontal) // two lines, "Qcur" over "(ROPE)": the column stays narrow
        return QString(m_kinds.value(section)).replace(QStringLiteral(" ("), QStringLiteral("\n("));
    return m_rowNames.value(section);
}
