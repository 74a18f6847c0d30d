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

#include "compare/compare_run.h"
#include "dump/probe_status.h"
#include "session/hunt_plan.h"
#include "session/hunt_runner.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "../chain_dump.h"
#include "../engine/engine_run.h"

using namespace llmscope;
using testing::Chain;
using testing::ChainDumpOptions;

namespace {

// Attention's tail: SWIGLU is op 0_2, between two matrix products with their weights.
const Chain kChain{{{"norm-0", "RMS_NORM"}, {"ffn_up-0", "MUL_MAT"}, {"ffn_swiglu-0", "SWIGLU"}, {"ffn_out-0", "MUL_MAT"}},
                   {1, 3}};

// What the test program does in the statistics pass and in the op's pass (two runs of one
// program that need not agree: a program that is not deterministic).
struct Scenario {
    std::function<double(size_t)> statsRel, tensorRel;
    std::optional<size_t> tensorsOfOp; // the op the test's second run dumps instead of the one asked for
    std::optional<QString> throwInTensors; // "cancel" or an error's words
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
            const std::string root = testing::writeChain(out.toStdString(), kChain, rel, none, o);
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
        const hunt::Outcome o = hunt("found", {swigluAdds, swigluAdds, {}, {}}, &said);
        QCOMPARE(o.end, hunt::Outcome::End::Found);
        QVERIFY2(QRegularExpression(R"(^found: round 0, op 0_2 ffn_swiglu-0 \(SWIGLU\) in 0_DecoderLayer/2_SWIGLU\n)")
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
        for (const auto &[name, result] : {std::pair{"report-stats", o.stats}, std::pair{"report-tensors", o.tensors}}) {
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
        const hunt::Outcome o = hunt("clean", {none, none, {}, {}}, &said);
        QCOMPARE(o.end, hunt::Outcome::End::NothingDiverges);
        QVERIFY2(o.message.startsWith("every operation is within its budget in rounds 0,0: nothing diverges"),
                 qPrintable(o.message));
        QCOMPARE(conclusion(said), o.message);
        QVERIFY(!o.tensors); // no second pass
    }

    // The statistics named op 0_2 but its tensors, element by element, are within budget: the
    // hunt says the statistics overstated it and does not report it as found.
    void clearedWhenTheTensorsDisagreeWithTheStatistics()
    {
        std::vector<Said> said;
        const hunt::Outcome o = hunt("cleared", {swigluAdds, none, {}, {}}, &said);
        QCOMPARE(o.end, hunt::Outcome::End::Cleared);
        QCOMPARE(o.message, QString("element by element, op 0_2 ffn_swiglu-0 (SWIGLU) is within its budget: the "
                                    "statistics overstated it, and nothing diverges beyond what two engines of one "
                                    "model may differ by"));
        QCOMPARE(conclusion(said), o.message);
    }

    // The second runs did not dump the suspect (the test's graph put another op at its id):
    // said, with where the dumps are.
    void notDumpedWhenTheSecondRunLacksTheOp()
    {
        Scenario s{swigluAdds, swigluAdds, size_t(3), {}};
        const hunt::Outcome o = hunt("notdumped", s);
        QCOMPARE(o.end, hunt::Outcome::End::NotDumped);
        QCOMPARE(o.message, "the second runs did not dump op 0_2; see " + m_dir.path() + "/notdumped");
    }

    // A run that fails stops the hunt with its words; a cancel keeps what was dumped.
    void failedAndCancelled()
    {
        Scenario s{swigluAdds, swigluAdds, {}, QString("the test program crashed")};
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
