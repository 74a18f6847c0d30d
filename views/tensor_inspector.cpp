#include "views/tensor_inspector.h"

#include "document/cursor.h"
#include "document/job_pool.h"
#include "document/op_inspection.h"
#include "document/session_document.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QPointer>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <QCoroFuture>

#include <cmath>
#include <limits>

#include "core/compare/report_text.h"
#include "core/compare/tensor_reader.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"
#include "core/util/error.h"
#include "document/reason_words.h"
#include "views/slice_picker.h"
#include "views/tensor_slice_model.h"

using namespace llmscope;

namespace {

constexpr int kBins = 64;

struct Summary {
    QString error;
    bool values = false; // statistics of the values (else from the header)
    uint64_t count = 0, nan = 0, inf = 0;
    double min = 0, max = 0, mean = 0, l2 = 0;
    std::vector<uint64_t> bins;
};

// Two passes over the file in chunks: the statistics, then the histogram between min and max.
Summary summarize(const std::string &path)
{
    Summary s;
    try {
        if (QString::fromStdString(path).endsWith(QLatin1String(".bin"))) {
            const BinFileInfo info = readBinFile(path, true);
            if (!info.tensor.hasData) { // statistics only, or a description
                const auto st = statsFromAttrs(info.tensor);
                if (!st)
                    throw Error("this file describes the tensor only: no values, no statistics");
                s.count = info.tensor.elementCount();
                s.min = st->min;
                s.max = st->max;
                s.mean = st->mean;
                s.l2 = st->l2norm;
                return s;
            }
        }
        TensorReader r(path);
        r.requireData();
        s.values = true;
        constexpr uint64_t kChunk = 1 << 16;
        std::vector<float> buf(kChunk);
        double sum = 0, sq = 0;
        s.min = std::numeric_limits<double>::infinity();
        s.max = -s.min;
        for (uint64_t i = 0; i < r.count(); i += kChunk) {
            const uint64_t n = std::min(kChunk, r.count() - i);
            r.read(i, n, buf.data());
            for (uint64_t k = 0; k < n; ++k) {
                const double v = buf[k];
                if (std::isnan(v)) {
                    ++s.nan;
                } else if (std::isinf(v)) {
                    ++s.inf;
                } else {
                    s.min = std::min(s.min, v);
                    s.max = std::max(s.max, v);
                    sum += v;
                    sq += v * v;
                }
            }
        }
        s.count = r.count();
        const uint64_t finite = s.count - s.nan - s.inf;
        s.mean = finite ? sum / double(finite) : NAN;
        s.l2 = std::sqrt(sq);
        if (!finite)
            return s;
        s.bins.assign(kBins, 0);
        const double width = (s.max - s.min) / kBins;
        for (uint64_t i = 0; i < r.count(); i += kChunk) {
            const uint64_t n = std::min(kChunk, r.count() - i);
            r.read(i, n, buf.data());
            for (uint64_t k = 0; k < n; ++k)
                if (std::isfinite(buf[k]))
                    ++s.bins[width > 0 ? std::min<size_t>(kBins - 1, size_t((buf[k] - s.min) / width)) : 0];
        }
    } catch (const Error &e) {
        s.error = errorWords(e);
    }
    return s;
}

} // namespace

