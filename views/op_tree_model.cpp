#include "views/op_tree_model.h"
#include "document/layer_words.h"

#include "views/diff_table_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QRegularExpression>

#include <cmath>
#include <map>

#include "core/compare/report_text.h"
#include "core/dump/dump_layout.h"
#include "core/select/op_id.h"
#include "core/select/op_ids.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "document/reason_words.h"

using namespace llmscope;

namespace {

QString statText(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 6);
}

} // namespace

OpTreeModel::OpTreeModel(QObject *parent) : QAbstractItemModel(parent) {}
OpTreeModel::~OpTreeModel() = default;

void OpTreeModel::setGraph(const OpGraph &graph)
{
    auto root = std::make_unique<Node>();
    root->name = graph.modelName().empty() ? tr("Model") : QString::fromStdString(graph.modelName());
    root->type = QString::fromStdString(graph.modelType());
    std::vector<Node *> nodes(graph.size()); // parents come first
    for (size_t i = 0; i < graph.size(); ++i) {
        const GraphOp &o = graph.ops()[i];
        Node *parent = o.parent < 0 ? root.get() : nodes[size_t(o.parent)];
        auto n = std::make_unique<Node>();
        n->id = QString::fromStdString(o.id);
        n->name = QString::fromStdString(o.name);
        n->type = QString::fromStdString(o.type);
        n->shape = o.shape.empty() ? QString() : QString::fromStdString(report::shapeText(o.shape));
        n->dtype = QString::fromStdString(o.dtype);
        n->backend = QString::fromStdString(o.backend);
        if (!o.fusedChain.empty()) // a run with fusion kept: the chain the backend computes it in
            n->liveFused =
                (o.fusedOutput ? tr("computed fused as %1 by %2, which writes its output too; read with %3's")
                               : tr("computed fused as %1 by %2; only %3's output reaches memory"))
                    .arg(QString::fromStdString(o.fusedChain), o.backend.empty() ? tr("its backend") : n->backend,
                         QString::fromStdString(o.fusedLast));
        for (const auto &in : o.inputs)
            if (in.op.empty())
                n->leafInputs << QString::fromStdString(in.name);
        n->parent = parent;
        n->row = int(parent->children.size());
        nodes[i] = n.get();
        parent->children.push_back(std::move(n));
    }
    rebuild(std::move(root));
}

const llmscope::OpcheckRow *OpTreeModel::replayOf(const Node *n) const
{
    return m_replay && n != m_root.get() ? m_replay->worstOf(n->id.toStdString()) : nullptr;
}

QString OpTreeModel::replayText(const Node *n) const
{
    const llmscope::OpcheckRow *r = replayOf(n);
    return r ? QLatin1String(llmscope::verdictName(r->verdict)) : QString();
}

void OpTreeModel::setOpcheck(std::shared_ptr<const llmscope::OpcheckResult> r)
{
    m_replay = std::move(r);
    if (m_root)
        emitSubtreeChanged(m_root.get(), ReplayColumn, ReplayColumn);
}

void OpTreeModel::setFusedChains(const llmscope::CompareResult *r)
{
    m_fused.clear();
    for (size_t i = 0; r && i < r->ops.size(); ++i) {
        const llmscope::OpResult &o = r->ops[i];
        if (o.fusedIds.size() < 2)
            continue;
        const QString words = tr("computed fused as %1 by %2 (round %3): %4; only %5's output reached memory")
                                  .arg(QString::fromStdString(o.fusedChain), DiffTableModel::fusedBy(o))
                                  .arg(o.round)
                                  .arg(DiffTableModel::fusedMembers(o), QString::fromStdString(o.fusedIds.back()));
        for (const std::string &id : o.fusedIds)
            if (!m_fused.contains(QString::fromStdString(id))) // its first round's chain
                m_fused.insert(QString::fromStdString(id), words);
    }
    if (m_root)
        emitSubtreeChanged(m_root.get(), TypeColumn, TypeColumn);
}

QString OpTreeModel::fusedWords(const Node *n) const
{
    return m_fused.value(n->id, n->liveFused);
}

void OpTreeModel::addOutputs(const DumpIndex &chunk)
{
    for (const TensorRecord &t : chunk.tensors)
        addOutput(t);
}

void OpTreeModel::addOutputs(const std::deque<TensorRecord> &records)
{
    for (const TensorRecord &t : records)
        addOutput(t);
}

