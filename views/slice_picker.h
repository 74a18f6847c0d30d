// Which 2-D slice of an N-D tensor to show: the dimension for rows, the one for columns, and
// the index of every other dimension. One picker per view of a tensor (the inspector; the
// diff, where golden, test and error follow the same slice).
#pragma once
#include <QWidget>

#include <vector>

class QComboBox;
class QHBoxLayout;
class QSpinBox;

class SlicePicker : public QWidget {
    Q_OBJECT
public:
    explicit SlicePicker(QWidget *parent = nullptr);
    // A tensor of these dims, shown with these row and column dimensions at first.
    void setDims(const std::vector<int64_t> &dims, int rowDim, int colDim);
    int rowDim() const;
    int colDim() const;
    std::vector<int64_t> fixed() const;
    QComboBox *rowDimBox() const { return m_rowDim; }
    QComboBox *colDimBox() const { return m_colDim; }
    const std::vector<QSpinBox *> &fixedBoxes() const { return m_fixed; }

signals:
    void sliceChanged(int rowDim, int colDim, const std::vector<int64_t> &fixed);

private:
    void changed();

    QComboBox *m_rowDim, *m_colDim;
    QHBoxLayout *m_fixedRow;
    std::vector<QSpinBox *> m_fixed;
    bool m_building = false;
};
