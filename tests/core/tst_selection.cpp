#include <QTest>

#include "core/select/dynamic_config.h"
#include "core/select/op_id.h"
#include "core/select/selection.h"
#include "core/util/error.h"

using namespace llmscope;

class TstSelection : public QObject {
    Q_OBJECT
private slots:
    // One reader of op ids: strict for what a user types, lenient for what a dump holds,
    // ordered by number part by part.
    void opId()
    {
        using llmscope::OpId;
        QVERIFY(OpId::parse("3_1_2"));
        QCOMPARE(OpId::parse("3_1_2")->parts(), (std::vector<int64_t>{3, 1, 2}));
        for (const char *bad : {"", "_", "3_", "_3", "3__1", "3a", "-1", "3_1 ", "99999999999999999999"})
            QVERIFY2(!OpId::parse(bad), bad);
        QCOMPARE(OpId::lenient("3_x_2").parts(), (std::vector<int64_t>{3, 0, 2}));
        QCOMPARE(OpId::lenient("12_4").layer(), int64_t(12));
        QCOMPARE(OpId::lenient("12_4").last(), int64_t(4));
        QCOMPARE(OpId::parse("007_1")->text(), std::string("7_1"));
        QVERIFY(*OpId::parse("2") < *OpId::parse("10")); // by number, not by text
        QVERIFY(*OpId::parse("3") < *OpId::parse("3_1"));
        QVERIFY(!(*OpId::parse("3_1") < *OpId::parse("3")));
        QCOMPARE(std::string(llmscope::opGroup("3_1_2")), std::string("3"));
        QCOMPARE(std::string(llmscope::opGroup("3")), std::string("3"));
    }

    void ids_data()
    {
        QTest::addColumn<QString>("ids");
        QTest::addColumn<bool>("child");
        QTest::addColumn<QString>("opId");
        QTest::addColumn<bool>("selected");
        QTest::newRow("exact") << "3" << true << "3" << true;
        QTest::newRow("child of 3") << "3" << true << "3_1_2" << true;
        QTest::newRow("30 is not 3") << "3" << true << "30" << false;
        QTest::newRow("30_1 is not 3") << "3" << true << "30_1" << false;
        QTest::newRow("child off") << "3" << false << "3_1" << false;
        QTest::newRow("child off exact") << "3_1" << false << "3_1" << true;
        QTest::newRow("parent of 3_1") << "3_1" << true << "3" << false;
        QTest::newRow("list") << "2,3_1" << true << "3_1_4" << true;
        QTest::newRow("sibling") << "2,3_1" << true << "3_2" << false;
        QTest::newRow("spaces") << " 2 , 3_1 " << true << "2" << true;
    }
    void ids()
    {
        QFETCH(QString, ids);
        QFETCH(bool, child);
        QFETCH(QString, opId);
        QFETCH(bool, selected);
        Selection s;
        s.ids = OpIds::parse(ids.toStdString());
        s.child = child;
        QCOMPARE(s.selectsOp(opId.toStdString(), "Anything"), selected);
    }

