#include "app/spread/spread_runner.h"

#include <QDir>

#include <map>

#include "core/compare/observer_check.h"
#include "core/util/error.h"

using namespace llmscope;

namespace spread {
namespace {

// Command k about to be dumped for pass.
Progress dumping(const std::vector<Run> &commands, size_t k, const QString &pass)
{
    Progress p;
    p.stage = Progress::Stage::Dump;
    p.run = k;
    p.runs = commands.size();
    p.pass = pass;
    p.label = commands[k].label();
    return p;
}

// One pass: each command dumped with these options into {folder}/{pass}-{k}.
QCoro::Task<std::vector<SpreadRun>> dumpEvery(const Steps &steps, const std::vector<Run> &commands, QStringList options,
                                              QString pass, QString folder)
{
    std::vector<SpreadRun> runs;
    std::map<std::string, int> configs; // runs of one command share a configuration
    for (size_t k = 0; k < commands.size(); ++k) {
        const std::string label = commands[k].label();
        steps.say(dumping(commands, k, pass));
        SpreadRun run;
        run.command = label;
        run.config = configs.emplace(label, int(configs.size())).first->second;
        run.dump = co_await steps.dump(commands[k], options + commands[k].options(),
                                       folder + QStringLiteral("/%1-%2").arg(pass).arg(k));
        runs.push_back(std::move(run));
    }
    co_return runs;
}

QCoro::Task<SpreadResult> passes(const Steps &steps, const Request &request, const QString &folder)
{
    QDir().mkpath(folder);
    removeSpreadReports(folder.toStdString());
    const std::vector<Run> commands = request.runs();
    if (commands.size() < 2)
        throw Error("a spread needs at least two runs: give two command lines, a repeat or values to vary");
    std::vector<SpreadRun> runs =
        co_await dumpEvery(steps, commands, firstPass(request), QStringLiteral("run"), folder);
    // The observer check: each command once more with the probe loaded but reading nothing.
    for (size_t k = 0; k < commands.size(); ++k) {
        Progress p = dumping(commands, k, QStringLiteral("unobserved"));
        steps.say(p);
        const std::string plain = co_await steps.dump(commands[k], observerPass() + commands[k].options(),
                                                      folder + QStringLiteral("/unobserved-%1").arg(k));
        runs[k].observer = checkObserver(plain, runs[k].dump);
        p.stage = Progress::Stage::Observed;
        p.text = observerCheckText(*runs[k].observer);
        steps.say(p);
    }
    if (!request.tensors && mustLineUp(runs)) { // statistics of whole rounds do not line up by row
        Progress p;
        p.stage = Progress::Stage::LineUp;
        steps.say(p);
        std::vector<SpreadRun> again =
            co_await dumpEvery(steps, commands, tensorPass(request), QStringLiteral("tensors"), folder);
        for (size_t k = 0; k < again.size(); ++k)
            again[k].observer = runs[k].observer;
        runs = std::move(again);
    }
    Progress comparing;
    comparing.stage = Progress::Stage::Compare;
    comparing.runs = commands.size();
    steps.say(comparing);
    SpreadResult result = co_await steps.compare(std::move(runs));
    // Where runs part by statistics, the suspects' tensors dumped and measured, their measures
    // put in place.
    for (int pass = 2; pass <= kMostPasses; ++pass) {
        const SpreadSuspects s = suspectsOf(result);
        if (s.empty())
            break;
        Progress p;
        p.stage = Progress::Stage::Measure;
        p.runs = commands.size();
        p.firstRound = s.firstRound;
        p.lastRound = s.lastRound;
        steps.say(p);
        std::vector<SpreadRun> exact =
            co_await dumpEvery(steps, commands, suspectPass(request, s), QStringLiteral("pass%1").arg(pass), folder);
        mergeExact(result, co_await steps.compare(std::move(exact)));
    }
    writeSpreadReports(result, folder.toStdString());
    co_return result;
}

} // namespace

QCoro::Task<Outcome> run(Steps steps, Request request, QString folder)
{
    Outcome o;
    try {
        o.result = co_await passes(steps, request, folder);
    } catch (...) {
        o.error = std::current_exception();
    }
    co_return o;
}

} // namespace spread
