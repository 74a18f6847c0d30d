#include "views/diff_view.h"
#include "document/config_words.h"
#include "document/layer_words.h"
#include "document/reason_words.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "core/compare/divergence_cause.h"
#include "core/compare/op_verdicts.h"
#include "document/cursor.h"
#include "document/session_document.h"
#include "views/diff_table_model.h"

using namespace llmscope;

namespace {
// Failures only, and text in the op's label.
class DiffFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    bool failuresOnly = false;
    void refresh() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex i = sourceModel()->index(row, DiffTableModel::OpColumn, parent);
        if (failuresOnly && i.data(DiffTableModel::PassedRole).toBool())
            return false;
        return QSortFilterProxyModel::filterAcceptsRow(row, parent);
    }
};
// The last two parts of a dump's path ("golden-tensors/msit_dump_..."): the full one is in the tooltip.
QString shortPath(const std::string &path)
{
    const QStringList parts = QString::fromStdString(path).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    return parts.size() <= 2 ? QString::fromStdString(path)
                             : QStringLiteral(".../") + parts.mid(parts.size() - 2).join('/');
}
} // namespace

DiffView::DiffView(QWidget *parent)
    : QWidget(parent), m_model(new DiffTableModel(this)), m_proxy(new DiffFilter(this)), m_table(new QTableView(this)),
      m_summary(new QLabel(this)), m_summaryArea(new QScrollArea(this)),
      m_failures(new QCheckBox(tr("failures only"), this)), m_filter(new QLineEdit(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(DiffTableModel::SortRole);
    m_proxy->setFilterKeyColumn(DiffTableModel::OpColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(DiffTableModel::RoundColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    QHeaderView *header = m_table->horizontalHeader();
    header->setDefaultSectionSize(84);
    header->resizeSection(DiffTableModel::OpColumn, 200); // "3_29 ffn_out-2 (MUL_MAT)"; Output error beside it
    // Each other column at least as wide as its name ("Round", "Output error", in either
    // language), beside the sort arrow.
    for (int c = 0; c < m_model->columnCount(); ++c)
        if (c != DiffTableModel::OpColumn) {
            const QString name = m_model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
            header->resizeSection(c,
                                  std::max(c == DiffTableModel::RoundColumn ? 50 : 84,
                                           header->fontMetrics().horizontalAdvance(name) + 28));
        }
    header->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft); // from its first line, however tall the label
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(tr("Hunt for the first divergent operation of two programs (Session > Hunt, Ctrl+H), or compare "
                          "a golden dump with a test dump (Session > Compare dumps, Ctrl+D)."));
    m_filter->setPlaceholderText(tr("Filter operations by name, type or id"));
    m_filter->setClearButtonEnabled(true);

    auto *row = new QHBoxLayout;
    row->addWidget(m_failures);
    row->addWidget(m_filter, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    // The summary scrolls past a few lines: long paths or a narrow window never push the
    // table under it, nor the window's least size past a laptop's screen.
    m_summaryArea->setObjectName(QStringLiteral("DiffSummary"));
    m_summaryArea->setWidget(m_summary);
    m_summaryArea->setWidgetResizable(true);
    m_summaryArea->setFrameShape(QFrame::NoFrame);
    m_summaryArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_summaryArea);
    layout->addLayout(row);
    layout->addWidget(m_table, 1);

    connect(m_failures, &QCheckBox::toggled, this, [this](bool on) {
        auto *f = static_cast<DiffFilter *>(m_proxy);
        f->failuresOnly = on;
        f->refresh();
    });
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &i) {
        const QString id = i.data(DiffTableModel::OpIdRole).toString();
        if (!id.isEmpty())
            emit opClicked(id);
        const QModelIndex source = m_proxy->mapToSource(i);
        if (source.isValid())
            emit opPicked(source.row());
    });
}

