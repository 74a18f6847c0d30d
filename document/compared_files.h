// The files of one compared op, golden's beside test's, as the element view shows them: the
// op's title and its tensor files on each side, or (across frameworks, a PyTorch golden)
// the compared pairs themselves, each side read in the layout the comparison read it in. A
// function of the document's comparison: the element view follows the cursor and asks it.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>

#include "core/compare/matching.h"

class SessionDocument;

struct ComparedPair {
    QString name, golden, test;
    llmscope::TensorView goldenView, testView;
};

struct ComparedFiles {
    QString title;
    QStringList golden, test; // empty when pairs are given
    QVector<ComparedPair> pairs;
};

// The files of the document's comparison's op (an index into its ops), golden's and test's;
// none (an empty title) when there is no such op.
ComparedFiles comparedFilesOf(const SessionDocument &doc, int op);
