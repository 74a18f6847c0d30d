#include "core/compare/manual_compare.h"

#include <charconv>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "core/compare/report_text.h"
#include "core/tensor/dtype.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope {
namespace {
using report::csvField;
using report::num;
using report::shapeText;

using Meta = std::map<std::string, std::map<std::string, std::string>>; // data id -> token -> first path

Meta readMeta(const std::string &path)
{
    const auto bytes = readWholeFile(path);
    const auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!j.is_object())
        throw Error("'" + path + "' is not a metadata.json object {data_id: {token_id: [paths]}}");
    const std::string dir = std::filesystem::path(path).parent_path().string();
    Meta m;
    for (auto d = j.begin(); d != j.end(); ++d) {
        if (!d.value().is_object())
            throw Error("'" + path + "': data id '" + d.key() + "' must map token ids to path lists");
        for (auto t = d.value().begin(); t != d.value().end(); ++t) {
            if (!t.value().is_array() || t.value().empty() || !t.value()[0].is_string())
                throw Error("'" + path + "': data id '" + d.key() + "', token " + t.key() +
                            ": expected a list of paths");
            std::string p = t.value()[0].get<std::string>();
            if (!p.empty() && p[0] != '/')
                p = dir + "/" + p; // relative to the metadata file
            m[d.key()][t.key()] = p;
        }
    }
    return m;
}

} // namespace

bool isManualMetadata(const std::string &path)
{
    return std::filesystem::path(path).filename() == "metadata.json" && std::filesystem::is_regular_file(path);
}

std::vector<ManualRow> compareManual(const std::string &goldenMeta, const std::string &myMeta)
{
    const Meta g = readMeta(goldenMeta), m = readMeta(myMeta);
    std::vector<ManualRow> rows;
    for (const auto &[dataId, tokens] : g)
        for (const auto &[token, path] : tokens) {
            ManualRow row;
            row.dataId = dataId;
            row.tokenId = token;
            row.pair.golden = recordForFile(path, dataId);
            auto d = m.find(dataId);
            if (d != m.end() && d->second.count(token)) {
                row.pair.my = recordForFile(d->second.at(token), dataId);
                row.pair.tolerance = defaultTolerance(row.pair.my.dtype);
                compareTensorPair(row.pair);
                row.compared = true;
            } else {
                row.pair.failReason = Reason(Said::OnlyInGoldenMetadata, {dataId, token});
            }
            rows.push_back(std::move(row));
        }
    for (const auto &[dataId, tokens] : m)
        for (const auto &[token, path] : tokens)
            if (!g.count(dataId) || !g.at(dataId).count(token)) {
                ManualRow row;
                row.dataId = dataId;
                row.tokenId = token;
                row.pair.my = recordForFile(path, dataId);
                row.pair.failReason = Reason(Said::OnlyInMyMetadata, {dataId, token});
                rows.push_back(std::move(row));
            }
    return rows;
}

std::string manualReportCsv(const std::vector<ManualRow> &rows)
{
    std::string out = "data_id,pta_data_path,pta_dtype,pta_shape,pta_max_value,pta_min_value,pta_mean_value,"
                      "acl_data_path,acl_dtype,acl_shape,acl_max_value,acl_min_value,acl_mean_value,cmp_flag,"
                      "cosine_similarity,max_relative_error,mean_relative_error,relative_euclidean_distance,"
                      "cmp_fail_reason\n";
    for (const auto &r : rows) {
        const CompareRow &p = r.pair;
        const Metrics &x = p.metrics;
        auto side = [&](const TensorRecord &t, bool golden) {
            if (t.path.empty())
                return std::string(",,,N/A,N/A,N/A");
            std::string s = csvField(t.path) + "," + dtypeName(t.dtype) + "," + csvField(shapeText(t.dims)) + ",";
            if (p.computed)
                s += golden ? num(x.goldenMax) + "," + num(x.goldenMin) + "," + num(x.goldenMean)
                            : num(x.myMax) + "," + num(x.myMin) + "," + num(x.myMean);
            else
                s += "N/A,N/A,N/A";
            return s;
        };
        out += csvField(r.dataId) + "," + side(p.golden, true) + "," + side(p.my, false) + "," +
            (r.compared ? "True" : "False") + ",";
        out += p.computed ? num(x.cosine) + "," + num(x.maxRelErr) + "," + num(x.meanRelErr) + "," + num(x.relEuclidean)
                          : std::string("N/A,N/A,N/A,N/A");
        out += "," + csvField(p.failReason.english()) + "\n";
    }
    return out;
}

} // namespace llmscope
