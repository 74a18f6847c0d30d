// The hunt's runner (session/hunt_runner), which `llmscope hunt` and the window's hunt share,
// on dumps a program would write: every way a hunt ends, each pinned by its last line, and
// the steps said in order. The "program" here is a chain of ops whose test side errs where a
// scenario says, dumped by the real writer and compared by the real compare; only the runs
// themselves are left out (the suites under tests/probe run real programs through it).
#include <QDir>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <QCoroTask>

#include "app/hunt/hunt_plan.h"
#include "app/hunt/hunt_runner.h"
#include "core/compare/compare_run.h"
#include "core/dump/probe_status.h"
#include "core/dump/token_record.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/chain_dump.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;
using testing::Chain;
using testing::ChainDumpOptions;

namespace {

// Attention's tail: SWIGLU is op 0_2, between two matrix products with their weights.
const Chain kChain{
    {{"norm-0", "RMS_NORM"}, {"ffn_up-0", "MUL_MAT"}, {"ffn_swiglu-0", "SWIGLU"}, {"ffn_out-0", "MUL_MAT"}}, {1, 3}};

// What the test program does in the statistics pass and in the op's pass (two runs of one
// program that need not agree: a program that is not deterministic).
struct Scenario {
    Scenario(std::function<double(size_t)> stats, std::function<double(size_t)> tensors,
             std::optional<size_t> otherOp = {}, std::optional<QString> thrown = {})
        : statsRel(std::move(stats)), tensorRel(std::move(tensors)), tensorsOfOp(otherOp),
          throwInTensors(std::move(thrown))
    {
    }
    std::function<double(size_t)> statsRel, tensorRel;
    std::optional<size_t> tensorsOfOp; // the op the test's second run dumps instead of the one asked for
    std::optional<QString> throwInTensors; // "cancel" or an error's words
    std::function<void(size_t, std::vector<float> &)> change; // the test's outputs, in every pass
    bool statsWithoutSketch = false; // statistics as before sketches
    bool tokensDiffer = false; // the test records other tokens
};

double none(size_t)
{
    return 0;
}
double swigluAdds(size_t k) // 1 % from op 2 on: op 2 adds it, op 3 carries it
{
    return k >= 2 ? 1e-2 : 0.0;
}

} // namespace

class TstHuntRunner : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    struct Said {
        QString text;
        int step;
    };

    hunt::Outcome hunt(const QString &name, const Scenario &s, std::vector<Said> *said = nullptr)
    {
        const QString folder = m_dir.path() + "/" + name;
        hunt::Steps steps;
        steps.dump = [s](hunt::Side side, QStringList options, QString out) -> QCoro::Task<QString> {
            const bool stats = options.contains("stats");
            ChainDumpOptions o;
            o.statsOnly = stats;
            o.scaled = true;
            const int ids = int(options.indexOf("-ids"));
            if (ids >= 0)
                o.onlyOp = size_t(options[ids + 1].section('_', 1).toUInt());
            const bool test = side == hunt::Side::Test;
            if (test && !stats) {
                if (s.tensorsOfOp)
                    o.onlyOp = s.tensorsOfOp;
                if (s.throwInTensors == QString("cancel"))
                    throw hunt::Cancelled{};
                if (s.throwInTensors)
                    throw Error(s.throwInTensors->toStdString());
            }
            const auto rel = !test ? std::function<double(size_t)>(none) : stats ? s.statsRel : s.tensorRel;
            if (test)
                o.change = s.change;
            o.noSketch = stats && s.statsWithoutSketch;
            const std::string root = testing::writeChain(out.toStdString(), kChain, rel, none, o);
            const bool otherTokens = test && s.tokensDiffer;
            makeDirs(root + "/llmscope/tokens/7");
            writeFileAtomic(root + "/" + tokenRecordPath(7, 0), tokenRecordJson(0, {1, 5}, false));
            writeFileAtomic(root + "/" + tokenRecordPath(7, 1), tokenRecordJson(1, {otherTokens ? 9 : 8}, otherTokens));
            makeDirs(root + "/" + ProbeStatus::kFolder); // a probe's dump: judged by the engine standard
            writeFileAtomic(root + "/" + ProbeStatus::kFolder + "/7.json", writeProbeStatus(ProbeStatus{}));
            co_return QString::fromStdString(root);
        };
        steps.compare = [](QString golden, QString test) -> QCoro::Task<std::shared_ptr<const CompareResult>> {
            CompareOptions o;
            o.goldenPath = golden.toStdString();
            o.myPath = test.toStdString();
            co_return std::make_shared<const CompareResult>(runCompare(o));
        };
        steps.say = [said](const QString &text, int step) {
            if (said)
                said->push_back({text, step});
        };
        return QCoro::waitFor(hunt::run(steps, folder, "0,0"));
    }

    // The conclusion: the last line said as step 0.
    static QString conclusion(const std::vector<Said> &said)
    {
        for (auto it = said.rbegin(); it != said.rend(); ++it)
            if (it->step == 0)
                return it->text;
        return {};
    }

