#include "views/heatmap_view.h"

#include "document/cursor.h"
#include "document/session_document.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalBlocker>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {
// A cell is its colour: the picked one is framed rather than painted over with the
// selection colour, and the first divergent op has a double frame.
class HeatmapCellDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *p, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        p->save();
        const QRect r = option.rect;
        const QVariant bg = index.data(Qt::BackgroundRole);
        if (bg.canConvert<QBrush>())
            p->fillRect(r, bg.value<QBrush>());
        const QString text = index.data(Qt::DisplayRole).toString();
        if (!text.isEmpty()) {
            p->setPen(index.data(Qt::ForegroundRole).value<QBrush>().color());
            p->drawText(r, Qt::AlignCenter, text);
        }
        if (index.data(HeatmapModel::FirstDivergentRole).toBool()) {
            p->setPen(QPen(QColor(220, 0, 0), 2));
            p->drawRect(r.adjusted(1, 1, -2, -2));
        }
        if (option.state & QStyle::State_Selected) {
            p->setPen(QPen(option.palette.color(QPalette::Text), 3));
            p->drawRect(r.adjusted(2, 2, -3, -3));
        }
        p->restore();
    }
};
} // namespace

HeatmapView::HeatmapView(OpColours *colours, QWidget *parent)
    : QWidget(parent), m_model(new HeatmapModel(colours, this)), m_table(new QTableView(this)),
      m_metric(new QComboBox(this)), m_scale(new QComboBox(this)), m_mode(new QComboBox(this)),
      m_kind(new QComboBox(this)), m_threshold(new QDoubleSpinBox(this)), m_round(new QSlider(Qt::Horizontal, this)),
      m_follow(new QCheckBox(tr("newest"), this)), m_roundLabel(new QLabel(this)), m_legend(new QLabel(this))
{
    setUpControls();
    layOut();
    followControls();
    followModel();
    updateLegend();
}

// The choices above the table: statistic, scale, view, round, threshold.
void HeatmapView::setUpControls()
{
    m_metric->addItem(tr("max |x|"), int(HeatmapModel::Metric::MaxAbs));
    m_metric->addItem(tr("mean"), int(HeatmapModel::Metric::Mean));
    m_metric->addItem(tr("L2 norm"), int(HeatmapModel::Metric::L2Norm));
    m_metric->addItem(tr("NaN/Inf count"), int(HeatmapModel::Metric::NanInf));
    m_metric->addItem(tr("change from the previous round"), int(HeatmapModel::Metric::Change));
    m_scale->addItem(tr("linear"), int(HeatmapModel::Scale::Linear));
    m_scale->addItem(tr("log"), int(HeatmapModel::Scale::Log));
    m_scale->addItem(tr("diverging (around 0)"), int(HeatmapModel::Scale::Diverging));
    m_mode->addItem(tr("layers x operations"), int(HeatmapModel::Mode::LayersByKinds));
    m_mode->addItem(tr("rounds x layers, one operation"), int(HeatmapModel::Mode::RoundsByLayers));
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents); // no statistic's name cut
    m_kind->setEnabled(false);
    m_kind->setMinimumContentsLength(14);
    m_threshold->setRange(0, 1e12);
    m_threshold->setDecimals(4);
    m_threshold->setSpecialValueText(tr("no threshold"));
    m_threshold->setToolTip(tr("Cells whose value is above it are flagged red; 0: no threshold"));
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Show the newest round as the program computes"));
    m_round->setEnabled(false);
}

