#include <QTest>

#include <algorithm>
#include <functional>

#include "core/dump/topology.h"
#include "core/graph/op_graph.h"
#include "core/util/error.h"

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

    // One graph type whatever told of the ops: the same lookups, folders and tree for an msit
    // model file, a PyTorch model tree and the probe's live topology.
    void oneGraphFromEverySource()
    {
        const OpGraph msit(readTopologyFile(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json"));
        QCOMPARE(msit.modelName(), std::string("Bloom7BFlashAttentionModel"));
        QCOMPARE(msit.size(), size_t(1 + 11 + 2 + 3 + 2 + 2)); // every node but the model
        QCOMPARE(msit.groups(), std::vector<int>{0});
        QCOMPARE(msit.ops()[0].children.size(), size_t(11));
        const GraphOp *elew = msit.find("0_4_1");
        QVERIFY(elew);
        QCOMPARE(elew->name, std::string("ElewiseOperation_3_4_1"));
        QCOMPARE(elew->folder,
                 std::string("0_BloomLayer/4_") + msit.ops()[size_t(elew->parent)].type + "/1_ElewiseOperation");
        QCOMPARE(msit.ops()[size_t(elew->parent)].id, std::string("0_4"));
        QVERIFY(!msit.find("0_99"));
        QCOMPARE(msit.indexOf("0_99"), -1);
        // Inputs by tensor name: the second op reads what the first outputs; the layer's weights
        // are read by no op that computes them.
        const GraphOp &second = *msit.find("0_1");
        QVERIFY(std::any_of(second.inputs.begin(), second.inputs.end(), [](const auto &i) { return i.op == "0_0"; }));
        QVERIFY(std::any_of(msit.ops()[0].inputs.begin(), msit.ops()[0].inputs.end(),
                            [](const auto &i) { return i.op.empty(); }));
        for (size_t i = 0; i < msit.size(); ++i) // parents come before their children
            QVERIFY(msit.ops()[i].parent < int(i));

        const OpGraph torch(readTopologyFile(LLMSCOPE_TESTDATA "/msit/model_tree.json"));
        QCOMPARE(torch.modelName(), std::string("root.transformer.h.2"));
        QCOMPARE(torch.ops()[0].name, std::string("root.transformer.h.2.input_layernorm"));
        QCOMPARE(torch.ops()[0].folder, std::string("0_LayerNorm"));
        const GraphOp *dense = torch.find("1_2");
        QVERIFY(dense);
        QCOMPARE(dense->name, std::string("root.transformer.h.2.self_attention.dense"));
        QCOMPARE(dense->folder, std::string("1_BloomAttention/2_Linear"));

        live::Topology t;
        t.groups = {{"0", "Embedding", "Embedding", {}, ""}, {"1", "Layer0", "DecoderLayer", {}, ""}};
        t.ops = {{"0_0", "inp_embd", "GET_ROWS", {2, 8}, "float32", {{"", "token_embd.weight"}}, "CPU"},
                 {"1_0", "norm-0", "RMS_NORM", {2, 8}, "float32", {{"0_0", "inp_embd"}}, "Vulkan0"},
                 {"7_0", "stray", "ADD", {}, "", {}}}; // its group was never named: at the top
        const OpGraph live(t);
        QCOMPARE(live.modelType(), std::string("GgmlGraph"));
        QCOMPARE(live.size(), size_t(5));
        QCOMPARE(live.groups(), (std::vector<int>{0, 1}));
        QCOMPARE(live.top(), (std::vector<int>{0, 1, 4}));
        QCOMPARE(live.find("1_0")->folder, std::string("1_DecoderLayer/0_RMS_NORM"));
        QCOMPARE(live.find("1_0")->backend, std::string("Vulkan0"));
        QCOMPARE(live.find("1_0")->shape, (std::vector<int64_t>{2, 8}));
        QCOMPARE(live.find("1_0")->inputs[0].op, std::string("0_0"));
        QCOMPARE(live.ops()[1].children, std::vector<int>{3});
        QCOMPARE(live.find("7_0")->parent, -1);
        // A dump's fusion record marks its chain's ops where id and name are the record's: a
        // record of another graph (decode's against the prompt's topology) marks nothing wrong.
        OpGraph marked(t);
        FusedChainRecord chain;
        chain.ids = {"1_0", "7_0"};
        chain.names = {"norm-0", "attn_norm-0"}; // 7_0 is "stray" in this graph
        chain.types = "RMS_NORM+MUL";
        chain.backend = "CPU";
        marked.markFused({chain});
        QCOMPARE(marked.find("1_0")->fusedChain, std::string("RMS_NORM+MUL"));
        QCOMPARE(marked.find("1_0")->fusedLast, std::string("7_0"));
        QVERIFY(marked.find("7_0")->fusedChain.empty());
        QVERIFY(marked.find("0_0")->fusedChain.empty());
        QVERIFY(!marked.find("1_0")->fusedOutput);
        // a kernel with two outputs: the inner one is marked as written
        OpGraph routed(t);
        chain.names = {"norm-0", "stray"};
        chain.outputs = {"1_0"};
        routed.markFused({chain});
        QVERIFY(routed.find("1_0")->fusedOutput);
        QVERIFY(!routed.find("7_0")->fusedOutput);
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
