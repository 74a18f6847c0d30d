#include "core/live/live_protocol.h"

#include <limits>
#include <type_traits>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace llmscope::live {
namespace {
using nlohmann::json;

// Statistics may be NaN or Inf, which JSON cannot hold: written as strings.
json number(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

double toNumber(const json &j)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s == "nan")
            return NAN;
        if (s == "inf")
            return INFINITY;
        if (s == "-inf")
            return -INFINITY;
    }
    throw Error("a statistic is not a number");
}

template <typename T>
struct IsVector : std::false_type {
};
template <typename U>
struct IsVector<std::vector<U>> : std::true_type {
    using Item = U;
};

// An integer of T's range: JSON holds 1e78 or 2.5 as numbers too, and converting those to an
// integer type is undefined.
template <typename T>
bool fitsInteger(const json &v)
{
    if (!v.is_number_integer())
        return false;
    if (v.is_number_unsigned())
        return v.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max());
    const int64_t i = v.get<int64_t>();
    return i >= int64_t(std::numeric_limits<T>::min()) &&
        (i < 0 || uint64_t(i) <= uint64_t(std::numeric_limits<T>::max()));
}

template <typename T>
T field(const json &j, const char *key, T fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (!fitsInteger<T>(*it))
            throw Error(std::string("field '") + key + "' has the wrong type: not an integer in range");
    } else if constexpr (IsVector<T>::value) {
        using Item = typename IsVector<T>::Item;
        if constexpr (std::is_integral_v<Item> && !std::is_same_v<Item, bool>)
            if (it->is_array())
                for (const json &v : *it)
                    if (!fitsInteger<Item>(v))
                        throw Error(std::string("field '") + key +
                                    "' has the wrong type: a number that is not an integer in range");
    }
    try {
        return it->get<T>();
    } catch (const json::exception &) {
        throw Error(std::string("field '") + key + "' has the wrong type");
    }
}

json opJson(const TopoOp &o)
{
    json j{{"id", o.id}, {"name", o.name}, {"type", o.type}, {"shape", o.shape}, {"dtype", o.dtype}};
    if (!o.inputs.empty()) {
        json in = json::array();
        for (const auto &i : o.inputs)
            in.push_back(i.op.empty() ? json{{"name", i.name}} : json{{"op", i.op}, {"name", i.name}});
        j["inputs"] = std::move(in);
    }
    if (!o.backend.empty())
        j["backend"] = o.backend;
    if (!o.fusedChain.empty())
        j["fused"] = json{{"chain", o.fusedChain}, {"last", o.fusedLast}};
    return j;
}

TopoOp opFrom(const json &j)
{
    if (!j.is_object())
        throw Error("an op is not an object");
    TopoOp o{field<std::string>(j, "id", ""), field<std::string>(j, "name", ""), field<std::string>(j, "type", ""),
             field<std::vector<int64_t>>(j, "shape", {}), field<std::string>(j, "dtype", "")};
    const auto in = j.find("inputs"); // optional: peers before it had none
    if (in != j.end() && !in->is_null()) {
        if (!in->is_array())
            throw Error("an op's 'inputs' is not a list");
        for (const auto &i : *in) {
            if (!i.is_object())
                throw Error("an op's input is not an object");
            o.inputs.push_back({field<std::string>(i, "op", ""), field<std::string>(i, "name", "")});
        }
    }
    o.backend = field<std::string>(j, "backend", ""); // optional too
    if (const auto f = j.find("fused"); f != j.end() && !f->is_null()) { // optional: only with fusion kept
        if (!f->is_object())
            throw Error("an op's 'fused' is not an object");
        o.fusedChain = field<std::string>(*f, "chain", "");
        o.fusedLast = field<std::string>(*f, "last", "");
    }
    return o;
}

std::vector<TopoOp> opsFrom(const json &j, const char *key)
{
    std::vector<TopoOp> out;
    const auto it = j.find(key);
    if (it == j.end())
        return out;
    if (!it->is_array())
        throw Error(std::string("'") + key + "' is not a list");
    for (const auto &o : *it)
        out.push_back(opFrom(o));
    return out;
}

struct Encoder {
    json operator()(const Hello &m) const
    {
        return {{"type", "hello"},    {"version", m.version}, {"pid", m.pid},
                {"engine", m.engine}, {"device", m.device},   {"program", m.program}};
    }
    json operator()(const Topology &m) const
    {
        json groups = json::array(), ops = json::array();
        for (const auto &g : m.groups)
            groups.push_back(opJson(g));
        for (const auto &o : m.ops)
            ops.push_back(opJson(o));
        return {{"type", "topology"}, {"round", m.round}, {"key", m.key}, {"groups", groups}, {"ops", ops}};
    }
    json operator()(const Round &m) const
    {
        return {{"type", "round"},    {"round", m.round}, {"key", m.key},
                {"dumped", m.dumped}, {"read", m.read},   {"ops_selected", m.opsSelected}};
    }
    json operator()(const RoundStats &m) const
    {
        json stats = json::array();
        for (const auto &s : m.stats)
            stats.push_back({s.id, number(s.max), number(s.min), number(s.mean), number(s.l2norm), s.nan, s.inf});
        return {{"type", "stats"}, {"round", m.round}, {"stats", stats}};
    }
    json operator()(const Counters &m) const
    {
        return {{"type", "counters"},
                {"rounds", m.rounds},
                {"rounds_dumped", m.roundsDumped},
                {"ops_seen", m.opsSeen},
                {"ops_selected", m.opsSelected},
                {"tensors", m.tensors},
                {"bytes", m.bytes},
                {"skipped", m.skipped},
                {"dropped", m.dropped}};
    }
    json operator()(const Warning &m) const { return {{"type", "warning"}, {"text", m.text}}; }
    json operator()(const Ack &m) const
    {
        return {{"type", "ack"}, {"seq", m.seq}, {"from_round", m.fromRound}, {"error", m.error}};
    }
    json operator()(const Goodbye &m) const { return {{"type", "goodbye"}, {"finished", m.finished}}; }
    json operator()(const Select &m) const
    {
        return {{"type", "select"},    {"seq", m.seq},     {"enabled", m.enabled}, {"ids", m.ids}, {"er", m.rounds},
                {"opname", m.opNames}, {"child", m.child}, {"time", m.time},       {"stp", m.part}};
    }
    json operator()(const Refused &m) const { return {{"type", "refused"}, {"reason", m.reason}}; }
};

} // namespace

