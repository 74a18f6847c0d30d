#include "views/tensor_slice_model.h"

#include <QBrush>
#include <QColor>

#include <cmath>

#include "core/compare/tensor_reader.h"
#include "core/util/error.h"
#include "document/reason_words.h"

using namespace llmscope;

namespace {
// Views of a slice this wide or tall stay usable; Qt's item views slow down beyond it.
constexpr int64_t kMaxSide = 1 << 20;
} // namespace

TensorSliceModel::TensorSliceModel(QObject *parent) : QAbstractTableModel(parent) {}
TensorSliceModel::~TensorSliceModel() = default;

bool TensorSliceModel::open(const QString &path, const llmscope::TensorView &view,
                            const std::vector<int64_t> &otherDims)
{
    beginResetModel();
    m_rows.clear();
    m_reader.reset();
    m_dims.clear();
    m_error.clear();
    try {
        auto reader = std::make_unique<TensorReader>(path.toStdString());
        reader->requireData();
        m_dims = reader->header().dims;
        if (view.headSize)
            reader->unpermuteHeads(view.headSize);
        if (view.lastRows && !otherDims.empty()) {
            const uint64_t other = llmscope::elementCount(otherDims);
            if (other && reader->count() > other && reader->count() % other == 0) {
                reader->keepLast(other);
                m_dims = otherDims;
            }
        }
        m_reader = std::move(reader);
    } catch (const Error &e) {
        m_error = errorWords(e);
    }
    m_strides.assign(m_dims.size(), 1);
    for (int d = int(m_dims.size()) - 2; d >= 0; --d)
        m_strides[size_t(d)] = m_strides[size_t(d) + 1] * m_dims[size_t(d) + 1];
    m_fixed.assign(m_dims.size(), 0);
    const int n = int(m_dims.size());
    m_rowDim = n >= 2 ? n - 2 : -1;
    m_colDim = n >= 1 ? n - 1 : -1;
    endResetModel();
    return m_reader != nullptr;
}

void TensorSliceModel::close()
{
    beginResetModel();
    m_reader.reset();
    m_rows.clear();
    m_dims.clear();
    m_rowDim = m_colDim = -1;
    endResetModel();
}

void TensorSliceModel::setSlice(int rowDim, int colDim, const std::vector<int64_t> &fixed)
{
    beginResetModel();
    m_rows.clear();
    const int n = int(m_dims.size());
    m_rowDim = rowDim >= 0 && rowDim < n ? rowDim : -1;
    m_colDim = colDim >= 0 && colDim < n && colDim != m_rowDim ? colDim : -1;
    for (size_t d = 0; d < m_fixed.size(); ++d)
        m_fixed[d] = d < fixed.size() ? std::clamp<int64_t>(fixed[d], 0, std::max<int64_t>(0, m_dims[d] - 1)) : 0;
    endResetModel();
}

bool TensorSliceModel::openPair(TensorSliceModel &golden, TensorSliceModel &test, const ComparedPair &p)
{
    // Each side opened plain first: its shape is what the other side keeps its last rows as.
    bool ok = test.open(p.test) && golden.open(p.golden);
    if (ok && (p.goldenView.lastRows || p.goldenView.headSize))
        ok = golden.open(p.golden, p.goldenView, test.dims());
    if (ok && (p.testView.lastRows || p.testView.headSize))
        ok = test.open(p.test, p.testView, golden.dims());
    return ok;
}

int TensorSliceModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_reader)
        return 0;
    return m_rowDim < 0 ? 1 : int(std::min(m_dims[size_t(m_rowDim)], kMaxSide));
}

int TensorSliceModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_reader)
        return 0;
    return m_colDim < 0 ? 1 : int(std::min(m_dims[size_t(m_colDim)], kMaxSide));
}

uint64_t TensorSliceModel::flatIndex(int row, int col) const
{
    uint64_t i = 0;
    for (size_t d = 0; d < m_dims.size(); ++d) {
        const int64_t at = int(d) == m_rowDim ? row : int(d) == m_colDim ? col : m_fixed[d];
        i += uint64_t(at) * uint64_t(m_strides[d]);
    }
    return i;
}

const std::vector<float> *TensorSliceModel::row(int r) const
{
    if (std::vector<float> *hit = m_rows.object(r))
        return hit;
    auto *v = new std::vector<float>(size_t(columnCount()));
    try {
        if (m_colDim == int(m_dims.size()) - 1) { // the innermost dimension: one read
            m_reader->read(flatIndex(r, 0), v->size(), v->data());
        } else {
            for (int c = 0; c < int(v->size()); ++c)
                m_reader->read(flatIndex(r, c), 1, v->data() + c);
        }
    } catch (const Error &) {
        std::fill(v->begin(), v->end(), NAN); // the file changed under us: shown as missing
    }
    m_rows.insert(r, v);
    return v;
}

double TensorSliceModel::value(int r, int c) const
{
    if (!m_reader || r < 0 || c < 0 || r >= rowCount() || c >= columnCount())
        return NAN;
    return (*row(r))[size_t(c)];
}

QVariant TensorSliceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_reader)
        return {};
    if (role == Qt::DisplayRole || role == Qt::BackgroundRole || role == Qt::ToolTipRole) {
        const double v = value(index.row(), index.column());
        if (role == Qt::BackgroundRole) {
            if (std::isnan(v))
                return QBrush(QColor(0xff, 0xc8, 0xc8));
            if (std::isinf(v))
                return QBrush(QColor(0xff, 0xe0, 0xa0));
            return {};
        }
        if (role == Qt::ToolTipRole)
            return tr("element %1").arg(flatIndex(index.row(), index.column()));
        if (std::isnan(v))
            return QStringLiteral("NaN");
        if (std::isinf(v))
            return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
        return QString::number(v, 'g', 6);
    }
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TensorSliceModel::headerData(int section, Qt::Orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    return QString::number(section);
}
