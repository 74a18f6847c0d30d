// Where the first divergent op's error comes from, decided once for every front end that says
// it (llmscope compare's summary, the hunt's last words, the window's Diff tab): a weight that
// differs between golden and test beyond what its quantization explains, an input that already
// differs (computed by an op that was not compared), or the op itself. One rule and one
// finding (causeWords): the command line words it in English, the window in its language.
#pragma once
#include "core/compare/compare_run.h"

namespace llmscope {

struct DivergenceCause {
    enum class Kind {
        Unreadable, // its outputs could not be compared
        Weight, // a weight differs: the error comes in through it
        Input, // an input already differs; the op computing it was not compared
        Itself, // its inputs agree more than its output: the op adds the error
    };
    Kind kind = Kind::Itself;
    const CompareRow *row = nullptr; // the weight or input, for Weight and Input
};

DivergenceCause divergenceCause(const CompareResult &r, const OpResult &op);
// The cause worded, for the command line, the hunt and the Diff tab alike: the weight or input
// that differs with its error, or (outside the engine standard, whose verdict says it) that
// the op adds the error; none when there is nothing to add.
Reason causeWords(const CompareResult &r, const OpResult &op);

} // namespace llmscope
