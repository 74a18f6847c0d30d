// The operation tree with what a user needs around it: a search box (name, type or id), the
// -ids text kept in step with the boxes both ways, and Apply, which hands the selection to
// whoever runs the program. Shows the model's tree for a live program or an opened dump.
#pragma once
#include <QSet>
#include <QTimer>
#include <QWidget>

class SessionDocument;
class Cursor;
class OpTreeModel;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

class OpTreePanel : public QWidget {
    Q_OBJECT
public:
    explicit OpTreePanel(QWidget *parent = nullptr);

    OpTreeModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QLineEdit *idsEdit() const { return m_ids; }
    QLineEdit *searchEdit() const { return m_search; }
    QLabel *searchNote() const { return m_searchNote; } // shown when a search matches nothing
    QPushButton *applyButton() const { return m_apply; }
    // Apply is offered while a program runs that can take a new selection, and (rerun) once the
    // program shown has ended, as "Run again with these".
    void setApplyEnabled(bool on, const QString &why = {}, bool rerun = false);
    void setStatus(const QString &text);
    QString status() const;
    // -ids typed (applied or not): the boxes follow, as when typed by hand.
    void setIdsText(const QString &text);
    QString currentOpId() const;
    void selectOp(const QString &id); // scrolls to it and makes it current
    // Picks in the tree set the cursor; the cursor's op, picked elsewhere, is selected here.
    void follow(Cursor *cursor);
    // The document's operations, backends, newest statistics, replay verdicts and output shapes,
    // and its picked -ids, kept in step with the boxes and the text.
    void follow(SessionDocument *doc);

signals:
    void applyRequested(const QString &idsText);
    void currentOpChanged(const QString &id);

private:
    void idsEdited();
    void showPicked(); // the picked op's row current, or none while the search hides it

    OpTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTreeView *m_view;
    QLineEdit *m_search, *m_ids;
    QPushButton *m_apply;
    QLabel *m_status;
    QLabel *m_searchNote; // "nothing matches", under the search box
    SessionDocument *m_doc = nullptr;
    bool m_syncing = false;
    bool m_following = false; // showing the document's picked ids: not written back
    bool m_filtering = false; // the current row moves because rows come or go, not by a pick
    QString m_picked; // the op picked, searched out or not
    QSet<QString> m_expanded; // ids open before a reset
    QTimer m_statsShown; // the ops' newest statistics, at most ten times a second
};
