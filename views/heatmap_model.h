// Layers x operation kinds for one round: rows are the top-level operations (embedding, each
// layer, output head), columns the node names without their layer suffix in graph order
// (attn_norm, Qcur, ..., ffn_out, l_out); a cell is an op, its value and colour those of the
// shared colour scale (OpColours: the statistic or comparison metric, the scale, the round and
// the threshold picked), so changing any of them recolours without recomputing anything. Or
// rounds x layers for one operation kind (the token axis).
#pragma once
#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QRect>
#include <QStringList>

#include <vector>

#include "core/graph/op_graph.h"
#include "core/live/live_protocol.h"
#include "views/op_colours.h"

class HeatmapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using Metric = OpColours::Metric;
    using Scale = OpColours::Scale;
    // Layers x operation kinds for one round, or rounds x layers for one operation kind
    // (the token axis).
    enum class Mode { LayersByKinds, RoundsByLayers };
    enum Role { OpIdRole = Qt::UserRole + 1, ValueRole, FlaggedRole, FirstDivergentRole };

    // colours: the scale shared with other views; null: one of its own.
    explicit HeatmapModel(OpColours *colours = nullptr, QObject *parent = nullptr);
    OpColours *colours() const { return m_colours; }

    // Rows: the graph's groups (layers); columns: the kinds of ops directly under them.
    void setOps(const llmscope::OpGraph &graph);
    void clear(); // no ops (the colour scale's values are its own to clear)

    void setMode(Mode m, int kind = 0); // kind: a column of the layers x kinds layout
    Mode mode() const { return m_mode; }
    int kindCount() const { return int(m_kinds.size()); }
    QModelIndex indexForOp(const QString &id) const;
    QString columnKind(int column) const { return m_kinds.value(column); }
    const QStringList &layerNames() const { return m_rowNames; } // the top-level operations
    // Cells of one fused chain side by side in a row (layers x kinds): each as one cell,
    // (column, row, width, 1); the first cell shows the chain.
    QList<QRect> chainSpans() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // A share in percent, as the Diff table and the command line write it ("9.66 %", "1.93e+03 %";
    // report::percent).
    static QString percentText(double share);

private:
    double value(int row, int col) const; // NaN: no value, in the shown layout
    QString opAt(int row, int col) const; // the op of a shown cell ("" when none)
    int64_t roundAt(int row) const; // the round of a shown cell's row
    void updateScope(); // the colour range spans what is shown
    void recoloured(); // the colour scale changed: every cell

    OpColours *m_colours;
    QStringList m_rowNames, m_kinds;
    QHash<QString, QStringList> m_kindNodes; // a column's kind -> the node names in it
    std::vector<std::vector<QString>> m_cellOp; // [row][col] -> op id ("" when none)
    QHash<QString, std::pair<int, int>> m_where; // op id -> (row, col)
    std::vector<int64_t> m_rounds; // the token axis' rows: the scale's rounds when last laid out
    Mode m_mode = Mode::LayersByKinds;
    int m_kind = 0;
};
