#include "core/compare/compare_run.h"
#include "core/compare/pair_standard.h"

#include "core/compare/framework_pairing.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/compare/op_verdicts.h"
#include "core/compare/report_text.h"
#include "core/compare/tensor_reader.h"
#include "core/dump/dump_layout.h"
#include "core/dump/op_names.h"
#include "core/dump/probe_status.h"
#include "core/ggml/ggml_library.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/tensor/npy_file.h"
#include "core/tensor/sketch.h"
#include "core/tensor/stats.h"
#include "core/text/reason_error.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace fs = std::filesystem;
namespace {

TensorRecord looseRecord(const fs::path &file, const std::string &id)
{
    TensorRecord r;
    r.path = file.string();
    r.opId = id;
    r.opFolders = {id};
    r.opName = file.stem().string();
    r.input = false;
    try {
        if (toLower(file.extension().string()) == ".npy") {
            const Tensor t = readNpy(r.path);
            r.dtype = t.dtype;
            r.dims = t.dims;
            r.hasData = true;
        } else {
            const BinFileInfo info = readBinFile(r.path, true);
            r.dtype = info.tensor.dtype;
            r.dims = info.tensor.dims;
            r.hasData = info.tensor.hasData;
            r.stats = statsFromAttrs(info.tensor);
        }
    } catch (const Error &) {
        r.headerRead = false; // read again with the pair, which reports why it cannot be
    }
    return r;
}

DumpIndex looseFolder(const fs::path &root)
{
    DumpIndex idx;
    idx.root = root.string();
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file() && isTensorFile(it->path().string()))
            idx.tensors.push_back(looseRecord(it->path(), fs::relative(it->path(), root).string()));
    std::sort(idx.tensors.begin(), idx.tensors.end(),
              [](const TensorRecord &a, const TensorRecord &b) { return a.opId < b.opId; });
    return idx;
}

DumpIndex load(const std::string &path, bool &isFile)
{
    std::error_code ec;
    isFile = fs::is_regular_file(path, ec);
    if (isFile) {
        DumpIndex idx;
        idx.root = fs::absolute(path).string();
        idx.tensors.push_back(looseRecord(fs::absolute(path), "0"));
        return idx;
    }
    if (!fs::is_directory(path, ec))
        throw ReasonError(Reason(Said::NeitherDumpNorFile, {path}));
    DumpIndex idx = scanDump(path, {}, false); // headers are read with the payloads, in parallel
    if (idx.tensors.empty())
        idx = looseFolder(fs::absolute(path));
    return idx;
}

// "test stores blk.0.attn_q.weight as q8_0, golden as f32": the first tensor whose types
// differ between the sides; nothing when none does.
std::optional<std::string> typesThatDiffer(const CompareResult &res)
{
    auto words = [](const std::string &name, const std::string &my, const std::string &golden) {
        return "test stores " + name + " as " + my + ", golden as " + golden;
    };
    auto type = [](const TensorRecord &t) { return t.engineType.empty() ? dtypeName(t.dtype) : t.engineType; };
    for (const WeightComparison &w : res.weights)
        if (w.goldenType != w.myType)
            return words(w.name, w.myType, w.goldenType);
    for (const CompareRow &r : res.rows) {
        if (r.quantization)
            return words(r.tensorName, r.quantization->myType, r.quantization->goldenType);
        if (r.golden.dtype != r.my.dtype || r.golden.engineType != r.my.engineType)
            return words(r.tensorName.empty() ? r.golden.opId : r.tensorName, type(r.my), type(r.golden));
    }
    return std::nullopt;
}

// A dump the probe wrote (its status folder is there): two engines or backends of one
// model, judged by the engine standard unless told otherwise.
bool isProbeDump(const DumpIndex &idx)
{
    if (idx.layout.empty())
        return false;
    std::error_code ec;
    auto probeWrote = [&](const fs::path &dump) { // a probe status file, not only the writer's tensor index
        for (const auto &e : fs::directory_iterator(dump / ProbeStatus::kFolder, ec))
            if (e.path().extension() == ".json" && e.is_regular_file(ec))
                return true;
        return false;
    };
    if (probeWrote(idx.root))
        return true;
    for (const auto &dump : dumpsInside(idx.root)) // an -o folder's dumps
        if (probeWrote(dump))
            return true;
    return false;
}

