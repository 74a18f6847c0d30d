#include "views/error_curve_view.h"

#include "document/cursor.h"
#include "document/session_document.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

#include "core/compare/error_by_layer.h"
#include "core/select/op_id.h"
#include "views/label_fit.h"

using namespace llmscope;

namespace {
constexpr double kFloor = 1e-6; // a log axis has no zero; below this, float32 rounding: the floor
}

ErrorCurveView::ErrorCurveView(QWidget *parent)
    : QWidget(parent), m_view(new QChartView(this)), m_note(new QLabel(this))
{
    m_view->setRenderHint(QPainter::Antialiasing);
    // narrow enough for the Diff page's side on a 1024-wide screen: a wider least size put the
    // plot's right part, its legend, out of view there
    m_view->setMinimumSize(160, 150);
    m_note->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_note);
    setResult(nullptr, {});
}

void ErrorCurveView::replaceChart(QChart *chart)
{
    QChart *old = m_view->chart();
    m_view->setChart(chart); // the view owns the new chart, and releases the old one without deleting it
    delete old;
}

QString ErrorCurveView::worstOp(int64_t round, int layer) const
{
    const auto it = m_worst.find(round);
    if (it == m_worst.end() || layer < 0 || layer >= it->second.size())
        return {};
    return it->second.at(layer);
}

void ErrorCurveView::setResult(const CompareResult *r, const QStringList &layerNames)
{
    m_output.clear();
    m_added.clear();
    m_worst.clear();
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->setAlignment(Qt::AlignBottom);
    if (!r || r->ops.empty()) {
        replaceChart(chart);
        m_note->setText(
            tr("Hunt (Session > Hunt, Ctrl+H) or compare two dumps (Session > Compare dumps, Ctrl+D) to see "
               "how the error grows layer by layer."));
        return;
    }
    const ErrorByLayer curves = errorByLayer(*r, int(layerNames.size()), kMaxRounds);
    const int layers = curves.layers;
    const int64_t firstRound = curves.firstRound;
    m_output = curves.output;
    m_added = curves.added;
    for (const auto &[round, ops] : curves.worst)
        for (const auto &id : ops)
            m_worst[round] << QString::fromStdString(id);

    auto *x = new QValueAxis;
    x->setRange(0, std::max(1, layers - 1));
    x->setTickCount(std::min(layers, 12) > 1 ? std::min(layers, 12) : 2);
    x->setLabelFormat(QStringLiteral("%d"));
    x->setTitleVisible(false); // a laptop's chart has no room for it: the note below says what x is
    x->setTruncateLabels(false); // "..." for every label on a laptop's screen otherwise
    auto *y = new QLogValueAxis;
    y->setBase(10);
    y->setLabelFormat(QStringLiteral("%g"));
    y->setMinorTickCount(0);
    y->setTitleText(tr("error"));
    y->setTruncateLabels(false);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double hi = kFloor * 10;
    auto add = [&](const std::vector<double> &v, const QString &name, QPen pen, int64_t round) {
        auto *s = new QLineSeries;
        s->setName(name);
        s->setPen(pen);
        s->setPointsVisible(true);
        for (size_t l = 0; l < v.size(); ++l)
            if (!std::isnan(v[l])) {
                s->append(double(l), std::max(v[l], kFloor));
                hi = std::max(hi, v[l]);
            }
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QLineSeries::hovered, this, [this, name](const QPointF &, bool on) {
            m_view->setToolTip(on ? name : QString()); // its name, where the legend has no room
        });
        connect(s, &QLineSeries::clicked, this, [this, round](const QPointF &p) {
            const QString id = worstOp(round, int(std::lround(p.x())));
            if (!id.isEmpty())
                emit opClicked(id);
        });
    };
    for (const auto &[round, v] : m_output) {
        QPen pen(round == firstRound ? QColor(200, 30, 30) : QColor::fromHsv(int(200 + 20 * (round % 5)), 160, 170));
        pen.setWidthF(round == firstRound ? 2.5 : 1.2);
        add(v, tr("round %1").arg(round), pen, round);
    }
    if (firstRound >= 0) {
        QPen pen(QColor(230, 120, 0));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(2);
        // (the first divergent's round: the note names it; a longer name is cut in a narrow legend)
        add(m_added[firstRound], tr("added"), pen, firstRound);
    }
    y->setRange(kFloor, std::pow(10.0, std::ceil(std::log10(hi))));
    replaceChart(chart);
    placeLegend();
    QString note;
    if (curves.roundsCompared > m_output.size())
        note = tr("%1 of %2 rounds shown (the first divergent's round and the earliest others).")
                   .arg(m_output.size())
                   .arg(curves.roundsCompared);
    if (firstRound >= 0) {
        const OpResult &op = r->ops[size_t(r->firstDivergent)];
        const int layer = int(OpId::lenient(op.opId).layer());
        note = tr("Solid: the worst output relative error (log scale) of each layer's operations, layers by their "
                  "top-level operation id (red: round %3, blue: the other rounds); dashed (added): the error they add "
                  "themselves in round %3. "
                  "It rises in %1 (id %2) in round %3. Click a point to pick that layer's worst operation. ")
                   .arg(layerNames.value(layer, QString::number(layer)))
                   .arg(layer)
                   .arg(firstRound) +
            note;
    }
    m_note->setText(note);
    fitLabelHeight(m_note);
}

void ErrorCurveView::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    fitLabelHeight(m_note);
    placeLegend();
}

// A row of names below the plot cuts every one to "rou…" on a laptop's Diff page: there the
// legend goes to the plot's right, a name a line; where that column would leave the plot too
// little room (a 1024-wide screen cut it to "r"), there is none: the note below says what the
// lines are, and a line's name shows when the pointer is on it.
void ErrorCurveView::placeLegend()
{
    QChart *chart = m_view->chart();
    if (!chart)
        return;
    const QFontMetrics fm(chart->legend()->font());
    int row = 0, column = 0;
    for (const QLegendMarker *m : chart->legend()->markers()) {
        const int one = fm.horizontalAdvance(m->label()) + fm.height() + 2 * fm.averageCharWidth(); // box, gap
        row += one;
        column = std::max(column, one + fm.averageCharWidth());
    }
    // (this widget's width: the view's own follows it only once the layout has run)
    const int room = width() - 2 * fm.averageCharWidth();
    if (row <= room)
        chart->legend()->setAlignment(Qt::AlignBottom);
    else if (column * 3 <= room) // the plot keeps two thirds
        chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setVisible(row <= room || column * 3 <= room);
}

QString ErrorCurveView::legendPlace() const
{
    const QChart *chart = m_view->chart();
    if (!chart || !chart->legend()->isVisible())
        return QStringLiteral("none");
    return chart->legend()->alignment() == Qt::AlignBottom ? QStringLiteral("below") : QStringLiteral("right");
}

void ErrorCurveView::follow(Cursor *cursor)
{
    connect(this, &ErrorCurveView::opClicked, cursor, [this, cursor](const QString &id) { cursor->setOp(id, this); });
}

void ErrorCurveView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setResult(nullptr, {}); });
    auto show = [this, doc] {
        QStringList layers; // the top-level operations by id, as the document's topology has them
        const auto graph = doc->graph();
        for (const int g : graph->groups())
            layers << QString::fromStdString(graph->ops()[size_t(g)].name);
        setResult(doc->results().metrics.get(), layers);
    };
    connect(doc, &SessionDocument::resultChanged, this, [show](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Metrics)
            show();
    });
    if (doc->results().metrics) // what the document holds already
        show();
}
