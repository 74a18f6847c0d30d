#include "app/hunt/product_replay.h"

#include <QtConcurrent>

#include <QCoroFuture>

#include "document/job_pool.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "core/opcheck/ggml_cpu_replay.h"
#endif

using namespace llmscope;

namespace hunt {

QStringList productsArgs(const QString &rounds)
{
    // mul_mat: MUL_MAT and MUL_MAT_ID; kernel: the backend that ran each (its paths); the
    // weights read from their model files, not written again
    return {"--type",  "model", "tensor", "kernel",  "-opname",
            "mul_mat", "-er",   rounds,   "-tiling", "--weights-in-model"};
}

QCoro::Task<ProductsReplayed> replayProducts(QString testDump, std::function<bool()> cancelled)
{
    auto running = QtConcurrent::run(jobPool(), [testDump, cancelled] {
        ProductsReplayed out;
        try {
            OpcheckOptions o;
            o.input = testDump.toStdString();
            o.opNames = "mul_mat";
#ifdef LLMSCOPE_GGML_REPLAY
            o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
            const auto go = [&cancelled](uint64_t, uint64_t) { return !cancelled || !cancelled(); };
            for (const OpcheckRow &r : runOpcheck(o, go).rows) {
                out.judged += isJudged(r.verdict);
                out.skipped += r.verdict == Verdict::Skip || r.verdict == Verdict::Error;
                if (r.verdict == Verdict::Fail)
                    out.wrong.push_back(r);
            }
        } catch (const std::exception &e) {
            out.cancelled = cancelled && cancelled();
            out.failed = QString::fromUtf8(e.what());
        }
        return out;
    });
    co_return co_await running;
}

std::optional<std::pair<OpcheckRow, OpResult>> firstWrong(const ProductsReplayed &r, const CompareResult &c)
{
    if (r.wrong.empty())
        return std::nullopt;
    for (const OpResult &op : c.ops) // the comparison's order: rounds, then the graph
        for (const OpcheckRow &row : r.wrong)
            if (op.round == row.round && (op.myOpId.empty() ? op.opId : op.myOpId) == row.opId)
                return std::pair{row, op};
    const OpcheckRow &row = r.wrong.front(); // an op the comparison did not pair: named from its row
    OpResult op;
    op.opId = row.opId;
    op.round = row.round;
    op.name = row.opName;
    op.opType = row.opType;
    op.passed = true;
    return std::pair{row, op};
}

} // namespace hunt