std::string shape(const std::vector<int64_t> &dims)
{
    return dims.empty() ? std::string("()") : joinDims(dims);
}

double relDiff(double a, double b)
{
    const double scale = std::max(std::fabs(a), std::fabs(b));
    return scale <= std::numeric_limits<float>::epsilon() ? std::fabs(a - b) : std::fabs(a - b) / scale;
}

void compareData(CompareRow &row, TensorReader &g, TensorReader &m)
{
    g.requireData();
    m.requireData();
    if (g.count() != m.count()) {
        row.failReason = Reason(Said::ShapeMismatch, {shape(g.header().dims), shape(m.header().dims)});
        return;
    }
    MetricAccumulator acc(row.tolerance.relTol);
    constexpr uint64_t kChunk = 1 << 15;
    thread_local std::vector<float> a(kChunk), b(kChunk); // per worker, not per pair
    // Unchanged tensors (weights, everything before the first divergence) are common: while
    // every chunk so far is the same on both sides, their exponentials (for the KL divergence,
    // 0 for the same data) wait; a differing chunk reads the golden side of those again.
    bool allSame = true;
    for (uint64_t i = 0; i < g.count(); i += kChunk) {
        const uint64_t n = std::min(kChunk, g.count() - i);
        g.read(i, n, a.data());
        m.read(i, n, b.data());
        if (std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0) {
            acc.addSame(a.data(), n, !allSame);
            continue;
        }
        allSame = false;
        if (acc.expPending()) {
            thread_local std::vector<float> c(kChunk);
            for (uint64_t j = 0; j < i; j += kChunk) {
                const uint64_t len = std::min(kChunk, i - j);
                g.read(j, len, c.data());
                acc.addSameExp(c.data(), len);
            }
        }
        acc.add(a.data(), b.data(), n);
    }
    row.metrics = acc.finish();
    row.computed = true;
    const Metrics &x = row.metrics;
    Reason reason;
    auto finding = [&](uint64_t n, Said what) {
        if (n)
            reason.add(what, {std::to_string(n)});
    };
    finding(x.nanGolden, Said::NanGolden);
    finding(x.infGolden, Said::InfGolden);
    finding(x.nanMy, Said::NanMy);
    finding(x.infMy, Said::InfMy);
    row.passed = x.passed(row.tolerance);
    if (row.passed)
        reason.clear(); // Inf at the same places on both sides: a finding, kept in the metrics
    if (!row.passed && reason.empty())
        reason = Reason(Said::WithinTolerance,
                        {report::num(x.withinTol * 100), report::num(row.tolerance.relTol),
                         report::num(row.tolerance.passRate * 100)});
    // Compared flattened, as msit does; the report still says the shapes differ.
    if (g.header().dims != m.header().dims)
        reason.add(Said::ShapesDiffer, {shape(g.header().dims), shape(m.header().dims)});
    row.failReason = reason;
}

// Element metrics, and for a pair stored in different types what quantization explains.
void compareReaders(CompareRow &row, TensorReader &g, TensorReader &m)
{
    compareData(row, g, m);
    if (!row.weight || !row.computed || !storedDifferently(g, m))
        return;
    Quantization q;
    q.error = row.metrics.relEuclidean;
    measureQuantization(q, g, m);
    row.quantization = q;
}

// ||test - golden|| / ||golden|| from the two sketches; NaN without both, where a side's
// elements are read in another order (a framework's view) or where golden's norm, written
// with six decimals, is too small to divide by (the statistics' bound speaks there).
double sketchRelativeError(const CompareRow &row, const TensorStats &g, const TensorStats &t)
{
    if (row.goldenView.headSize || row.myView.headSize || row.goldenView.lastRows || row.myView.lastRows ||
        row.goldenView.rowSize || row.myView.rowSize)
        return NAN;
    const double d = sketchDifferenceNorm(g.sketch, t.sketch);
    if (std::isnan(d) || (g.count && t.count && g.count != t.count) || !(g.l2norm >= 1e-3))
        return NAN;
    return d / g.l2norm;
}

