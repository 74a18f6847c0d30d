// llmscope dump's command line: msit's defaults, refusals with reasons, no shell.
#include <algorithm>
#include <QTest>

#include "core/launch/dump_options.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {
DumpOptions parse(std::vector<std::string> args)
{
    args.insert(args.begin(), {"--exec", "./run -m m.gguf"});
    return parseDumpOptions(args);
}
QString failure(std::vector<std::string> args)
{
    try {
        parseDumpOptions(args);
    } catch (const Error &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
} // namespace

class TstDumpOptions : public QObject {
    Q_OBJECT
private slots:
    void msitDefaults()
    {
        const DumpOptions o = parse({});
        QCOMPARE(o.command, (std::vector<std::string>{"./run", "-m", "m.gguf"}));
        QCOMPARE(o.types, (std::vector<std::string>{"tensor", "model"})); // msit's current default
        QVERIFY(writesPayload(o));
        QCOMPARE(o.rounds, std::string("0,0"));
        QVERIFY(o.child && !o.descOnly && o.ids.empty());
        QCOMPARE(o.time, 3);
        QCOMPARE(o.part, 2);
        QCOMPARE(o.output, std::string("./"));
        const auto env = probeEnvironment(o, "/d/msit_dump_1");
        QCOMPARE(env.at("LLMSCOPE_DUMP_ROOT"), std::string("/d/msit_dump_1"));
        QCOMPARE(env.at("LLMSCOPE_TYPE"), std::string("tensor,model"));
        QCOMPARE(env.at("LLMSCOPE_STATS_WITH_DATA"), std::string("0"));
        QCOMPARE(env.at("LLMSCOPE_ER"), std::string("0,0"));
        QCOMPARE(env.at("LLMSCOPE_CHILD"), std::string("1"));
        QCOMPARE(env.at("LLMSCOPE_READ"), std::string("auto"));
    }

    // msit: stats means statistics only, with tensor or without; the payload stays only with
    // llmscope's --stats-with-data.
    void statsMeansStatisticsOnly()
    {
        QVERIFY(!writesPayload(parse({"--type", "model", "tensor", "stats"})));
        QVERIFY(!writesPayload(parse({"--type", "stats"})));
        QVERIFY(writesPayload(parse({"--type", "tensor"})));
        const DumpOptions both = parse({"--type", "tensor", "stats", "--stats-with-data"});
        QVERIFY(writesPayload(both));
        QCOMPARE(probeEnvironment(both, "R").at("LLMSCOPE_STATS_WITH_DATA"), std::string("1"));
    }

    void everyOptionReachesTheProbe()
    {
        const DumpOptions o =
            parse({"--type", "model",   "layer", "stats", "-sd",     "-ids",        "3_1,5",       "-er",    "1,3",
                   "-child", "False",   "-time", "2",     "-opname", "mul_mat,rms", "-stp",        "1",      "-o",
                   "/tmp/x", "-device", "0",     "-l",    "error",   "--kv-cache",  "--stats-csv", "--read", "Graph"});
        const auto env = probeEnvironment(o, "R");
        QCOMPARE(env.at("LLMSCOPE_TYPE"), std::string("model,layer,stats"));
        QCOMPARE(env.at("LLMSCOPE_SD"), std::string("1"));
        QCOMPARE(env.at("LLMSCOPE_IDS"), std::string("3_1,5"));
        QCOMPARE(env.at("LLMSCOPE_ER"), std::string("1,3"));
        QCOMPARE(env.at("LLMSCOPE_CHILD"), std::string("0"));
        QCOMPARE(env.at("LLMSCOPE_TIME"), std::string("2"));
        QCOMPARE(env.at("LLMSCOPE_OPNAME"), std::string("mul_mat,rms"));
        QCOMPARE(env.at("LLMSCOPE_STP"), std::string("1"));
        QCOMPARE(env.at("LLMSCOPE_DEVICE"), std::string("0"));
        const DumpOptions seqs = parse({"-seq", "1,3"});
        QCOMPARE(probeEnvironment(seqs, "R").at("LLMSCOPE_SEQ"), std::string("1,3"));
        QCOMPARE(parseDumpOptions(dumpArguments(seqs)).sequences, std::string("1,3"));
        QVERIFY_THROWS_EXCEPTION(Error, parse({"-seq", "slot1"}));
        QCOMPARE(env.at("LLMSCOPE_LOG_LEVEL"), std::string("error"));
        QCOMPARE(env.at("LLMSCOPE_KV"), std::string("1"));
        QCOMPARE(env.at("LLMSCOPE_STATS_CSV"), std::string("1"));
        QCOMPARE(env.at("LLMSCOPE_READ"), std::string("graph"));
        QCOMPARE(o.output, std::string("/tmp/x"));
        QCOMPARE(env.at("LLMSCOPE_TILING"), std::string("0"));
        const DumpOptions info = parse({"--type", "model", "op", "kernel", "tensor", "-tiling"});
        QCOMPARE(probeEnvironment(info, "R").at("LLMSCOPE_TYPE"), std::string("model,op,kernel,tensor"));
        QCOMPARE(probeEnvironment(info, "R").at("LLMSCOPE_TILING"), std::string("1"));
        std::vector<std::string> back = dumpArguments(info); // the app's command line reads back the same
        QVERIFY(std::find(back.begin(), back.end(), "-tiling") != back.end());
        QVERIFY(parseDumpOptions(back).tiling);
        const DumpOptions linked = parse({"-symlink"});
        QCOMPARE(probeEnvironment(linked, "R").at("LLMSCOPE_SYMLINK"), std::string("1"));
        QVERIFY(parseDumpOptions(dumpArguments(linked)).symlink);
        const DumpOptions nan = parse({"--type", "tensor", "--nan-inf-only"});
        QCOMPARE(probeEnvironment(nan, "R").at("LLMSCOPE_NAN_INF_ONLY"), std::string("1"));
        QVERIFY(parseDumpOptions(dumpArguments(nan)).nanInfOnly);
        const DumpOptions watch = parse({"--watch", "2_29,3"});
        QCOMPARE(probeEnvironment(watch, "R").at("LLMSCOPE_WATCH"), std::string("2_29,3"));
        QCOMPARE(parseDumpOptions(dumpArguments(watch)).watch, std::string("2_29,3"));
        // The backends' own fusion switches: set only when asked, and read back by the app
        const DumpOptions unfused = parse({"--keep-fusion", "--no-fusion"});
        for (const char *k : {"GGML_CPU_DISABLE_FUSION", "GGML_VK_DISABLE_FUSION", "GGML_CUDA_DISABLE_FUSION"}) {
            QCOMPARE(probeEnvironment(unfused, "R").at(k), std::string("1"));
            QVERIFY(!probeEnvironment(watch, "R").count(k)); // a user's own setting left as it is
        }
        QCOMPARE(probeEnvironment(unfused, "R").at("LLMSCOPE_KEEP_FUSION"), std::string("1"));
        QVERIFY(parseDumpOptions(dumpArguments(unfused)).noFusion);
        // msit's long spellings
        const DumpOptions l = parse({"--save-operation-ids", "2", "--execute-range", "0,4", "--only-save-desc"});
        QCOMPARE(l.ids, std::string("2"));
        QCOMPARE(l.rounds, std::string("0,4"));
        QVERIFY(l.descOnly);
    }

    void commandIsSplitWithoutAShell()
    {
        QCOMPARE(splitCommand("a 'b c' \"d \\\"e\\\"\" f\\ g ''"),
                 (std::vector<std::string>{"a", "b c", "d \"e\"", "f g", ""}));
        QCOMPARE(splitCommand("  prog\t-x  "), (std::vector<std::string>{"prog", "-x"}));
        QCOMPARE(splitCommand("echo '>' \"a|b\""),
                 (std::vector<std::string>{"echo", ">", "a|b"})); // quoted: plain text
    }

    // One grammar for every command line typed: settings first (or after env), as a shell
    // reads them; a quoted name is a word; each line reads back as it was given.
    void commandLinesTakeTheirSettings()
    {
        using Env = Environment;
        using W = std::vector<std::string>;
        CommandLine c = parseCommandLine("A=1 B='x y' prog -m a.gguf C=3");
        QCOMPARE(c.environment, (Env{{"A", "1"}, {"B", "x y"}}));
        QCOMPARE(c.words, (W{"prog", "-m", "a.gguf", "C=3"})); // after the program: an argument
        c = parseCommandLine("A=1 env B=2 C= prog");
        QCOMPARE(c.environment, (Env{{"A", "1"}, {"B", "2"}, {"C", ""}}));
        QCOMPARE(c.words, (W{"prog"}));
        QCOMPARE(parseCommandLine("env -i prog").words, (W{"env", "-i", "prog"})); // env's own options: the program
        QCOMPARE(parseCommandLine("env").words, (W{"env"}));
        QCOMPARE(parseCommandLine("'A=1' prog").words, (W{"A=1", "prog"})); // quoted: a program's name
        QCOMPARE(parseCommandLine("A\\=1 prog").words, (W{"A=1", "prog"}));
        QCOMPARE(parseCommandLine("A='1' prog").environment, (Env{{"A", "1"}})); // a quoted value is still one
        QCOMPARE(parseCommandLine("./A=1 prog").words, (W{"./A=1", "prog"}));
        QCOMPARE(parseCommandLine("1A=1 prog").words, (W{"1A=1", "prog"}));
        for (const char *line : {"A=1 B='x y' prog -m a.gguf C=3", "A=1 'B=2' x", "'env' A=1 prog", "X='it'\\''s' p"}) {
            const CommandLine once = parseCommandLine(line);
            const CommandLine back = parseCommandLine(joinCommandLine(once));
            QCOMPARE(back.environment, once.environment);
            QCOMPARE(back.words, once.words);
        }
        QCOMPARE(joinCommandLine({{{"B", "x y"}, {"E", ""}}, {"prog", "a b"}}), std::string("B='x y' E= prog 'a b'"));
        try {
            parseCommandLine("A=1 B=2");
            QFAIL("settings without a program were read");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("sets A but names no program"), e.what());
        }
        // an Environment field: settings only
        QCOMPARE(parseEnvironment("  "), Env{});
        QCOMPARE(parseEnvironment("A=1 B='x y'"), (Env{{"A", "1"}, {"B", "x y"}}));
        try {
            parseEnvironment("A=1 prog");
            QFAIL("a word was read as a setting");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains("'prog' is not a setting"), e.what());
        }
        // --exec keeps them for the program, and gives them back
        const DumpOptions o = parse({"--exec", "GGML_VK_VISIBLE_DEVICES=0 prog -x"});
        QCOMPARE(o.environment, (Env{{"GGML_VK_VISIBLE_DEVICES", "0"}}));
        QCOMPARE(o.command, (W{"prog", "-x"}));
        QCOMPARE(dumpArguments(o).at(1), std::string("GGML_VK_VISIBLE_DEVICES=0 prog -x"));
    }

    void shellSyntaxIsRefusedWithTheReason_data()
    {
        QTest::addColumn<QString>("cmd");
        for (const char *c : {"run > out.txt", "run < in", "run | tee x", "run; rm x", "run && x", "run &", "run `id`",
                              "run $(id)", "run \"$(id)\"", "run\nx"})
            QTest::newRow(c) << c;
    }
    void shellSyntaxIsRefusedWithTheReason()
    {
        QFETCH(QString, cmd);
        const QString why = failure({"--exec", cmd.toStdString()});
        QVERIFY2(why.contains("shell") && why.contains("script"), qPrintable(why));
    }

    void badOrUnavailableOptionsSayWhy_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no exec") << QStringList{"-ids", "1"} << "--exec is required";
        QTest::newRow("empty exec") << QStringList{"--exec", "  "} << "the command is empty";
        QTest::newRow("quote") << QStringList{"--exec", "a 'b"} << "unterminated";
        QTest::newRow("watch ids") << QStringList{"--exec", "a", "--watch", "3_x"} << "is not a list of op ids";
        QTest::newRow("nan-inf-only alone")
            << QStringList{"--exec", "a", "--type", "model", "--nan-inf-only"} << "add --type tensor";
        QTest::newRow("bogus type") << QStringList{"--exec", "a", "--type", "weights"} << "is not one of";
        QTest::newRow("seed") << QStringList{"--exec", "a", "-seed", "1"} << "sampling seed";
        QTest::newRow("ids") << QStringList{"--exec", "a", "-ids", "3__1"} << "ids";
        QTest::newRow("er") << QStringList{"--exec", "a", "-er", "5,3"} << "er";
        QTest::newRow("time") << QStringList{"--exec", "a", "-time", "4"} << "-time: '4' must be";
        QTest::newRow("stp") << QStringList{"--exec", "a", "-stp", "x"} << "-stp";
        QTest::newRow("child") << QStringList{"--exec", "a", "-child", "maybe"} << "not true or false";
        QTest::newRow("level") << QStringList{"--exec", "a", "-l", "loud"} << "-l: 'loud'";
        QTest::newRow("value") << QStringList{"--exec", "a", "-ids"} << "-ids needs a value";
        QTest::newRow("unknown") << QStringList{"--exec", "a", "--frob"} << "unknown option '--frob'";
        QTest::newRow("read") << QStringList{"--exec", "a", "--read", "later"} << "--read: 'later' is not one of auto";
        QTest::newRow("csv alone") << QStringList{"--exec", "a", "--stats-csv"} << "applies to --type stats";
        QTest::newRow("with data alone") << QStringList{"--exec", "a", "--type", "stats", "--stats-with-data"}
                                         << "give both 'tensor' and 'stats'";
        QTest::newRow("with data and csv")
            << QStringList{"--exec", "a", "--type", "tensor", "stats", "--stats-csv", "--stats-with-data"}
            << "choose one";
    }
    void badOrUnavailableOptionsSayWhy()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        std::vector<std::string> a;
        for (const auto &s : args)
            a.push_back(s.toStdString());
        const QString why = failure(a);
        QVERIFY2(why.contains(expected), qPrintable(why));
    }

    void existingPreloadStaysFirst()
    {
        QCOMPARE(preloadWith("", "/p/probe.so"), std::string("/p/probe.so"));
        QCOMPARE(preloadWith("libasan.so.8", "/p/probe.so"), std::string("libasan.so.8:/p/probe.so"));
    }
};

QTEST_GUILESS_MAIN(TstDumpOptions)
#include "tst_dumpoptions.moc"
