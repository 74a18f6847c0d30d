// A dump's text files as the scans read them: msProbe's statistic.csv and PyTorch dump.json,
// msit's PyTorch statistics.csv and model_tree.json, and the probe's tensor index, each the input, in a dump
// folder made once; both scans (whole, and round by round as the window reads).
#include <filesystem>
#include <fstream>

#include "core/dump/dump_index.h"
#include "core/dump/tensor_index.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const llmscope::fuzz::ScratchFolder scratch("llmscope-fuzz-dump");
    static const fs::path root = [] {
        const fs::path r = scratch.path();
        fs::create_directories(r / "tensors/0_1/0/1_L");
        fs::create_directories(r / "torch_tensors/cpu_1/0/root.model");
        fs::create_directories(r / "llmscope/index");
        fs::create_directories(r / "step0/rank0");
        return r;
    }();
    for (const char *name :
         {"tensors/0_1/0/statistic.csv", "torch_tensors/cpu_1/0/root.model/statistics.csv",
          "torch_tensors/cpu_1/model_tree.json", "llmscope/index/0_1.tsv", "step0/rank0/dump.json"}) {
        std::ofstream out(root / name, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
    }
    try {
        llmscope::scanDump(root.string());
        llmscope::scanDumpByRound(root.string(), [](const llmscope::DumpIndex &) { return true; });
        llmscope::readTensorIndex((root / "llmscope/index/0_1.tsv").string());
    } catch (const llmscope::Error &) {
    }
    return 0;
}
