// What the dump holds of an operation, as the inspector shows it: the files of the round looked
// at (or of the newest before it), read from the document's rounds, and from a running
// program's folder while its files are not scanned yet. A function of the document alone: the
// inspector follows the document and the cursor and asks it.
#pragma once
#include <QString>
#include <QStringList>

class SessionDocument;

struct OpInspection {
    QString title; // "3_29 ffn_out-2 (MUL_MAT)"
    qint64 round = -1; // the round the files are of; -1: none
    QStringList files;
    QString note; // when there are none: what to do
};

OpInspection inspectOp(const SessionDocument &doc, const QString &id, qint64 round);
