#include "views/dump_tree_model.h"

#include "document/session_document.h"

#include <algorithm>
#include <numeric>

#include "core/tensor/dtype.h"
#include "core/util/text.h"

using namespace llmscope;

DumpTreeModel::Node *DumpTreeModel::Node::child(const QString &wanted)
{
    // Children arrive in sorted order, so the one we want is usually the last.
    if (!children.empty() && children.back()->label == wanted && children.back()->tensor < 0)
        return children.back().get();
    auto n = std::make_unique<Node>();
    n->label = wanted;
    n->parent = this;
    n->row = static_cast<int>(children.size());
    children.push_back(std::move(n));
    return children.back().get();
}

DumpTreeModel::DumpTreeModel(QObject *parent) : QAbstractItemModel(parent) {}
DumpTreeModel::~DumpTreeModel() = default;

void DumpTreeModel::clear()
{
    beginResetModel();
    m_own.clear();
    m_shown = 0;
    m_root = std::make_unique<Node>();
    endResetModel();
}

void DumpTreeModel::setIndex(const DumpIndex &index)
{
    clear();
    addChunk(index);
}

void DumpTreeModel::build(Node *root, const std::vector<size_t> &records) const
{
    for (const size_t i : records) {
        const TensorRecord &t = (*m_records)[i];
        Node *n = root->child(tr("Round %1").arg(t.exec));
        n->round = t.exec;
        for (const auto &folder : t.opFolders)
            n = n->child(QString::fromStdString(folder));
        const QString leaf =
            QStringLiteral("%1/%2%3%4")
                .arg(t.before ? QStringLiteral("before") : QStringLiteral("after"),
                     t.input ? QStringLiteral("intensor") : QStringLiteral("outtensor"))
                .arg(t.index)
                .arg(t.param.empty() ? QString() : QStringLiteral("_") + QString::fromStdString(t.param));
        auto l = std::make_unique<Node>();
        l->label = leaf;
        l->tensor = static_cast<int>(i);
        l->parent = n;
        l->row = static_cast<int>(n->children.size());
        n->children.push_back(std::move(l));
    }
}

void DumpTreeModel::addChunk(const DumpIndex &chunk)
{
    if (m_records == &m_own)
        m_own.insert(m_own.end(), chunk.tensors.begin(), chunk.tensors.end());
    grow();
}

void DumpTreeModel::grow()
{
    const size_t first = m_shown, end = m_records->size();
    if (first >= end)
        return;
    std::vector<size_t> added(end - first);
    std::iota(added.begin(), added.end(), first);
    m_shown = end;
    Node scratch;
    build(&scratch, added);
    bool known = false;
    for (const auto &c : scratch.children)
        for (const auto &mine : m_root->children)
            known = known || mine->label == c->label;
    if (known) { // adds to a round already shown: the whole tree again, each round's tensors together
        beginResetModel();
        std::vector<size_t> all(end);
        std::iota(all.begin(), all.end(), size_t(0));
        std::stable_sort(all.begin(), all.end(),
                         [this](size_t a, size_t b) { return (*m_records)[a].exec < (*m_records)[b].exec; });
        m_root = std::make_unique<Node>();
        build(m_root.get(), all);
        endResetModel();
        return;
    }
    const int row = int(m_root->children.size());
    beginInsertRows({}, row, row + int(scratch.children.size()) - 1);
    for (auto &c : scratch.children) {
        c->parent = m_root.get();
        c->row = int(m_root->children.size());
        m_root->children.push_back(std::move(c));
    }
    endInsertRows();
}

DumpTreeModel::Node *DumpTreeModel::nodeFor(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

QModelIndex DumpTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0))
        return {};
    Node *p = nodeFor(parent);
    if (row < 0 || row >= static_cast<int>(p->children.size()))
        return {};
    return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex DumpTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    Node *p = nodeFor(child)->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row, 0, p);
}

int DumpTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeFor(parent)->children.size());
}

int DumpTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant DumpTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != OpIdRole && role != RoundRole &&
         role != RoundRowRole))
        return {};
    const Node *n = nodeFor(index);
    if (role == RoundRowRole)
        return n->round >= 0 && n->tensor < 0 ? QVariant(qlonglong(n->round)) : QVariant();
    if (n->round >= 0 && n->tensor < 0 && index.column() == NameColumn &&
        (role == Qt::DisplayRole || role == Qt::ToolTipRole)) { // a round's row: the requests it computed
        const QString requests = requestWords(n->round);
        if (role == Qt::ToolTipRole && m_doc) {
            QStringList lines;
            for (const Request *r : m_doc->rounds().requestsOfRound(n->round))
                lines << describe(*r);
            return lines.join('\n');
        }
        return requests.isEmpty() ? n->label : tr("%1 · %2").arg(n->label, requests);
    }
    if (role == OpIdRole || role == RoundRole) {
        if (n->tensor < 0)
            return {};
        const TensorRecord &t = (*m_records)[static_cast<size_t>(n->tensor)];
        return role == OpIdRole ? QVariant(QString::fromStdString(t.opId)) : QVariant(qlonglong(t.exec));
    }
    if (index.column() == NameColumn)
        return role == Qt::ToolTipRole && n->tensor >= 0
            ? QString::fromStdString((*m_records)[static_cast<size_t>(n->tensor)].path)
            : n->label;
    if (n->tensor < 0)
        return {};
    const TensorRecord &t = (*m_records)[static_cast<size_t>(n->tensor)];
    auto stat = [&](double TensorStats::*field) -> QVariant {
        if (!t.stats)
            return {};
        return QString::fromStdString(formatStat((*t.stats).*field));
    };
    switch (index.column()) {
    case DTypeColumn: return QString::fromStdString(t.engineType.empty() ? dtypeName(t.dtype) : t.engineType);
    case ShapeColumn: return QStringLiteral("[%1]").arg(QString::fromStdString(joinDims(t.dims, ',')));
    case MaxColumn: return stat(&TensorStats::max);
    case MinColumn: return stat(&TensorStats::min);
    case MeanColumn: return stat(&TensorStats::mean);
    case NormColumn: return stat(&TensorStats::l2norm);
    default: return {};
    }
}

QVariant DumpTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Operation / tensor");
    case DTypeColumn: return tr("Type");
    case ShapeColumn: return tr("Shape");
    case MaxColumn: return tr("Max");
    case MinColumn: return tr("Min");
    case MeanColumn: return tr("Mean");
    case NormColumn: return tr("L2 norm");
    default: return {};
    }
}

QString DumpTreeModel::describe(const Request &r)
{
    const QString positions = r.lastPosition < 0 ? tr("not recorded")
        : r.firstPosition == r.lastPosition      ? QString::number(r.firstPosition)
                                                 : tr("%1-%2").arg(r.firstPosition).arg(r.lastPosition);
    const QString rounds = r.rounds.size() == 1 ? QString::number(r.rounds.front())
                                                : tr("%1-%2").arg(r.rounds.front()).arg(r.rounds.back());
    const bool one = r.rounds.size() == 1;
    QString s = (one ? tr("Request %1: sequence %2, positions %3, %n token(s) in round %4", nullptr, int(r.tokens))
                     : tr("Request %1: sequence %2, positions %3, %n token(s) in rounds %4", nullptr, int(r.tokens)))
                    .arg(r.number)
                    .arg(r.sequence)
                    .arg(positions, rounds);
    if (r.shared)
        s += tr(" (some shared with other sequences)");
    return s;
}

QString DumpTreeModel::requestWords(int64_t round) const
{
    if (!m_doc)
        return {};
    if (!servesRequests(m_doc->rounds().requests()))
        return {};
    QStringList words;
    for (const Request *r : m_doc->rounds().requestsOfRound(round))
        words << tr("request %1 (sequence %2)").arg(r->number).arg(r->sequence);
    return words.join(tr(", "));
}

void DumpTreeModel::follow(SessionDocument *doc)
{
    clear();
    m_records = &doc->rounds().records();
    m_doc = doc;
    connect(doc, &SessionDocument::sourceChanged, this, &DumpTreeModel::clear);
    connect(doc, &SessionDocument::roundsAdded, this, &DumpTreeModel::grow);
    connect(doc, &SessionDocument::roundsAdded, this, [this](const DumpRounds::Chunk &chunk) {
        if (!chunk.requests.empty() && rowCount() > 0) // the rounds' rows name their requests now
            emit dataChanged(index(0, NameColumn), index(rowCount() - 1, NameColumn));
    });
    grow(); // what it holds already (a window built on a session under way)
}
