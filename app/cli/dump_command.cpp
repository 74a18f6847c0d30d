#include "app/cli/dump_command.h"
#include "app/cli/say.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>

#include "app/cli/child_steps.h"
#include "core/compare/observer_check.h"
#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/dump/dump_writer.h"
#include "core/dump/probe_status.h"
#include "core/launch/dump_options.h"
#include "core/onnx/onnx_export.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "app/session/launch_plan.h"

namespace {
volatile std::sig_atomic_t g_stopRequested = 0;
void stopRequested(int)
{
    g_stopRequested = 1;
}
} // namespace

namespace {

using cli::say;

QString humanBytes(uint64_t b)
{
    if (b < 1024)
        return QStringLiteral("%1 B").arg(b);
    if (b < (1u << 20))
        return QStringLiteral("%1 KiB").arg(double(b) / 1024, 0, 'f', 1);
    if (b < (1u << 30))
        return QStringLiteral("%1 MiB").arg(double(b) / (1 << 20), 0, 'f', 1);
    return QStringLiteral("%1 GiB").arg(double(b) / (1u << 30), 0, 'f', 2);
}

// One process's lines: its rounds, what it read and wrote, and what it warned of.
void sayProcess(const llmscope::DumpOptions &o, const llmscope::ProbeStatus &s)
{
    const uint64_t nodeByNode = s.roundsDumped - s.roundsWholeGraph - s.roundsInline;
    // node by node, and after the whole graph where a chain's output is read as it ran
    const QString pieces = s.pieces ? QStringLiteral(", the graph ended at %1 nodes").arg(s.pieces) : QString();
    const QString dumped = s.roundsDumped
        ? QStringLiteral("%1 dumped (%2-%3; read %4 inline, %5 after the whole graph, "
                         "%6 node by node%7)")
              .arg(s.roundsDumped)
              .arg(s.firstDumped)
              .arg(s.lastDumped)
              .arg(s.roundsInline)
              .arg(s.roundsWholeGraph)
              .arg(nodeByNode)
              .arg(pieces)
        : QStringLiteral("none dumped");
    say(QStringLiteral("  process %1:  %2 rounds seen, %3; %4 operations seen, %5 selected; "
                       "%6 tensors written, %7 skipped\n")
            .arg(s.pid)
            .arg(s.rounds)
            .arg(dumped)
            .arg(s.opsSeen)
            .arg(s.opsSelected)
            .arg(s.tensors)
            .arg(s.skipped));
    if (s.roundsStopped) {
        say(QStringLiteral("  stopped:     the program stopped %1 dumped round(s) before the graph finished (%2): "
                           "a round read inline or node by node holds what ran until then, one read after the "
                           "whole graph holds nothing\n")
                .arg(s.roundsStopped)
                .arg(QString::fromStdString(llmscope::stoppedRoundsText(s))));
    }
    if (!o.followTokens.empty())
        say(QStringLiteral("  tokens:      the program's token inputs were golden's (--follow-tokens %1) in %2 "
                           "round(s): its outputs are not its own\n")
                .arg(QString::fromStdString(o.followTokens))
                .arg(s.tokensReplaced));
    if (!o.watch.empty()) {
        say(QStringLiteral("  watch:       %1 change(s) of the watched outputs after they were computed%2\n")
                .arg(s.watchChanges.size())
                .arg(s.watchChanges.empty() ? QStringLiteral(" (every one held until its graph ended)")
                                            : QStringLiteral(":")));
        for (const auto &w : s.watchChanges)
            say(QStringLiteral("    %1\n").arg(QString::fromStdString(w)));
    }
    if (s.linked)
        say(QStringLiteral("  linked:      %1 of the tensors are symbolic links to an identical one written "
                           "before (%2)\n")
                .arg(s.linked)
                .arg(o.symlink ? QStringLiteral("-symlink") : QStringLiteral("weights are written once a run")));
    if (s.weightsCached)
        say(QStringLiteral("  weights:     %1 weights' statistics from an earlier run of the same model file "
                           "(LLMSCOPE_WEIGHT_CACHE; \"off\" reads them again)\n")
                .arg(s.weightsCached));
    for (const auto &w : s.warnings)
        say(QStringLiteral("  warning:     %1\n").arg(QString::fromStdString(w)));
    if (o.nanInfOnly) {
        say(QStringLiteral("  NaN/Inf:     %1 dumped round(s) had an output with NaN or Inf%2\n")
                .arg(s.nanInfRounds)
                .arg(s.nanInfRounds ? QStringLiteral("; the first op of each made them:") : QString()));
        for (const auto &f : s.nanInfFirst)
            say(QStringLiteral("    %1\n").arg(QString::fromStdString(f)));
    }
}

// What the folder holds, and every problem met reading it.
void sayOnDisk(const llmscope::DumpOptions &o, const llmscope::DumpIndex &idx,
               const std::optional<std::vector<std::string>> &onnxFiles, std::vector<std::string> &problems)
{
    using namespace llmscope;
    uint64_t bytes = 0, linkedBytes = 0;
    std::set<std::string> ops;
    const bool links = o.symlink || o.tiling; // only then are some files links (one stat each)
    for (const auto &t : idx.tensors) {
        std::error_code ec;
        if (links && std::filesystem::is_symlink(t.path, ec))
            linkedBytes += t.dataBytes;
        else
            bytes += t.dataBytes;
        ops.insert(t.opId);
    }
    say(QStringLiteral(
            "  on disk:     %1 tensors from %2 operations in %3 rounds, %4 of data%7; %5 model, %6 layer files\n")
            .arg(idx.tensors.size())
            .arg(ops.size())
            .arg(idx.rounds().size())
            .arg(humanBytes(bytes))
            .arg(idx.modelFiles.size())
            .arg(idx.layerFiles.size())
            .arg(linkedBytes ? QStringLiteral(" (and %1 more read through links)").arg(humanBytes(linkedBytes))
                             : QString()));
    if (std::find(o.types.begin(), o.types.end(), "onnx") != o.types.end())
        say(QStringLiteral("  onnx:        %1 file(s) of the topology under onnx/ (no weights; open them in Netron)\n")
                .arg(onnxFiles ? onnxFiles->size() : 0));
    if (std::find(o.types.begin(), o.types.end(), "stats") != o.types.end() && !writesPayload(o) && !o.descOnly)
        say(QStringLiteral("  written:     statistics only, no payloads (msit's --type stats; --stats-with-data "
                           "keeps the payloads too)\n"));
    for (const auto &p : idx.problems)
        problems.push_back(p.path + ": " + p.message);
    for (const auto &p : problems)
        say(QStringLiteral("  problem:     %1\n").arg(QString::fromStdString(p)));
}

// The exit code, and why nothing was dumped where nothing was.
int verdict(const llmscope::DumpOptions &o, const std::vector<llmscope::ProbeStatus> &statuses,
            const llmscope::DumpIndex &idx, const std::vector<std::string> &problems, bool targetOk)
{
    bool finished = !statuses.empty();
    for (const auto &s : statuses)
        finished = finished && s.finished;
    if (statuses.empty() && idx.layout == "torch") { // a PyTorch program: llmscope's register_hook wrote it
        say(QStringLiteral("  PyTorch:     the program wrote msit's PyTorch dump (llmscope.register_hook_from_env); "
                           "compare it with an engine's dump as the golden\n"));
        return targetOk && problems.empty() ? 0 : 1;
    }
    if (statuses.empty()) {
        say(QStringLiteral("  The probe never reported: the target did not run a llama.cpp/ggml graph, links "
                           "llama.cpp statically (it cannot be interposed), or ended before its first graph.\n"));
        return targetOk ? 3 : 1;
    }
    if (!finished)
        say(QStringLiteral("  The target did not exit normally: the dump holds what was written before it "
                           "stopped; every file in it is complete.\n"));
    const bool wantsTensors = std::find(o.types.begin(), o.types.end(), "tensor") != o.types.end() ||
        std::find(o.types.begin(), o.types.end(), "stats") != o.types.end();
    if (wantsTensors && idx.tensors.empty()) {
        uint64_t rounds = 0, dumped = 0;
        for (const auto &s : statuses) {
            rounds += s.rounds;
            dumped += s.roundsDumped;
        }
        if (dumped == 0)
            say(QStringLiteral("  Nothing was dumped: the target ran %1 rounds (0 to %2) and -er %3 chose none "
                               "of them.\n")
                    .arg(rounds)
                    .arg(rounds ? rounds - 1 : 0)
                    .arg(QString::fromStdString(o.rounds)));
        else
            say(QStringLiteral("  Nothing was dumped: no operation matched -ids '%1' / -opname '%2' in the "
                               "rounds chosen; 'llmscope dump --type model' lists the operations.\n")
                    .arg(QString::fromStdString(o.ids), QString::fromStdString(o.opNames)));
        return targetOk ? 3 : 1;
    }
    return targetOk && finished && problems.empty() ? 0 : 1;
}

// What the dump holds, from the probe's status files and the folder itself.
int summarize(const llmscope::DumpOptions &o, const QString &root, const QString &ended, bool targetOk)
{
    using namespace llmscope;
    std::vector<std::string> problems;
    const auto statuses = readProbeStatuses(root.toStdString(), &problems);
    // msit's onnx type: from the topology files, now the program is done
    const auto onnxFiles = exportOnnxAfterRun(o.types, root.toStdString(), &problems);
    DumpIndex idx;
    try {
        idx = scanDump(root.toStdString());
    } catch (const Error &e) {
        problems.push_back(e.what());
    }
    say(QStringLiteral("\nllmscope dump: %1\n").arg(ended));
    say(QStringLiteral("  dump:        %1\n").arg(root));
    for (const auto &s : statuses)
        sayProcess(o, s);
    sayOnDisk(o, idx, onnxFiles, problems);
    return verdict(o, statuses, idx, problems, targetOk);
}

// --check-observer: the program once more with the probe loaded but reading nothing, beside
// the dump (then removed); the check's words said and kept in the dump
// (llmscope/observer_check.txt). 4 when observing changed the results.
int checkObserverAfter(const llmscope::DumpOptions &o, const QString &root, int status)
{
    using namespace llmscope;
    const QString plainOut = QFileInfo(root).absolutePath() + QStringLiteral("/llmscope_unobserved");
    QStringList options{"--type", "model"};
    if (!o.followTokens.empty())
        options << "--follow-tokens" << QString::fromStdString(o.followTokens);
    if (o.timeoutSeconds)
        options << "--timeout" << QString::number(o.timeoutSeconds);
    if (o.noFusion) // the same program: its backends unfused as in the dump
        options << "--no-fusion";
    say(QStringLiteral("  observer:    running the program again with the probe loaded but reading nothing\n"));
    try {
        const QString command = QString::fromStdString(joinCommandLine({o.environment, o.command}));
        const auto [plain, failed] = runToEnd([&] {
            return runChildDumpCaught({{}, command, options, plainOut, [] { return g_stopRequested != 0; }, {}});
        });
        if (failed)
            std::rethrow_exception(failed);
        const ObserverCheck c = checkObserver(plain.toStdString(), root.toStdString());
        QDir(plainOut).removeRecursively();
        const std::string words = observerCheckText(c);
        makeDirs(root.toStdString() + "/llmscope");
        writeFileAtomic(root.toStdString() + "/llmscope/observer_check.txt", words + "\n");
        say(QStringLiteral("  observer:    %1\n").arg(QString::fromStdString(words)));
        return c.changed() ? 4 : status;
    } catch (const std::exception &e) {
        QDir(plainOut).removeRecursively();
        say(QStringLiteral("  observer:    the check could not run: %1\n").arg(QString::fromUtf8(e.what())));
        return status == 0 ? 1 : status;
    }
}

} // namespace

