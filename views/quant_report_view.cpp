#include "views/quant_report_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

#include "document/session_document.h"
#include "views/quant_heatmap_model.h"

using namespace llmscope;

QuantReportView::QuantReportView(QWidget *parent)
    : QWidget(parent), m_model(new QuantHeatmapModel(this)), m_summary(new QLabel(this)), m_table(new QTableView(this)),
      m_chart(new QChartView(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(tr("No quantization report yet: Session > Quantization report runs an F32 golden and a "
                          "quantized test and ranks the weights."));
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumWidth(420);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const int w = m_model->weightAt(index);
        if (w >= 0)
            selectWeight(QString::fromStdString(m_model->report().weights[size_t(w)].name));
    });
    auto *split = new QSplitter(this);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
}

void QuantReportView::setReport(std::shared_ptr<const QuantReport> report, const QString &folder)
{
    const bool none = !report;
    m_model->setReport(std::move(report));
    const QuantReport &r = m_model->report();
    m_selected.clear();
    if (none) { // no report: nothing of an earlier one's shown
        m_summary->clear();
        buildChart();
        return;
    }
    size_t chosen = 0;
    for (const auto &w : r.weights)
        chosen += w.chosen ? 1 : 0;
    m_summary->setText(
        tr("Logits against golden: KL divergence %1 (mean over %2 rounds), top-1 agreement %3 %, NMSE %4 (the "
           "weights' estimated parts add up to %5). Cells: each weight's share of the logits' error, in %; bold: "
           "kept higher in %6/tensor-types.txt (%7 weights, %8 KiB more, budget %9 KiB).")
            .arg(r.meanKl, 0, 'g', 3)
            .arg(r.rounds.size())
            .arg(r.top1 * 100, 0, 'g', 3)
            .arg(r.logitsNmse, 0, 'g', 3)
            .arg(r.estimatedNmse, 0, 'g', 3)
            .arg(folder)
            .arg(chosen)
            .arg(double(r.chosenBytes) / 1024, 0, 'g', 3)
            .arg(double(r.budgetBytes) / 1024, 0, 'g', 3));
    buildChart();
}

void QuantReportView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::QuantReport)
            setReport(doc->results().quantReport, doc->results().quantFolder);
    });
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setReport(nullptr, {}); });
    if (doc->results().quantReport) // what it holds already (a window built on a session under way)
        setReport(doc->results().quantReport, doc->results().quantFolder);
}

void QuantReportView::buildChart()
{
    const auto &weights = m_model->report().weights;
    const size_t n = std::min<size_t>(kBars, weights.size());
    auto *kept = new QBarSet(tr("kept higher"));
    auto *rest = new QBarSet(tr("left as quantized"));
    kept->setColor(QColor(0xc0, 0x30, 0x20));
    rest->setColor(QColor(0xe8, 0xa0, 0x40));
    QStringList categories;
    m_bars.clear();
    double most = 0;
    for (size_t i = n; i-- > 0;) { // the axis lists bottom up: the best at the top
        const WeightCost &w = weights[i];
        QString name = QString::fromStdString(w.name);
        if (name.endsWith(QLatin1String(".weight")))
            name.chop(7); // every one is a weight: the axis keeps room for the bars
        categories << QStringLiteral("%1. %2").arg(i + 1).arg(name);
        *kept << (w.chosen ? w.share * 100 : 0);
        *rest << (w.chosen ? 0 : w.share * 100);
        most = std::max(most, w.share * 100);
    }
    for (size_t i = 0; i < n; ++i)
        m_bars << QString::fromStdString(weights[i].name);
    auto *series = new QHorizontalStackedBarSeries;
    series->append(rest);
    series->append(kept);
    auto pick = [this](int index, QBarSet *) {
        if (index >= 0 && index < m_bars.size())
            selectWeight(m_bars[m_bars.size() - 1 - index]);
    };
    connect(series, &QHorizontalStackedBarSeries::clicked, this, pick);
    auto *chart = new QChart;
    chart->addSeries(series);
    chart->setTitle(tr("Best to keep higher, per byte"));
    auto *y = new QBarCategoryAxis;
    y->append(categories);
    y->setTruncateLabels(false); // the weights' names, whole, on a laptop's narrower chart too
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    auto *x = new QValueAxis;
    x->setRange(0, most > 0 ? most * 1.1 : 1);
    x->setLabelFormat(QStringLiteral("%.1f"));
    x->applyNiceNumbers(); // ticks at round shares (5, 10, 15), not at fifths of the range
    x->setTitleText(tr("share of the logits' error, %"));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    chart->legend()->setAlignment(Qt::AlignBottom);
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old; // setChart does not delete the chart it replaces
}

bool QuantReportView::selectWeight(const QString &name)
{
    const QModelIndex cell = m_model->indexOf(name.toStdString());
    if (!cell.isValid())
        return false;
    m_table->setCurrentIndex(cell);
    m_table->scrollTo(cell);
    if (m_selected != name) {
        m_selected = name;
        emit weightSelected(name);
    }
    return true;
}