void compareStats(CompareRow &row)
{
    const auto &a = *row.golden.stats, &b = *row.my.stats;
    if (!row.golden.dims.empty() && !row.my.dims.empty() &&
        elementCount(row.golden.dims) != elementCount(row.my.dims)) {
        // another framework's output over more rows (llama.cpp keeps the last token's): the
        // statistics say nothing of the rows both have; the tensors can be compared
        row.unreadable = true;
        row.failReason = Reason(Said::StatsOverDifferentElements, {shape(row.golden.dims), shape(row.my.dims)});
        return;
    }
    row.statsOnly = true;
    row.statsRelDiff =
        std::max({relDiff(a.max, b.max), relDiff(a.min, b.min), relDiff(a.mean, b.mean), relDiff(a.l2norm, b.l2norm)});
    const uint64_t n = a.count ? a.count : std::max<uint64_t>(1, elementCount(row.golden.dims));
    row.statsBound = statsErrorBound(a, b, n); // NaN: no bound to tell (NaN, Inf that differ)
    row.statsEstimate = sketchRelativeError(row, a, b);
    if (std::isnan(row.statsRelDiff)) {
        row.failReason = Said::StatsNan;
        return;
    }
    row.passed = row.statsRelDiff <= row.tolerance.relTol;
    if (!row.passed)
        row.failReason = Reason(Said::StatsDiffer, {report::num(row.statsRelDiff * 100)});
}

} // namespace

TensorRecord recordForFile(const std::string &path, const std::string &id)
{
    return looseRecord(fs::path(path), id);
}

namespace {
void setTolerance(CompareRow &row, const CompareOptions *thresholds)
{
    if (!thresholds)
        return;
    row.tolerance = defaultTolerance(row.my.dtype);
    if (thresholds->relTol)
        row.tolerance.relTol = *thresholds->relTol;
    if (thresholds->passRate)
        row.tolerance.passRate = *thresholds->passRate;
}

// The model files a dump's programs loaded, parsed; a note for each that cannot be read.
std::vector<std::shared_ptr<const ggml::ModelFile>> modelsOf(const DumpIndex &idx, std::vector<std::string> &paths,
                                                             std::vector<std::string> &notes)
{
    std::vector<std::string> roots{idx.root};
    for (const auto &d : dumpsInside(idx.root))
        roots.push_back(d);
    for (const auto &root : roots)
        for (const auto &st : readProbeStatuses(root))
            for (const auto &m : st.models)
                if (std::find(paths.begin(), paths.end(), m) == paths.end())
                    paths.push_back(m);
    std::vector<std::shared_ptr<const ggml::ModelFile>> out;
    for (const auto &path : paths) {
        try {
            out.push_back(ggml::Library::get().model(path));
        } catch (const Error &e) {
            notes.push_back(std::string("weights are read from the dump, not the model file: ") + e.what());
        }
    }
    return out;
}

const ggml::ModelTensor *findWeight(const std::vector<std::shared_ptr<const ggml::ModelFile>> &models,
                                    const std::string &name, std::string &path)
{
    for (const auto &m : models)
        if (const ggml::ModelTensor *t = m->find(name)) {
            path = m->path;
            return t;
        }
    return nullptr;
}

// A dumped weight that cannot be compared as dumped: statistics or a description only, or
// quantized blocks (which a CPU backend may hold repacked into its own layout).
bool needsModel(const TensorRecord &r)
{
    return !r.hasData || !r.engineType.empty();
}

// Reads a row's headers the scan left unread (into its records); false when a file cannot be
// read (its pair then says why).
bool readHeaders(CompareRow &row)
{
    try {
        for (TensorRecord *r : {&row.golden, &row.my})
            if (!r->headerRead)
                TensorReader reader(*r);
        return true;
    } catch (const Error &) {
        return false;
    }
}

struct ModelWeight {
    std::string goldenPath, myPath;
    const ggml::ModelTensor *golden = nullptr, *my = nullptr;
};

void compareModelWeight(CompareRow &row, const ModelWeight &w, const CompareOptions *thresholds)
{
    row.unreadable = row.computed = row.statsOnly = row.skipped = false;
    row.failReason.clear();
    try {
        TensorReader g(w.goldenPath, *w.golden), m(w.myPath, *w.my);
        setTolerance(row, thresholds);
        row.weightSource = "model files";
        if (g.count() != m.count()) {
            row.failReason = Reason(Said::ShapeMismatch, {joinDims(w.golden->dims), joinDims(w.my->dims)});
            return;
        }
        compareReaders(row, g, m);
    } catch (const Error &e) {
        row.failReason = e.what();
        row.unreadable = true;
        row.computed = false;
    }
}
} // namespace

