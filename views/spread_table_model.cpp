#include "views/spread_table_model.h"

#include "core/compare/report_text.h"
#include "document/reason_words.h"
#include "views/first_row_mark.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>

using namespace llmscope;

SpreadTableModel::SpreadTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void SpreadTableModel::setResult(std::shared_ptr<const SpreadResult> r)
{
    beginResetModel();
    m_result = std::move(r);
    m_largest = 0;
    m_runWords.clear();
    if (m_result) {
        for (const SpreadOp &o : m_result->ops)
            for (double d : o.fromFirst)
                if (std::isfinite(d))
                    m_largest = std::max(m_largest, d);
        // each run's words that not every run has, a flag kept with its value
        std::vector<QStringList> words;
        for (const SpreadRun &run : m_result->runs)
            words.push_back(QString::fromStdString(run.command).split(QLatin1Char(' '), Qt::SkipEmptyParts));
        auto common = [&](const QString &w) {
            return std::all_of(words.begin(), words.end(), [&](const QStringList &l) { return l.contains(w); });
        };
        for (const QStringList &l : words) {
            QStringList own;
            for (int i = 0; i < l.size(); ++i)
                if (!common(l[i]))
                    own << (i > 0 && l[i - 1].startsWith(QLatin1Char('-')) && common(l[i - 1])
                                ? l[i - 1] + QLatin1Char(' ') + l[i]
                                : l[i]);
            m_runWords.push_back(own.join(QLatin1Char(' ')));
        }
    }
    endResetModel();
}

QString SpreadTableModel::runName(int run)
{
    return tr("run %1").arg(run + 1);
}

QString SpreadTableModel::runWords(int run) const
{
    return run >= 0 && size_t(run) < m_runWords.size() ? m_runWords[size_t(run)] : QString();
}

int SpreadTableModel::rowOf(const QString &opId, qint64 round) const
{
    if (!m_result)
        return -1;
    for (size_t k = 0; k < m_result->ops.size(); ++k)
        if (m_result->ops[k].round == round && QString::fromStdString(m_result->ops[k].opId) == opId)
            return int(k);
    return -1;
}

int SpreadTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->ops.size());
}

int SpreadTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : FirstRunColumn + int(m_result->runs.size());
}

QVariant SpreadTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_result)
        return {};
    const SpreadOp &o = m_result->ops[size_t(index.row())];
    const bool first = index.row() == m_result->firstDeparture;
    const int run = index.column() - FirstRunColumn;
    const double value = index.column() == SpreadColumn ? o.spread
        : run >= 0 && size_t(run) < o.fromFirst.size()  ? o.fromFirst[size_t(run)]
                                                        : NAN;
    // in percent of the output's size, as the Diff table's errors: bit-identical is a plain 0
    const auto text = [](double v) {
        return std::isnan(v) ? QString() : v == 0 ? QStringLiteral("0") : QString::fromStdString(report::percent(v));
    };
    switch (role) {
    case OpIdRole: return QString::fromStdString(o.opId);
    case RoundRole: return qlonglong(o.round);
    case DiffersRole: return o.spread != 0 || o.departs;
    case DepartsRole: return o.departs;
    case ValueRole: return value;
    case Qt::DisplayRole:
        switch (index.column()) {
        case RoundColumn: return qlonglong(o.round);
        case OpColumn: return QString::fromStdString(o.label()) + (first ? tr("  \u25C6 first departure") : QString());
        default: return text(value);
        }
    case Qt::ToolTipRole:
        if (index.column() == OpColumn || index.column() == SpreadColumn)
            return o.departs   ? reasonWords(o.why)
                : o.spread > 0 ? tr("the runs differ here within their standard")
                               : tr("every run bit-identical here");
        if (run >= 0)
            return tr("%1 against %2: %3 (relative euclidean distance of the outputs)\n%4")
                .arg(runName(run), runName(0))
                .arg(text(value))
                .arg(QString::fromStdString(m_result->runs[size_t(run)].command));
        return {};
    case Qt::BackgroundRole:
        if (index.column() >= SpreadColumn && std::isfinite(value) && value > 0 && m_largest > 0) {
            // log scale from a millionth of the largest: rounding and faults both visible. Red only
            // where the runs part beyond their standard, as on the heatmap; blue within it.
            const double t = std::clamp(std::log10(value / m_largest) / 6 + 1, 0.1, 1.0);
            return o.departs ? QBrush(QColor(int(255 - 55 * t), int(235 - 190 * t), int(225 - 185 * t)))
                             : QBrush(QColor(int(232 - 125 * t), int(240 - 66 * t), int(250 - 36 * t)));
        }
        if (first && index.column() < SpreadColumn)
            return firstRowMark(role);
        return {};
    case Qt::ForegroundRole:
        if (o.departs && index.column() < SpreadColumn)
            return QBrush(QColor(0xc0, 0x10, 0x10));
        return {};
    case Qt::FontRole: return first ? firstRowMark(role) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == OpColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                          : int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant SpreadTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || !m_result)
        return {};
    const int run = section - FirstRunColumn;
    if (role == Qt::ToolTipRole && run >= 0 && size_t(run) < m_result->runs.size())
        return QString::fromStdString(m_result->runs[size_t(run)].command);
    if (role == Qt::ToolTipRole && section == SpreadColumn)
        return tr("The largest relative error between two runs' outputs of the operation, ||a - b|| / ||a||, in "
                  "percent of the output's size: 0 where every run computed the same bits");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RoundColumn: return tr("Round");
    case OpColumn: return tr("Operation");
    case SpreadColumn: return tr("Spread");
    }
    const QString name = run == m_result->departingRun ? tr("%1 (departs)").arg(runName(run)) : runName(run);
    const QString words = runWords(run);
    return words.isEmpty() ? name : name + QLatin1Char('\n') + words;
}
