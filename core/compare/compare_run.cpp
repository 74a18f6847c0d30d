#include "compare/compare_run.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "compare/op_verdicts.h"
#include "compare/report_text.h"
#include "compare/tensor_reader.h"
#include "dump/dump_layout.h"
#include "dump/op_names.h"
#include "dump/probe_status.h"
#include "tensor/bin_file.h"
#include "tensor/dtype.h"
#include "tensor/npy_file.h"
#include "tensor/stats.h"
#include "util/error.h"
#include "util/text.h"

namespace llmscope {
namespace fs = std::filesystem;
namespace {

bool tensorFile(const fs::path &p)
{
    const std::string e = toLower(p.extension().string());
    return e == ".bin" || e == ".npy";
}

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
        if (it->is_regular_file() && tensorFile(it->path()))
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
        throw Error("'" + path + "' is neither a dump folder nor a tensor file");
    DumpIndex idx = scanDump(path, {}, false); // headers are read with the payloads, in parallel
    if (idx.tensors.empty())
        idx = looseFolder(fs::absolute(path));
    return idx;
}

// A dump the probe wrote (its status folder is there): two engines or backends of one
// model, judged by the engine standard unless told otherwise.
bool isProbeDump(const DumpIndex &idx)
{
    if (idx.layout.empty())
        return false;
    std::error_code ec;
    auto probeWrote = [&](const fs::path &dump) { return fs::is_directory(dump / ProbeStatus::kFolder, ec); };
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
        row.failReason = "shape mismatch: golden " + shape(g.header().dims) + " vs my " + shape(m.header().dims);
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
    std::string reason;
    auto finding = [&](uint64_t n, const char *what) {
        if (n)
            reason += (reason.empty() ? "" : "; ") + std::to_string(n) + " " + what;
    };
    finding(x.nanGolden, "NaN in golden");
    finding(x.infGolden, "Inf in golden");
    finding(x.nanMy, "NaN in my");
    finding(x.infMy, "Inf in my");
    row.passed = x.passed(row.tolerance);
    if (row.passed)
        reason.clear(); // Inf at the same places on both sides: a finding, kept in the metrics
    if (!row.passed && reason.empty())
        reason = "only " + report::num(x.withinTol * 100) + " % of elements within relative error " +
                 report::num(row.tolerance.relTol) + " (needs " + report::num(row.tolerance.passRate * 100) + " %)";
    // Compared flattened, as msit does; the report still says the shapes differ.
    if (g.header().dims != m.header().dims)
        reason += (reason.empty() ? "" : "; ") + std::string("same element count, different shapes ") +
                  shape(g.header().dims) + " vs " + shape(m.header().dims);
    row.failReason = reason;
}

void compareStats(CompareRow &row)
{
    const auto &a = *row.golden.stats, &b = *row.my.stats;
    row.statsOnly = true;
    row.statsRelDiff = std::max({relDiff(a.max, b.max), relDiff(a.min, b.min), relDiff(a.mean, b.mean),
                                 relDiff(a.l2norm, b.l2norm)});
    const uint64_t n = a.count ? a.count : std::max<uint64_t>(1, elementCount(row.golden.dims));
    row.statsBound = statsErrorBound(a, b, n); // NaN: no bound to tell (NaN, Inf that differ)
    if (std::isnan(row.statsRelDiff)) {
        row.failReason = "NaN in the statistics";
        return;
    }
    row.passed = row.statsRelDiff <= row.tolerance.relTol;
    if (!row.passed)
        row.failReason = "statistics differ by " + report::num(row.statsRelDiff * 100) + " % (relative)";
}

} // namespace

TensorRecord recordForFile(const std::string &path, const std::string &id)
{
    return looseRecord(fs::path(path), id);
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
        if (thresholds) {
            row.tolerance = defaultTolerance(row.my.dtype);
            if (thresholds->relTol)
                row.tolerance.relTol = *thresholds->relTol;
            if (thresholds->passRate)
                row.tolerance.passRate = *thresholds->passRate;
        }
        if (row.golden.hasData && row.my.hasData)
            compareData(row, *g, *m);
        else if (row.golden.stats && row.my.stats)
            compareStats(row);
        else if (!row.golden.hasData && !row.my.hasData && !row.golden.stats && !row.my.stats)
            row.skipped = row.passed = true; // e.g. KV-cache views, described but not dumped
        else
            row.failReason = "only one side has data or statistics to compare";
    } catch (const Error &e) {
        row.failReason = e.what();
        row.unreadable = true;
        row.computed = row.statsOnly = false;
    }
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
    if (!onlyGolden.empty() || !onlyMy.empty() || rows.empty())
        return false;
    for (const auto &r : rows)
        if (!r.passed)
            return false;
    return true;
}