// One side read as the other framework lays it out: heads un-permuted, and only the last rows
// where the other side kept only those (a whole number of them, else the counts stay unequal
// and the pair fails as a shape mismatch).
void applyView(const TensorView &v, TensorReader &r, TensorReader &other)
{
    r.requireData();
    other.requireData();
    if (v.rowSize)
        r.selectRows(v.rowSize, v.rows);
    if (v.headSize)
        r.unpermuteHeads(v.headSize);
    if (v.lastRows && other.count() && r.count() > other.count() && r.count() % other.count() == 0)
        r.keepLast(other.count());
}

void compareTensorPair(CompareRow &row, const CompareOptions *thresholds)
{
    try {
        // Each file is opened once: headers the scan left unread are read with the payload.
        std::optional<TensorReader> g, m;
        if (!row.golden.headerRead || row.golden.hasData)
            g.emplace(row.golden);
        if (!row.my.headerRead || row.my.hasData)
            m.emplace(row.my);
        setTolerance(row, thresholds);
        if (row.golden.hasData && row.my.hasData) {
            applyView(row.goldenView, *g, *m);
            applyView(row.myView, *m, *g);
            compareReaders(row, *g, *m);
        } else if (!row.golden.hasData && !row.my.hasData && row.golden.stats && row.my.stats &&
                   (row.goldenView.rowSize || row.myView.rowSize)) {
            // an expert's weight, statistics on both sides: the engine's are the whole tensor's, of every expert
            row.skipped = row.passed = true;
            row.failReason = Said::ExpertStats;
        } else if ((row.golden.hasData && row.my.stats) || (row.my.hasData && row.golden.stats)) {
            // a PyTorch parameter's statistics (register_hook writes them) against the engine's
            // tensor: the tensor's own, in the same element order, then as two statistics
            const bool goldenData = row.golden.hasData;
            TensorReader &data = goldenData ? *g : *m;
            data.requireData();
            const TensorView &view = goldenData ? row.goldenView : row.myView;
            if (view.rowSize)
                data.selectRows(view.rowSize, view.rows);
            const std::vector<int64_t> &otherDims = (goldenData ? row.my : row.golden).dims;
            if (view.lastRows && !otherDims.empty()) { // the rows the statistics' side has, from the end
                const uint64_t other = elementCount(otherDims);
                if (other && data.count() > other && data.count() % other == 0)
                    data.keepLast(other);
            }
            std::vector<float> v(data.count());
            data.read(0, v.size(), v.data());
            auto stats = computeStats(int32_t(DType::Float32), reinterpret_cast<const uint8_t *>(v.data()), v.size());
            if (!stats)
                throw Error("its statistics cannot be computed");
            stats->count = v.size();
            (goldenData ? row.golden : row.my).stats = *stats;
            (goldenData ? row.golden : row.my).dims = {int64_t(v.size())};
            (goldenData ? row.goldenView : row.myView) = TensorView{};
            compareStats(row);
        } else if (row.golden.stats && row.my.stats)
            compareStats(row);
        else if (!row.golden.hasData && !row.my.hasData && !row.golden.stats && !row.my.stats)
            row.skipped = row.passed = true; // e.g. KV-cache views, described but not dumped
        else
            row.failReason = Said::OneSideOnly;
    } catch (const Error &e) {
        row.failReason = e.what();
        row.unreadable = true;
        row.computed = row.statsOnly = false;
    }
}

const WeightComparison *CompareResult::weight(const std::string &name) const
{
    for (const auto &w : weights)
        if (w.name == name)
            return &w;
    return nullptr;
}

double inputOrOutputError(const CompareRow &row)
{
    return row.computed ? row.metrics.relEuclidean : row.statsOnly ? row.statsRelDiff : 0;
}

std::string OpResult::label() const
{
    return opLabel(opId, name, opType);
}

