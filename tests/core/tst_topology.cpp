#include <QTest>

#include <functional>

#include "dump/topology.h"
#include "util/error.h"

using namespace llmscope;

class TstTopology : public QObject {
    Q_OBJECT
private slots:
    void realMsitModelFile()
    {
        const TopoNode m = readTopologyFile(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json");
        QCOMPARE(m.name, std::string("Bloom7BFlashAttentionModel"));
        QCOMPARE(m.children.size(), size_t(1));
        const TopoNode &layer = m.children[0];
        QCOMPARE(layer.name, std::string("Bloom7bCommonLayer_3"));
        QCOMPARE(layer.type, std::string("BloomLayer"));
        QCOMPARE(layer.children.size(), size_t(11));
        QCOMPARE(layer.inTensors.size(), size_t(24));
        QCOMPARE(m.countNodes(), size_t(1 + 1 + 11 + 2 + 3 + 2 + 2));
        const TopoNode *elew = m.find("0_4_1");
        QVERIFY(elew);
        QCOMPARE(elew->name, std::string("ElewiseOperation_3_4_1"));
        QCOMPARE(elew->folderName(), std::string("1_ElewiseOperation"));
        QVERIFY(m.find("0_0")->paramJson.find("epsilon") != std::string::npos);
        QVERIFY(!m.find("0_99"));
        // Writing and reading back keeps the shape.
        const TopoNode again = parseModelTopology(writeModelTopology(m));
        QCOMPARE(again.countNodes(), m.countNodes());
        QCOMPARE(again.find("0_7_2_1")->name, m.find("0_7_2_1")->name);
        QCOMPARE(again.find("0_0")->paramJson, m.find("0_0")->paramJson);
    }

    void realTorchModelTree()
    {
        const TopoNode t = readTopologyFile(LLMSCOPE_TESTDATA "/msit/model_tree.json");
        QCOMPARE(t.name, std::string("root.transformer.h.2"));
        QCOMPARE(t.type, std::string("BloomLayer"));
        QVERIFY(t.countNodes() > 5);
        QCOMPARE(t.children[0].name, std::string("root.transformer.h.2.input_layernorm"));
        QCOMPARE(t.children[0].id, std::string("0"));
    }

    void layerFileRoundTrip()
    {
        TopoNode op;
        op.name = "Layer_0";
        op.type = "DecoderLayer";
        op.inTensors = {"Layer_0_input_0"};
        op.outTensors = {"Layer_0_output_0"};
        TopoNode child;
        child.name = "norm-0";
        child.type = "RMS_NORM";
        child.paramJson = R"({"eps":1e-05})";
        op.children.push_back(child);
        const TopoNode r = parseLayerTopology(writeLayerTopology(op));
        QCOMPARE(r.name, op.name);
        QCOMPARE(r.children.size(), size_t(1));
        QCOMPARE(r.children[0].id, std::string("0"));
        QCOMPARE(r.children[0].paramJson, child.paramJson);
    }

    void malformed_data()
    {
        QTest::addColumn<int>("kind"); // 0 model, 1 layer, 2 model_tree
        QTest::addColumn<QString>("json");
        QTest::newRow("not json") << 0 << "{\"modelName\": ";
        QTest::newRow("nodes not list") << 0 << R"({"modelName":"m","nodes":3})";
        QTest::newRow("tensor not string") << 0 << R"({"modelName":"m","nodes":[{"opName":"a","inTensors":[1]}]})";
        QTest::newRow("node not object") << 0 << R"({"modelName":"m","nodes":[7]})";
        QTest::newRow("opName number") << 1 << R"({"opName":5})";
        QTest::newRow("layer without opName") << 1 << R"({"foo":1})";
        QTest::newRow("children not list") << 2 << R"({"name":"a","children":{}})";
        QTest::newRow("array") << 2 << "[]";
    }
    void malformed()
    {
        QFETCH(int, kind);
        QFETCH(QString, json);
        const std::string text = json.toStdString();
        const std::function<TopoNode(const std::string &)> parsers[] = {parseModelTopology, parseLayerTopology,
                                                                        parseTorchModelTree};
        QVERIFY_THROWS_EXCEPTION(Error, parsers[kind](text));
    }

    void deepNestingIsRefused()
    {
        std::string s;
        for (int i = 0; i < 100; ++i)
            s += R"({"opName":"x","nodes":[)";
        s += "{}";
        for (int i = 0; i < 100; ++i)
            s += "]}";
        QVERIFY_THROWS_EXCEPTION(Error, parseLayerTopology(s));
    }
};

QTEST_GUILESS_MAIN(TstTopology)
#include "tst_topology.moc"
