// The error of a diff session layer by layer: for each compared round, the worst relative
// euclidean distance of any op output in each layer (log scale), and the error the layer's ops
// add themselves, where the rise starts. A click on a point picks that layer's worst op.
#pragma once
#include <QStringList>
#include <QWidget>

#include <map>
#include <vector>

#include "core/compare/compare_run.h"

class SessionDocument;
class Cursor;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;

class ErrorCurveView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxRounds = 8; // more curves than this read as noise

    explicit ErrorCurveView(QWidget *parent = nullptr);
    // layerNames: the top-level operations by their id (0, 1, ...), as the heatmap's rows.
    void setResult(const llmscope::CompareResult *r, const QStringList &layerNames);
    // The curve points: round -> one value per layer (NaN where nothing was compared).
    const std::map<int64_t, std::vector<double>> &outputCurves() const { return m_output; }
    const std::map<int64_t, std::vector<double>> &addedCurves() const { return m_added; }
    QString worstOp(int64_t round, int layer) const;
    QChartView *chartView() const { return m_view; }
    QString legendPlace() const; // "below", "right" or "none" (no room for it beside the plot)
    void follow(Cursor *cursor); // a click on a point sets the cursor's op
    void follow(SessionDocument *doc); // the metrics shown, by the document's layers

protected:
    void resizeEvent(QResizeEvent *e) override;

signals:
    void opClicked(const QString &id);

private:
    void replaceChart(QChart *chart);
    void placeLegend(); // below the plot where its names fit in a row, else at its right, else none

    QChartView *m_view;
    QLabel *m_note;
    std::map<int64_t, std::vector<double>> m_output, m_added;
    std::map<int64_t, QStringList> m_worst; // round -> layer -> op with the largest output error
};