bool CompareResult::allPassed() const
{
    // Across frameworks every module and node has no partner (activations, reshapes): what
    // pairs decides.
    if ((!acrossFrameworks && (!onlyGolden.empty() || !onlyMy.empty())) || rows.empty())
        return false;
    for (const auto &r : rows)
        if (!r.passed)
            return false;
    return true;
}

namespace {

using Models = std::vector<std::shared_ptr<const ggml::ModelFile>>;

// Both dumps (or files), read at the same time: scanning is mostly waiting on the file system.
struct Loaded {
    DumpIndex golden, my;
    bool files = false; // a file against a file
};
Loaded loadBoth(const CompareOptions &o)
{
    Loaded l;
    bool gFile = false, mFile = false;
    auto myLoad = std::async(std::launch::async, [&] { return load(o.myPath, mFile); });
    try {
        l.golden = load(o.goldenPath, gFile);
    } catch (...) {
        myLoad.wait();
        throw;
    }
    l.my = myLoad.get();
    if (gFile != mFile)
        throw ReasonError(Reason(Said::FileAgainstFolder, {o.goldenPath, o.myPath}));
    if (l.golden.tensors.empty())
        throw ReasonError(Reason(Said::HoldsNoTensors, {o.goldenPath}));
    if (l.my.tensors.empty())
        throw ReasonError(Reason(Said::HoldsNoTensors, {o.myPath}));
    l.files = gFile;
    return l;
}

// The pairs, as rows named after the program's ops and tensors; the unpaired tensors.
void pairRows(CompareResult &res, const Loaded &l, const OpNames &goldenNames, const OpNames &myNames,
              const OpNames &names, const CompareOptions &o)
{
    Matching match;
    if (l.files) {
        match.pairs.push_back({&l.golden.tensors[0], &l.my.tensors[0], "file", {}, {}, nullptr});
        match.method = Said::FileAgainstFile;
    } else if (auto across = matchAcrossFrameworks(l.golden, l.my, res.notes,
                                                   o.mappingFile.empty() ? OpMapping{} : loadOpMapping(o.mappingFile),
                                                   l.golden.layout == "torch" ? myNames : goldenNames)) {
        match = std::move(*across);
        res.acrossFrameworks = true;
    } else {
        match = matchDumps(l.golden, l.my, o.mappingFile.empty() ? OpMapping{} : loadOpMapping(o.mappingFile),
                           goldenNames, myNames);
        if ((match.method == Said::ByLayerNameOp || match.method == Said::MappingByLayerNameOp) &&
            (l.golden.modelFiles.empty() || l.my.modelFiles.empty()))
            res.warnings.push_back(std::string(l.golden.modelFiles.empty() && l.my.modelFiles.empty()
                                                   ? "neither dump has a"
                                                   : l.golden.modelFiles.empty() ? "golden's dump has no"
                                                                                 : "my dump has no") +
                                   " model topology (--type model): the two graphs differ, and ops without node names "
                                   "are paired by type and order within each layer; a backend that orders its graph "
                                   "otherwise (Vulkan does) pairs different ops. Dump both with --type model");
        res.notes.insert(res.notes.end(), res.warnings.begin(), res.warnings.end());
    }
    res.method = match.method;
    for (const auto *r : match.onlyGolden)
        res.onlyGolden.push_back(*r);
    for (const auto *r : match.onlyMy)
        res.onlyMy.push_back(*r);
    res.rows.resize(match.pairs.size());
    for (size_t i = 0; i < match.pairs.size(); ++i) {
        CompareRow &row = res.rows[i];
        row.golden = *match.pairs[i].golden;
        row.my = *match.pairs[i].my;
        row.key = match.pairs[i].key;
        row.goldenView = match.pairs[i].goldenView;
        row.myView = match.pairs[i].myView;
        const std::string path = opPath(row.golden.opFolders);
        // A PyTorch side's parameter, named in the report beside the GGUF tensor it meets.
        for (const TensorRecord *t : {&row.golden, &row.my})
            if (t->exec < 0 && t->param == "weight" && (t == &row.golden ? l.golden : l.my).layout == "torch") {
                row.parameter = t->opName + ".weight";
                if (row.parameter.rfind("root.", 0) == 0)
                    row.parameter.erase(0, 5);
            }
        if (l.golden.layout == "torch") { // names: the engine's (a torch dump has no model file)
            // A module stands in the report as the engine's node it was paired with (op id,
            // path, type, name: the budgets and the order are the engine's); the key keeps
            // the module's name.
            const TensorRecord &op = match.pairs[i].stands ? *match.pairs[i].stands : row.my;
            // its role in the op is the engine's: a module's output may be a sum's input there
            // (the MLP's output, l_out-N's first input)
            row.golden.input = row.my.input;
            row.golden.before = row.my.before;
            row.golden.index = row.my.index;
            row.golden.opId = op.opId;
            row.golden.exec = op.exec; // a weight (dump_weight) has no round of its own
            row.golden.opFolders = op.opFolders;
            row.golden.opName = op.opName;
            if (const OpNames::Node *n = names.find(opPath(op.opFolders))) {
                row.nodeName = row.tensorName = n->name;
                if (row.golden.param == "weight") { // the module's parameter: the engine's weight input
                    row.tensorName = names.inputName(opPath(row.my.opFolders), row.my.index);
                    row.weight = true;
                }
            }
        } else if (l.my.layout == "torch" && match.pairs[i].stands) {
            // The same the other way round: golden is the engine's record, grouped with the
            // node the module stands for (a module's input is another node's input there).
            const TensorRecord &op = *match.pairs[i].stands;
            const std::string weightName = names.inputName(path, row.golden.index);
            row.golden.opId = op.opId;
            row.golden.opFolders = op.opFolders;
            row.golden.opName = op.opName;
            if (const OpNames::Node *n = names.find(opPath(op.opFolders))) {
                row.nodeName = row.tensorName = n->name;
                if (row.my.param == "weight") {
                    row.tensorName = weightName;
                    row.weight = true;
                }
            }
        } else if (const OpNames::Node *n = names.find(path)) {
            row.nodeName = n->name;
            row.tensorName = row.golden.input ? names.inputName(path, row.golden.index) : n->name;
            row.weight = row.golden.input && names.isLeaf(row.tensorName);
        }
    }
}

// Which weights are read from the programs' model files, each once however many rounds dumped
// it: those the dumps cannot give as stored, and all of them when some weight is stored in
// another type on the two sides (a quantized test: what each weight's quantization costs).
struct WeightPlan {
    Models golden, my;
    std::vector<ModelWeight> sources; // res.weights[k] is sources[k]'s comparison
    std::map<std::string, size_t> index;
    bool typesDiffer = false;
    std::vector<std::pair<size_t, size_t>> rowWeights; // (row, weight) whose row copies the weight's
    std::vector<char> skip, fromModel; // per row: copies a weight's / decided by its worker

