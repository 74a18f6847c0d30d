// The operation tree: built from a live topology and from msit's model JSON, checked as a
// printed tree (KDAB hotspot's model tests' style), under QAbstractItemModelTester; ids and
// boxes agree both ways; statistics and acknowledged selections land on the right ops.
#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include "core/dump/topology.h"
#include "core/util/error.h"
#include "tests/views/model_print.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"

using namespace llmscope;

namespace {

live::Topology sampleTopology()
{
    live::Topology t;
    t.round = 0;
    t.groups = {{"0", "Embedding", "Embedding", {}, ""},
                {"1", "Layer0", "DecoderLayer", {}, ""},
                {"2", "OutputHead", "OutputHead", {}, ""}};
    t.ops = {{"0_0", "inp_embd", "GET_ROWS", {1, 64}, "f32"},    {"1_0", "norm-0", "RMS_NORM", {1, 64}, "f32"},
             {"1_1", "attn_norm-0", "MUL", {1, 64}, "f32"},      {"1_2", "Qcur-0", "MUL_MAT", {1, 64}, "f32"},
             {"2_0", "result_norm", "RMS_NORM", {1, 64}, "f32"}, {"2_1", "result_output", "MUL_MAT", {1, 259}, "f32"}};
    return t;
}

// The model as indented text: id, name, type, shape, check state, last column.
QString printTree(const QAbstractItemModel &m, const QModelIndex &parent = {}, int depth = 0)
{
    QString out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        QStringList cells;
        for (int c : {int(OpTreeModel::IdColumn), int(OpTreeModel::NameColumn), int(OpTreeModel::TypeColumn),
                      int(OpTreeModel::ShapeColumn), int(OpTreeModel::MaxColumn), int(OpTreeModel::DumpedColumn)}) {
            const QString v = i.siblingAtColumn(c).data().toString();
            if (!v.isEmpty())
                cells << v;
        }
        const QVariant check = i.data(Qt::CheckStateRole);
        if (check.isValid())
            cells << (check.toInt() == Qt::Checked ? QStringLiteral("[x]") : QStringLiteral("[ ]"));
        out += QString(depth * 2, QLatin1Char(' ')) + cells.join(QLatin1Char(' ')) + QLatin1Char('\n');
        out += printTree(m, i, depth + 1);
    }
    return out;
}

} // namespace

class TstOpTreeModel : public QObject {
    Q_OBJECT
private slots:
    // An opened dump's tree, printed: the model, its layer, each node with its type; the
    // output shapes and types its files bring (a quantized payload by its elements), even
    // when the files came before the tree; and what the search box matches (the weights read).
    void printedTreeWithShapesFromFiles()
    {
        llmscope::TopoNode model;
        model.name = "GgmlGraph";
        llmscope::TopoNode layer;
        layer.name = "Layer0";
        layer.type = "DecoderLayer";
        layer.id = "0";
        llmscope::TopoNode norm, down;
        norm.name = "norm-0";
        norm.type = "RMS_NORM";
        norm.id = "0_0";
        norm.inTensors = {"embd"};
        norm.outTensors = {"norm-0"};
        down.name = "ffn_out-0";
        down.type = "MUL_MAT";
        down.id = "0_1";
        down.inTensors = {"blk.0.ffn_down.weight", "norm-0"};
        down.outTensors = {"ffn_out-0"};
        layer.children = {norm, down};
        model.children = {layer};
        llmscope::DumpIndex files;
        llmscope::TensorRecord out;
        out.opId = "0_1";
        out.input = false;
        out.dims = {3, 8};
        out.dtype = 0;
        files.tensors.push_back(out);
        llmscope::TensorRecord q = out; // a quantized output: its bytes' dims, its elements' engine dims
        q.opId = "0_0";
        q.dims = {34};
        q.engineDims = {1, 32};
        q.engineType = "q8_0";
        files.tensors.push_back(q);
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.addOutputs(files); // before the tree, as a scan without an early topology brings them
        m.setGraph(OpGraph(model));
        QCOMPARE(testing::printModel(m,
                                     {OpTreeModel::IdColumn, OpTreeModel::NameColumn, OpTreeModel::TypeColumn,
                                      OpTreeModel::ShapeColumn, OpTreeModel::DTypeColumn}),
                 QString("GgmlGraph\n"
                         "  0 | Layer0 (blk.0) | DecoderLayer\n"
                         "    0_0 | norm-0 | RMS_NORM | [1, 32] | q8_0\n"
                         "    0_1 | ffn_out-0 | MUL_MAT | [3, 8] | float32"));
        // a layer's group says its three numbers together: its ids, llama.cpp's layer, its weights
        const QString layerTip =
            m.indexForId("0").siblingAtColumn(OpTreeModel::NameColumn).data(Qt::ToolTipRole).toString();
        QCOMPARE(layerTip,
                 QString("Operation group 0 is llama.cpp's layer 0: its operations are 0_0, 0_1, ..., its nodes' "
                         "names end in -0 and its weights are blk.0.*"));
        const QString downText = m.indexForId("0_1").data(OpTreeModel::SearchTextRole).toString();
        QVERIFY2(downText.contains("blk.0.ffn_down.weight"), qPrintable(downText));
        QVERIFY(!downText.contains("norm-0 ")); // an op's output is no weight
        QVERIFY(m.indexForId("0_0").data(OpTreeModel::SearchTextRole).toString().contains("embd"));
    }

