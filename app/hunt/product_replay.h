// The matrix products of a test's dump, each replayed on the inputs it was given (llmscope
// opcheck: what its kernel computes, ggml's CPU kernel beside it). A quantized pair's budgets
// carry the weights' quantization error and may hide a kernel's fault; this reference does not.
// The hunt and the quantization report say a test's error is its quantization's only after it.
#pragma once
#include <QCoroTask>
#include <QString>
#include <QStringList>

#include <optional>

#include "opcheck/opcheck_run.h"

namespace hunt {

struct ProductsReplayed {
    std::optional<llmscope::OpcheckRow> wrong; // the first whose kernel is wrong: earliest round, then graph order
    int judged = 0, skipped = 0;
};

// The dump options that write the products with their inputs in rounds (-er's value).
QStringList productsArgs(const QString &rounds);

// Off the calling thread. Throws llmscope::Error when the dump cannot be read.
QCoro::Task<ProductsReplayed> replayProducts(QString testDump);

} // namespace hunt
