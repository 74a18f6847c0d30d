// The files of one compared op, golden's beside test's, as the element view shows them: the
// op's title and its tensor files on each side, or (across frameworks, a PyTorch golden)
// the compared pairs themselves, each side read in the layout the comparison read it in.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>

#include "core/compare/matching.h"

struct ComparedPair {
    QString name, golden, test;
    llmscope::TensorView goldenView, testView;
};

struct ComparedFiles {
    QString title;
    QStringList golden, test; // empty when pairs are given
    QVector<ComparedPair> pairs;
};
