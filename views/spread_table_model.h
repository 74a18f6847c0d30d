// A spread as a table: one row per op and round (in graph order), its spread, then one column
// per run with that run's distance from the first run there, the cells coloured by it (a
// heatmap of the spread: white where bit-identical, deeper the farther; red where the runs part
// beyond their standard, blue within it). The op where the runs first part beyond their
// standard is marked, the ops that part in red.
#pragma once
#include <QAbstractTableModel>

#include <memory>

#include "core/run_spread/spread.h"

class SpreadTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RoundColumn, OpColumn, SpreadColumn, FirstRunColumn };
    enum Role { OpIdRole = Qt::UserRole + 1, RoundRole, DiffersRole, DepartsRole, ValueRole };

    explicit SpreadTableModel(QObject *parent = nullptr);
    void setResult(std::shared_ptr<const llmscope::SpreadResult> r);
    const llmscope::SpreadResult *result() const { return m_result.get(); }
    int rowOf(const QString &opId, qint64 round) const; // -1: none
    // What the window calls run k (0-based in the result): "run k+1", as the console counts
    // them while they run.
    static QString runName(int run);
    // The words of run k's command that set it apart from the other runs' (a varied flag and
    // its value, "[fusion off]"); empty where every run is the same command.
    QString runWords(int run) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const llmscope::SpreadResult> m_result;
    double m_largest = 0; // the largest finite distance: the colours' top
    std::vector<QString> m_runWords;
};
