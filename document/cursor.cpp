#include "document/cursor.h"

void Cursor::setOp(const QString &id, const QObject *by)
{
    if (id.isEmpty() || id == m_op)
        return;
    m_op = id;
    emit opChanged(id, by);
}

void Cursor::setRound(qint64 round, const QObject *by)
{
    if (round < -1 || round == m_round)
        return;
    m_round = round;
    emit roundChanged(round, by);
}

void Cursor::setCompared(int op, const QObject *by)
{
    if (op < -1 || op == m_compared)
        return;
    m_compared = op;
    emit comparedChanged(op, by);
}

void Cursor::reset()
{
    m_op.clear();
    m_round = -1;
    m_compared = -1;
}
