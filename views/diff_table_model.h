// A comparison of golden and test as a table of operations in execution order: round, the
// op as the program named it, its output's error, what it inherits through its inputs, what
// it adds itself, the lowest cosine, and pass or fail. The first divergent operation is
// marked; a chain computed fused is one row naming its ops. The result is built off the GUI
// thread (core's compare) and only shown here.
#pragma once
#include <QAbstractTableModel>

#include <memory>

#include "core/compare/compare_run.h"

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RoundColumn,
        OpColumn,
        OutputErrorColumn,
        InputErrorColumn,
        AddedErrorColumn,
        CosineColumn,
        BudgetColumn,
        ResultColumn,
        ColumnCount
    };
    enum Role { OpIdRole = Qt::UserRole + 1, SortRole, PassedRole, FirstDivergentRole };

    explicit DiffTableModel(QObject *parent = nullptr);
    void setResult(std::shared_ptr<const llmscope::CompareResult> r);
    const llmscope::CompareResult *result() const { return m_result.get(); }
    int firstDivergentRow() const { return m_result ? m_result->firstDivergent : -1; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The Operation cell: a chain computed fused is one cell naming its ops; its tooltip says so.
    static QString opCell(const llmscope::OpResult &op);
    static QString fusedWords(const llmscope::OpResult &op);
    // A fused chain's parts as every view words them: who fused it ("golden and test"), and its
    // ops ("1_0 norm-0, 1_1 attn_norm-0").
    static QString fusedBy(const llmscope::OpResult &op);
    static QString fusedMembers(const llmscope::OpResult &op);

private:
    std::shared_ptr<const llmscope::CompareResult> m_result;
};