// The table and the controls above it.
void HeatmapView::layOut()
{
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setDefaultSectionSize(64);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    // A column is as wide as its kind's longest word, its name broken between words: no
    // name is cut (HeatmapModel breaks "Qcur (ROPE)" before the parenthesis).
    m_table->horizontalHeader()->setTextElideMode(Qt::ElideNone);
    m_table->horizontalHeader()->setMinimumSectionSize(48);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setItemDelegate(new HeatmapCellDelegate(m_table));
    m_table->setToolTip(tr("Rows: layers; columns: operations by node name; colour: the statistic chosen above. "
                           "'!' marks an output with NaN or Inf. Click a cell to pick the operation."));
    m_legend->setMinimumWidth(260);
    m_legend->setWordWrap(true); // the empty heatmap's sentence, whole on a 1024-wide screen in Chinese too

    // Three rows, so that a laptop's width leaves every box its text and the round slider room.
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Statistic:"), this));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("Scale:"), this));
    controls->addWidget(m_scale);
    controls->addStretch();
    auto *controls2 = new QHBoxLayout;
    controls2->addWidget(new QLabel(tr("View:"), this));
    controls2->addWidget(m_mode);
    controls2->addWidget(m_kind);
    controls2->addWidget(new QLabel(tr("Flag above:"), this));
    controls2->addWidget(m_threshold);
    controls2->addStretch();
    auto *rounds = new QHBoxLayout;
    rounds->addWidget(new QLabel(tr("Round:"), this));
    rounds->addWidget(m_round, 1);
    rounds->addWidget(m_roundLabel);
    rounds->addWidget(m_follow);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addLayout(controls2);
    layout->addLayout(rounds);
    layout->addWidget(m_legend);
    layout->addWidget(m_table, 1);
}

// Each control changes the model.
void HeatmapView::followControls()
{
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        colours()->setMetric(HeatmapModel::Metric(m_metric->currentData().toInt()));
        updateLegend();
    });
    connect(m_scale, &QComboBox::currentIndexChanged, this, [this] {
        colours()->setScale(HeatmapModel::Scale(m_scale->currentData().toInt()));
        updateLegend();
    });
    connect(m_round, &QSlider::valueChanged, this, [this](int i) {
        const auto rounds = colours()->rounds();
        if (m_follow->isChecked() || i < 0 || size_t(i) >= rounds.size())
            return;
        colours()->setRound(rounds[size_t(i)]);
        m_roundLabel->setText(QString::number(rounds[size_t(i)]));
        emit roundPicked(rounds[size_t(i)]);
        updateLegend();
    });
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        m_round->setEnabled(!on);
        if (on)
            colours()->setRound(-1);
        emit roundPicked(on ? -1 : colours()->round());
        roundsChanged();
    });
    auto applyMode = [this] {
        const auto mode = HeatmapModel::Mode(m_mode->currentData().toInt());
        m_kind->setEnabled(mode == HeatmapModel::Mode::RoundsByLayers);
        m_model->setMode(mode, std::max(0, m_kind->currentIndex()));
        updateLegend();
    };
    connect(m_mode, &QComboBox::currentIndexChanged, this, applyMode);
    connect(m_kind, &QComboBox::currentIndexChanged, this, applyMode);
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this,
            [this](double t) { colours()->setThreshold(t > 0 ? t : NAN); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &i) {
        const QString id = i.data(HeatmapModel::OpIdRole).toString();
        if (!id.isEmpty())
            emit opClicked(id);
    });
}

// A new graph's kinds, columns sized to their names, and the legend.
void HeatmapView::followModel()
{
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_model->mode() != HeatmapModel::Mode::LayersByKinds || m_kind->count() == m_model->kindCount())
            return;
        const QSignalBlocker block(m_kind); // the kinds of a new graph
        m_kind->clear();
        for (int k = 0; k < m_model->kindCount(); ++k)
            m_kind->addItem(m_model->columnKind(k));
    });
    connect(colours(), &OpColours::roundsChanged, this, &HeatmapView::roundsChanged);
    // A fused chain's ops side by side: one cell (its first shows the chain).
    auto spanChains = [this] {
        m_table->clearSpans();
        for (const QRect &r : m_model->chainSpans())
            m_table->setSpan(r.y(), r.x(), 1, r.width());
    };
    connect(colours(), &OpColours::changed, this, spanChains);
    connect(m_model, &QAbstractItemModel::modelReset, this, spanChains);
    connect(colours(), &OpColours::changed, this, &HeatmapView::updateLegend); // the range follows the values
    connect(m_model, &QAbstractItemModel::modelReset, this, &HeatmapView::updateLegend);
    // new values (a round's statistics, another metric or round): where they are, in view
    connect(m_model, &QAbstractItemModel::modelReset, this, &HeatmapView::showCellsWithValues, Qt::QueuedConnection);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &HeatmapView::showCellsWithValues, Qt::QueuedConnection);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_table->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
        for (int c = 0; c < m_model->columnCount(); ++c) // at least the cells' usual width
            m_table->horizontalHeader()->resizeSection(c, std::max(64, m_table->horizontalHeader()->sectionSize(c)));
    });
}