TensorInspector::TensorInspector(QWidget *parent)
    : QWidget(parent), m_whose(new QLabel(this)), m_title(new QLabel(this)), m_header(new QLabel(this)),
      m_stats(new QLabel(this)), m_files(new QListWidget(this)), m_picker(new SlicePicker(this)),
      m_table(new QTableView(this)), m_slice(new TensorSliceModel(this)), m_chart(new QChartView(this))
{
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stats->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_files->setMaximumHeight(110);
    m_table->setModel(m_slice);
    m_table->horizontalHeader()->setDefaultSectionSize(84);
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(170);
    m_chart->chart()->legend()->hide();
    m_chart->chart()->setMargins(QMargins(2, 2, 2, 2));

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    m_body = new QWidget(this); // hidden while there is no tensor to show
    auto *body = new QVBoxLayout(m_body);
    body->setContentsMargins(0, 0, 0, 0);
    body->addWidget(m_files);
    body->addWidget(m_header);
    body->addWidget(m_stats);
    body->addWidget(m_picker);
    body->addWidget(split, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_whose->setWordWrap(true);
    m_whose->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_whose->setStyleSheet(QStringLiteral("color: palette(mid)"));
    layout->addWidget(m_whose); // whose dump (golden's or test's, when two are compared)
    layout->addWidget(m_title);
    layout->addWidget(m_body, 1);
    layout->addStretch();
    setOp({}, -1, {}, tr("Pick an operation in the tree to see its tensors."));

    connect(m_files, &QListWidget::currentRowChanged, this, &TensorInspector::showFile);
    connect(m_picker, &SlicePicker::sliceChanged, m_slice, &TensorSliceModel::setSlice);
}

void TensorInspector::setOp(const QString &title, qint64 round, const QStringList &files, const QString &note)
{
    m_files->clear();
    // No round when the dump holds nothing of the op: a "round -1" would read as a round.
    const QString head = round >= 0 ? tr("<b>%1</b>, round %2").arg(title.toHtmlEscaped()).arg(round)
                                    : QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped());
    m_title->setText(
        title.isEmpty() ? note : head + (note.isEmpty() ? QString() : QStringLiteral("<br>") + note.toHtmlEscaped()));
    for (const QString &f : files) {
        const QFileInfo fi(f);
        auto *item = new QListWidgetItem(fi.dir().dirName() + QLatin1Char('/') + fi.fileName(), m_files);
        item->setData(Qt::UserRole, f);
        item->setToolTip(f);
    }
    m_body->setVisible(!files.isEmpty());
    if (files.isEmpty()) {
        ++m_generation;
        m_slice->close();
        m_header->clear();
        m_stats->clear();
        m_chart->chart()->removeAllSeries();
        return;
    }
    // Outputs first: what the op computed.
    int pickRow = 0;
    for (int i = 0; i < m_files->count(); ++i)
        if (m_files->item(i)->text().startsWith(QLatin1String("after/out"))) {
            pickRow = i;
            break;
        }
    m_files->setCurrentRow(pickRow);
}

