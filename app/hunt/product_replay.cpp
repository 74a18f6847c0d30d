#include "product_replay.h"

#include <QtConcurrent>

#include <QCoroFuture>

#include <cstdlib>

#include "job_pool.h"
#ifdef LLMSCOPE_GGML_REPLAY
#include "opcheck/ggml_cpu_replay.h"
#endif
#include "util/text.h"

using namespace llmscope;

namespace hunt {

QStringList productsArgs(const QString &rounds)
{
    // mul_mat: MUL_MAT and MUL_MAT_ID; kernel: the backend that ran each (its paths)
    return {"--type", "model", "tensor", "kernel", "-opname", "mul_mat", "-er", rounds, "-tiling"};
}

QCoro::Task<ProductsReplayed> replayProducts(QString testDump)
{
    auto running = QtConcurrent::run(jobPool(), [testDump] {
        OpcheckOptions o;
        o.input = testDump.toStdString();
        o.opNames = "mul_mat";
#ifdef LLMSCOPE_GGML_REPLAY
        o.cpuReplay = opcheck::ggmlCpuReplay;
#endif
        // "2_31" before "10_2": an id's numbers in order
        const auto position = [](const std::string &id) {
            std::vector<long> n;
            for (const std::string &part : split(id, '_'))
                n.push_back(std::strtol(part.c_str(), nullptr, 10));
            return n;
        };
        ProductsReplayed out;
        for (const OpcheckRow &r : runOpcheck(o).rows) {
            out.judged += isJudged(r.verdict);
            out.skipped += r.verdict == Verdict::Skip || r.verdict == Verdict::Error;
            if (r.verdict == Verdict::Fail &&
                (!out.wrong || r.round < out.wrong->round ||
                 (r.round == out.wrong->round && position(r.opId) < position(out.wrong->opId))))
                out.wrong = r;
        }
        return out;
    });
    co_return co_await running;
}

} // namespace hunt