CompareResult runCompare(const CompareOptions &o, const CompareProgress &progress)
{
    bool gFile = false, mFile = false;
    // The two folders are read at the same time: scanning is mostly waiting on the file system.
    auto myLoad = std::async(std::launch::async, [&] { return load(o.myPath, mFile); });
    DumpIndex golden;
    try {
        golden = load(o.goldenPath, gFile);
    } catch (...) {
        myLoad.wait();
        throw;
    }
    const DumpIndex my = myLoad.get();
    if (gFile != mFile)
        throw Error("compare a file with a file, or a folder with a folder ('" + o.goldenPath + "' and '" + o.myPath + "')");
    CompareResult res;
    res.goldenRoot = golden.root;
    res.myRoot = my.root;
    res.notes.push_back("max/mean absolute error are taken over every element; msit masks them to 0 where "
                        "|golden| <= float32 epsilon");
    res.notes.push_back("elements that are NaN or Inf on either side are counted and left out of the metrics; "
                        "msit reports only a failure reason");
    if (golden.tensors.empty())
        throw Error("'" + o.goldenPath + "' holds no tensors");
    if (my.tensors.empty())
        throw Error("'" + o.myPath + "' holds no tensors");

    Matching match;
    if (gFile) {
        match.pairs.push_back({&golden.tensors[0], &my.tensors[0], "file"});
        match.method = "file against file";
    } else {
        match = matchDumps(golden, my, o.mappingFile.empty() ? OpMapping{} : loadOpMapping(o.mappingFile));
    }
    res.method = match.method;
    for (const auto *r : match.onlyGolden)
        res.onlyGolden.push_back(*r);
    for (const auto *r : match.onlyMy)
        res.onlyMy.push_back(*r);
    // Ops and tensors by the names the program gave them, from golden's topology (else my's).
    OpNames names = readOpNames(golden);
    if (names.byPath.empty())
        names = readOpNames(my);
    res.rows.resize(match.pairs.size());
    for (size_t i = 0; i < match.pairs.size(); ++i) {
        CompareRow &row = res.rows[i];
        row.golden = *match.pairs[i].golden;
        row.my = *match.pairs[i].my;
        row.key = match.pairs[i].key;
        const std::string path = opPath(row.golden.opFolders);
        if (const OpNames::Node *n = names.find(path)) {
            row.nodeName = n->name;
            row.tensorName = row.golden.input ? names.inputName(path, row.golden.index) : n->name;
        }
    }

    // Pairs spread over threads; each pair is read once, chunk by chunk.
    const unsigned threads = std::max(1u, o.threads ? o.threads : std::thread::hardware_concurrency());
    std::atomic<size_t> next{0}, done{0};
    std::mutex progressMutex;
    auto work = [&] {
        for (size_t i; (i = next++) < res.rows.size();) {
            if (o.cancel && o.cancel->load(std::memory_order_relaxed))
                break;
            compareTensorPair(res.rows[i], &o); // thresholds once the headers are known
            const size_t d = ++done;
            if (progress && (d % 16 == 0 || d == res.rows.size())) {
                const CompareRow &r = res.rows[i];
                const std::string op = opLabel(r.golden.opId, r.nodeName, r.golden.opName);
                std::lock_guard lock(progressMutex);
                progress(d, res.rows.size(), op);
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < res.rows.size(); ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
    if (o.cancel && o.cancel->load())
        throw Error("compare cancelled");

    res.standard = o.standard ? *o.standard
                   : (o.relTol || o.passRate || !isProbeDump(golden) || !isProbeDump(my)) ? Standard::Msit
                                                                                        : Standard::Engine;
    judgeOps(res, names);
    return res;
}

} // namespace llmscope