QString TensorInspector::currentFile() const
{
    const auto *item = m_files->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

QString TensorInspector::statsText() const
{
    return m_stats->text();
}

void TensorInspector::showFile(int row)
{
    const QString path = row >= 0 && m_files->item(row) ? m_files->item(row)->data(Qt::UserRole).toString() : QString();
    const quint64 generation = ++m_generation;
    m_chart->chart()->removeAllSeries();
    if (path.isEmpty())
        return;
    const bool values = m_slice->open(path);
    try {
        const BinFileInfo info =
            path.endsWith(QLatin1String(".bin")) ? readBinFile(path.toStdString(), true) : BinFileInfo{};
        const Tensor &t = info.tensor;
        const auto engine = t.attr(kEngineDTypeAttr);
        m_header->setText(tr("%1 %2%3")
                              .arg(QString::fromStdString(engine ? *engine : dtypeName(t.dtype)),
                                   QString::fromStdString(report::shapeText(t.dims)))
                              .arg(t.hasData ? QString() : tr(" (no payload in the file)")));
    } catch (const Error &e) {
        m_header->setText(errorWords(e));
    }
    if (values) {
        m_header->setText(m_header->text().isEmpty() ? QString::fromStdString(report::shapeText(m_slice->dims()))
                                                     : m_header->text());
    }
    m_picker->setDims(m_slice->dims(), m_slice->rowDim(), m_slice->colDim());
    m_stats->setText(values ? tr("computing statistics...") : m_slice->error());
    loadStats(path, generation);
}

QCoro::Task<> TensorInspector::loadStats(QString path, quint64 generation)
{
    QPointer<TensorInspector> self(this);
    const std::string p = path.toStdString();
    // A named future: g++ 12 destroys a temporary inside a co_await expression twice.
    auto future = QtConcurrent::run(jobPool(), [p] { return summarize(p); });
    const Summary s = co_await future;
    if (!self || generation != m_generation)
        co_return; // another tensor was picked meanwhile
    if (!s.error.isEmpty()) {
        m_stats->setText(s.error);
        co_return;
    }
    QString text = tr("max %1, min %2, mean %3, L2 norm %4 over %5 elements")
                       .arg(s.max, 0, 'g', 6)
                       .arg(s.min, 0, 'g', 6)
                       .arg(s.mean, 0, 'g', 6)
                       .arg(s.l2, 0, 'g', 6)
                       .arg(s.count);
    if (s.nan || s.inf)
        text += QStringLiteral(" <span style=\"color:#c01010\"><b>%1</b></span>")
                    .arg(tr("%1 NaN, %2 Inf").arg(s.nan).arg(s.inf));
    if (!s.values)
        text += tr(" (from the file's statistics: it holds no values)");
    m_stats->setText(text);
    if (!s.bins.empty()) {
        auto *series = new QLineSeries;
        const double width = (s.max - s.min) / kBins;
        uint64_t top = 1;
        for (size_t b = 0; b < s.bins.size(); ++b) {
            const double x0 = s.min + double(b) * width;
            series->append(x0, double(s.bins[b]));
            series->append(x0 + width, double(s.bins[b]));
            top = std::max(top, s.bins[b]);
        }
        QChart *chart = m_chart->chart();
        chart->removeAllSeries();
        for (QAbstractAxis *a : chart->axes()) {
            chart->removeAxis(a); // gives the axis back to the caller: deleted here
            delete a;
        }
        chart->addSeries(series);
        auto *x = new QValueAxis, *y = new QValueAxis;
        x->setRange(s.min, s.max > s.min ? s.max : s.min + 1);
        y->setRange(0, double(top));
        y->setLabelFormat(QStringLiteral("%d"));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        chart->setTitle(tr("Histogram of finite values"));
    }
    emit tensorLoaded(path);
}

void TensorInspector::follow(SessionDocument *doc)
{
    m_doc = doc;
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setOp({}, -1, {}, {}); });
    auto sayWhose = [this, doc] { m_whose->setText(doc->dumpRootWords()); };
    connect(doc, &SessionDocument::sourceChanged, this, sayWhose);
    connect(doc, &SessionDocument::roundsAdded, this, sayWhose); // the root is set after the source
    connect(doc, &SessionDocument::resultChanged, this, sayWhose);
    sayWhose();
}

void TensorInspector::follow(Cursor *cursor)
{
    m_cursor = cursor;
    const auto picked = [this] {
        if (!m_cursor->op().isEmpty())
            showOp(m_cursor->op());
    };
    connect(cursor, &Cursor::opChanged, this, [this](const QString &id) { showOp(id); });
    connect(cursor, &Cursor::roundChanged, this, picked); // that round's tensors
    connect(m_doc, &SessionDocument::graphChanged, this, picked); // picked before its topology came
    connect(m_doc, &SessionDocument::roundsAdded, this, [this](const DumpRounds::Chunk &chunk) {
        // The picked op's files may come with this round. (A running program's round of
        // statistics brings none.)
        if (!m_cursor->op().isEmpty() && !chunk.files.tensors.empty() && currentFile().isEmpty())
            showOp(m_cursor->op());
    });
    picked(); // what the cursor points at already (a window built on a session under way)
}

void TensorInspector::showOp(const QString &id)
{
    if (id.isEmpty() || !m_doc)
        return;
    const OpInspection i = inspectOp(*m_doc, id, m_cursor ? m_cursor->round() : -1);
    setOp(i.title, i.round, i.files, i.note);
}

QString TensorInspector::whose() const
{
    return m_whose->text();
}
