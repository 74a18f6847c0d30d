// The tensors of one operation: pick an input or output, see its dtype, shape and
// statistics (computed off the GUI thread for full tensors, read from the header for
// statistics files), a values table over a 2-D slice with pickers for the other
// dimensions, and a histogram (Qt Charts). NaN and Inf are marked.
#pragma once
#include <QWidget>

#include <QCoroTask>

#include <vector>

class Cursor;
class SessionDocument;

class QChartView;
class QComboBox;
class SlicePicker;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QSpinBox;
class QTableView;
class TensorSliceModel;

class TensorInspector : public QWidget {
    Q_OBJECT
public:
    explicit TensorInspector(QWidget *parent = nullptr);

    // The op's files (after/outtensor0.bin, ...) from one round; an empty list shows `note`.
    void setOp(const QString &title, qint64 round, const QStringList &files, const QString &note = {});
    void follow(SessionDocument *doc); // cleared on a new source
    // The cursor's op in its round, from the document followed (follow(doc) first): filled
    // when either moves, when the op's topology comes, and when its first files come.
    void follow(Cursor *cursor);
    void showOp(const QString &id); // the document's files of op in the cursor's round
    QString currentFile() const;
    TensorSliceModel *sliceModel() const { return m_slice; }
    QTableView *table() const { return m_table; }
    QString statsText() const;
    QString whose() const; // whose dump the files are, with its folder
    QListWidget *fileList() const { return m_files; }
    SlicePicker *picker() const { return m_picker; }
    QChartView *histogram() const { return m_chart; }

signals:
    void tensorLoaded(const QString &path); // statistics and histogram are in

private:
    void showFile(int row);
    QCoro::Task<> loadStats(QString path, quint64 generation);

    QLabel *m_whose, *m_title, *m_header, *m_stats;
    QListWidget *m_files;
    SlicePicker *m_picker;
    QTableView *m_table;
    TensorSliceModel *m_slice;
    QChartView *m_chart;
    QWidget *m_body;
    quint64 m_generation = 0;
    SessionDocument *m_doc = nullptr;
    Cursor *m_cursor = nullptr;
};
