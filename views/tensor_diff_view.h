// Golden and test values of one tensor side by side, with the error between them, over the
// same 2-D slice: the element-wise view of a diff. Each side is read lazily (TensorSliceModel).
#pragma once
#include <QAbstractTableModel>
#include <QVector>
#include <QWidget>

#include "core/compare/matching.h"
#include "document/compared_files.h"

class Cursor;
class SessionDocument;

class QLabel;
class QComboBox;
class QTableView;
class TensorSliceModel;
class SlicePicker;

// |test - golden| / |golden| cell by cell (absolute where golden is 0), coloured by size.
class SliceErrorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    SliceErrorModel(TensorSliceModel *golden, TensorSliceModel *test, QObject *parent = nullptr);
    double error(int row, int col) const;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void refresh();

private:
    TensorSliceModel *m_golden, *m_test;
};

// Two files shown against each other, each read in the layout that makes them alike.
using TensorDiffPair = ComparedPair;

class TensorDiffView : public QWidget {
    Q_OBJECT
public:
    explicit TensorDiffView(QWidget *parent = nullptr);
    // Pairs given as they are (a PyTorch golden's files against an engine's), named as given.
    // A compared op's files: as setFiles, or its pairs as setPairs (across frameworks).
    void setCompared(const ComparedFiles &files);
    void setPairs(const QString &title, const QVector<TensorDiffPair> &pairs, const QString &leftName = {},
                  const QString &rightName = {});
    // The op's files on both sides, paired by name (after/outtensor0.bin, ...).
    // leftName, rightName: the two sides' titles ("Golden" and "Test" when empty).
    void follow(SessionDocument *doc); // cleared on a new source
    // The cursor's compared op (an index into the document's comparison): its files, golden's
    // and test's (follow(doc) first).
    void follow(Cursor *cursor);
    void setFiles(const QString &title, const QStringList &golden, const QStringList &test,
                  const QString &leftName = {}, const QString &rightName = {});
    TensorSliceModel *goldenModel() const { return m_golden; }
    TensorSliceModel *testModel() const { return m_test; }
    SliceErrorModel *errorModel() const { return m_error; }
    // The op's files, one shown at a time (a list beside the tables took a third of their width).
    QComboBox *fileList() const { return m_files; }
    SlicePicker *picker() const { return m_picker; }
    QString status() const;
    // The element the pair opened on: the slice's largest relative error (invalid: none, or a
    // slice too large to scan).
    QModelIndex worstShown() const { return m_worst; }
    QTableView *errorTable() const { return m_errorTable; }

private:
    void showPair(int row);
    void showWorst();

    QLabel *m_title, *m_status;
    QLabel *m_leftName = nullptr, *m_rightName = nullptr;
    QComboBox *m_files;
    TensorSliceModel *m_golden, *m_test;
    SliceErrorModel *m_error;
    SlicePicker *m_picker;
    QTableView *m_goldenTable, *m_testTable, *m_errorTable;
    QVector<TensorDiffPair> m_pairs;
    QPersistentModelIndex m_worst;
    SessionDocument *m_doc = nullptr;
};
