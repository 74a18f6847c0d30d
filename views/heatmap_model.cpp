#include "views/heatmap_model.h"
#include "document/layer_words.h"

#include "document/reason_words.h"
#include "views/diff_table_model.h"

#include "core/compare/report_text.h"
#include "core/select/op_id.h"
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

} // namespace

HeatmapModel::HeatmapModel(OpColours *colours, QObject *parent)
    : QAbstractTableModel(parent), m_colours(colours ? colours : new OpColours(this))
{
    connect(m_colours, &OpColours::changed, this, &HeatmapModel::recoloured);
    connect(m_colours, &OpColours::roundsChanged, this, [this] {
        if (m_mode == Mode::RoundsByLayers && m_rounds != m_colours->rounds()) { // a row for each round
            beginResetModel();
            m_rounds = m_colours->rounds();
            endResetModel();
            updateScope();
        }
    });
}

void HeatmapModel::clear()
{
    beginResetModel();
    m_rowNames.clear();
    m_kinds.clear();
    m_kindNodes.clear();
    m_cellOp.clear();
    m_where.clear();
    m_rounds.clear();
    endResetModel();
    updateScope();
}

void HeatmapModel::setOps(const OpGraph &graph)
{
    beginResetModel();
    m_rowNames.clear();
    m_kinds.clear();
    m_kindNodes.clear();
    m_cellOp.clear();
    m_where.clear();
    QHash<int, int> rowOf; // a group's index in the graph -> its row
    for (const int g : graph.groups()) {
        rowOf.insert(g, int(m_rowNames.size()));
        m_rowNames << QString::fromStdString(graph.ops()[size_t(g)].name);
    }
    m_cellOp.assign(size_t(m_rowNames.size()), {});
    // A layer's nodes of one kind ("Qcur") are told apart by their op type ("Qcur (ROPE)"),
    // and those of one kind and type by their order ("norm (2nd)"): the same in every layer.
    struct Seen {
        QHash<QString, int> perKind; // kind -> nodes of it in the row
        QHash<QString, QSet<QString>> types; // kind -> op types among them
        QHash<QString, int> perKindType; // "kind\ttype" -> nodes so far
    };
    std::vector<Seen> seen(size_t(m_rowNames.size()));
    auto rowOfOp = [&](const GraphOp &o) { // the ops directly under a group
        const auto r = rowOf.find(o.parent);
        return o.parent < 0 || r == rowOf.end() ? -1 : *r;
    };
    for (const GraphOp &o : graph.ops())
        if (const int r = rowOfOp(o); r >= 0) {
            const QString base = kindOf(QString::fromStdString(o.name));
            ++seen[size_t(r)].perKind[base];
            seen[size_t(r)].types[base].insert(QString::fromStdString(o.type));
        }
    static const char *const kOrdinals[] = {"", "", "2nd", "3rd"};
    auto ordinal = [](int n) { return n < 4 ? QString::fromLatin1(kOrdinals[n]) : QStringLiteral("%1th").arg(n); };
    for (const GraphOp &o : graph.ops()) {
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
    m_rounds = m_colours->rounds();
    endResetModel();
    updateScope();
}

void HeatmapModel::updateScope()
{
    QStringList ops;
    if (m_mode == Mode::LayersByKinds) {
        for (const auto &row : m_cellOp)
            for (const QString &op : row)
                if (!op.isEmpty())
                    ops << op;
    } else {
        for (const auto &row : m_cellOp)
            if (size_t(m_kind) < row.size() && !row[size_t(m_kind)].isEmpty())
                ops << row[size_t(m_kind)];
    }
    m_colours->setScope(ops, m_mode == Mode::RoundsByLayers); // recolours
}

QList<QRect> HeatmapModel::chainSpans() const
{
    QList<QRect> spans;
    if (m_mode != Mode::LayersByKinds)
        return spans;
    const int64_t round = m_colours->round();
    for (int row = 0; row < rowCount(); ++row)
        for (int col = 0; col < columnCount();) {
            const QString end = m_colours->chainEndOf(opAt(row, col), round);
            int width = 1;
            while (!end.isEmpty() && col + width < columnCount()) {
                const QString next = opAt(row, col + width);
                if (next != end && m_colours->chainEndOf(next, round) != end)
                    break;
                ++width;
                if (next == end)
                    break;
            }
            if (width > 1)
                spans << QRect(col, row, width, 1);
            col += width;
        }
    return spans;
}

void HeatmapModel::recoloured()
{
    if (rowCount() && columnCount())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

int64_t HeatmapModel::roundAt(int row) const
{
    if (m_mode == Mode::LayersByKinds)
        return m_colours->round();
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
    return m_colours->valueOf(opAt(row, col), roundAt(row));
}

void HeatmapModel::setMode(Mode m, int kind)
{
    beginResetModel();
    m_mode = m;
    m_kind = std::clamp(kind, 0, std::max(0, int(m_kinds.size()) - 1));
    m_rounds = m_colours->rounds();
    endResetModel();
    updateScope();
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
    const QString cellOp = opAt(index.row(), index.column());
    const int64_t cellRound = roundAt(index.row());
    if (role == OpIdRole)
        return cellOp;
    // An op computed inside a fused chain shows the chain: its end's output is the chain's.
    const QString chainEnd = cellOp.isEmpty() ? QString() : m_colours->chainEndOf(cellOp, cellRound);
    const QString id = chainEnd.isEmpty() ? cellOp : chainEnd;
    const double v = value(index.row(), index.column());
    if (role == ValueRole)
        return v;
    const bool first =
        !id.isEmpty() && id == m_colours->firstDivergentOp() && cellRound == m_colours->firstDivergentRound();
    if (role == FirstDivergentRole)
        return first;
    if (role == FlaggedRole)
        return first || m_colours->flagged(v);
    const bool failed = m_colours->failedIn(id, cellRound);
    if (role == Qt::BackgroundRole) {
        const QColor c = id.isEmpty() ? m_colours->colourFor(v) : m_colours->colourOf(id, cellRound);
        return c.isValid() ? QBrush(c) : QVariant();
    }
    if (role == Qt::DisplayRole) {
        if (first)
            return QStringLiteral("\u25C6"); // the first divergent op: where to look
        if (failed && OpColours::isDiffMetric(m_colours->metric()))
            return QStringLiteral("\u2717"); // failed: told from a pass without the colours
        if (const auto *s = m_colours->statsOf(id, cellRound); s && (s->nan || s->inf))
            return QStringLiteral("!"); // NaN or Inf in the output, whatever the statistic shown
        return {};
    }
    if (role == Qt::ToolTipRole) {
        const int layer = m_mode == Mode::LayersByKinds ? index.row() : index.column();
        const int kind = m_mode == Mode::LayersByKinds ? index.column() : m_kind;
        if (id.isEmpty())
            return tr("%1: no %2 in this layer").arg(m_rowNames.value(layer), m_kinds.value(kind));
        QString tip = tr("%1 %2, round %3").arg(cellOp, m_kinds.value(kind)).arg(cellRound);
        if (const llmscope::OpResult *chain = m_colours->fusedChainOf(cellOp, cellRound))
            tip += tr("\ncomputed fused as %1 by %2: %3; only %4's output reached memory, and these figures are the "
                      "chain's")
                       .arg(QString::fromStdString(chain->fusedChain), DiffTableModel::fusedBy(*chain),
                            DiffTableModel::fusedMembers(*chain), QString::fromStdString(chain->opId));
        if (const auto *it = m_colours->statsOf(id, cellRound))
            tip += tr("\nmax %1, min %2, mean %3, L2 norm %4\nNaN %5, Inf %6")
                       .arg(it->max, 0, 'g', 6)
                       .arg(it->min, 0, 'g', 6)
                       .arg(it->mean, 0, 'g', 6)
                       .arg(it->l2norm, 0, 'g', 6)
                       .arg(it->nan)
                       .arg(it->inf);
        else if (m_colours->hasStatsIn(cellRound))
            tip += tr("\nnot dumped in this round");
        if (const auto *it = m_colours->replayOf(id, cellRound))
            tip += tr("\nreplayed on its own inputs: %1%2")
                       .arg(QLatin1String(llmscope::verdictName(it->verdict)),
                            it->reason.empty() ? QString() : QStringLiteral(" (%1)").arg(reasonWords(it->reason)));
        if (const llmscope::SpreadOp *s = m_colours->spreadOf(id, cellRound)) {
            tip +=
                tr("\nspread over %n run(s): the largest distance between two is %1", nullptr, int(s->fromFirst.size()))
                    .arg(s->spread, 0, 'g', 4);
            if (s->farthest > 0)
                tip += tr("; run %1 is the farthest").arg(s->farthest);
            if (s->departs)
                tip += tr("\nthe runs part here: %1").arg(reasonWords(s->why));
            else if (s->spread == 0)
                tip += tr("\nbit-identical in every run");
        }
        if (const auto it = m_colours->diffOf(id, cellRound))
            tip += (it->fromStats ? tr("\ngolden vs test, estimated from the statistics (max, min, mean, L2 norm; "
                                       "the Diff tab's element-by-element figures are exact):")
                                  : tr("\ngolden vs test, element by element:")) +
                // in the Diff table's units: relative errors and the budget's share in percent
                tr(" cosine %1, max relative error %2, relative euclidean %3, added by this op %4%5%6")
                    .arg(std::isnan(it->cosine) ? tr("unknown") : QString::number(it->cosine, 'f', 6))
                    .arg(percentText(it->maxRelErr), percentText(it->relEuclidean), percentText(it->added))
                    .arg(it->budgetShare > 0 ? tr(", %1 of its budget").arg(percentText(it->budgetShare)) : QString())
                    .arg(first ? tr("\nthe first divergent operation") : (it->passed ? QString() : tr("\nfailed")));
        if (const QString cause = m_colours->causeOf(id, cellRound); !cause.isEmpty())
            tip += QLatin1Char('\n') + cause; // the weight or input it blames
        return tip;
    }
    if (role == Qt::ForegroundRole) { // marks readable on dark and light cells alike
        const QColor c = id.isEmpty() ? m_colours->colourFor(v) : m_colours->colourOf(id, cellRound);
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

QString HeatmapModel::percentText(double share)
{
    return QString::fromStdString(llmscope::report::percent(share));
}

QVariant HeatmapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (m_mode == Mode::RoundsByLayers)
        return orientation == Qt::Horizontal ? layerLabel(m_rowNames.value(section))
                                             : tr("round %1").arg(roundAt(section));
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) { // the engine's names of the column's nodes
        const QStringList &nodes = m_kindNodes.value(m_kinds.value(section));
        return tr("%1\n%n node(s): %2", nullptr, int(nodes.size()))
            .arg(m_kinds.value(section),
                 nodes.size() > 4 ? QStringLiteral("%1, %2 ... %3").arg(nodes.front(), nodes.at(1), nodes.back())
                                  : nodes.join(QStringLiteral(", ")));
    }
    if (orientation == Qt::Horizontal) // two lines, "Qcur" over "(ROPE)": the column stays narrow
        return QString(m_kinds.value(section)).replace(QStringLiteral(" ("), QStringLiteral("\n("));
    return layerLabel(m_rowNames.value(section)); // "Layer2 (blk.2)", as the tree names it
}