void OpTreeModel::addOutput(const TensorRecord &t)
{
    if (t.input || t.before || t.index != 0 || !t.headerRead)
        return;
    const QString id = QString::fromStdString(t.opId);
    if (m_outputs.contains(id))
        return;
    // A quantized payload's dims count bytes; its engine dims count the elements.
    const std::pair<QString, QString> out{
        QString::fromStdString(report::shapeText(t.engineDims.empty() ? t.dims : t.engineDims)),
        QString::fromStdString(t.engineType.empty() ? dtypeName(t.dtype) : t.engineType)};
    m_outputs.insert(id, out); // kept for a tree that comes later
    const auto it = m_byId.find(id);
    if (it == m_byId.end() || !it.value()->shape.isEmpty())
        return;
    it.value()->shape = out.first;
    it.value()->dtype = out.second;
    emit dataChanged(indexFor(it.value(), ShapeColumn), indexFor(it.value(), DTypeColumn));
}

void OpTreeModel::clear()
{
    beginResetModel();
    m_root.reset();
    m_byId.clear();
    m_unknownIds.clear();
    m_outputs.clear();
    m_replay.reset();
    m_fused.clear();
    m_count = 0;
    m_backends = 0;
    m_statsRound = -1;
    endResetModel();
    emit checkedIdsChanged(QString());
}

void OpTreeModel::rebuild(std::unique_ptr<Node> root)
{
    // What the user chose, and what the probe reported, carry over by id.
    const QStringList checked = checkedIds() + m_unknownIds;
    QHash<QString, std::pair<std::optional<live::OpStats>, int64_t>> kept;
    for (auto it = m_byId.begin(); it != m_byId.end(); ++it)
        kept.insert(it.key(), {it.value()->stats, it.value()->dumpedFrom});
    beginResetModel();
    m_root = std::move(root);
    m_byId.clear();
    m_unknownIds.clear();
    m_count = 0;
    m_backends = 0;
    std::function<void(Node *)> index = [&](Node *n) {
        for (auto &c : n->children) {
            m_byId.insert(c->id, c.get());
            ++m_count;
            m_backends += !c->backend.isEmpty();
            if (const auto o = m_outputs.find(c->id); o != m_outputs.end() && c->shape.isEmpty()) {
                c->shape = o->first; // the files came before this tree
                c->dtype = o->second;
            }
            const auto k = kept.find(c->id);
            if (k != kept.end() && c->type.size()) {
                c->stats = k->first;
                c->dumpedFrom = k->second;
            }
            index(c.get());
            // a layer's backend: its ops' (several where the scheduler split it), first seen first
            if (c->backend.isEmpty() && !c->children.empty()) {
                QStringList names;
                for (const auto &op : c->children)
                    for (const QString &b : op->backend.split(QStringLiteral(", "), Qt::SkipEmptyParts))
                        if (!names.contains(b))
                            names << b;
                c->backend = names.join(QStringLiteral(", "));
            }
        }
    };
    index(m_root.get());
    for (const QString &id : checked) {
        if (Node *n = m_byId.value(id))
            n->checked = true;
        else
            m_unknownIds << id;
    }
    endResetModel();
}

OpTreeModel::Node *OpTreeModel::nodeFor(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : nullptr;
}

QModelIndex OpTreeModel::indexFor(const Node *n, int column) const
{
    return n && n != m_root.get() && n->parent ? createIndex(n->row, column, const_cast<Node *>(n)) : QModelIndex();
}

QModelIndex OpTreeModel::indexForId(const QString &id) const
{
    return indexFor(m_byId.value(id));
}

QString OpTreeModel::opPath(const QString &id) const
{
    QStringList parts;
    for (const Node *n = m_byId.value(id); n && n != m_root.get(); n = n->parent)
        parts.prepend(QString::fromStdString(
            opFolderName(int(OpId::lenient(n->id.toStdString()).last()), n->type.toStdString())));
    return parts.join(QLatin1Char('/'));
}

QModelIndex OpTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_root || column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row == 0 ? createIndex(0, column, m_root.get()) : QModelIndex();
    const Node *p = nodeFor(parent);
    if (!p || size_t(row) >= p->children.size())
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex OpTreeModel::parent(const QModelIndex &child) const
{
    const Node *n = nodeFor(child);
    if (!n || !n->parent)
        return {};
    if (n->parent == m_root.get())
        return createIndex(0, 0, m_root.get());
    return createIndex(n->parent->row, 0, n->parent);
}

int OpTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!m_root)
        return 0;
    if (!parent.isValid())
        return 1;
    if (parent.column() != 0)
        return 0;
    const Node *n = nodeFor(parent);
    return n ? int(n->children.size()) : 0;
}

int OpTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool OpTreeModel::inheritsCheck(const Node *n) const
{
    for (const Node *p = n->parent; p; p = p->parent)
        if (p->checked)
            return true;
    return false;
}

QVariant OpTreeModel::data(const QModelIndex &index, int role) const
{
    const Node *n = nodeFor(index);
    if (!n)
        return {};
    const bool isRoot = n == m_root.get();
    const int col = index.column();
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        if (role == Qt::ToolTipRole && col == IdColumn && !isRoot)
            return inheritsCheck(n) ? tr("%1: dumped with its parent (-ids %2 with -child)")
                                          .arg(n->id, n->parent ? n->parent->id : QString())
                                    : tr("%1: check to dump this operation (-ids %1)").arg(n->id);
        // A layer's group: its id, llama.cpp's layer number and its weights' names differ
        // (op 3_* is Layer2, blk.2): said together
        if (const int layer = llamaLayerOf(n->name); !isRoot && layer >= 0 && !n->children.empty()) {
            if (role == Qt::ToolTipRole && (col == IdColumn || col == NameColumn))
                return tr("Operation group %1 is llama.cpp's layer %2: its operations are %1_0, %1_1, ..., its nodes' "
                          "names end in -%2 and its weights are blk.%2.*")
                    .arg(n->id)
                    .arg(layer);
            if (col == NameColumn)
                return layerLabel(n->name);
        }
        switch (col) {
        case IdColumn: return isRoot ? n->name : n->id;
        case NameColumn:
            if (role == Qt::ToolTipRole && !n->leafInputs.isEmpty())
                return tr("%1\nreads %2").arg(n->name, n->leafInputs.join(QStringLiteral(", ")));
            return isRoot ? QString() : n->name;
        case TypeColumn:
            if (const QString fused = isRoot ? QString() : fusedWords(n); !fused.isEmpty())
                return role == Qt::ToolTipRole ? fused : tr("%1, fused").arg(n->type);
            return n->type;
        case ShapeColumn: return n->shape;
        case DTypeColumn: return n->dtype;
        case BackendColumn: return n->backend;
        case MaxColumn: return n->stats ? statText(n->stats->max) : QVariant();
        case MinColumn: return n->stats ? statText(n->stats->min) : QVariant();
        case MeanColumn: return n->stats ? statText(n->stats->mean) : QVariant();
        case NormColumn: return n->stats ? statText(n->stats->l2norm) : QVariant();
        case DumpedColumn: return n->dumpedFrom >= 0 ? tr("from round %1").arg(n->dumpedFrom) : QVariant();
        case ReplayColumn: {
            const llmscope::OpcheckRow *r = replayOf(n);
            if (!r)
                return {};
            if (role == Qt::ToolTipRole)
                return tr("round %1: %2")
                    .arg(r->round)
                    .arg(r->reason.empty() ? QString::fromStdString(r->standard) : reasonWords(r->reason));
            return replayText(n);
        }
        }
        return {};
    }
    if (role == SearchTextRole) // every column's text and the weights it reads
        return QStringList{n->id,
                           n->name,
                           n->type,
                           n->backend,
                           n->shape,
                           n->dtype,
                           replayText(n),
                           n->leafInputs.join(QLatin1Char(' ')),
                           fusedWords(n).isEmpty() ? QString() : tr("fused")}
            .join(QLatin1Char(' '));
    if (role == Qt::CheckStateRole && col == IdColumn && !isRoot)
        return n->checked || inheritsCheck(n) ? Qt::Checked : Qt::Unchecked;
    if (role == OpIdRole)
        return n->id;
    if (role == DumpedFromRole)
        return qlonglong(n->dumpedFrom);
    const bool nanInf = n->stats && (n->stats->nan || n->stats->inf);
    if (role == HasNanInfRole)
        return nanInf;
    if (role == Qt::ForegroundRole && nanInf && col >= MaxColumn && col <= NormColumn)
        return QBrush(QColor(0xc0, 0x10, 0x10));
    if (role == Qt::ForegroundRole && col == DumpedColumn)
        return QBrush(QColor(0x10, 0x80, 0x30));
    if (const llmscope::OpcheckRow *r = role == Qt::ForegroundRole && col == ReplayColumn ? replayOf(n) : nullptr)
        return QBrush(isBad(r->verdict)                           ? QColor(0xc0, 0x10, 0x10)
                          : r->verdict == llmscope::Verdict::Warn ? QColor(0xa0, 0x50, 0x00)
                          : r->verdict == llmscope::Verdict::Pass ? QColor(0x10, 0x80, 0x30)
                                                                  : QColor(0x70, 0x70, 0x70));
    if (role == Qt::FontRole && col == IdColumn && n->dumpedFrom >= 0) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole && col >= MaxColumn && col <= NormColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

