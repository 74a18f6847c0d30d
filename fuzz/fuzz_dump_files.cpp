// A dump's smaller files, the input's first byte choosing which ('0' to '3', any byte modulo 4) and
// the rest its text: 0 msit's op and kernel info CSV (parseOpInfoCsv, and readOpBackends over it as
// a kernel CSV), 1 the probe's status JSON, 2 a round's records (the same text as its token record,
// its result and its fused chains: readTokenRecords, readOutputRecords, readFusionRecords, and the
// observer check over them), 3 the
// op_param.json of every op of a dump written once, as opcheck reads it (runOpcheck,
// replayReference, its reports) and the inspector finds the op's files (findOpFiles).
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/compare/observer_check.h"
#include "core/dump/dump_writer.h"
#include "core/dump/fusion_record.h"
#include "core/dump/op_files.h"
#include "core/dump/op_info_csv.h"
#include "core/dump/output_record.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/opcheck/opcheck_report.h"
#include "core/opcheck/opcheck_run.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

namespace fs = std::filesystem;
using namespace llmscope;

namespace {

constexpr int64_t kPid = 7;

Tensor tensor(std::vector<int64_t> dims, int32_t dtype = int32_t(DType::Float32))
{
    Tensor t;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.hasData = true;
    const uint64_t n = t.elementCount();
    t.data.resize(n * 4);
    for (uint64_t i = 0; i < n; ++i) { // int32 0 and 1: rows and positions each op here has
        if (dtype == int32_t(DType::Int32)) {
            const int32_t v = int32_t(i % 2);
            std::memcpy(t.data.data() + 4 * i, &v, 4);
        } else {
            const float v = float(int64_t(i % 7) - 3) * 0.25f;
            std::memcpy(t.data.data() + 4 * i, &v, 4);
        }
    }
    return t;
}

// Ops of the arities and shapes llama.cpp's graphs give them (dims outermost first), their
// inputs before and outputs after: what the fuzzed op_param.json may name any op over.
struct Op {
    std::string folder;
    std::vector<Tensor> inputs;
    Tensor output;
};

const std::vector<Op> &ops()
{
    static const std::vector<Op> o{
        {"0_MUL_MAT", {tensor({3, 4}), tensor({2, 4})}, tensor({2, 3})},
        {"1_ADD", {tensor({2, 4}), tensor({1, 4})}, tensor({2, 4})},
        {"2_ROPE", {tensor({1, 2, 2, 4}), tensor({2}, int32_t(DType::Int32))}, tensor({1, 2, 2, 4})},
        {"3_FLASH_ATTN_EXT",
         {tensor({1, 2, 2, 4}), tensor({1, 1, 3, 4}), tensor({1, 1, 3, 4}), tensor({1, 1, 2, 3})},
         tensor({1, 2, 2, 4})},
        {"4_VIEW", {tensor({2, 4})}, tensor({8})},
    };
    return o;
}

struct Dump {
    fs::path root;
    std::vector<std::string> opParams; // each op's op_param.json
};

const Dump &dump()
{
    static const Dump d = [] {
        Dump d;
        static const llmscope::fuzz::ScratchFolder scratch("llmscope-fuzz-dump-files");
        const fs::path out = scratch.path();
        DumpWriter::Options options;
        options.outDir = out.string();
        options.minFreeBytes = 0;
        options.timestamp = 1700000000;
        DumpWriter w(options);
        for (const Op &op : ops()) {
            for (size_t i = 0; i < op.inputs.size(); ++i)
                w.writeTensor(0, kPid, 0, {"0_Layer", op.folder}, true, true, int(i), op.inputs[i]);
            w.writeTensor(0, kPid, 0, {"0_Layer", op.folder}, false, false, 0, op.output);
            const fs::path file = w.tensorPath(0, kPid, 0, {"0_Layer", op.folder}, false, false, 0); // {op}/after/...
            d.opParams.push_back(file.parent_path().parent_path() / "op_param.json");
        }
        w.finishIndex();
        d.root = w.root();
        fs::create_directories(d.root / "kernel_io_tensors" / std::to_string(kPid));
        for (const char *kind : {"llmscope/tokens", "llmscope/outputs", "llmscope/fusion"})
            fs::create_directories(d.root / kind / std::to_string(kPid));
        return d;
    }();
    return d;
}

void write(const fs::path &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

void opParam(const Dump &d, const std::string &text)
{
    for (const std::string &path : d.opParams)
        write(path, text);
    OpcheckOptions o;
    o.input = d.root.string();
    const OpcheckResult r = runOpcheck(o);
    for (const OpcheckRow &row : r.rows) {
        try {
            replayReference(row);
        } catch (const Error &) {
        }
    }
    opcheckCsv(r, {"abs", "cos_sim", "kl"});
    opcheckJson(r);
    for (const Op &op : ops())
        findOpFiles(d.root.string(), "0_Layer/" + op.folder);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const Dump &d = dump();
    const std::string text = fuzz::text(data + 1, size - 1);
    try {
        switch (data[0] % 4) {
        case 0:
            write(d.root / opInfoPath(true, kPid, 0), text);
            readOpBackends(d.root.string());
            parseOpInfoCsv(text);
            break;
        case 1: stoppedRoundsText(parseProbeStatus(text)); break;
        case 2: {
            write(d.root / tokenRecordPath(kPid, 0), text);
            write(d.root / outputRecordPath(kPid, 0), text);
            write(d.root / fusionRecordPath(kPid, 0), text);
            const std::string root = d.root.string();
            for (const auto &read : {+[](const std::string &r) { readTokenRecords(r); },
                                     +[](const std::string &r) { readOutputRecords(r); },
                                     +[](const std::string &r) { readFusionRecords(r); },
                                     +[](const std::string &r) { observerCheckText(checkObserver(r, r)); }}) {
                try {
                    read(root);
                } catch (const Error &) {
                }
            }
            try { // a chain the record names replayed whole (its sources and parameters as read)
                OpcheckOptions o;
                o.input = root;
                runOpcheck(o);
            } catch (const Error &) {
            }
            fs::remove(d.root / fusionRecordPath(kPid, 0)); // the other cases' opcheck reads none
            break;
        }
        default: opParam(d, text); break;
        }
    } catch (const Error &) {
    }
    return 0;
}
