#include "app/spread/spread_plan.h"

#include <algorithm>
#include <cstdlib>

#include "app/hunt/hunt_plan.h"
#include "core/launch/dump_options.h"
#include "core/run_spread/batch_alignment.h"
#include "core/util/arg_reader.h"
#include "core/util/error.h"
#include "core/util/text.h"

using llmscope::Error;

namespace spread {

std::string Run::label() const
{
    return fusion.empty() ? command : command + " [fusion " + fusion + "]";
}

QStringList Run::options() const
{
    QStringList o = fusion.empty() ? QStringList{}
        : fusion == "off"          ? QStringList{"--keep-fusion", "--no-fusion"}
                                   : QStringList{"--keep-fusion"};
    if (timeoutSeconds > 0)
        o << "--timeout" << QString::number(timeoutSeconds);
    return o;
}

std::vector<Run> Request::runs() const
{
    std::vector<std::string> varied;
    for (const std::string &c : commands) {
        if (values.empty())
            varied.push_back(llmscope::trim(c));
        for (const std::string &v : values)
            varied.push_back(llmscope::trim(c) + " " + flag + " " + llmscope::trim(v));
    }
    std::vector<Run> out;
    for (const std::string &r : varied)
        for (const std::string &f : fusion.empty() ? std::vector<std::string>{""} : fusion)
            for (int k = 0; k < repeat; ++k)
                out.push_back({r, f, timeoutSeconds});
    return out;
}

void setFusion(Request &r, const std::string &text)
{
    r.fusion.clear();
    for (const std::string &x : llmscope::split(llmscope::trim(text), ',')) {
        const std::string v = llmscope::trim(x);
        if (v != "on" && v != "off")
            throw Error("--fusion takes on, off or both (on,off), not '" + v + "'");
        if (std::find(r.fusion.begin(), r.fusion.end(), v) == r.fusion.end())
            r.fusion.push_back(v);
    }
}

void setVary(Request &r, const std::string &text)
{
    const std::string v = llmscope::trim(text);
    r.flag.clear();
    r.values.clear();
    if (v.empty())
        return;
    const size_t space = v.find(' ');
    if (space == std::string::npos || llmscope::trim(v.substr(space + 1)).empty())
        throw Error("--vary needs a flag and its values, as in --vary \"-t 1,2,4\"");
    r.flag = v.substr(0, space);
    for (const std::string &x : llmscope::split(llmscope::trim(v.substr(space + 1)), ','))
        if (!llmscope::trim(x).empty())
            r.values.push_back(llmscope::trim(x));
    if (r.values.empty())
        throw Error("--vary needs a flag and its values, as in --vary \"-t 1,2,4\"");
}

Request parseRequest(const std::vector<std::string> &args)
{
    Request q;
    llmscope::ArgReader a(args, "spread");
    while (a.next()) {
        if (a.is({"-h", "--help"})) {
            q.help = true;
        } else if (a.is({"--run"})) {
            q.commands.push_back(a.anyValue());
            if (llmscope::trim(q.commands.back()).empty())
                throw Error("--run needs a command line");
        } else if (a.is({"--vary"})) {
            setVary(q, a.anyValue());
        } else if (a.is({"--fusion"})) {
            setFusion(q, a.value());
        } else if (a.is({"--timeout"})) {
            q.timeoutSeconds = llmscope::parseTimeout(a.value());
        } else if (a.is({"--repeat"})) {
            const std::string v = a.value();
            q.repeat = std::atoi(v.c_str());
            if (q.repeat < 1 || q.repeat > 100 || std::to_string(q.repeat) != v)
                throw Error("--repeat takes a whole number from 1 to 100, not '" + v + "'");
        } else if (a.is({"-o", "--output"})) {
            q.folder = a.value();
        } else if (a.is({"-er", "--exec-range"})) {
            q.rounds = a.value();
        } else if (a.is({"--tensors"})) {
            q.tensors = true;
        } else if (a.is({"--kv-cache"})) {
            q.kvCache = true;
        } else if (a.is({"--seq"}) || a.is({"--request"})) {
            const bool bySequence = a.is({"--seq"});
            q.request = llmscope::parseRequestChoice(bySequence ? "--seq" : "--request", a.value(), bySequence);
            q.tensors = true; // a request's rows are cut out of tensors, not of a round's statistics
        } else {
            a.unknown();
        }
    }
    if (!q.help && q.runs().size() < 2)
        throw Error("a spread needs at least two runs: give --run twice, --repeat 2 or --vary");
    return q;
}

namespace {
QStringList withCache(const Request &r, QStringList options)
{
    return r.kvCache ? options << QStringLiteral("--kv-cache") : options;
}
} // namespace

QStringList firstPass(const Request &r)
{
    return r.tensors ? tensorPass(r) : withCache(r, hunt::statsArgs(QString::fromStdString(r.rounds)));
}

QStringList observerPass()
{
    return hunt::plainArgs();
}

QStringList tensorPass(const Request &r)
{
    QStringList options{"--type",        "model", "tensor",
                        "--keep-fusion", "-er",   hunt::dumpRounds(QString::fromStdString(r.rounds))};
    if (r.request.sequence >= 0) // only the rounds that computed its tokens
        options << QStringLiteral("-seq") << QString::number(r.request.sequence);
    return withCache(r, options);
}

QStringList suspectPass(const Request &r, const llmscope::SpreadSuspects &s)
{
    return withCache(r,
                     {"--type", "model", "tensor", "--keep-fusion", "-er",
                      QStringLiteral("%1,%2").arg(s.firstRound).arg(s.lastRound)});
}

bool mustLineUp(const std::vector<llmscope::SpreadRun> &runs)
{
    for (size_t i = 0; i < runs.size(); ++i)
        for (size_t j = i + 1; j < runs.size(); ++j)
            if (runs[i].config != runs[j].config && llmscope::needsLiningUp(runs[i].dump, runs[j].dump))
                return true;
    return false;
}

} // namespace spread