Qt::ItemFlags OpTreeModel::flags(const QModelIndex &index) const
{
    const Node *n = nodeFor(index);
    if (!n)
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == IdColumn && n != m_root.get() && !inheritsCheck(n))
        f |= Qt::ItemIsUserCheckable;
    return f;
}

void OpTreeModel::emitSubtreeChanged(Node *n, int first, int last)
{
    if (n != m_root.get())
        emit dataChanged(indexFor(n, first), indexFor(n, last));
    if (!n->children.empty())
        emit dataChanged(indexFor(n->children.front().get(), first), indexFor(n->children.back().get(), last));
    for (auto &c : n->children)
        if (!c->children.empty())
            emitSubtreeChanged(c.get(), first, last);
}

bool OpTreeModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    Node *n = nodeFor(index);
    if (!n || role != Qt::CheckStateRole || index.column() != IdColumn || !(flags(index) & Qt::ItemIsUserCheckable))
        return false;
    const bool on = value.toInt() == Qt::Checked;
    if (n->checked == on)
        return true;
    n->checked = on;
    emitSubtreeChanged(n, IdColumn, IdColumn);
    emit checkedIdsChanged(idsText());
    return true;
}

QStringList OpTreeModel::checkedIds() const
{
    QStringList ids;
    std::function<void(const Node *)> walk = [&](const Node *n) {
        for (const auto &c : n->children) {
            if (c->checked)
                ids << c->id; // its children come with it
            else
                walk(c.get());
        }
    };
    if (m_root)
        walk(m_root.get());
    return ids;
}

QString OpTreeModel::idsText() const
{
    return (checkedIds() + m_unknownIds).join(QLatin1Char(','));
}

void OpTreeModel::setIdsText(const QString &text)
{
    const OpIds ids = OpIds::parse(text.toStdString()); // throws for text that is no -ids list
    for (auto *n : std::as_const(m_byId))
        n->checked = false;
    m_unknownIds.clear();
    for (const auto &id : ids.ids()) {
        const QString q = QString::fromStdString(id);
        if (Node *n = m_byId.value(q))
            n->checked = true;
        else if (!m_unknownIds.contains(q))
            m_unknownIds << q;
    }
    if (m_root)
        emitSubtreeChanged(m_root.get(), IdColumn, IdColumn);
    emit checkedIdsChanged(idsText());
}

void OpTreeModel::setRoundStats(const live::RoundStats &s)
{
    if (!m_root)
        return;
    m_statsRound = s.round;
    for (const auto &st : s.stats) {
        Node *n = m_byId.value(QString::fromStdString(st.id));
        if (!n)
            continue;
        n->stats = st;
        emit dataChanged(indexFor(n, MaxColumn), indexFor(n, NormColumn));
    }
}

void OpTreeModel::setApplied(const Selection &selection, int64_t fromRound)
{
    if (!m_root)
        return;
    std::vector<std::string> ids, types;
    std::function<void(Node *)> walk = [&](Node *n) {
        for (auto &c : n->children) {
            ids.push_back(c->id.toStdString());
            types.push_back(c->type.toStdString());
            std::vector<Selection::OpRef> path;
            for (size_t i = 0; i < ids.size(); ++i)
                path.push_back({ids[i], types[i]});
            c->dumpedFrom = selection.enabled && selection.selectsOpPath(path) ? fromRound : -1;
            walk(c.get());
            ids.pop_back();
            types.pop_back();
        }
    };
    walk(m_root.get());
    emitSubtreeChanged(m_root.get(), IdColumn, DumpedColumn);
}

QVariant OpTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn: return tr("Op id");
    case NameColumn: return tr("Node");
    case TypeColumn: return tr("Type");
    case ShapeColumn: return tr("Output shape");
    case DTypeColumn: return tr("DType");
    case BackendColumn: return tr("Backend");
    case MaxColumn: return tr("Max");
    case MinColumn: return tr("Min");
    case MeanColumn: return tr("Mean");
    case NormColumn: return tr("L2 norm");
    case DumpedColumn: return tr("Dumped");
    case ReplayColumn: return tr("Replay");
    }
    return {};
}
