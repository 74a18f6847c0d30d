// Where the user looks, in one place: the picked operation, the round looked at, and the
// compared op (an index into the comparison's ops). Every view sets it and follows it; a
// change names the view that made it, which does not follow its own change back (RenderDoc's
// SetEventID), so a pick travels once: view -> cursor -> the other views. Setting what is
// already there changes nothing and says nothing. Qt Core only; GUI thread.
#pragma once
#include <QObject>
#include <QString>

class Cursor : public QObject {
    Q_OBJECT
public:
    explicit Cursor(QObject *parent = nullptr) : QObject(parent) {}

    QString op() const { return m_op; }
    qint64 round() const { return m_round; } // -1: the newest
    int compared() const { return m_compared; } // -1: none

    // by: the view that made the change (it is not told), or null (every view is).
    void setOp(const QString &id, const QObject *by = nullptr);
    void setRound(qint64 round, const QObject *by = nullptr);
    void setCompared(int op, const QObject *by = nullptr);
    // Back to nothing picked (a new source), silently: the views reset on the source anyway.
    void reset();

signals:
    void opChanged(const QString &id, const QObject *by);
    void roundChanged(qint64 round, const QObject *by);
    void comparedChanged(int op, const QObject *by);

private:
    QString m_op;
    qint64 m_round = -1;
    int m_compared = -1;
};

// The usual way a view follows the cursor's op: its picks (picked, a signal carrying the op's
// id) set the cursor, naming the view; the cursor's op set elsewhere is selected in it
// (view->selectOp), the op it points at already at once.
template <typename View, typename Picked>
void followOp(Cursor *cursor, View *view, Picked picked)
{
    QObject::connect(view, picked, cursor, [cursor, view](const QString &id) { cursor->setOp(id, view); });
    QObject::connect(cursor, &Cursor::opChanged, view, [view](const QString &id, const QObject *by) {
        if (by != view)
            view->selectOp(id);
    });
    if (!cursor->op().isEmpty())
        view->selectOp(cursor->op());
}