    void liveTopologyAsATree()
    {
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setGraph(OpGraph(sampleTopology()));
        QCOMPARE(m.opCount(), 9);
        QCOMPARE(printTree(m),
                 QString("Model GgmlGraph\n"
                         "  0 Embedding Embedding [ ]\n"
                         "    0_0 inp_embd GET_ROWS [1, 64] [ ]\n"
                         "  1 Layer0 (blk.0) DecoderLayer [ ]\n"
                         "    1_0 norm-0 RMS_NORM [1, 64] [ ]\n"
                         "    1_1 attn_norm-0 MUL [1, 64] [ ]\n"
                         "    1_2 Qcur-0 MUL_MAT [1, 64] [ ]\n"
                         "  2 OutputHead OutputHead [ ]\n"
                         "    2_0 result_norm RMS_NORM [1, 64] [ ]\n"
                         "    2_1 result_output MUL_MAT [1, 259] [ ]\n"));
    }

    void idsAndBoxesAgree()
    {
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setIdsText("1_2,9_9"); // before the ops are known: kept
        m.setGraph(OpGraph(sampleTopology()));
        QCOMPARE(m.idsText(), QString("1_2,9_9"));
        QCOMPARE(m.indexForId("1_2").data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
        QSignalSpy changed(&m, &OpTreeModel::checkedIdsChanged);
        QVERIFY(m.setData(m.indexForId("2"), Qt::Checked, Qt::CheckStateRole)); // the head, children with it
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toString(), QString("1_2,2,9_9"));
        QCOMPARE(m.indexForId("2_1").data(Qt::CheckStateRole).toInt(), int(Qt::Checked)); // through its parent
        QVERIFY(!(m.flags(m.indexForId("2_1")) & Qt::ItemIsUserCheckable));
        m.setIdsText("0,1_1");
        QCOMPARE(m.checkedIds(), (QStringList{"0", "1_1"}));
        QCOMPARE(m.indexForId("2_1").data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        try {
            m.setIdsText("1_x");
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY(QString(e.what()).contains("'1_x' is not an operation id"));
        }
        QCOMPARE(m.idsText(), QString("0,1_1")); // unchanged by bad text
        m.setGraph(OpGraph(sampleTopology())); // the graph again (decode after the prompt): choices stay
        QCOMPARE(m.idsText(), QString("0,1_1"));
    }

    void statsAndAppliedSelectionLand()
    {
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setGraph(OpGraph(sampleTopology()));
        m.setRoundStats({4, {{"1_2", 2.5, -1, 0.1, 9, 0, 0}, {"2_1", NAN, 0, 0, 0, 1, 0}, {"7_7", 1, 1, 1, 1, 0, 0}}});
        QCOMPARE(m.indexForId("1_2").siblingAtColumn(OpTreeModel::MaxColumn).data().toString(), QString("2.5"));
        QVERIFY(m.indexForId("2_1").data(OpTreeModel::HasNanInfRole).toBool());
        QVERIFY(!m.indexForId("1_2").data(OpTreeModel::HasNanInfRole).toBool());
        Selection sel;
        sel.ids = OpIds::parse("1_2,2");
        sel.rounds = Rounds::all();
        m.setApplied(sel, 12);
        const QString tree = printTree(m);
        QVERIFY2(tree.contains("1_2 Qcur-0 MUL_MAT [1, 64] 2.5 from round 12"), qPrintable(tree));
        QVERIFY2(tree.contains("2_0 result_norm RMS_NORM [1, 64] from round 12"), qPrintable(tree));
        QVERIFY2(tree.contains("1_1 attn_norm-0 MUL [1, 64] [ ]"), qPrintable(tree)); // not dumped
        // Each op's backend: from the live topology, or an opened dump's kernel CSV by id.
        QVERIFY(!m.hasBackends()); // nothing said which: the panel hides the column
        auto t = sampleTopology();
        t.ops[0].backend = "CPU";
        m.setGraph(OpGraph(t));
        QVERIFY(m.hasBackends());
        QCOMPARE(m.indexForId(QString::fromStdString(t.ops[0].id))
                     .siblingAtColumn(OpTreeModel::BackendColumn)
                     .data()
                     .toString(),
                 QString("CPU"));
        OpGraph named(t);
        named.nameBackends({{"1_2", "Vulkan0"}, {"9_9", "CPU"}, {"1_1", ""}}); // an op not in the graph, a blank
        m.setGraph(named);
        QCOMPARE(m.indexForId("1_2").siblingAtColumn(OpTreeModel::BackendColumn).data().toString(), QString("Vulkan0"));
        QCOMPARE(m.indexForId(QString::fromStdString(t.ops[0].id))
                     .siblingAtColumn(OpTreeModel::BackendColumn)
                     .data()
                     .toString(),
                 QString("CPU")); // not named: keeps its own
        QVERIFY(!m.indexForId("9_9").isValid());
        // a layer says where its ops ran, so a collapsed tree shows it (a model split over an RPC server)
        QCOMPARE(m.indexForId("1").siblingAtColumn(OpTreeModel::BackendColumn).data().toString(), QString("Vulkan0"));
        named.nameBackends({{"1_0", "CPU"}, {"1_2", "RPC0[127.0.0.1:50052]"}});
        m.setGraph(named);
        QCOMPARE(m.indexForId("1").siblingAtColumn(OpTreeModel::BackendColumn).data().toString(),
                 QString("CPU, RPC0[127.0.0.1:50052]"));
        QCOMPARE(m.headerData(OpTreeModel::BackendColumn, Qt::Horizontal).toString(), QString("Backend"));
    }

    // msit's model JSON (an ATB model): the same tree, ids from position.
    void msitModelFile()
    {
        const TopoNode model = readTopologyFile(LLMSCOPE_TESTDATA "/msit/Bloom7BFlashAttentionModel.json");
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setGraph(OpGraph(model));
        QCOMPARE(m.opCount(), int(model.countNodes()) - 1);
        const QModelIndex root = m.index(0, 0);
        QCOMPARE(root.data().toString(), QString::fromStdString(model.name));
        QCOMPARE(m.indexForId("0").data().toString(), QString("0")); // Bloom7bCommonLayer_3
        QCOMPARE(m.indexForId("0").siblingAtColumn(OpTreeModel::TypeColumn).data().toString(), QString("BloomLayer"));
        QVERIFY(m.indexForId("0_10").isValid());
        m.setIdsText("0_1");
        QCOMPARE(m.idsText(), QString("0_1"));
    }

    // msit's PyTorch model_tree.json: modules as the tree, ids from position.
    void torchModelTree()
    {
        const TopoNode model = readTopologyFile(LLMSCOPE_TESTDATA "/msit/model_tree.json");
        OpTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setGraph(OpGraph(model));
        QCOMPARE(m.opCount(), int(model.countNodes()) - 1);
        QVERIFY(m.opCount() > 3);
        const QModelIndex first = m.indexForId("0");
        QCOMPARE(first.siblingAtColumn(OpTreeModel::NameColumn).data().toString(),
                 QString::fromStdString(model.children.at(0).name));
    }

    // The panel: typing ids checks boxes, Space on an op checks it and writes the text,
    // Apply hands the text over.
    void panelKeepsTextAndBoxesInStep()
    {
        OpTreePanel panel;
        panel.model()->setGraph(OpGraph(sampleTopology()));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.idsEdit()->setFocus();
        QTest::keyClicks(panel.idsEdit(), "1_1,2");
        QCOMPARE(panel.model()->checkedIds(), (QStringList{"1_1", "2"}));
        QTest::keyClicks(panel.idsEdit(), "_x");
        QVERIFY(panel.idsEdit()->styleSheet().contains("ffe0e0")); // marked, boxes unchanged
        QCOMPARE(panel.model()->checkedIds(), (QStringList{"1_1", "2"}));
        panel.idsEdit()->clear();
        QTest::keyClicks(panel.idsEdit(), "1_1");
        QTreeView *v = panel.view();
        v->expandAll();
        panel.selectOp("1_2");
        v->setFocus();
        QTest::keyClick(v, Qt::Key_Space);
        QCOMPARE(panel.idsEdit()->text(), QString("1_1,1_2"));
        panel.setApplyEnabled(true);
        QSignalSpy apply(&panel, &OpTreePanel::applyRequested);
        QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
        QCOMPARE(apply.count(), 1);
        QCOMPARE(apply.at(0).at(0).toString(), QString("1_1,1_2"));
        panel.searchEdit()->setText("qcur");
        QCOMPARE(v->model()->rowCount(v->model()->index(0, 0)), 1); // only Layer0 keeps a match
    }
};

QTEST_MAIN(TstOpTreeModel)
#include "tst_optreemodel.moc"
