// msProbe's per-round statistic.csv: one row per tensor instead of one header file per
// tensor. llmscope writes it for statistics-only dumps when asked (a run that dumps a few
// hundred tensors a token would otherwise spend its time creating files), under
// tensors/{device}_{pid}/{exec}/statistic.csv. Readers find columns by name; llmscope adds an
// "Op Path" column (the op folders), a "Before/After" column, a "Sketch" column (the error
// sketch, tensor/sketch.h) and a "Digest" column (the bytes' digest, util/content_digest.h), each empty
// when there is none, after msProbe's own.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor/stats.h"

namespace llmscope {

struct StatisticRow {
    int device = 0;
    int64_t pid = 0, exec = 0;
    std::vector<std::string> opFolders; // {"3_DecoderLayer", "1_MUL_MAT"}
    std::string opType;
    bool before = false, input = false;
    int index = 0;
    int32_t dtype = 0, format = 2;
    std::string engineType; // when the dtype has no ACL code
    std::vector<int64_t> dims;
    std::optional<TensorStats> stats;
    std::string tensorPath; // where the .bin would be
};

// A row cut around its round number, which it holds twice (its column and the tensor path),
// and its statistics: the rest is fixed for a tensor, so a writer builds it once and fills in
// each round.
struct StatisticRowParts {
    std::string beforeExec; // "0_123,"
    std::string afterExec; // ",Op Name,...,Shape,"
    std::string beforePathExec; // ",{root}/tensors/0_123/"
    std::string afterPathExec; // "/{op folders}/after/outtensor0.bin,{op path},after," (the sketch follows)
    bool pathHasExec = true; // false: a path outside a dump's layout, kept whole
};

// The columns, in the order written: msProbe's, then llmscope's (Op Path, Before/After,
// Sketch, Digest). The writer's header and the reader's lookups by name both come from here.
enum class StatisticColumn {
    DevicePid,
    Exec,
    OpName,
    OpType,
    OpId,
    InputOutput,
    Index,
    Dtype,
    Format,
    Shape,
    Max,
    Min,
    Mean,
    Norm,
    TensorPath,
    OpPath,
    BeforeAfter,
    Sketch,
    Digest,
    Count
};
const char *statisticColumnName(StatisticColumn c);

std::string statisticCsvHeader();
// row.tensorPath must be the path DumpWriter::tensorPath gives for row.exec.
StatisticRowParts statisticRowParts(const StatisticRow &row);
void appendStatisticCsvLine(std::string &out, const StatisticRowParts &parts, int64_t exec,
                            const std::optional<TensorStats> &stats);
std::string statisticCsvLine(const StatisticRow &row); // with the newline

} // namespace llmscope