    std::optional<size_t> add(const std::string &name)
    {
        if (auto it = index.find(name); it != index.end())
            return it->second;
        ModelWeight w;
        w.golden = findWeight(golden, name, w.goldenPath);
        w.my = findWeight(my, name, w.myPath);
        if (!w.golden || !w.my)
            return std::nullopt;
        index[name] = sources.size();
        sources.push_back(w);
        return sources.size() - 1;
    }
    // res.weights from sources[from..]: what each is, before it is compared.
    void fill(CompareResult &res, size_t from) const
    {
        res.weights.resize(sources.size());
        for (size_t k = from; k < sources.size(); ++k) {
            const ModelWeight &w = sources[k];
            WeightComparison &c = res.weights[k];
            c.name = w.golden->name;
            c.dims = w.golden->dims;
            c.goldenType = w.golden->typeName;
            c.myType = w.my->typeName;
            c.elements = w.golden->elements();
            c.goldenBytes = w.golden->bytes;
            c.myBytes = w.my->bytes;
            c.row.tensorName = c.name;
            c.row.weight = true;
            c.row.golden.path = w.goldenPath;
            c.row.my.path = w.myPath;
            c.row.golden.input = c.row.my.input = true;
        }
    }
};

WeightPlan planWeights(CompareResult &res, const Loaded &l, const OpNames &names)
{
    WeightPlan plan;
    std::vector<std::string> modelNotes;
    plan.golden = modelsOf(l.golden, res.goldenModels, modelNotes);
    plan.my = modelsOf(l.my, res.myModels, modelNotes);
    for (const auto &n : modelNotes)
        if (std::find(res.notes.begin(), res.notes.end(), n) == res.notes.end())
            res.notes.push_back(n);
    for (const auto &gm : plan.golden)
        for (const auto &[name, t] : gm->tensors) {
            std::string path;
            const ggml::ModelTensor *other = findWeight(plan.my, name, path);
            plan.typesDiffer = plan.typesDiffer || (other && other->typeName != t.typeName);
        }
    if (plan.typesDiffer)
        for (const auto &gm : plan.golden)
            for (const auto &[name, t] : gm->tensors)
                if (names.byPath.empty() || names.isLeaf(name))
                    plan.add(name);
    // A weight row compares as dumped unless the dump cannot give the weight as stored: then
    // (or always, for a quantized test) it copies the weight's comparison from the model files.
    // Whether it can is known once its headers are read, by the worker that takes it.
    plan.skip.assign(res.rows.size(), 0);
    plan.fromModel.assign(res.rows.size(), 0);
    for (size_t i = 0; i < res.rows.size(); ++i) {
        const CompareRow &row = res.rows[i];
        if (!row.golden.input || !names.isLeaf(row.tensorName))
            continue;
        std::string gPath, mPath;
        if (!findWeight(plan.golden, row.tensorName, gPath) || !findWeight(plan.my, row.tensorName, mPath) ||
            (!plan.typesDiffer && gPath == mPath))
            continue; // one file on both sides: its weights agree; the dumps say what memory held
        if (plan.typesDiffer) {
            plan.rowWeights.emplace_back(i, *plan.add(row.tensorName));
            plan.skip[i] = 1;
        } else {
            plan.fromModel[i] = 1;
        }
    }
    plan.fill(res, 0);
    return plan;
}

// items() work items spread over threads (o.threads, or every core); stops on cancel.
void inParallel(const CompareOptions &o, size_t items, const std::function<void(size_t)> &item)
{
    const unsigned threads = std::max(1u, o.threads ? o.threads : std::thread::hardware_concurrency());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t k; (k = next++) < items;)
            if (!(o.cancel && o.cancel->load(std::memory_order_relaxed)))
                item(k);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < items; ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
    if (o.cancel && o.cancel->load())
        throw Error("compare cancelled");
}