void HeatmapView::setCompare(std::shared_ptr<const llmscope::CompareResult> r)
{
    // The diff items follow a separator: the first of them is the budget's share.
    const int firstDiff = m_metric->findData(int(HeatmapModel::Metric::BudgetShare));
    if (!r) {
        colours()->clearCompare();
        if (firstDiff >= 0) {
            if (OpColours::isDiffMetric(colours()->metric()))
                m_metric->setCurrentIndex(0);
            for (int i = m_metric->count() - 1; i >= firstDiff - 1; --i) // the separator too
                if (i == firstDiff - 1 || OpColours::isDiffMetric(OpColours::Metric(m_metric->itemData(i).toInt())))
                    m_metric->removeItem(i);
        }
        return;
    }
    colours()->setCompare(r);
    if (firstDiff < 0) {
        m_metric->insertSeparator(m_metric->count());
        m_metric->addItem(tr("diff: error it adds / its budget"), int(HeatmapModel::Metric::BudgetShare));
        m_metric->setItemData(
            m_metric->count() - 1,
            tr("The error each op adds itself as a share of what its op type may add (ggml's budgets, "
               "the engine standard): above 1 it fails. Ops after a failed one are pale when they add "
               "nothing of their own, though their inputs carry its error"),
            Qt::ToolTipRole);
        m_metric->addItem(tr("diff: error added by the op itself"), int(HeatmapModel::Metric::AddedError));
        m_metric->addItem(tr("diff: relative euclidean distance"), int(HeatmapModel::Metric::RelEuclidean));
        m_metric->addItem(tr("diff: max relative error"), int(HeatmapModel::Metric::MaxRelError));
        m_metric->addItem(tr("diff: 1 - cosine"), int(HeatmapModel::Metric::CosineDistance));
    }
    // Two engines of one model: each op against its own budget; otherwise the error it adds.
    m_metric->setCurrentIndex(m_metric->findData(
        int(llmscope::judgesOps(r->standard) ? HeatmapModel::Metric::BudgetShare : HeatmapModel::Metric::AddedError)));
    if (!colours()->firstDivergentOp().isEmpty()) // the round where it starts, in view
        showOpIn(colours()->firstDivergentOp(), colours()->firstDivergentRound());
}

void HeatmapView::showOpIn(const QString &op, int64_t round)
{
    showRound(round);
    emit roundPicked(round);
    selectOp(op);
}

void HeatmapView::showRound(int64_t round)
{
    const QSignalBlocker quiet(m_follow), still(m_round);
    m_follow->setChecked(round < 0);
    m_round->setEnabled(round >= 0);
    const auto rounds = colours()->rounds();
    const auto at = std::find(rounds.begin(), rounds.end(), round);
    if (at != rounds.end())
        m_round->setValue(int(at - rounds.begin()));
    colours()->setRound(round);
    roundsChanged();
}

void HeatmapView::follow(Cursor *cursor)
{
    followOp(cursor, this, &HeatmapView::opClicked);
    connect(this, &HeatmapView::roundPicked, cursor, [this, cursor](qint64 round) { cursor->setRound(round, this); });
    connect(cursor, &Cursor::roundChanged, this, [this](qint64 round, const QObject *by) {
        if (by != this)
            showRound(round);
    });
    if (cursor->round() >= 0) // the round it points at already
        showRound(cursor->round());
}

void HeatmapView::offerMetric(HeatmapModel::Metric metric, const QString &label, bool offered)
{
    const int item = m_metric->findData(int(metric));
    if (!offered) {
        if (item >= 0) {
            if (m_metric->currentIndex() == item)
                m_metric->setCurrentIndex(0);
            m_metric->removeItem(item);
        }
        return;
    }
    if (item < 0)
        m_metric->addItem(label, int(metric));
    m_metric->setCurrentIndex(m_metric->findData(int(metric)));
}

void HeatmapView::setOpcheck(std::shared_ptr<const llmscope::OpcheckResult> r)
{
    if (r)
        colours()->setOpcheck(r);
    else
        colours()->clearOpcheck();
    offerMetric(HeatmapModel::Metric::ReplayError, tr("replay: largest error over its bound (above 1: beyond it)"),
                bool(r));
    if (!r)
        return;
    m_threshold->setValue(1); // beyond its bound, flagged
    if (const auto *first = llmscope::firstFailing(*r)) // the round of the first op that fails, in view
        showOpIn(QString::fromStdString(first->opId), first->round);
}

