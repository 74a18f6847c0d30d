#include "app/cli/cli.h"

#include <cstdio>
#include <map>
#include <set>

#include <unistd.h>

#include "app/cli/compare_command.h"
#include "app/cli/config_diff_command.h"
#include "app/cli/dump_command.h"
#include "app/cli/opcheck_command.h"
#include "app/hunt/hunt_command.h"
#include "app/quant_report/quant_report_command.h"
#include "app/spread/spread_command.h"
#include "core/dump/dump_index.h"
#include "core/dump/probe_status.h"
#include "core/requests/requests.h"
#include "core/util/error.h"

namespace {

void out(const QString &s)
{
    std::fputs(s.toLocal8Bit().constData(), stdout);
    std::fflush(stdout);
}

void err(const QString &s)
{
    std::fputs(s.toLocal8Bit().constData(), stderr);
}

// Each program the probe dumped from, as its status file says: whether it finished, the rounds
// it ended early, what it skipped and warned of.
void sayPrograms(const std::string &root)
{
    std::vector<std::string> unreadable;
    for (const llmscope::ProbeStatus &s : llmscope::readProbeStatuses(root, &unreadable)) {
        out(QStringLiteral("program:   pid %1 %2; %3 rounds seen, %4 dumped; %5 tensors written, %6 skipped\n")
                .arg(s.pid)
                .arg(s.finished ? QStringLiteral("finished")
                                : QStringLiteral("did not finish (killed, crashed or still running): the dump holds "
                                                 "what was written before, every file whole"))
                .arg(s.rounds)
                .arg(s.roundsDumped)
                .arg(s.tensors)
                .arg(s.skipped));
        if (s.roundsStopped) {
            out(QStringLiteral("stopped:   %1 dumped round(s) ended before their graph did: %2\n")
                    .arg(s.roundsStopped)
                    .arg(QString::fromStdString(llmscope::stoppedRoundsText(s))));
        }
        for (const auto &w : s.warnings)
            out(QStringLiteral("warning:   %1\n").arg(QString::fromStdString(w)));
    }
    for (const auto &u : unreadable)
        out(QStringLiteral("problem:   %1\n").arg(QString::fromStdString(u)));
}

int runInfo(const QStringList &args)
{
    if (args.size() != 1 || args[0].startsWith(QLatin1Char('-'))) {
        err(QStringLiteral("usage: llmscope info DUMP_FOLDER\n"));
        return 2;
    }
    const bool tty = isatty(fileno(stderr));
    try {
        auto progress = [tty](uint64_t done, uint64_t total) {
            if (tty && total > 0)
                std::fprintf(stderr, "\rreading headers %llu/%llu", static_cast<unsigned long long>(done),
                             static_cast<unsigned long long>(total));
            return true;
        };
        const llmscope::DumpIndex idx = llmscope::scanDump(args[0].toStdString(), progress);
        if (tty)
            std::fputs("\r\033[K", stderr);
        std::set<std::string> ops;
        uint64_t bytes = 0, statsOnly = 0;
        for (const auto &t : idx.tensors) {
            ops.insert(std::to_string(t.exec) + "/" + t.opId);
            bytes += t.dataBytes;
            statsOnly += t.hasData ? 0 : 1;
        }
        QString rounds;
        for (auto r : idx.rounds())
            rounds += (rounds.isEmpty() ? QString() : QStringLiteral(",")) + QString::number(r);
        out(QStringLiteral("dump:      %1\nlayout:    %2\ntensors:   %3 (%4 without payload), %5 bytes\n"
                           "rounds:    %6\noperations: %7 (counted per round)\n"
                           "topology:  %8 model, %9 layer, %10 model_tree files\n")
                .arg(QString::fromStdString(idx.root),
                     QString::fromStdString(idx.layout.empty() ? "no tensors found" : idx.layout))
                .arg(idx.tensors.size())
                .arg(statsOnly)
                .arg(bytes)
                .arg(rounds.isEmpty() ? QStringLiteral("-") : rounds)
                .arg(ops.size())
                .arg(idx.modelFiles.size())
                .arg(idx.layerFiles.size())
                .arg(idx.torchTreeFiles.size()));
        sayPrograms(idx.root);
        // The requests its program served (llama-server's slots), where the rounds record them.
        std::vector<llmscope::Request> requests;
        try {
            requests = llmscope::requestsOf(llmscope::readTokenRecords(idx.root));
        } catch (const llmscope::Error &e) {
            out(QStringLiteral("problem:   %1\n").arg(QString::fromUtf8(e.what())));
        }
        if (llmscope::servesRequests(requests))
            for (const auto &r : requests)
                out(QStringLiteral("%1%2\n").arg(r.number == 1 ? QStringLiteral("requests:  ")
                                                               : QStringLiteral("           "),
                                                 QString::fromStdString(llmscope::describeRequest(r))));
        for (const auto &p : idx.problems)
            out(QStringLiteral("problem:   %1: %2\n")
                    .arg(QString::fromStdString(p.path), QString::fromStdString(p.message)));
        return idx.problems.empty() ? 0 : 1;
    } catch (const llmscope::Error &e) {
        err(QStringLiteral("llmscope info: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
}

} // namespace

QString usageText()
{
    return QStringLiteral(
               "llmscope %1 - precision debugger for LLM inference\n"
               "\n"
               "usage:\n"
               "  llmscope [--lang en|zh_CN] [DUMP_FOLDER]   open the desktop app (optionally on a dump)\n"
               "  llmscope [--lang en|zh_CN] --screenshot FILE.png [DUMP_FOLDER]\n"
               "                                            open it (on the dump), save the window as a picture\n"
               "                                            once the dump is in, and exit (1 if it could not)\n"
               "  llmscope [--lang en|zh_CN] --exec \"CMD\" [options]\n"
               "                                            open it on CMD running live under the probe\n"
               "  llmscope [--lang en|zh_CN] --hunt --golden \"CMD\" --test \"CMD\" [-o DIR] [-er RANGES]\n"
               "                                            open it on the hunt below, each run live\n"
               "  llmscope dump --exec \"CMD\" [options]     run CMD with the probe; msit llm dump's options\n"
               "                                            ('llmscope dump --help' lists them)\n"
               "  llmscope compare --golden-path A --my-path B [--golden-request N] [--my-seq S] [options]\n"
               "                                            compare two dumps (or one request of each: a slot);\n"
               "                                            msit's report, first divergence\n"
               "  llmscope hunt --golden \"CMD\" --test \"CMD\" [-o DIR] [-er RANGES] [--standard exact|rounding|engine|msit]\n"
               "                [--timeout SECONDS]\n"
               "                                            find the first divergent op in two passes\n"
               "  llmscope quant-report --golden \"CMD\" --test \"CMD\" [-o DIR] [--budget 10%]\n"
               "                                            which weights a quantized model loses the most\n"
               "                                            through; tensor-types.txt to keep them higher\n"
               "  llmscope opcheck -i DUMP [-o DIR] [-ids IDS] [-opname NAMES] [-metric abs cos_sim kl]\n"
               "                                            replay each dumped op on a float64 reference:\n"
               "                                            is the kernel wrong given its real inputs?\n"
               "  llmscope spread --run \"CMD\" [--run \"CMD\" ...] [--vary \"FLAG V1,V2\"] [--repeat N] [-o DIR]\n"
               "                                            one prompt run several ways side by side: the first\n"
               "                                            op where the runs part, and the run that departs\n"
               "  llmscope config-diff A B [--json F] [--xlsx F]\n"
               "                                            what differs between two runs' configurations:\n"
               "                                            environment, libraries, devices, command, models\n"
               "  llmscope info DUMP_FOLDER                 summarize a msit/msProbe dump folder\n"
               "  llmscope --help | --version\n"
               "\n"
               "Dumps use the layout of msit llm dump: msit_dump_*/tensors/{device}_{pid}/{round}/{id}_{Op}/...\n")
        .arg(QStringLiteral(LLMSCOPE_VERSION));
}

std::optional<int> runCli(const QStringList &args)
{
    if (args.size() < 2)
        return std::nullopt;
    const QString first = args[1];
    if (first == QLatin1String("--help") || first == QLatin1String("-h")) {
        out(usageText());
        return 0;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        out(QStringLiteral("llmscope %1\n").arg(QStringLiteral(LLMSCOPE_VERSION)));
        return 0;
    }
    if (first == QLatin1String("info"))
        return runInfo(args.mid(2));
    if (first == QLatin1String("dump"))
        return runDumpCommand(args.mid(2));
    if (first == QLatin1String("compare"))
        return runCompareCommand(args.mid(2));
    if (first == QLatin1String("hunt"))
        return runHuntCommand(args.mid(2));
    if (first == QLatin1String("quant-report"))
        return runQuantReportCommand(args.mid(2));
    if (first == QLatin1String("opcheck"))
        return runOpcheckCommand(args.mid(2));
    if (first == QLatin1String("spread"))
        return runSpreadCommand(args.mid(2));
    if (first == QLatin1String("config-diff"))
        return runConfigDiffCommand(args.mid(2));
    if (first.startsWith(QLatin1Char('-')) && first != QLatin1String("--lang") && first != QLatin1String("--exec") &&
        first != QLatin1String("--hunt") && first != QLatin1String("--screenshot")) {
        err(QStringLiteral("llmscope: unknown option '%1'\n\n").arg(first) + usageText());
        return 2;
    }
    return std::nullopt;
}