// Every pair and planned weight, each read once, chunk by chunk; then the weights the workers
// found the dumps could not give, from the model files; weight rows copy their weight's.
void compareAll(CompareResult &res, WeightPlan &plan, const CompareOptions &o, const CompareProgress &progress)
{
    std::atomic<size_t> done{0};
    std::mutex progressMutex;
    const size_t weights = res.weights.size();
    inParallel(o, weights + res.rows.size(), [&](size_t k) {
        if (k < weights) {
            compareModelWeight(res.weights[k].row, plan.sources[k], &o);
            return;
        }
        const size_t i = k - weights;
        if (plan.fromModel[i] && readHeaders(res.rows[i]) && !needsModel(res.rows[i].golden) &&
            !needsModel(res.rows[i].my))
            plan.fromModel[i] = 0; // the dump has it as stored
        if (!plan.skip[i] && !plan.fromModel[i])
            compareTensorPair(res.rows[i], &o); // thresholds once the headers are known
        const size_t d = ++done;
        if (progress && (d % 16 == 0 || d == res.rows.size())) {
            const CompareRow &r = res.rows[i];
            const std::string op = opLabel(r.golden.opId, r.nodeName, r.golden.opName);
            std::lock_guard lock(progressMutex);
            progress(d, res.rows.size(), op);
        }
    });
    const size_t before = plan.sources.size();
    for (size_t i = 0; i < res.rows.size(); ++i)
        if (plan.fromModel[i])
            plan.rowWeights.emplace_back(i, *plan.add(res.rows[i].tensorName));
    plan.fill(res, before);
    inParallel(o, res.weights.size() - before,
               [&](size_t k) { compareModelWeight(res.weights[before + k].row, plan.sources[before + k], &o); });
    for (const auto &[i, from] : plan.rowWeights) {
        CompareRow &row = res.rows[i];
        const CompareRow &src = res.weights[from].row;
        row.computed = src.computed;
        row.unreadable = src.unreadable;
        row.statsOnly = src.statsOnly;
        row.skipped = src.skipped;
        row.metrics = src.metrics;
        row.tolerance = src.tolerance;
        row.passed = src.passed;
        row.failReason = src.failReason;
        row.quantization = src.quantization;
        row.weightSource = src.weightSource;
    }
}

} // namespace

