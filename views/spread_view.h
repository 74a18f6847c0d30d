// The spread in the window (Session > Spread): what it found in one line (the first op where
// the runs part and the run that departs, or that none does; the ops that are not
// bit-identical between runs of one command), and the Spread table with the runs as columns,
// coloured by each run's distance from the first. Picking a row moves the cursor there.
#pragma once
#include <QWidget>

#include <memory>

#include "core/run_spread/spread.h"

class Cursor;
class SessionDocument;
class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class SpreadTableModel;

class SpreadView : public QWidget {
    Q_OBJECT
public:
    explicit SpreadView(QWidget *parent = nullptr);

    // folder: where the dumps and reports are, named in the summary.
    void setResult(std::shared_ptr<const llmscope::SpreadResult> r, const QString &folder);
    // A spread that failed: no result (never an earlier one's), and why.
    void showFailure(const QString &why);
    void follow(SessionDocument *doc); // the document's spread, none when its source changes
    void follow(Cursor *cursor);
    void selectOp(const QString &opId); // in the cursor's round where the spread has it, else its first

    SpreadTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QCheckBox *differingOnly() const { return m_differing; }
    QLabel *emptyNote() const { return m_empty; } // shown when the filter leaves no row

signals:
    void opPicked(const QString &opId, qint64 round);

private:
    void showFiltered(); // the columns fitted to the rows shown; say so when none is

    SpreadTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QLabel *m_summary, *m_empty;
    QCheckBox *m_differing;
    qint64 m_round = -1; // the cursor's
};