void HeatmapView::setSpread(std::shared_ptr<const llmscope::SpreadResult> r)
{
    colours()->setSpread(r);
    offerMetric(HeatmapModel::Metric::Spread, tr("spread: largest distance between two runs (red: runs part)"),
                bool(r));
    if (r && r->departs()) { // the first departure's round, in view
        const llmscope::SpreadOp &o = r->ops[size_t(r->firstDeparture)];
        showOpIn(QString::fromStdString(o.opId), o.round);
    }
}

void HeatmapView::roundsChanged()
{
    const auto rounds = colours()->rounds();
    m_round->blockSignals(true);
    m_round->setRange(0, std::max(0, int(rounds.size()) - 1));
    if (m_follow->isChecked())
        m_round->setValue(m_round->maximum());
    m_round->blockSignals(false);
    m_roundLabel->setText(colours()->round() >= 0 ? QString::number(colours()->round()) : QStringLiteral("-"));
    updateLegend();
}

void HeatmapView::updateLegend()
{
    // A style sheet costs a restyle of the label: set only what differs.
    auto show = [this](const QString &text, const QString &style) {
        if (m_legend->text() != text)
            m_legend->setText(text);
        if (m_legend->styleSheet() != style)
            m_legend->setStyleSheet(style);
    };
    const auto [lo, hi] = colours()->range();
    if (m_model->rowCount() == 0) {
        m_legend->setToolTip({});
        show(tr("The heatmap fills as the program's dumped rounds bring statistics (--type stats, or "
                "tensors), or from an opened dump's statistics."),
             QString());
        return;
    }
    const bool spread = colours()->metric() == OpColours::Metric::Spread;
    if (OpColours::isDiffMetric(colours()->metric()) || spread) { // the verdict first: two ramps, each labelled
        // Each ramp labelled with the values it spans: a failed op's value is never read off the
        // passed ramp.
        const auto [passLo, passHi] = colours()->passedRange();
        const auto [failLo, failHi] = colours()->failedRange();
        const bool failed = colours()->anyFailed();
        // shares and relative errors in percent, as the Diff table, the Spread page and the
        // tooltips write them; 1 - cosine as it is
        const OpColours::Metric metric = colours()->metric();
        const bool share = metric == OpColours::Metric::BudgetShare || metric == OpColours::Metric::Spread ||
            metric == OpColours::Metric::MaxRelError || metric == OpColours::Metric::RelEuclidean ||
            metric == OpColours::Metric::AddedError;
        auto num = [share](double v) { return share ? HeatmapModel::percentText(v) : QString::number(v, 'g', 4); };
        // what a cell's colour measures, where the ramps cannot say it
        m_legend->setToolTip(
            spread
                ? tr("Each cell: how far the runs part at that op, against its standard. Blue: within it; red: "
                     "beyond it; \u25C6 the first op where they part")
                : tr("Each cell: the error the op adds itself (%1). Blue: within its budget, darker as it nears it; "
                     "red: beyond it (the op fails); \u25C6 the first divergent op. An op after a failed one stays "
                     "pale when it adds no error of its own: its inputs carry the error (the Diff page's Input error)")
                      .arg(m_metric->currentText()));
        show(QStringLiteral("<table width=\"100%\"><tr><td style=\"background:rgb(222,235,247)\">&nbsp;%1: %2</td>"
                            "<td align=\"center\" style=\"background:rgb(33,102,172); color:white\">... %3</td>"
                            "<td align=\"center\" style=\"background:rgb(220,90,90); color:white\">\u2717 %4: %5</td>"
                            "<td align=\"center\" style=\"background:rgb(180,20,40); color:white\">%6</td>"
                            "<td align=\"right\" style=\"background:rgb(165,0,38); color:white\">\u25C6 %7&nbsp;</td>"
                            "</tr></table>")
                 .arg(spread ? tr("within their standard") : tr("passed"), num(passLo), num(passHi),
                      spread ? tr("runs part") : tr("failed"), failed ? num(failLo) : tr("none"),
                      failed ? QStringLiteral("... ") + num(failHi) : QString(),
                      spread ? tr("first departure") : tr("first divergent")),
             QString());
        return;
    }
    m_legend->setToolTip(
        tr("The colour of a cell: %1, from the lowest to the highest value shown").arg(m_metric->currentText()));
    if (colours()->scale() == OpColours::Scale::Diverging) {
        const double span = std::max(std::fabs(lo), std::fabs(hi));
        show(QStringLiteral("<table width=\"100%\"><tr><td style=\"color:white\">&nbsp;%1</td>"
                            "<td align=\"center\">0</td><td align=\"right\" style=\"color:white\">"
                            "%2&nbsp;</td></tr></table>")
                 .arg(QString::number(-span, 'g', 4), QString::number(span, 'g', 4)),
             QStringLiteral("QLabel { background: qlineargradient(x1:0, y1:0, x2:1, y2:0, "
                            "stop:0 rgb(33,102,172), stop:0.5 white, stop:1 rgb(178,24,43)); }"));
        return;
    }
    show(QStringLiteral("<table width=\"100%\"><tr><td style=\"color:white\">&nbsp;%1</td>"
                        "<td align=\"right\">%2&nbsp;</td></tr></table>")
             .arg(QString::number(lo, 'g', 4), QString::number(hi, 'g', 4)),
         QStringLiteral("QLabel { background: qlineargradient(x1:0, y1:0, x2:1, y2:0, "
                        "stop:0 rgb(68,1,84), stop:0.25 rgb(59,82,139), stop:0.5 rgb(33,145,140), "
                        "stop:0.75 rgb(94,201,98), stop:1 rgb(253,231,37)); }"));
}