private slots:
    // The statistics show op 0_2 adding 1 %, its tensors confirm it: found, and the ops that
    // carry its error after it are not named.
    void foundWhereTheKernelAddsError()
    {
        std::vector<Said> said;
        const hunt::Outcome o = hunt("found", Scenario(swigluAdds, swigluAdds), &said);
        QCOMPARE(o.end, hunt::Outcome::End::Found);
        QVERIFY2(
            QRegularExpression(
                R"(^found: round 0, op 0_2 ffn_swiglu-0 \(SWIGLU\) in 0_DecoderLayer/2_SWIGLU, llama.cpp's layer 0 \(blk\.0\)\n)")
                .match(o.message)
                .hasMatch(),
            qPrintable(o.message));
        QVERIFY2(o.message.contains("adds NMSE 0.0001 beyond what its inputs explain (budget 1e-07 for SWIGLU)"),
                 qPrintable(o.message));
        QCOMPARE(conclusion(said), o.message);
        QList<int> steps;
        for (const Said &s : said)
            if (s.step > 0)
                steps << s.step;
        QCOMPARE(steps, QList<int>({1, 2, 3, 4}));
        QVERIFY(o.stats && o.tensors && o.replay);
        QCOMPARE(o.tensors->ops.size(), size_t(1)); // -ids: the op alone
        for (const char *d : {"golden-stats", "test-stats", "golden-tensors", "test-tensors"})
            QVERIFY2(!QDir(m_dir.path() + "/found/" + d).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty(), d);
        // Each pass's report holds its comparison whole.
        for (const auto &[name, result] :
             {std::pair{"report-stats", o.stats}, std::pair{"report-tensors", o.tensors}}) {
            const QJsonObject j = engine::compareReport(m_dir.path() + "/found/" + name);
            QVERIFY(!result->rows.empty());
            QCOMPARE(size_t(j["rows"].toArray().size()), result->rows.size());
            QCOMPARE(j["first_divergent"].toInt(), result->firstDivergent);
        }
    }

    // Every op within its budget: nothing diverges, and the op closest to its budget is named.
    void nothingDivergesWhenEveryOpIsWithinBudget()
    {
        std::vector<Said> said;
        const hunt::Outcome o = hunt("clean", Scenario(none, none), &said);
        QCOMPARE(o.end, hunt::Outcome::End::NothingDiverges);
        QVERIFY2(o.message.startsWith("every operation is within its budget in round 0: nothing diverges"),
                 qPrintable(o.message));
        QCOMPARE(conclusion(said), o.message);
        QVERIFY(!o.tensors); // no second pass
    }

    // The statistics named op 0_2 but its tensors, element by element, are within budget: the
    // hunt says the statistics overstated it and does not report it as found.
    void clearedWhenTheTensorsDisagreeWithTheStatistics()
    {
        std::vector<Said> said;
        const hunt::Outcome o = hunt("cleared", Scenario(swigluAdds, none), &said);
        QCOMPARE(o.end, hunt::Outcome::End::Cleared);
        QCOMPARE(o.message,
                 QString("element by element, op 0_2 ffn_swiglu-0 (SWIGLU) is within its budget: the "
                         "statistics overstated it, and no operation's outputs in round 0 depart beyond "
                         "what two engines of one model may differ by"));
        QCOMPARE(conclusion(said), o.message);
        QVERIFY(o.walk && o.walk->firstDivergent < 0 && !o.walk->ops.empty()); // the round's outputs were looked at
        // The same, but the programs chose other tokens: never "nothing diverges".
        Scenario s(swigluAdds, none);
        s.tokensDiffer = true;
        const hunt::Outcome t = hunt("cleared-tokens", s);
        QCOMPARE(t.end, hunt::Outcome::End::Unexplained);
        QVERIFY2(t.message.startsWith("no operation departs beyond its budget in round 0, yet the two programs chose "
                                      "different tokens from round 1 on"),
                 qPrintable(t.message));
    }

    // Where the first op's fault keeps its statistics (two elements swapped, no sketches) the
    // statistics name a later op; element by element that op only carries its inputs' error,
    // so the hunt walks back through the round's outputs to the first op that departs.
    void walksBackToTheFirstOp()
    {
        Scenario s(none, none);
        s.statsWithoutSketch = true;
        s.change = [](size_t k, std::vector<float> &v) {
            if (k == 1)
                std::swap(v[3], v[200]); // ffn_up's fault: max, min, mean and norm unchanged
            if (k == 2)
                for (auto &x : v) // SWIGLU carries it (within twice its input's error)
                    x *= 1.1f;
        };
        std::vector<Said> said;
        const hunt::Outcome o = hunt("walk", s, &said);
        QCOMPARE(o.end, hunt::Outcome::End::Found);
        QVERIFY(o.stats && o.stats->firstDivergent == 2); // the statistics named SWIGLU
        QVERIFY2(
            o.message.startsWith(
                "found: round 0, op 0_1 ffn_up-0 (MUL_MAT) in 0_DecoderLayer/1_MUL_MAT, llama.cpp's layer 0 (blk.0)\n"),
            qPrintable(o.message));
        QVERIFY(o.walk && o.walk->firstDivergent >= 0);
        QStringList texts;
        for (const Said &x : said)
            texts << x.text;
        const QString all = texts.join('\n');
        QVERIFY2(
            all.contains("step 3 of 4, walking back from op 0_2 ffn_swiglu-0 (SWIGLU) (element by element it is within "
                         "its budget): both runs again, dumping every operation's outputs in round 0 with their data"),
            qPrintable(all));
        QVERIFY2(
            all.contains("the first operation that departs element by element: round 0, op 0_1 ffn_up-0 (MUL_MAT)"),
            qPrintable(all));
        for (const char *d : {"golden-walk", "test-walk", "golden-first", "test-first"})
            QVERIFY2(!QDir(m_dir.path() + "/walk/" + d).entryList({"msit_dump_*"}, QDir::Dirs).isEmpty(), d);
        // With sketches the statistics see it first, and there is no walk.
        s.statsWithoutSketch = false;
        const hunt::Outcome direct = hunt("direct", s);
        QCOMPARE(direct.end, hunt::Outcome::End::Found);
        QVERIFY(!direct.walk);
        QVERIFY2(direct.message.startsWith("found: round 0, op 0_1 ffn_up-0 (MUL_MAT)"), qPrintable(direct.message));
    }

    // The second runs did not dump the suspect (the test's graph put another op at its id):
    // said, with where the dumps are.
    void notDumpedWhenTheSecondRunLacksTheOp()
    {
        Scenario s(swigluAdds, swigluAdds, size_t(3));
        const hunt::Outcome o = hunt("notdumped", s);
        QCOMPARE(o.end, hunt::Outcome::End::NotDumped);
        QCOMPARE(o.message, "the second runs did not dump op 0_2; see " + m_dir.path() + "/notdumped");
    }

    // Every round unless told, however "all" is written; the dump is asked for every round there is.
    void everyRoundByDefault()
    {
        QCOMPARE(hunt::parseRequest({"--golden", "a", "--test", "b"}).rounds, QString("all"));
        QCOMPARE(hunt::parseRequest({"--golden", "a", "--test", "b", "-er", " ALL "}).rounds, QString("all"));
        const QStringList args = hunt::statsArgs("all");
        QCOMPARE(args.value(int(args.indexOf("-er")) + 1), QString("0,2147483647"));
        QVERIFY(args.contains("--stats-csv"));
        QCOMPARE(hunt::roundsText("All"), QString("every round"));
        QCOMPARE(hunt::roundsText("0,3"), QString("rounds 0-3"));
        QCOMPARE(hunt::roundsText("0,0"), QString("round 0"));
        QCOMPARE(hunt::roundsText("1,3,7,7"), QString("rounds 1-3, 7"));
        QCOMPARE(hunt::roundsText("2,2147483647"), QString("rounds 2 on"));
        QCOMPARE(hunt::roundsText("0,2147483647"), QString("every round"));
    }

    // The program's copies into the KV cache where it changed between two writes: a copy unlike
    // its source, or one run's copy the other lacks, is the finding; copies alike and exact, or
    // none, are said without a finding.
    void copiesIntoTheCacheAreWeighed()
    {
        const StateCopy k{.beforeRound = 2,
                          .cache = "cache_v_l0",
                          .fromStream = 0,
                          .toStream = 1,
                          .bytes = 4096,
                          .checked = true,
                          .rows = 16};
        const hunt::CacheGap gap{1, 2, 0.0, 0.4};
        const auto none = hunt::cacheCopies({}, {}, "cache_v_l0", gap);
        QVERIFY(!none.found);
        QVERIFY2(none.words.startsWith("neither run copied into the KV cache cache_v_l0 outside any graph in round 2"),
                 qPrintable(none.words));
        const auto alike = hunt::cacheCopies({k}, {k}, "cache_v_l0", gap);
        QVERIFY(!alike.found);
        QVERIFY2(
            alike.words.startsWith("both runs copied into the KV cache cache_v_l0 outside any graph in round 2 alike"),
            qPrintable(alike.words));
        const auto lost = hunt::cacheCopies({k}, {}, "cache_v_l0", gap);
        QVERIFY(lost.found);
        QVERIFY2(
            lost.words.startsWith("found: golden's run copied the KV cache cache_v_l0 before round 2 (stream 0 -> 1) "
                                  "outside any graph"),
            qPrintable(lost.words));
        QVERIFY(lost.words.contains("test's run made no such copy"));
        StateCopy f16 = k;
        f16.bytes = 2048; // the other run's cache of another type: the same copy
        QVERIFY(!hunt::cacheCopies({k}, {f16}, "cache_v_l0", gap).found);
        StateCopy unread = k;
        unread.checked = false; // never read back: not claimed equal to its source
        const auto unchecked = hunt::cacheCopies({k}, {unread}, "cache_v_l0", gap);
        QVERIFY(!unchecked.found);
        QVERIFY2(unchecked.words.contains("not every copy could be held against its source"),
                 qPrintable(unchecked.words));
        const auto notAll = hunt::cacheCopies({}, {}, "cache_v_l0", gap, true); // past the notes' limit
        QVERIFY(!notAll.found);
        QVERIFY2(
            notAll.words.startsWith("a run made more copies into its KV cache outside any graph than the probe notes"),
            qPrintable(notAll.words));
        StateCopy other = k;
        other.toStream = 2; // another slot's stream: not the same copy
        const auto extra = hunt::cacheCopies({k}, {k, other}, "cache_v_l0", gap);
        QVERIFY(extra.found);
        QVERIFY2(extra.words.startsWith(
                     "found: test's run copied into the KV cache cache_v_l0 before round 2 (stream 0 -> 2)"),
                 qPrintable(extra.words));
        StateCopy wrong = k;
        wrong.rowsDiffering = 3;
        wrong.firstDiffering = 5;
        const auto bad = hunt::cacheCopies({k}, {wrong}, "cache_v_l0", gap);
        QVERIFY(bad.found);
        QVERIFY2(bad.words.startsWith("found: the test program's copy into the KV cache cache_v_l0 before round 2 "
                                      "(stream 0 -> 1), made outside any graph"),
                 qPrintable(bad.words));
        QVERIFY(bad.words.contains("left 3 of its 16 rows unlike their source (the first: row 5)"));
    }

    // A run that fails stops the hunt with its words; a cancel keeps what was dumped.
    void failedAndCancelled()
    {
        Scenario s(swigluAdds, swigluAdds, {}, QString("the test program crashed"));
        hunt::Outcome o = hunt("failed", s);
        QCOMPARE(o.end, hunt::Outcome::End::Failed);
        QCOMPARE(o.message, QString("stopped: the test program crashed"));
        QVERIFY(o.stats); // the first pass is kept
        s.throwInTensors = QString("cancel");
        o = hunt("cancelled", s);
        QCOMPARE(o.end, hunt::Outcome::End::Cancelled);
        QCOMPARE(o.message, "cancelled; the dumps written so far are kept in " + m_dir.path() + "/cancelled");
        QVERIFY(QDir(m_dir.path() + "/cancelled/golden-stats").exists());
    }
};

QTEST_GUILESS_MAIN(TstHuntRunner)
#include "tst_huntrunner.moc"
