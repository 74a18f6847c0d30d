// msProbe's per-round statistic.csv: one row per tensor instead of one header file per
// tensor. llmscope writes it for statistics-only dumps when asked (a run that dumps a few
// hundred tensors a token would otherwise spend its time creating files), under
// tensors/{device}_{pid}/{exec}/statistic.csv. Readers find columns by name; llmscope adds an
// "Op Path" column (the op folders) and a "Before/After" column after msProbe's own.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor/stats.h"

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

std::string statisticCsvHeader();
std::string statisticCsvLine(const StatisticRow &row); // with the newline

} // namespace llmscope