void HeatmapView::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    if (const QModelIndex current = m_table->currentIndex(); current.isValid())
        m_table->scrollTo(current);
    showCellsWithValues();
}

// A view scrolled to empty cells (the ops a -ids dumps off to the right) looks as if nothing was
// dumped. The picked op stays in view when it has a value; else, when no cell in view has one,
// the first that has comes into view.
void HeatmapView::showCellsWithValues()
{
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.data(Qt::BackgroundRole).isValid())
        return;
    const QRect shown = m_table->viewport()->rect();
    QModelIndex first;
    for (int c = 0; c < m_model->columnCount(); ++c)
        for (int r = 0; r < m_model->rowCount(); ++r) {
            const QModelIndex i = m_model->index(r, c);
            if (!i.data(Qt::BackgroundRole).isValid())
                continue;
            if (shown.intersects(m_table->visualRect(i)))
                return;
            if (!first.isValid())
                first = i;
        }
    if (first.isValid())
        m_table->scrollTo(first);
}

void HeatmapView::selectOp(const QString &id)
{
    const QModelIndex i = m_model->indexForOp(id);
    if (i.isValid()) {
        m_table->setCurrentIndex(i);
        m_table->scrollTo(i);
    }
}

void HeatmapView::follow(SessionDocument *doc)
{
    colours()->follow(doc); // the shared scale, once: the heatmap is what feeds it
    connect(doc, &SessionDocument::sourceChanged, this, [this] {
        m_model->clear();
        showRound(-1); // a new source starts at its newest round, as the cursor does
        setCompare(nullptr);
        setOpcheck(nullptr);
        setSpread(nullptr);
    });
    connect(doc, &SessionDocument::graphChanged, this, [this, doc] { m_model->setOps(*doc->graph()); });
    using Result = SessionDocument::Result;
    const auto show = [this, doc](Result which) {
        const SessionDocument::Results &r = doc->results();
        switch (which) {
        case Result::Metrics: setCompare(r.metrics); break;
        case Result::Replay: setOpcheck(r.replay); break;
        case Result::Spread: setSpread(r.spreadOnSource ? r.spread : nullptr); break; // ops of the graph's
        case Result::Comparison:
        case Result::QuantReport: break;
        }
    };
    connect(doc, &SessionDocument::resultChanged, this, show);
    // What the document holds already (a window built on a session under way).
    if (!doc->graph()->empty())
        m_model->setOps(*doc->graph());
    const SessionDocument::Results &r = doc->results();
    if (r.metrics)
        show(Result::Metrics);
    if (r.replay)
        show(Result::Replay);
    if (r.spread)
        show(Result::Spread);
}