int runDumpCommand(const QStringList &args)
{
    using namespace llmscope;
    std::vector<std::string> a;
    for (const auto &s : args) {
        if (s == QLatin1String("--help") || s == QLatin1String("-h")) {
            std::fputs(dumpUsage().c_str(), stdout);
            return 0;
        }
        a.push_back(s.toStdString());
    }
    DumpOptions o;
    try {
        o = parseDumpOptions(a);
    } catch (const Error &e) {
        say(QStringLiteral("llmscope dump: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
    static int argc = 1;
    static char name[] = "llmscope";
    static char *argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);

    LaunchPlan plan;
    try {
        plan = planLaunch(o);
    } catch (const Error &e) {
        say(QStringLiteral("llmscope dump: %1\n").arg(QString::fromUtf8(e.what())));
        return 2;
    }
    const QString &found = plan.program, &root = plan.dumpRoot;
    say(QStringLiteral("llmscope dump: running %1 with the probe; writing %2\n").arg(found, root));

    // Stopped itself (SIGTERM: a caller's Cancel), it stops the target first, as at --timeout. A
    // caught signal's handler is reset in the target at exec: only this process catches it.
    std::signal(SIGTERM, stopRequested);
    QProcess target;
    target.setProcessChannelMode(QProcess::ForwardedChannels);
    target.setInputChannelMode(QProcess::ForwardedInputChannel);
    target.setProcessEnvironment(plan.environment);
    target.start(found, plan.arguments);
    if (!target.waitForStarted(30000)) {
        say(QStringLiteral("llmscope dump: cannot start %1: %2\n").arg(found, target.errorString()));
        QDir(root).removeRecursively();
        return 2;
    }
    // Ctrl-C reaches the target (same process group); llmscope stays to say what was written.
    std::signal(SIGINT, SIG_IGN);
    QElapsedTimer clock;
    clock.start();
    bool timedOut = false;
    while (!target.waitForFinished(500)) {
        if (target.state() == QProcess::NotRunning)
            break;
        const bool late = o.timeoutSeconds && clock.elapsed() > qint64(o.timeoutSeconds) * 1000;
        if ((late || g_stopRequested) && !timedOut) {
            timedOut = true;
            target.terminate(); // first: whoever reads this process's words may be gone
            std::signal(SIGPIPE, SIG_IGN);
            say(late ? QStringLiteral("llmscope dump: the target ran past --timeout %1 s; stopping it\n")
                           .arg(o.timeoutSeconds)
                     : QStringLiteral("llmscope dump: stopped; stopping the target\n"));
            if (!target.waitForFinished(5000))
                target.kill();
        }
    }
    std::signal(SIGINT, SIG_DFL); // SIGTERM stays caught: --check-observer's run below stops as well
    const double seconds = clock.elapsed() / 1000.0;
    QString ended;
    bool ok = false;
    if (target.exitStatus() == QProcess::CrashExit || timedOut)
        ended = QStringLiteral("the target %1 after %2 s")
                    .arg(timedOut ? QStringLiteral("was stopped") : QStringLiteral("crashed or was killed"))
                    .arg(seconds, 0, 'f', 1);
    else {
        ok = target.exitCode() == 0;
        ended = QStringLiteral("the target exited with status %1 after %2 s")
                    .arg(target.exitCode())
                    .arg(seconds, 0, 'f', 1);
    }
    int status = summarize(o, root, ended, ok);
    if (!ok && status == 0)
        status = 1;
    if (o.checkObserver && status != 2)
        status = checkObserverAfter(o, root, status);
    return status;
}
