// The live channel's messages: every type survives encode and decode, bad lines say what is
// wrong, and a Select turns into the same selection the command line's options give.
#include <QTest>

#include <cmath>

#include "core/live/live_protocol.h"
#include "core/util/error.h"

using namespace llmscope;
using namespace llmscope::live;

class TstLiveProtocol : public QObject {
    Q_OBJECT
private slots:
    void everyMessageRoundTrips()
    {
        const Hello h{kProtocolVersion, 4242, "ggml", "CPU", "/bin/x"};
        const auto h2 = std::get<Hello>(decode(encode(h)));
        QCOMPARE(h2.pid, int64_t(4242));
        QCOMPARE(h2.device, std::string("CPU"));
        Topology t{
            3,
            99,
            {{"1", "Layer0", "DecoderLayer", {}, ""}},
            {{"1_2", "Qcur-0", "MUL_MAT", {18, 256}, "f32", {{"", "blk.0.attn_q.weight"}, {"1_1", "attn_norm-0"}}}}};
        const auto t2 = std::get<Topology>(decode(encode(t)));
        QCOMPARE(t2.ops.at(0).inputs, t.ops.at(0).inputs);
        t.ops[0].backend = "Vulkan0";
        QCOMPARE(std::get<Topology>(decode(encode(t))).ops.at(0).backend, std::string("Vulkan0"));
        QCOMPARE(t2.ops.at(0).backend, std::string()); // optional: peers without it send none
        QVERIFY(t2.ops.at(0).fusedChain.empty() && encode(t).find("fused") == std::string::npos); // alone: no field
        t.ops[0].fusedChain = "RMS_NORM+MUL";
        t.ops[0].fusedLast = "1_3";
        const TopoOp fused = std::get<Topology>(decode(encode(t))).ops.at(0);
        QCOMPARE(fused.fusedChain, std::string("RMS_NORM+MUL"));
        QCOMPARE(fused.fusedLast, std::string("1_3"));
        QVERIFY_THROWS_EXCEPTION(llmscope::Error,
                                 decode(R"({"type":"topology","round":0,"key":1,"groups":[],)"
                                        R"("ops":[{"id":"1_0","name":"x","type":"ADD","fused":3}]})"));
        QVERIFY(std::get<Topology>(decode(encode(Topology{0, 1, {}, {{"1_0", "x", "ADD", {}, ""}}})))
                    .ops[0]
                    .inputs.empty());
        QCOMPARE(t2.round, int64_t(3));
        QCOMPARE(t2.key, uint64_t(99));
        QCOMPARE(t2.ops.at(0).shape, (std::vector<int64_t>{18, 256}));
        QCOMPARE(t2.groups.at(0).type, std::string("DecoderLayer"));
        const auto r = std::get<Round>(decode(encode(Round{7, 99, true, "inline", 25})));
        QVERIFY(r.dumped && r.read == "inline" && r.opsSelected == 25);
        RoundStats s{7, {{"1_0", 3.5, -2, 0.25, 10, 0, 0}, {"1_1", NAN, -INFINITY, INFINITY, 1, 3, 2}}};
        const auto s2 = std::get<RoundStats>(decode(encode(s)));
        QCOMPARE(s2.stats.size(), size_t(2));
        QCOMPARE(s2.stats[0].max, 3.5);
        QVERIFY(std::isnan(s2.stats[1].max) && std::isinf(s2.stats[1].min) && s2.stats[1].min < 0);
        QCOMPARE(s2.stats[1].nan, uint64_t(3));
        const auto a = std::get<Ack>(decode(encode(Ack{5, 12, ""})));
        QCOMPARE(a.fromRound, int64_t(12));
        const auto sel = std::get<Select>(decode(encode(Select{9, true, "2_29,3", "all", "mul", false, 1, 1})));
        QCOMPARE(sel.ids, std::string("2_29,3"));
        QVERIFY(!sel.child);
        QCOMPARE(std::get<Warning>(decode(encode(Warning{"x"}))).text, std::string("x"));
        QVERIFY(std::get<Goodbye>(decode(encode(Goodbye{false}))).finished == false);
        QCOMPARE(std::get<Refused>(decode(encode(Refused{"v2"}))).reason, std::string("v2"));
        const auto c = std::get<Counters>(decode(encode(Counters{1, 2, 3, 4, 5, 6, 7, 8})));
        QCOMPARE(c.dropped, uint64_t(8));
        QVERIFY(encode(h).back() == '\n' && encode(h).find('\n') == encode(h).size() - 1); // one line
    }