void DiffView::showFailure(const QString &what, const QString &why)
{
    setResult(nullptr);
    m_summary->setText(
        tr("<b style=\"color:#b3261e\">%1</b> %2<br>No comparison is shown: an earlier one would read "
           "as this one's verdict.")
            .arg(what.toHtmlEscaped(), why.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    fitSummary();
}

void DiffView::setResult(std::shared_ptr<const CompareResult> r)
{
    if (!r) { // a new source: nothing compared yet
        m_summary->clear();
        m_summary->setToolTip({});
        m_model->setResult(nullptr);
        fitSummary();
        return;
    }
    const CompareResult &res = *r;
    size_t passed = 0;
    for (const auto &row : res.rows)
        passed += row.passed;
    // What a user looks for first comes first: the op, why; then the counts, then which dumps.
    QStringList lines;
    if (res.firstDivergent >= 0) {
        const OpResult &op = res.ops[size_t(res.firstDivergent)];
        // (none compared before it: "0 operations before it passed" read as "none passed")
        // where it is as llama.cpp counts layers (its weights' blk.N), beside the op id's own count
        const QString layer = layerWords(op.name);
        const QString when =
            layer.isEmpty() ? tr("round %1").arg(op.round) : tr("round %1, %2").arg(op.round).arg(layer);
        lines << (res.firstDivergent == 0 ? tr("First divergent: <b>%1</b> in %2 (the first operation compared).")
                                                .arg(DiffTableModel::opCell(op).toHtmlEscaped(), when.toHtmlEscaped())
                                          : tr("First divergent: <b>%1</b> in %2 (the %3 operations before it "
                                               "passed).")
                                                .arg(DiffTableModel::opCell(op).toHtmlEscaped(), when.toHtmlEscaped())
                                                .arg(res.firstDivergent));
        if (const Reason cause = causeWords(res, op); !cause.empty())
            lines << tr("<b>Cause:</b> %1.").arg(reasonWords(cause).toHtmlEscaped());
    } else if (!res.rows.empty()) {
        lines << tr("Every operation passed.");
    }
    if (res.config) // what differs between the two runs, before any tensor
        lines << configurationLine(*res.config);
    if (!res.standardWhy.empty()) // what the verdicts above are held to, and why
        lines << tr("<b>Standard</b> %1.").arg(reasonWords(res.standardWhy).toHtmlEscaped());
    lines << tr("%1 tensor pairs (%2), %3 passed, %4 failed; %5 only in golden, %6 only in test.")
                 .arg(res.rows.size())
                 .arg(reasonWords(res.method))
                 .arg(passed)
                 .arg(res.rows.size() - passed)
                 .arg(res.onlyGolden.size())
                 .arg(res.onlyMy.size())
          << tr("<b>%1</b> against <b>%2</b>")
                 .arg(shortPath(res.goldenRoot).toHtmlEscaped(), shortPath(res.myRoot).toHtmlEscaped());
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    fitSummary();
    m_summary->setToolTip(
        tr("golden: %1\ntest: %2").arg(QString::fromStdString(res.goldenRoot), QString::fromStdString(res.myRoot)) +
        (res.config ? QStringLiteral("\n\n") + QString::fromStdString(configDiffText(*res.config)).trimmed()
                    : QString()));
    m_model->setResult(std::move(r));
    const int first = m_model->firstDivergentRow();
    if (first >= 0) {
        const QModelIndex i = m_proxy->mapFromSource(m_model->index(first, DiffTableModel::OpColumn));
        m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(i, QAbstractItemView::PositionAtCenter);
        m_table->horizontalScrollBar()->setValue(0); // the op's name in view, not its last column
    }
}

void DiffView::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    fitSummary();
}

void DiffView::follow(Cursor *cursor)
{
    followOp(cursor, this, &DiffView::opClicked);
    connect(this, &DiffView::opPicked, cursor, [this, cursor](int op) { cursor->setCompared(op, this); });
}

void DiffView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setResult(nullptr); });
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Comparison && doc->results().comparison)
            setResult(doc->results().comparison); // selects the first divergent op: the cursor has it
    });
    if (doc->results().comparison) // what the document holds already
        setResult(doc->results().comparison);
}

QString DiffView::configurationLine(const llmscope::ConfigDiff &d)
{
    return tr("<b>Configuration</b> %1 (llmscope config-diff; the summary's tooltip lists them).")
        .arg(configDiffWords(d).toHtmlEscaped());
}

QSize DiffView::minimumSizeHint() const
{
    const QHeaderView *header = m_table->horizontalHeader();
    int width = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width() + 8;
    for (int c :
         {int(DiffTableModel::RoundColumn), int(DiffTableModel::OpColumn), int(DiffTableModel::OutputErrorColumn)})
        width += header->sectionSize(c);
    return QWidget::minimumSizeHint().expandedTo(QSize(width, 0));
}

QWidget *DiffView::summaryPanel() const
{
    return m_summaryArea;
}

void DiffView::fitSummary()
{
    // At least five lines (the op and its cause first), up to a quarter of the pane it sits in
    // where that is tall: the verdict's words before the table's rows; the rest scrolls.
    constexpr int kLines = 5;
    const int needed = std::max(0, m_summary->heightForWidth(std::max(100, m_summaryArea->viewport()->width())));
    m_summary->setMinimumHeight(needed);
    const QWidget *page = m_summaryArea->parentWidget() ? m_summaryArea->parentWidget() : this;
    const int cap = std::max(kLines * m_summary->fontMetrics().lineSpacing(), page->height() / 4) +
        2 * m_summaryArea->frameWidth() + 4;
    m_summaryArea->setFixedHeight(std::min(std::max(needed, m_summary->fontMetrics().lineSpacing()), cap));
}

void DiffView::selectOp(const QString &id)
{
    if (m_table->currentIndex().siblingAtColumn(DiffTableModel::OpColumn).data(DiffTableModel::OpIdRole).toString() ==
        id)
        return; // already on it (in the round the user picked)
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const QModelIndex i = m_proxy->index(r, DiffTableModel::OpColumn);
        if (i.data(DiffTableModel::OpIdRole).toString() == id) {
            if (m_table->currentIndex().row() != r)
                m_table->selectionModel()->setCurrentIndex(
                    i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_table->scrollTo(i);
            return;
        }
    }
}

QString DiffView::summary() const
{
    return m_summary->text();
}