Selection selectionFrom(const Select &s, const Selection &base)
{
    Selection out = base;
    out.enabled = s.enabled;
    out.ids = OpIds::parse(s.ids);
    out.rounds = Rounds::parse(s.rounds.empty() ? "all" : s.rounds, true);
    out.opNames = parseOpNames(s.opNames);
    out.child = s.child;
    out.time = parseDumpTime(std::to_string(s.time));
    out.part = parseTensorPart(std::to_string(s.part));
    return out;
}

Select selectFrom(const Selection &sel, uint64_t seq)
{
    Select s;
    s.seq = seq;
    s.enabled = sel.enabled;
    s.ids = sel.ids.text();
    s.rounds = sel.rounds.isAll() ? "all" : sel.rounds.text();
    for (const auto &n : sel.opNames)
        s.opNames += (s.opNames.empty() ? "" : ",") + n;
    s.child = sel.child;
    s.time = int(sel.time);
    s.part = int(sel.part);
    return s;
}

std::string encode(const Message &m)
{
    // Invalid UTF-8 in a tensor name must not stop the channel: replaced, not thrown.
    return std::visit(Encoder{}, m).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Message decode(const std::string &line)
{
    if (line.size() > kMaxLineBytes)
        throw Error("message longer than " + std::to_string(kMaxLineBytes) + " bytes");
    json j;
    try {
        j = json::parse(line);
    } catch (const json::exception &e) {
        throw Error(std::string("not JSON: ") + e.what());
    }
    if (!j.is_object())
        throw Error("a message is not a JSON object");
    const std::string type = field<std::string>(j, "type", "");
    if (type == "hello")
        return Hello{field<int>(j, "version", 0), field<int64_t>(j, "pid", 0), field<std::string>(j, "engine", ""),
                     field<std::string>(j, "device", ""), field<std::string>(j, "program", "")};
    if (type == "topology")
        return Topology{field<int64_t>(j, "round", 0), field<uint64_t>(j, "key", 0), opsFrom(j, "groups"),
                        opsFrom(j, "ops")};
    if (type == "round")
        return Round{field<int64_t>(j, "round", 0), field<uint64_t>(j, "key", 0), field<bool>(j, "dumped", false),
                     field<std::string>(j, "read", ""), field<uint64_t>(j, "ops_selected", 0)};
    if (type == "stats") {
        RoundStats r{field<int64_t>(j, "round", 0), {}};
        const auto it = j.find("stats");
        if (it != j.end() && it->is_array())
            for (const auto &s : *it) {
                if (!s.is_array() || s.size() != 7 || !s[0].is_string() || !fitsInteger<uint64_t>(s[5]) ||
                    !fitsInteger<uint64_t>(s[6]))
                    throw Error("a round's statistics entry is not [id, max, min, mean, l2norm, nan, inf]");
                r.stats.push_back({s[0].get<std::string>(), toNumber(s[1]), toNumber(s[2]), toNumber(s[3]),
                                   toNumber(s[4]), s[5].get<uint64_t>(), s[6].get<uint64_t>()});
            }
        return r;
    }
    if (type == "counters")
        return Counters{field<uint64_t>(j, "rounds", 0),   field<uint64_t>(j, "rounds_dumped", 0),
                        field<uint64_t>(j, "ops_seen", 0), field<uint64_t>(j, "ops_selected", 0),
                        field<uint64_t>(j, "tensors", 0),  field<uint64_t>(j, "bytes", 0),
                        field<uint64_t>(j, "skipped", 0),  field<uint64_t>(j, "dropped", 0)};
    if (type == "warning")
        return Warning{field<std::string>(j, "text", "")};
    if (type == "ack")
        return Ack{field<uint64_t>(j, "seq", 0), field<int64_t>(j, "from_round", 0),
                   field<std::string>(j, "error", "")};
    if (type == "goodbye")
        return Goodbye{field<bool>(j, "finished", true)};
    if (type == "select")
        return Select{field<uint64_t>(j, "seq", 0),
                      field<bool>(j, "enabled", true),
                      field<std::string>(j, "ids", ""),
                      field<std::string>(j, "er", "all"),
                      field<std::string>(j, "opname", ""),
                      field<bool>(j, "child", true),
                      field<int>(j, "time", 3),
                      field<int>(j, "stp", 2)};
    if (type == "refused")
        return Refused{field<std::string>(j, "reason", "")};
    throw Error("unknown message type '" + type + "'");
}

} // namespace llmscope::live
