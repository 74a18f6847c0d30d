// The quantization report in the window: the logits' divergence in one line, a weights x
// layers heatmap of each weight's share of it, and the ranked weights as a bar chart (the ones
// chosen to keep higher in their own colour). A click on a cell or a bar picks that weight in
// both.
#pragma once
#include <QWidget>

#include "core/quant/quant_report.h"

class QChartView;
class SessionDocument;
class QLabel;
class QTableView;
class QuantHeatmapModel;

class QuantReportView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kBars = 15; // the ranking's head: the rest are in the table's tooltips
    explicit QuantReportView(QWidget *parent = nullptr);

    // folder: where the report's files are, named in the summary.
    void setReport(std::shared_ptr<const llmscope::QuantReport> report, const QString &folder);
    void follow(SessionDocument *doc); // the document's report, none when its source changes
    // Picks a weight in the heatmap and the chart; false when the report has no such weight.
    bool selectWeight(const QString &name);
    QString selectedWeight() const { return m_selected; }

    QuantHeatmapModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QChartView *chart() const { return m_chart; }
    QLabel *summary() const { return m_summary; }
    // The weights the bars show, top first.
    QStringList barWeights() const { return m_bars; }

signals:
    void weightSelected(const QString &name);

private:
    void buildChart();

    QuantHeatmapModel *m_model;
    QLabel *m_summary;
    QTableView *m_table;
    QChartView *m_chart;
    QStringList m_bars;
    QString m_selected;
};
