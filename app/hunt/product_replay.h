// The matrix products of a test's dump, each replayed on the inputs it was given (llmscope
// opcheck: what its kernel computes, ggml's CPU kernel beside it). A quantized pair's budgets
// carry the weights' quantization error and may hide a kernel's fault; this reference does not.
// The hunt and the quantization report say a test's error is its quantization's only after it.
#pragma once
#include <QCoroTask>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/opcheck/opcheck_run.h"

namespace hunt {

struct ProductsReplayed {
    std::vector<llmscope::OpcheckRow> wrong; // every product whose kernel is wrong on its inputs
    int judged = 0, skipped = 0;
    QString failed; // why the dump could not be replayed (empty: it was)
    bool cancelled = false;
};

// The dump options that write the products with their inputs in rounds (-er's value), the
// weights left to their model files.
QStringList productsArgs(const QString &rounds);

// Off the calling thread; never throws. cancelled (callable from any thread; empty: never)
// stops it between two ops.
QCoro::Task<ProductsReplayed> replayProducts(QString testDump, std::function<bool()> cancelled);

// Of the wrong products, the first in the comparison's order of ops (rounds, then the graph):
// its op there, or one made from the row where the comparison has no such op.
std::optional<std::pair<llmscope::OpcheckRow, llmscope::OpResult>> firstWrong(const ProductsReplayed &r,
                                                                              const llmscope::CompareResult &c);

} // namespace hunt
