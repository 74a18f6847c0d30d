#include "views/tensor_diff_view.h"

#include "document/cursor.h"
#include "document/session_document.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QComboBox>
#include <QSignalBlocker>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

#include "core/tensor/tensor.h"
#include "views/framed_selection_delegate.h"
#include "views/slice_picker.h"
#include "views/tensor_slice_model.h"

SliceErrorModel::SliceErrorModel(TensorSliceModel *golden, TensorSliceModel *test, QObject *parent)
    : QAbstractTableModel(parent), m_golden(golden), m_test(test)
{
}

void SliceErrorModel::refresh()
{
    beginResetModel();
    endResetModel();
}

int SliceErrorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : std::min(m_golden->rowCount(), m_test->rowCount());
}

int SliceErrorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : std::min(m_golden->columnCount(), m_test->columnCount());
}

double SliceErrorModel::error(int row, int col) const
{
    const double g = m_golden->value(row, col), t = m_test->value(row, col);
    if (std::isnan(g) || std::isnan(t))
        return std::isnan(g) && std::isnan(t) ? 0 : INFINITY;
    const double diff = std::fabs(t - g);
    return std::fabs(g) > 0 ? diff / std::fabs(g) : diff;
}

QVariant SliceErrorModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const double e = error(index.row(), index.column());
    if (role == Qt::DisplayRole)
        return std::isinf(e) ? QStringLiteral("inf") : QString::number(e, 'g', 3);
    if (role == Qt::BackgroundRole) {
        if (e == 0)
            return {};
        // Stronger red for larger relative error: 1e-7 faint, 1 and over full.
        const double t = std::clamp((std::log10(std::max(e, 1e-7)) + 7) / 7, 0.0, 1.0);
        return QBrush(QColor(255, int(235 - 180 * t), int(235 - 180 * t)));
    }
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant SliceErrorModel::headerData(int section, Qt::Orientation, int role) const
{
    return role == Qt::DisplayRole ? QVariant(QString::number(section)) : QVariant();
}

TensorDiffView::TensorDiffView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_status(new QLabel(this)), m_files(new QComboBox(this)),
      m_golden(new TensorSliceModel(this)), m_test(new TensorSliceModel(this)),
      m_error(new SliceErrorModel(m_golden, m_test, this)), m_picker(new SlicePicker(this)),
      m_goldenTable(new QTableView(this)), m_testTable(new QTableView(this)), m_errorTable(new QTableView(this))
{
    m_title->setTextFormat(Qt::RichText);
    m_status->setWordWrap(true);
    // The files in a box on the slice's row, not a list beside the tables: at 1024 pixels a list
    // left each table one column.
    m_files->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_files->setToolTip(tr("The operation's tensor files: its inputs before it ran, its outputs after"));
    auto *split = new QSplitter(this);
    const QStringList titles{tr("Golden"), tr("Test"), tr("Relative error")};
    int k = 0;
    for (auto [table, model] : {std::pair<QTableView *, QAbstractItemModel *>{m_goldenTable, m_golden},
                                {m_testTable, m_test},
                                {m_errorTable, m_error}}) {
        table->setModel(model);
        table->setItemDelegate(new FramedSelectionDelegate(table)); // the worst value's red stays red
        // as wide as the widest value the table writes (six digits, a sign, an exponent; the
        // error three digits, no sign): a column narrower elides "-0.000123457" to "-0...."
        const QString widest = k == 2 ? QStringLiteral("1.23e-05") : QStringLiteral("-0.000123457");
        table->horizontalHeader()->setDefaultSectionSize(table->fontMetrics().horizontalAdvance(widest) + 14);
        table->verticalHeader()->setDefaultSectionSize(20);
        // The three scroll together by row and column (the error's columns are narrower), and
        // each keeps its horizontal bar, so their rows stay level.
        table->setHorizontalScrollMode(QAbstractItemView::ScrollPerItem);
        table->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
        table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
        // The rows line up with golden's, which numbers them, and scroll with the error table's
        // bar: the width goes to values (at 1024 pixels each table had one column).
        if (k > 0)
            table->verticalHeader()->hide();
        if (k < 2)
            table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        auto *box = new QWidget(this);
        auto *l = new QVBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        auto *name = new QLabel(QStringLiteral("<b>%1</b>").arg(titles[k]), box);
        (k == 0 ? m_leftName : k == 1 ? m_rightName : name) = name;
        ++k;
        l->addWidget(name);
        l->addWidget(table);
        split->addWidget(box);
    }
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 3); // golden and test, values of up to 12 characters
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2); // errors of up to 8
    // The three tables scroll together.
    for (QTableView *a : {m_goldenTable, m_testTable, m_errorTable})
        for (QTableView *b : {m_goldenTable, m_testTable, m_errorTable})
            if (a != b) {
                connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(),
                        &QScrollBar::setValue);
                connect(a->horizontalScrollBar(), &QScrollBar::valueChanged, b->horizontalScrollBar(),
                        &QScrollBar::setValue);
            }
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_status);
    auto *sliceRow = new QHBoxLayout;
    sliceRow->addWidget(new QLabel(tr("File:"), this));
    sliceRow->addWidget(m_files);
    sliceRow->addSpacing(12);
    sliceRow->addWidget(m_picker, 1);
    layout->addLayout(sliceRow);
    layout->addWidget(split, 1);
    // One slice for all three: golden and test are the same cells, and the error between them.
    connect(m_picker, &SlicePicker::sliceChanged, this, [this](int rows, int cols, const std::vector<int64_t> &fixed) {
        m_golden->setSlice(rows, cols, fixed);
        if (m_test->dims() == m_golden->dims())
            m_test->setSlice(rows, cols, fixed);
        m_error->refresh();
    });
    connect(m_files, &QComboBox::currentIndexChanged, this, &TensorDiffView::showPair);
    m_title->setText(tr("Pick an operation in the Diff table to see its tensors, golden and test, side by side."));
}

