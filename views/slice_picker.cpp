#include "views/slice_picker.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>
#include <climits>

SlicePicker::SlicePicker(QWidget *parent)
    : QWidget(parent), m_rowDim(new QComboBox(this)), m_colDim(new QComboBox(this)), m_fixedRow(new QHBoxLayout)
{
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Rows:"), this));
    row->addWidget(m_rowDim);
    row->addWidget(new QLabel(tr("Columns:"), this));
    row->addWidget(m_colDim);
    row->addLayout(m_fixedRow);
    row->addStretch();
    for (QComboBox *box : {m_rowDim, m_colDim}) // "dim 0 (18)" whole, not clipped
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_rowDim, &QComboBox::currentIndexChanged, this, &SlicePicker::changed);
    connect(m_colDim, &QComboBox::currentIndexChanged, this, &SlicePicker::changed);
}

void SlicePicker::setDims(const std::vector<int64_t> &dims, int rowDim, int colDim)
{
    m_building = true;
    m_rowDim->clear();
    m_colDim->clear();
    m_rowDim->addItem(tr("(none)"), -1);
    m_colDim->addItem(tr("(none)"), -1);
    for (size_t d = 0; d < dims.size(); ++d) {
        const QString label = tr("dim %1 (%2)").arg(d).arg(dims[d]);
        m_rowDim->addItem(label, int(d));
        m_colDim->addItem(label, int(d));
    }
    m_rowDim->setCurrentIndex(m_rowDim->findData(rowDim));
    m_colDim->setCurrentIndex(m_colDim->findData(colDim));
    for (QSpinBox *s : m_fixed)
        delete s;
    m_fixed.clear();
    for (size_t d = 0; d < dims.size(); ++d) {
        auto *s = new QSpinBox(this);
        s->setPrefix(tr("dim %1 = ").arg(d));
        s->setRange(0, int(std::max<int64_t>(0, std::min<int64_t>(dims[d] - 1, INT32_MAX))));
        s->setVisible(int(d) != rowDim && int(d) != colDim);
        connect(s, &QSpinBox::valueChanged, this, &SlicePicker::changed);
        m_fixedRow->addWidget(s);
        m_fixed.push_back(s);
    }
    m_building = false;
}

int SlicePicker::rowDim() const
{
    return m_rowDim->currentData().toInt();
}

int SlicePicker::colDim() const
{
    return m_colDim->currentData().toInt();
}

std::vector<int64_t> SlicePicker::fixed() const
{
    std::vector<int64_t> out;
    for (const QSpinBox *s : m_fixed)
        out.push_back(s->value());
    return out;
}

void SlicePicker::changed()
{
    if (m_building)
        return;
    const int rows = rowDim(), cols = colDim();
    for (size_t d = 0; d < m_fixed.size(); ++d)
        m_fixed[d]->setVisible(int(d) != rows && int(d) != cols);
    emit sliceChanged(rows, cols, fixed());
}
