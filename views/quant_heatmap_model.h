// The quantization report as a weights x layers table: a row per kind of weight (attn_q ..
// ffn_down), a column per layer, and a last column for the model's own weights (token_embd,
// output); each cell is a weight's share of the logits' error, coloured by it, bold where the
// report chose to keep it higher.
#pragma once
#include <QAbstractTableModel>
#include <QColor>

#include <memory>

#include "core/quant/quant_report.h"

class QuantHeatmapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { WeightIndexRole = Qt::UserRole + 1, ShareRole, ChosenRole };
    explicit QuantHeatmapModel(QObject *parent = nullptr);

    void setReport(std::shared_ptr<const llmscope::QuantReport> report); // the document's, shared
    const llmscope::QuantReport &report() const { return *m_report; }
    // The weight shown in a cell (index into report().weights), -1 for an empty cell.
    int weightAt(const QModelIndex &index) const;
    // The cell of a weight, invalid when it is not shown.
    QModelIndex indexOf(const std::string &weightName) const;
    static QColor colourFor(double share, double maxShare);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const llmscope::QuantReport> m_report = std::make_shared<const llmscope::QuantReport>();
    QStringList m_kinds; // row order
    int m_layers = 0; // columns 0..m_layers-1; then one for the model's own
    std::vector<std::vector<int>> m_cell; // [row][column] -> weight index, -1
    double m_maxShare = 0;
};