CompareResult runCompare(const CompareOptions &o, const CompareProgress &progress)
{
    const Loaded loaded = loadBoth(o);
    CompareResult res;
    res.goldenRoot = loaded.golden.root;
    res.myRoot = loaded.my.root;
    // Each side's probe statuses, read once: the configurations and the runs' facts come from them.
    const DumpStatuses goldenStatuses = readDumpStatuses(res.goldenRoot), myStatuses = readDumpStatuses(res.myRoot);
    if (isProbeDump(loaded.golden) && isProbeDump(loaded.my)) {
        try { // what differs between the runs, said before any tensor
            res.config =
                std::make_shared<const ConfigDiff>(diffConfigs(runConfig(goldenStatuses), runConfig(myStatuses)));
        } catch (const Error &) { // a dump without status files: nothing to say
        }
    }
    res.notes.push_back("max/mean absolute error are taken over every element; msit masks them to 0 where "
                        "|golden| <= float32 epsilon");
    res.notes.push_back("elements that are NaN or Inf on either side are counted and left out of the metrics; "
                        "msit reports only a failure reason");
    // Ops and tensors by the names the program gave them, from golden's topology (else my's):
    // each side's read once, for the pairing and the rows.
    const OpNames goldenNames = readOpNames(loaded.golden), myNames = readOpNames(loaded.my);
    const OpNames &names = goldenNames.byPath.empty() ? myNames : goldenNames;
    pairRows(res, loaded, goldenNames, myNames, names, o);
    WeightPlan plan = planWeights(res, loaded, names);
    compareAll(res, plan, o, progress);
    // Two engines (or backends, or a framework's dump against an engine's) are judged op by op,
    // by the standard that fits what the two runs are, unless told otherwise.
    auto engineSide = [](const DumpIndex &d) { return d.layout == "torch" || isProbeDump(d); };
    if (o.standard) {
        res.standard = *o.standard;
        res.standardWhy = Reason(Said::StandardAsked, {standardName(*o.standard)});
    } else if (o.relTol || o.passRate || !engineSide(loaded.golden) || !engineSide(loaded.my) ||
               (loaded.golden.layout == "torch" && loaded.my.layout == "torch")) {
        res.standard = Standard::Msit;
        res.standardWhy = o.relTol || o.passRate ? Reason(Said::StandardAsked, {"msit"}) : Reason(Said::StandardMsit);
    } else if (loaded.golden.layout == "torch" || loaded.my.layout == "torch") {
        res.standard = Standard::Engine; // a framework against an engine: other kernels throughout
        res.standardWhy = Reason(Said::StandardEngineFramework);
    } else {
        const RunFacts goldenRun = runFacts(goldenStatuses), myRun = runFacts(myStatuses);
        const StandardChoice choice = choosePairStandard(goldenRun, myRun);
        res.standard = choice.standard;
        res.standardWhy = choice.why;
        // One backend, but the tensors' types differ (a quantized test): ggml's budgets, and
        // what the quantization explains. Graphs that differ (flash attention on and off, other
        // fusion) compute with other kernels: ggml's budgets too.
        const bool sameGraph = !res.method.empty() &&
            (res.method.parts().front().kind == Said::SameTopology ||
             res.method.parts().front().kind == Said::MappingSameTopology);
        if (choice.standard != Standard::Engine) {
            if (const auto types = typesThatDiffer(res)) {
                res.standard = Standard::Engine;
                res.standardWhy = Reason(Said::StandardEngineTypes, {backendWords(goldenRun.backends), *types});
            } else if (!sameGraph) {
                res.standard = Standard::Engine;
                res.standardWhy = Reason(Said::StandardEngineGraphs, {backendWords(goldenRun.backends)});
            }
        }
    }
    // aggregate by op; the first divergent (chains computed fused judged as one)
    judgeOps(res, names, fusedEnds(res.goldenRoot), fusedEnds(res.myRoot));
    return res;
}

} // namespace llmscope