void TensorDiffView::setFiles(const QString &title, const QStringList &golden, const QStringList &test,
                              const QString &leftName, const QString &rightName)
{
    QVector<TensorDiffPair> pairs;
    for (const QString &g : golden) {
        const QFileInfo gi(g);
        const QString name = gi.dir().dirName() + QLatin1Char('/') + gi.fileName();
        for (const QString &t : test)
            if (t.endsWith(QLatin1Char('/') + name)) {
                pairs.push_back({name, g, t, {}, {}});
                break;
            }
    }
    setPairs(title, pairs, leftName, rightName);
}

void TensorDiffView::setPairs(const QString &title, const QVector<TensorDiffPair> &pairs, const QString &leftName,
                              const QString &rightName)
{
    m_leftName->setText(
        QStringLiteral("<b>%1</b>").arg((leftName.isEmpty() ? tr("Golden") : leftName).toHtmlEscaped()));
    m_rightName->setText(
        QStringLiteral("<b>%1</b>").arg((rightName.isEmpty() ? tr("Test") : rightName).toHtmlEscaped()));
    m_pairs = pairs;
    m_title->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    int pick = -1;
    {
        const QSignalBlocker quiet(m_files); // one pair shown, the picked one, not each on the way
        m_files->clear();
        for (const TensorDiffPair &p : pairs) {
            m_files->addItem(p.name);
            if (pick < 0 &&
                (p.name.startsWith(QLatin1String("after/out")) || p.name.startsWith(QLatin1String("output"))))
                pick = m_files->count() - 1;
        }
        m_files->setCurrentIndex(-1);
    }
    if (m_files->count() == 0) {
        m_golden->close();
        m_test->close();
        m_error->refresh();
        m_picker->setDims({}, -1, -1); // nothing shown: no dimensions left from the last
        m_status->setText(
            title.isEmpty() ? tr("Compare two dumps (Session > Compare dumps, Ctrl+D), hunt for the first divergent "
                                 "operation (Session > Hunt, Ctrl+H) or replay a dump (Session > Replay operations) to "
                                 "see an operation's tensors side by side here.")
                            : tr("No tensor files of this operation on both sides (dump it with --type tensor)."));
        return;
    }
    m_files->setCurrentIndex(std::max(0, pick));
}

void TensorDiffView::showPair(int row)
{
    if (row < 0 || row >= m_pairs.size())
        return;
    const TensorDiffPair &p = m_pairs[row];
    const bool ok = TensorSliceModel::openPair(*m_golden, *m_test, p);
    m_error->refresh();
    m_picker->setDims(ok ? m_golden->dims() : std::vector<int64_t>{}, m_golden->rowDim(), m_golden->colDim());
    if (!ok) {
        m_status->setText(m_golden->error().isEmpty() ? m_test->error() : m_golden->error());
        return;
    }
    QString status = m_golden->dims() == m_test->dims()
        ? tr("Both %1 elements; pick the dimensions to show below.")
              .arg(qlonglong(llmscope::elementCount(m_golden->dims())))
        : tr("The shapes differ: golden and test are shown as their files hold them.");
    if (p.goldenView.headSize || p.testView.headSize)
        status += QLatin1Char(' ') +
            tr("Rows un-permuted within heads of %1, as Hugging Face orders them.")
                .arg(qulonglong(std::max(p.goldenView.headSize, p.testView.headSize)));
    if (p.goldenView.lastRows || p.testView.lastRows)
        status += QLatin1Char(' ') + tr("Only the last token's rows: the engine computed no others here.");
    m_status->setText(status);
    showWorst();
}

// Scrolled to the slice's worst element, where a fault that spares most of a row shows (a
// kernel's last columns), scanning a slice of up to a million elements.
void TensorDiffView::showWorst()
{
    m_worst = QModelIndex();
    const int rows = m_error->rowCount(), cols = m_error->columnCount();
    if (qint64(rows) * cols > (qint64(1) << 20))
        return;
    double worst = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (const double e = m_error->error(r, c); e > worst) {
                worst = e;
                m_worst = m_error->index(r, c);
            }
    if (!m_worst.isValid())
        return;
    m_errorTable->setCurrentIndex(m_worst);
    for (QTableView *t : {m_goldenTable, m_testTable, m_errorTable})
        t->scrollTo(t->model()->index(m_worst.row(), m_worst.column()), QAbstractItemView::PositionAtCenter);
}

QString TensorDiffView::status() const
{
    return m_status->text();
}

void TensorDiffView::setCompared(const ComparedFiles &files)
{
    if (files.pairs.isEmpty())
        setFiles(files.title, files.golden, files.test);
    else
        setPairs(files.title, files.pairs);
}

void TensorDiffView::follow(Cursor *cursor)
{
    const auto show = [this](int op) {
        if (const ComparedFiles t = comparedFilesOf(*m_doc, op); !t.title.isEmpty())
            setCompared(t);
    };
    connect(cursor, &Cursor::comparedChanged, this, show);
    show(cursor->compared()); // what the cursor points at already (a window built on a session under way)
}

void TensorDiffView::follow(SessionDocument *doc)
{
    m_doc = doc;
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setFiles({}, {}, {}); });
    // A comparison with no operation picked yet: what to do is pick one, not compare again.
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Comparison && doc->results().comparison && m_files->count() == 0)
            m_status->setText(tr("Pick an operation in the Diff table above to see its tensors, golden and test, side "
                                 "by side here."));
    });
}
