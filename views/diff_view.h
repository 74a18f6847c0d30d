// A golden-versus-test comparison: what was compared and the first divergent operation in
// words (with the weight it inherits its error through), then the table of operations,
// sortable, filterable to failures or by text; a click picks the operation.
#pragma once
#include <QWidget>

#include <memory>

#include "core/compare/compare_run.h"

class DiffTableModel;
class Cursor;
class SessionDocument;
class QCheckBox;
class QLabel;
class QScrollArea;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget *parent = nullptr);

    void setResult(std::shared_ptr<const llmscope::CompareResult> r); // null: empty
    // Empty, the summary saying what failed ("The hunt failed:") and why.
    void showFailure(const QString &what, const QString &why);
    DiffTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QCheckBox *failuresOnly() const { return m_failures; }
    QString summary() const;
    // The verdict's words, for the page to lay out across its whole width (above the table and
    // the charts beside it); in this view's own layout until then.
    QWidget *summaryPanel() const;
    // Selects the op's row (its first round), keeping the filter.
    void selectOp(const QString &id);
    // A row picked sets the cursor's op and compared op; the cursor's op, picked elsewhere, is
    // selected here (in the round shown).
    void follow(Cursor *cursor);
    void follow(SessionDocument *doc); // the comparison shown

protected:
    void resizeEvent(QResizeEvent *e) override;
    // Never narrower than the table's round, operation and output error: the chart beside it
    // gives way first.
    QSize minimumSizeHint() const override;
    // What differs between the runs' configurations, a line of the summary.
    static QString configurationLine(const llmscope::ConfigDiff &d);

signals:
    void opClicked(const QString &id);
    void opPicked(int op); // an index into the result's ops

private:
    void fitSummary(); // the summary's lines, up to a few

    DiffTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QLabel *m_summary;
    QScrollArea *m_summaryArea;
    QCheckBox *m_failures;
    QLineEdit *m_filter;
};
