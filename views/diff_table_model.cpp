#include "views/diff_table_model.h"
#include "document/reason_words.h"
#include "views/first_row_mark.h"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <QFont>

using namespace llmscope;

DiffTableModel::DiffTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void DiffTableModel::setResult(std::shared_ptr<const CompareResult> r)
{
    beginResetModel();
    m_result = std::move(r);
    endResetModel();
}

int DiffTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->ops.size());
}

int DiffTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

// An op, or a chain computed fused as one cell: its ops' ids, the name of its end (whose output
// was dumped), its types, "fused"; the tooltip names every op.
QString DiffTableModel::opCell(const OpResult &op)
{
    if (op.fusedIds.empty())
        return QString::fromStdString(op.label());
    QStringList ids;
    for (const std::string &id : op.fusedIds)
        ids << QString::fromStdString(id);
    return tr("%1 %2 (%3, fused)")
        .arg(ids.join(QLatin1Char('+')), QString::fromStdString(op.name), QString::fromStdString(op.fusedChain))
        .simplified();
}

QString DiffTableModel::fusedBy(const OpResult &op)
{
    return op.goldenFused && op.myFused ? tr("golden and test") : op.goldenFused ? tr("golden") : tr("test");
}

QString DiffTableModel::fusedMembers(const OpResult &op)
{
    QStringList members;
    for (size_t k = 0; k < op.fusedIds.size(); ++k)
        members << QStringLiteral("%1 %2")
                       .arg(QString::fromStdString(op.fusedIds[k]),
                            QString::fromStdString(k < op.fusedNames.size() ? op.fusedNames[k] : std::string()))
                       .trimmed();
    return members.join(QStringLiteral(", "));
}

QString DiffTableModel::fusedWords(const OpResult &op)
{
    return tr("%1 computed these ops as one fused kernel (%2): %3. Only the last one's output reached memory; "
              "the chain is judged by the budgets of all its ops. Dump without --keep-fusion to see inside it.")
        .arg(fusedBy(op), QString::fromStdString(op.fusedChain), fusedMembers(op));
}

QVariant DiffTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_result)
        return {};
    const OpResult &op = m_result->ops[size_t(index.row())];
    const bool first = index.row() == m_result->firstDivergent;
    const auto pct = [](double v) { return QStringLiteral("%1 %").arg(v * 100, 0, 'g', 3); };
    switch (role) {
    case OpIdRole: return QString::fromStdString(op.opId);
    case PassedRole: return op.passed;
    case FirstDivergentRole: return first;
    case SortRole:
        switch (index.column()) {
        case RoundColumn: return qlonglong(op.round) * 1000000 + index.row(); // execution order
        case OpColumn: return index.row();
        case OutputErrorColumn: return op.outputError;
        case InputErrorColumn: return op.inputError;
        case AddedErrorColumn: return op.addedError;
        case CosineColumn: return std::isnan(op.outputCosine) ? 2.0 : op.outputCosine; // untold: after every told one
        case BudgetColumn: return op.budgetShare;
        case ResultColumn: return op.passed ? 1 : 0;
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case RoundColumn: return qlonglong(op.round);
        case OpColumn: return opCell(op);
        case OutputErrorColumn: return op.unreadable.empty() ? pct(op.outputError) : QString();
        case InputErrorColumn: return op.unreadable.empty() ? pct(op.inputError) : QString();
        case AddedErrorColumn: return op.unreadable.empty() ? pct(op.addedError) : QString();
        case CosineColumn:
            if (!op.unreadable.empty())
                return QString();
            if (std::isnan(op.outputCosine))
                return QStringLiteral("–"); // statistics alone do not tell it
            return (op.fromStats ? QStringLiteral("≈") : QString()) + QString::number(op.outputCosine, 'f', 6);
        case BudgetColumn: // the engine standard's figure
            return op.unreadable.empty() && judgesOps(m_result->standard) ? pct(op.budgetShare) : QString();
        case ResultColumn:
            if (!op.unreadable.empty())
                return tr("unreadable");
            return first ? tr("FIRST DIVERGENT") : op.passed ? tr("passed") : tr("failed");
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == OpColumn && !op.fusedIds.empty())
            return fusedWords(op);
        if (!op.unreadable.empty())
            return reasonWords(op.unreadable);
        if (index.column() == CosineColumn && op.fromStats)
            return std::isnan(op.outputCosine)
                ? tr("compared on statistics, which do not tell a cosine: compare the tensors for it")
                : tr("estimated from the statistics (the two L2 norms and the sketches' distance): compare "
                     "the tensors for the exact figure");
        if (index.column() == BudgetColumn)
            return (op.budgetKind == llmscope::Standard::Engine
                        ? tr("adds NMSE %1 of the %2 its op type may add between two engines (%3 standard)")
                        : op.budgetKind == llmscope::Standard::Rounding
                        ? tr("adds NMSE %1 of the %2 float rounding in another order may change here (%3 standard)")
                        : tr("adds NMSE %1 where the same run must add %2 (%3 standard)"))
                .arg(op.ownNmse, 0, 'g', 3)
                .arg(op.budget, 0, 'g', 3)
                .arg(QString::fromLatin1(standardName(op.budgetKind)));
        if (!op.verdict.empty())
            return reasonWords(op.verdict);
        if (op.worstInputIsWeight && op.worstInput >= 0)
            return tr("its error comes in through the weight %1")
                .arg(QString::fromStdString(m_result->rows[size_t(op.worstInput)].tensorName));
        return QString::fromStdString(op.opPath);
    case Qt::BackgroundRole:
        if (first)
            return firstRowMark(role);
        if (!op.passed)
            return QBrush(QColor(255, 224, 224));
        return {};
    case Qt::FontRole: return first ? firstRowMark(role) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == OpColumn || index.column() == ResultColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                                            : int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RoundColumn: return tr("Round");
    case OpColumn: return tr("Operation");
    case OutputErrorColumn: return tr("Output error");
    case InputErrorColumn: return tr("Inherited");
    case AddedErrorColumn: return tr("Added itself");
    case CosineColumn: return tr("Cosine");
    case BudgetColumn: return tr("Of its budget");
    case ResultColumn: return tr("Result");
    }
    return {};
}
