#include "core/dump/op_info_csv.h"

#include <algorithm>
#include <filesystem>

#include "core/dump/dump_layout.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {

const char *const kOpInfoHeader =
    "CaseNum|CaseName|OpName|OpParam|InNum|InDType|InFormat|InShape|OutNum|OutDType|OutFormat|OutShape|"
    "DataGenType|DataGenRange|InTensorFile|OutTensorFile|TestType|TestLevel|FromModel|SocVersion|ExpectedError";

namespace {
constexpr size_t kColumns = 21;

std::string pipeField(std::string v)
{
    for (char &c : v)
        if (c == '|')
            c = '/';
        else if (c == '\n' || c == '\r')
            c = ' ';
    return v;
}

std::string list(const std::vector<std::string> &v)
{
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ";" : "") + pipeField(v[i]);
    return out;
}

std::vector<std::string> unlist(const std::string &s)
{
    return s.empty() ? std::vector<std::string>{} : split(s, ';');
}
} // namespace

std::string opInfoCsv(const std::vector<OpInfoRow> &rows, size_t firstCaseNum)
{
    std::string out = std::string(kOpInfoHeader) + "\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const OpInfoRow &r = rows[i];
        const std::vector<std::string> cols{std::to_string(firstCaseNum + i),
                                            pipeField(r.caseName),
                                            pipeField(r.opName),
                                            pipeField(r.opParam),
                                            std::to_string(r.inDtypes.size()),
                                            list(r.inDtypes),
                                            list(r.inFormats),
                                            list(r.inShapes),
                                            std::to_string(r.outDtypes.size()),
                                            list(r.outDtypes),
                                            list(r.outFormats),
                                            list(r.outShapes),
                                            "customize",
                                            "",
                                            list(r.inFiles),
                                            list(r.outFiles),
                                            pipeField(r.testType),
                                            "",
                                            pipeField(r.fromModel),
                                            pipeField(r.socVersion),
                                            ""};
        for (size_t c = 0; c < cols.size(); ++c)
            out += (c ? "|" : "") + cols[c];
        out += "\n";
    }
    return out;
}

std::vector<OpInfoRow> parseOpInfoCsv(const std::string &text)
{
    const std::vector<std::string> lines = split(text, '\n');
    if (lines.empty() || trim(lines[0]) != kOpInfoHeader)
        throw Error("not an op info file: its first line is not msit's header");
    std::vector<OpInfoRow> rows;
    for (size_t l = 1; l < lines.size(); ++l) {
        if (trim(lines[l]).empty())
            continue;
        const std::vector<std::string> c = split(lines[l], '|');
        if (c.size() != kColumns)
            throw Error("op info line " + std::to_string(l + 1) + " has " + std::to_string(c.size()) + " fields, not " +
                        std::to_string(kColumns));
        OpInfoRow r;
        r.caseName = c[1];
        r.opName = c[2];
        r.opParam = c[3];
        r.inDtypes = unlist(c[5]);
        r.inFormats = unlist(c[6]);
        r.inShapes = unlist(c[7]);
        r.outDtypes = unlist(c[9]);
        r.outFormats = unlist(c[10]);
        r.outShapes = unlist(c[11]);
        r.inFiles = unlist(c[14]);
        r.outFiles = unlist(c[15]);
        r.testType = c[16];
        r.fromModel = c[18];
        r.socVersion = c[19];
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string opInfoPath(bool kernel, int64_t pid, int64_t exec, size_t part)
{
    return std::string(kernel ? "kernel_io_tensors/" : "operation_io_tensors/") + std::to_string(pid) + "/" +
        (kernel ? "kernel_tensors_" : "operation_tensors_") + std::to_string(exec) +
        (part ? "_" + std::to_string(part) : "") + ".csv";
}

} // namespace llmscope

namespace llmscope {

std::map<std::string, std::string> readOpBackends(const std::string &dumpRoot)
{
    namespace fs = std::filesystem;
    std::vector<std::string> roots{dumpRoot};
    for (const auto &d : dumpsInside(dumpRoot))
        roots.push_back(d);
    std::vector<fs::path> files; // kernel_io_tensors/{pid}/kernel_tensors_{exec}*.csv
    std::error_code ec;
    for (const auto &root : roots)
        for (auto pid = fs::directory_iterator(fs::path(root) / "kernel_io_tensors", ec);
             !ec && pid != fs::directory_iterator(); pid.increment(ec))
            for (auto f = fs::directory_iterator(pid->path(), ec); !ec && f != fs::directory_iterator();
                 f.increment(ec))
                if (f->path().extension() == ".csv" && f->path().filename().string().rfind("kernel_tensors_", 0) == 0)
                    files.push_back(f->path());
    // The first round first, its parts in order: kernel_tensors_{round}[_{part}].csv by number.
    auto order = [](const fs::path &f) {
        const auto parts = split(f.stem().string().substr(std::string("kernel_tensors_").size()), '_');
        return std::make_pair(parseInt(parts.empty() ? "" : parts[0]).value_or(0),
                              parts.size() > 1 ? parseInt(parts[1]).value_or(0) : 0);
    };
    std::sort(files.begin(), files.end(), [&](const fs::path &a, const fs::path &b) { return order(a) < order(b); });
    std::map<std::string, std::string> out;
    for (const auto &f : files) {
        try {
            const auto bytes = readWholeFile(f.string());
            for (const auto &row : parseOpInfoCsv(std::string(bytes.begin(), bytes.end())))
                if (!row.fromModel.empty() && !row.socVersion.empty())
                    out.emplace(row.fromModel, row.socVersion);
        } catch (const Error &) {
            // not one of ours, or cut short: the ops it would name keep no backend
        }
    }
    return out;
}

} // namespace llmscope
