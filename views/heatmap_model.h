// Layers x operation kinds for one round: rows are the top-level operations (embedding, each
// layer, output head), columns the node names without their layer suffix in graph order
// (attn_norm, Qcur, ..., ffn_out, l_out); a cell's value is a statistic of that op's output in
// that round. Fed by the probe's streamed statistics or by an opened dump's statistics; the
// colours come from stored values, so changing the statistic, the scale or the round
// recolours without recomputing anything. In a diff session the cells can show the compare's
// metrics instead (cosine, errors, the error an op adds itself), the first divergent op marked.
#pragma once
#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QStringList>

#include <cmath>
#include <map>
#include <vector>

#include "compare/compare_run.h"
#include "live/live_protocol.h"

class HeatmapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Metric { MaxAbs, Mean, L2Norm, NanInf, Change,
                        // a diff session's, per op output: 1 - cosine, max relative error,
                        // relative euclidean distance, and the part of it the op adds itself
                        CosineDistance, MaxRelError, RelEuclidean, AddedError,
                        // the NMSE it adds as a share of its op type's budget (engine standard)
                        BudgetShare };
    // Diverging: around zero, blue below and red above (signed statistics such as the mean).
    enum class Scale { Linear, Log, Diverging };
    // Layers x operation kinds for one round, or rounds x layers for one operation kind
    // (the token axis).
    enum class Mode { LayersByKinds, RoundsByLayers };
    enum Role { OpIdRole = Qt::UserRole + 1, ValueRole, FlaggedRole, FirstDivergentRole };
    static constexpr size_t kRoundsKept = 4096;

    explicit HeatmapModel(QObject *parent = nullptr);

    // The graph's ops (groups' ids are single numbers, ops "group_child"); rows and columns.
    void setOps(const std::vector<llmscope::live::TopoOp> &groups, const std::vector<llmscope::live::TopoOp> &ops);
    void addStats(const llmscope::live::RoundStats &s); // a round's (or part of it)
    void clear();
    // A comparison of golden (whose ops these are) with test: its metrics per round and op.
    void setCompare(const llmscope::CompareResult &r);
    void clearCompare();
    bool hasCompare() const { return !m_diff.empty(); }
    static bool isDiffMetric(Metric m) { return m >= Metric::CosineDistance; }
    QString firstDivergentOp() const { return m_firstOp; }
    int64_t firstDivergentRound() const { return m_firstRound; }

    void setMetric(Metric m);
    void setScale(Scale s);
    void setRound(int64_t round); // -1: the newest round with statistics
    void setMode(Mode m, int kind = 0); // kind: a column of the layers x kinds layout
    Mode mode() const { return m_mode; }
    int kindCount() const { return int(m_kinds.size()); }
    // Values above it are flagged in one colour; NaN: no threshold. Recolours at once.
    void setThreshold(double t);
    double threshold() const { return m_threshold; }
    Metric metric() const { return m_metric; }
    int64_t round() const; // the round shown
    std::vector<int64_t> rounds() const;
    // The colour range of what is shown: [lo, hi] of the finite values.
    std::pair<double, double> range() const { return {m_lo, m_hi}; }
    QColor colourFor(double v) const;
    QModelIndex indexForOp(const QString &id) const;
    // An op's value in the shown round and metric, whatever the view's mode (NaN: none).
    double valueOfOp(const QString &id) const;
    QString columnKind(int column) const { return m_kinds.value(column); }
    const QStringList &layerNames() const { return m_rowNames; } // the top-level operations

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void roundsChanged();

private:
    struct DiffCell {
        double cosine = 1, maxRelErr = 0, relEuclidean = 0, added = 0, budgetShare = 0;
        bool passed = true;
    };
    double value(int row, int col) const; // NaN: no value, in the shown layout
    double valueAt(int layer, int kind, int64_t round) const;
    QString opAt(int row, int col) const; // the op of a shown cell ("" when none)
    int64_t roundAt(int row) const;       // the round of a shown cell's row
    void recompute();                     // the range, after anything that changes what is shown
    void updateRounds();                  // the rounds with statistics or compare metrics

    QStringList m_rowNames, m_kinds;
    QHash<QString, QStringList> m_kindNodes; // a column's kind -> the node names in it
    std::vector<std::vector<QString>> m_cellOp; // [row][col] -> op id ("" when none)
    QHash<QString, std::pair<int, int>> m_where; // op id -> (row, col)
    std::map<int64_t, QHash<QString, llmscope::live::OpStats>> m_stats; // round -> op -> stats
    std::map<int64_t, QHash<QString, DiffCell>> m_diff;                 // round -> op -> compare
    std::vector<int64_t> m_rounds;                                      // keys of both, ascending
    QString m_firstOp;                                                  // the first divergent op
    int64_t m_firstRound = -1;
    Metric m_metric = Metric::MaxAbs;
    Scale m_scale = Scale::Linear;
    int64_t m_round = -1;
    Mode m_mode = Mode::LayersByKinds;
    int m_kind = 0;
    double m_threshold = NAN;
    double m_lo = 0, m_hi = 0;
};