    void badIds_data()
    {
        QTest::addColumn<QString>("ids");
        for (const char *bad : {"3_", "_3", "3__1", "a", "3,", "3;4", "-1", "3 1", "3_x"})
            QTest::newRow(bad) << bad;
    }
    void badIds()
    {
        QFETCH(QString, ids);
        try {
            OpIds::parse(ids.toStdString());
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).startsWith("ids:"));
        }
    }

    void ancestors()
    {
        const OpIds ids = OpIds::parse("3_1_2");
        QVERIFY(ids.isAncestorOfSelected("3"));
        QVERIFY(ids.isAncestorOfSelected("3_1"));
        QVERIFY(!ids.isAncestorOfSelected("3_1_2"));
        QVERIFY(!ids.isAncestorOfSelected("31"));
    }

    void opNamesAndIdOrName()
    {
        Selection s;
        s.opNames = parseOpNames("Self,LINEAR");
        QVERIFY(s.selectsOp("9", "SelfAttentionOperation"));
        QVERIFY(s.selectsOp("9", "linearoperation"));
        QVERIFY(!s.selectsOp("9", "MUL_MAT"));
        QVERIFY(!s.selectsOp("9", "XSelf")); // prefix, not substring
        s.ids = OpIds::parse("4");
        QVERIFY(s.selectsOp("4_2", "MUL_MAT")); // id OR name
        QVERIFY(!s.selectsOp("5", "MUL_MAT"));
        Selection all;
        QVERIFY(all.selectsOp("77_3", "ADD")); // nothing given: everything
    }

    // msit: with child on, an ancestor chosen by its op type chooses its descendants; with
    // child off, only the op's own type counts. The probe's ggml and C ABI paths both ask this.
    void ancestorTypeChoosesChildren()
    {
        Selection s;
        s.opNames = parseOpNames("decoder");
        const Selection::OpRef inLayer[] = {{"3", "DecoderLayer"}, {"3_29", "MUL_MAT"}};
        const Selection::OpRef inHead[] = {{"4", "OutputHead"}, {"4_1", "MUL_MAT"}};
        const Selection::OpRef deep[] = {{"3", "DecoderLayer"}, {"3_2", "Attention"}, {"3_2_1", "Linear"}};
        QVERIFY(s.selectsOpPath(inLayer));
        QVERIFY(s.selectsOpPath(deep));
        QVERIFY(!s.selectsOpPath(inHead));
        s.child = false;
        QVERIFY(!s.selectsOpPath(inLayer));
        const Selection::OpRef layerItself[] = {{"3", "DecoderLayer"}};
        QVERIFY(s.selectsOpPath(layerItself));
        Selection ids; // ids alone: the ancestor rule is the ids' own child rule
        ids.ids = OpIds::parse("3");
        QVERIFY(ids.selectsOpPath(inLayer) && !ids.selectsOpPath(inHead));
        ids.child = false;
        QVERIFY(!ids.selectsOpPath(inLayer));
        QVERIFY(!s.selectsOpPath({}));
    }

    void rounds_data()
    {
        QTest::addColumn<QString>("er");
        QTest::addColumn<QList<int>>("in");
        QTest::addColumn<QList<int>>("out");
        QTest::newRow("msit example") << "3,5,7,7" << QList<int>{3, 4, 5, 7} << QList<int>{0, 2, 6, 8};
        QTest::newRow("single") << "1,3" << QList<int>{1, 2, 3} << QList<int>{0, 4};
        QTest::newRow("zero") << "0,0" << QList<int>{0} << QList<int>{1};
    }
    void rounds()
    {
        QFETCH(QString, er);
        QFETCH(QList<int>, in);
        QFETCH(QList<int>, out);
        const Rounds r = Rounds::parse(er.toStdString());
        for (int x : in)
            QVERIFY2(r.contains(x), qPrintable(QString::number(x)));
        for (int x : out)
            QVERIFY2(!r.contains(x), qPrintable(QString::number(x)));
        QCOMPARE(QString::fromStdString(r.text()), er);
    }

    void roundDefaultsAndAll()
    {
        Rounds d;
        QVERIFY(d.contains(0) && !d.contains(1));
        QVERIFY(Rounds::parse("all", true).contains(123456));
        QVERIFY_THROWS_EXCEPTION(Error, Rounds::parse("all", false));
    }

    void badRounds_data()
    {
        QTest::addColumn<QString>("er");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("odd") << "1,2,3"
                             << "pairs";
        QTest::newRow("reversed") << "5,3"
                                  << "ends before";
        QTest::newRow("word") << "1,x"
                              << "'x'";
        QTest::newRow("negative") << "-1,2"
                                  << "'-1'";
        QTest::newRow("empty") << ""
                               << "empty";
        QString longText;
        while (longText.size() <= 500)
            longText += "1,1,";
        longText += "1,1";
        QTest::newRow("too long") << longText << "500";
    }
    void badRounds()
    {
        QFETCH(QString, er);
        QFETCH(QString, mentions);
        try {
            Rounds::parse(er.toStdString());
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }

    void timeAndPart_data()
    {
        QTest::addColumn<int>("time");
        QTest::addColumn<int>("stp");
        // wanted for (before,input) (before,output) (after,input) (after,output)
        QTest::addColumn<QList<bool>>("wanted");
        QTest::newRow("default 3/2") << 3 << 2 << QList<bool>{true, false, false, true};
        QTest::newRow("before both") << 0 << 2 << QList<bool>{true, true, false, false};
        QTest::newRow("after both") << 1 << 2 << QList<bool>{false, false, true, true};
        QTest::newRow("always both") << 2 << 2 << QList<bool>{true, true, true, true};
        QTest::newRow("always inputs") << 2 << 0 << QList<bool>{true, false, true, false};
        QTest::newRow("after outputs") << 1 << 1 << QList<bool>{false, false, false, true};
        QTest::newRow("3 with inputs") << 3 << 0 << QList<bool>{true, false, false, false};
    }
    void timeAndPart()
    {
        QFETCH(int, time);
        QFETCH(int, stp);
        QFETCH(QList<bool>, wanted);
        Selection s;
        s.time = parseDumpTime(std::to_string(time));
        s.part = parseTensorPart(std::to_string(stp));
        QCOMPARE(s.wantsTensor(true, true), wanted[0]);
        QCOMPARE(s.wantsTensor(true, false), wanted[1]);
        QCOMPARE(s.wantsTensor(false, true), wanted[2]);
        QCOMPARE(s.wantsTensor(false, false), wanted[3]);
    }

    void optionErrorsNameTheOption()
    {
        auto message = [](auto fn) {
            try {
                fn();
            } catch (const Error &e) {
                return QString(e.what());
            }
            return QString();
        };
        QVERIFY(message([] { parseDumpTime("4"); }).startsWith("time:"));
        QVERIFY(message([] { parseTensorPart("x"); }).startsWith("stp:"));
        QVERIFY(message([] { parseDevices("0,a"); }).startsWith("device:"));
        QVERIFY(message([] { parseBoolOption("child", "maybe"); }).startsWith("child:"));
        QCOMPARE(parseDevices("0, 3"), (std::vector<int>{0, 3}));
        QVERIFY(parseBoolOption("child", "False") == false);
    }

    void devices()
    {
        Selection s;
        QVERIFY(s.selectsDevice(5));
        s.devices = parseDevices("1");
        QVERIFY(s.selectsDevice(1) && !s.selectsDevice(0));
    }

    // -seq: a round is wanted when any of its tokens is in a chosen sequence; one whose
    // sequences are unknown is not.
    void sequences()
    {
        Selection s;
        QVERIFY(s.selectsSequences({}) && s.selectsSequences({3}));
        s.sequences = parseSequences("1, 2");
        QCOMPARE(s.sequences, (std::vector<int>{1, 2}));
        QVERIFY(s.selectsSequences({0, 0, 2}));
        QVERIFY(!s.selectsSequences({0, 3}));
        QVERIFY(!s.selectsSequences({}));
        QVERIFY(parseSequences("").empty());
        QVERIFY_THROWS_EXCEPTION(Error, parseSequences("1,x"));
        QVERIFY_THROWS_EXCEPTION(Error, parseSequences("-1"));
        auto c = applyDynamicConfig(R"({"seq":"4"})", s);
        QCOMPARE(c.selection.sequences, (std::vector<int>{4}));
    }

    void dynamicConfig()
    {
        Selection base;
        base.ids = OpIds::parse("1");
        auto c = applyDynamicConfig(
            R"({"dump_enable":"true","er":"all","ids":"3_1","child":"false","device":"0,1","x":"y"})", base);
        QVERIFY(c.selection.enabled);
        QVERIFY(c.selection.rounds.isAll());
        QVERIFY(c.selection.selectsOp("3_1", ""));
        QVERIFY(!c.selection.selectsOp("3_1_1", "")); // child off
        QVERIFY(!c.selection.selectsOp("1", "")); // ids replaced
        QCOMPARE(c.selection.devices, (std::vector<int>{0, 1}));
        QCOMPARE(c.warnings.size(), size_t(1));
        auto off = applyDynamicConfig(R"({"dump_enable":"false"})", base);
        QVERIFY(!off.selection.selectsRound(0));
        QVERIFY(off.selection.selectsOp("1", "")); // untouched keys keep the base
    }

    void badDynamicConfig_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("malformed") << "{\"ids\": "
                                   << "not valid JSON";
        QTest::newRow("array") << "[1]"
                               << "object";
        QTest::newRow("number") << "{\"er\": 3}"
                                << "'er'";
        QTest::newRow("bad er") << "{\"er\": \"3\"}"
                                << "er:";
        QTest::newRow("bad ids") << "{\"ids\": \"x\"}"
                                 << "ids:";
        QTest::newRow("bad enable") << "{\"dump_enable\": \"yes\"}"
                                    << "dump_enable";
    }
    void badDynamicConfig()
    {
        QFETCH(QString, json);
        QFETCH(QString, mentions);
        try {
            applyDynamicConfig(json.toStdString(), Selection{});
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }

    void missingConfigFile()
    {
        QVERIFY_THROWS_EXCEPTION(Error, loadDynamicConfig("/nonexistent/config.json", Selection{}));
    }
};

QTEST_GUILESS_MAIN(TstSelection)
#include "tst_selection.moc"