    void hostileTextStaysOneLine()
    {
        const std::string line = encode(Warning{"a\nb\"c\x01 \xff\xfe"}); // newline, quote, control, bad UTF-8
        QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1L);
        QVERIFY(std::get<Warning>(decode(line)).text.rfind("a\nb\"c\x01 ", 0) == 0);
    }

    void badLinesSayWhat_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << "{oops"
                                  << "not JSON";
        QTest::newRow("array") << "[1,2]"
                               << "not a JSON object";
        QTest::newRow("unknown") << R"({"type":"bogus"})"
                                 << "unknown message type 'bogus'";
        QTest::newRow("wrong type") << R"({"type":"ack","seq":"x"})"
                                    << "field 'seq' has the wrong type";
        QTest::newRow("bad stats") << R"({"type":"stats","round":1,"stats":[[1,2]]})"
                                   << "statistics entry";
        // numbers no integer type holds (found by fuzzing: converting them was undefined)
        QTest::newRow("huge key") << R"({"type":"topology","round":0,"key":55555555555555555555555555555})"
                                  << "field 'key' has the wrong type";
        QTest::newRow("fractional round") << R"({"type":"round","round":2.5})"
                                          << "field 'round' has the wrong type";
        QTest::newRow("negative count") << R"({"type":"stats","round":1,"stats":[["1_0",1,1,1,1,-1,0]]})"
                                        << "statistics entry";
        QTest::newRow("huge shape") << R"({"type":"topology","ops":[{"id":"1_0","shape":[1e300]}]})"
                                    << "field 'shape' has the wrong type";
        QTest::newRow("bad op") << R"({"type":"topology","ops":[5]})"
                                << "an op is not an object";
        QTest::newRow("bad inputs") << R"({"type":"topology","ops":[{"id":"1_0","inputs":{}}]})"
                                    << "not a list";
        QTest::newRow("bad input") << R"({"type":"topology","ops":[{"id":"1_0","inputs":[3]}]})"
                                   << "not an object";
    }
    void badLinesSayWhat()
    {
        QFETCH(QString, line);
        QFETCH(QString, message);
        try {
            decode(line.toStdString());
            QFAIL("decoded");
        } catch (const Error &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void selectIsTheCommandLinesSelection()
    {
        Selection base;
        base.devices = {0};
        const Selection s = selectionFrom(Select{1, true, "2_29,3", "all", "mul_mat", true, 3, 2}, base);
        QVERIFY(s.selectsOp("2_29", "X") && s.selectsOp("3_1", "X") && !s.selectsOp("2_3", "ADD"));
        QVERIFY(s.selectsOp("4_1", "MUL_MAT")); // by op name
        QVERIFY(s.rounds.isAll() && s.selectsRound(1000));
        QCOMPARE(s.devices, std::vector<int>{0}); // kept from the launch
        const Select back = selectFrom(s, 4);
        QCOMPARE(back.ids, std::string("2_29,3"));
        QCOMPARE(back.rounds, std::string("all"));
        QCOMPARE(back.opNames, std::string("mul_mat"));
        try {
            selectionFrom(Select{1, true, "2-29", "all", "", true, 3, 2}, base);
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).contains("'2-29' is not an operation id"));
        }
        try {
            selectionFrom(Select{1, true, "", "all", "", true, 7, 2}, base);
            QFAIL("accepted");
        } catch (const Error &) {
        }
    }
};

QTEST_GUILESS_MAIN(TstLiveProtocol)
#include "tst_liveprotocol.moc"
