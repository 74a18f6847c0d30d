// The heatmap of layers x operation kinds: which statistic, which scale, which round (or the
// newest as it streams), a legend with the range shown, and a click that picks the op.
#pragma once
#include <QWidget>

#include "views/heatmap_model.h"

class SessionDocument;
class Cursor;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QTableView;

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    // colours: the scale shared with other views, which this view's controls set; null: one of
    // its own.
    explicit HeatmapView(OpColours *colours, QWidget *parent = nullptr);
    explicit HeatmapView(QWidget *parent = nullptr) : HeatmapView(nullptr, parent) {}

    HeatmapModel *model() const { return m_model; }
    OpColours *colours() const { return m_model->colours(); }
    QTableView *table() const { return m_table; }
    QComboBox *metricBox() const { return m_metric; }
    QLabel *legend() const { return m_legend; }
    QComboBox *scaleBox() const { return m_scale; }
    QComboBox *modeBox() const { return m_mode; }
    QComboBox *kindBox() const { return m_kind; }
    QDoubleSpinBox *thresholdBox() const { return m_threshold; }
    QSlider *roundSlider() const { return m_round; }
    void selectOp(const QString &id);
    // Clicks and the round slider set the cursor; its op and round, set elsewhere, are shown.
    void follow(Cursor *cursor);
    // The document's operations and statistics, the comparison's metrics and the replay.
    void follow(SessionDocument *doc);
    // A diff session's metrics join the statistics (and are shown: what each op adds itself,
    // which singles out the op where the error starts); cleared, the statistics alone.
    void setCompare(std::shared_ptr<const llmscope::CompareResult> r); // the document's; null clears
    void setSpread(std::shared_ptr<const llmscope::SpreadResult> r); // the document's; null clears
    // A replay of the dump's ops (llmscope opcheck) joins as a metric, shown: each op's largest
    // error over its bound (above 1: beyond it); cleared, the metric goes.
    void setOpcheck(std::shared_ptr<const llmscope::OpcheckResult> r);

signals:
    void opClicked(const QString &id);
    // The round shown was chosen (the slider, "newest" as -1, a comparison's first divergent).
    void roundPicked(qint64 round);

protected:
    // The op picked stays in view as the window narrows or widens (the culprit is what one
    // looks at).
    void resizeEvent(QResizeEvent *e) override;

private:
    void showCellsWithValues(); // the picked op where it has a value, else some cell that has
    // A metric item that comes with a result, chosen as it comes, and goes with it.
    void offerMetric(HeatmapModel::Metric metric, const QString &label, bool offered);
    void setUpControls();
    void layOut();
    void followControls();
    void followModel();
    void roundsChanged();
    void updateLegend();
    void showOpIn(const QString &op, int64_t round); // that round shown, the op picked
    void showRound(int64_t round); // that round shown (-1: the newest), said to no one

    HeatmapModel *m_model;
    QTableView *m_table;
    QComboBox *m_metric, *m_scale, *m_mode, *m_kind;
    QDoubleSpinBox *m_threshold;
    QSlider *m_round;
    QCheckBox *m_follow;
    QLabel *m_roundLabel, *m_legend;
};
