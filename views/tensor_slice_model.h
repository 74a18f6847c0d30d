// A 2-D slice of an N-D tensor file as a table, read lazily: only the cells a view asks for
// are read (a row at a time when the columns are the innermost dimension), so a
// 100-million-element tensor opens at once. NaN and Inf cells are coloured.
#pragma once
#include <QAbstractTableModel>
#include <QCache>

#include <memory>
#include <vector>

#include "core/compare/matching.h"
#include "document/compared_files.h"

namespace llmscope {
class TensorReader;
}

class TensorSliceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit TensorSliceModel(QObject *parent = nullptr);
    ~TensorSliceModel() override;

    // Opens a tensor file (header only). False, with the reason in error(), when it holds no
    // values to show (statistics only, a description, an engine type, unreadable).
    // view: read as another framework lays it out (compare/framework_pairing.h): heads
    // un-permuted, or only the last `other` elements, shaped as otherDims.
    bool open(const QString &path, const llmscope::TensorView &view = {}, const std::vector<int64_t> &otherDims = {});
    void close();
    QString error() const { return m_error; }
    std::vector<int64_t> dims() const { return m_dims; }
    // Which dimensions are rows and columns (-1: none, for tensors of fewer dimensions), and
    // the index of every other one.
    void setSlice(int rowDim, int colDim, const std::vector<int64_t> &fixed);
    int rowDim() const { return m_rowDim; }
    int colDim() const { return m_colDim; }
    double value(int row, int col) const; // NaN for out of range
    uint64_t flatIndex(int row, int col) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Opens a compared pair, each side read in the layout the comparison read it in (the
    // other side's shape says how many last rows to keep); false when either side fails.
    static bool openPair(TensorSliceModel &golden, TensorSliceModel &test, const ComparedPair &p);

private:
    const std::vector<float> *row(int r) const;

    std::unique_ptr<llmscope::TensorReader> m_reader;
    std::vector<int64_t> m_dims, m_fixed, m_strides;
    int m_rowDim = -1, m_colDim = -1;
    QString m_error;
    mutable QCache<int, std::vector<float>> m_rows{256};
};
