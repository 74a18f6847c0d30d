// The cursor the views share: a pick travels once (the view that made it is not told, every
// other view follows), setting what is there says nothing, and the round set anywhere is the
// round the heatmap shows. Real widgets, driven by clicks.
#include <QCheckBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTest>
#include <QTreeView>

#include "document/cursor.h"
#include "document/session_document.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"
#include "views/layer_graph_view.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"

using namespace llmscope;

namespace {
live::Topology topology()
{
    live::Topology t;
    t.groups = {{"0", "Layer0", "DecoderLayer", {}, ""}, {"1", "Layer1", "DecoderLayer", {}, ""}};
    t.ops = {{"0_0", "norm-0", "RMS_NORM", {}, ""},
             {"0_1", "ffn_out-0", "MUL_MAT", {}, ""},
             {"1_0", "norm-1", "RMS_NORM", {}, ""},
             {"1_1", "ffn_out-1", "MUL_MAT", {}, ""}};
    return t;
}
live::RoundStats round(int64_t r)
{
    live::RoundStats s{r, {}};
    for (const char *id : {"0_0", "0_1", "1_0", "1_1"})
        s.stats.push_back({id, 1.0 + double(r), -1, 0, 2, 0, 0});
    return s;
}
} // namespace

class TstCursor : public QObject {
    Q_OBJECT
private slots:
    void settingWhatIsThereSaysNothing()
    {
        Cursor c;
        QSignalSpy op(&c, &Cursor::opChanged), rnd(&c, &Cursor::roundChanged), cmp(&c, &Cursor::comparedChanged);
        c.setOp("1_1");
        c.setOp("1_1");
        c.setOp(""); // nothing picked is not a pick
        c.setRound(3);
        c.setRound(3);
        c.setRound(-7); // no such round
        c.setCompared(2);
        c.setCompared(2);
        QCOMPARE(op.count(), 1);
        QCOMPARE(rnd.count(), 1);
        QCOMPARE(cmp.count(), 1);
        c.reset();
        QCOMPARE(c.op(), QString());
        QCOMPARE(c.round(), qint64(-1));
        QCOMPARE(c.compared(), -1);
        QCOMPARE(op.count(), 1); // silently
    }

    // A click in the heatmap: the cursor names the heatmap, the tree and the graph follow,
    // and the heatmap is not told its own pick back. A click in the tree: the heatmap follows.
    void aPickTravelsOnce()
    {
        Cursor c;
        OpTreePanel tree;
        HeatmapView heat;
        OpColours colours;
        LayerGraphView graph(&colours);
        const live::Topology t = topology();
        tree.model()->setGraph(OpGraph(t));
        heat.model()->setOps(OpGraph(t));
        graph.setGraph(std::make_shared<const OpGraph>(t));
        tree.follow(&c);
        heat.follow(&c);
        graph.follow(&c);
        tree.show();
        heat.show();
        QVERIFY(QTest::qWaitForWindowExposed(&heat));
        QSignalSpy picks(&c, &Cursor::opChanged);
        const QModelIndex cell = heat.model()->indexForOp("1_1");
        QTableView *table = heat.table();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        QCOMPARE(picks.count(), 1);
        QCOMPARE(picks.at(0).at(0).toString(), QString("1_1"));
        QCOMPARE(picks.at(0).at(1).value<const QObject *>(), static_cast<const QObject *>(&heat));
        QCOMPARE(tree.currentOpId(), QString("1_1"));
        QCOMPARE(graph.layer(), QString("1"));
        QCOMPARE(picks.count(), 1); // the tree's following did not pick again

        QTreeView *view = tree.view();
        const QModelIndex other = view->model()->index(0, 0, view->model()->index(0, 0, view->model()->index(0, 0)));
        QCOMPARE(other.data(OpTreeModel::OpIdRole).toString(), QString("0_0"));
        view->scrollTo(other);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(other).center());
        QCOMPARE(c.op(), QString("0_0"));
        QCOMPARE(picks.count(), 2);
        QCOMPARE(picks.at(1).at(1).value<const QObject *>(), static_cast<const QObject *>(&tree));
        QCOMPARE(table->currentIndex(), heat.model()->indexForOp("0_0"));
        QCOMPARE(graph.layer(), QString("0"));
    }

    // A search that hides the picked op is not a pick: the cursor keeps it, no other row looks
    // picked, and it is picked again in the tree once the search lets it through.
    void searchingIsNotPicking()
    {
        Cursor c;
        OpTreePanel tree;
        tree.model()->setGraph(OpGraph(topology()));
        tree.follow(&c);
        tree.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        c.setOp("1_1");
        QCOMPARE(tree.currentOpId(), QString("1_1"));
        QSignalSpy picks(&c, &Cursor::opChanged);
        tree.searchEdit()->setFocus();
        QTest::keyClicks(tree.searchEdit(), "norm"); // ffn_out-1 is searched out
        QCOMPARE(tree.view()->model()->rowCount(tree.view()->model()->index(0, 0)), 2); // both layers' norms
        QCOMPARE(c.op(), QString("1_1"));
        QCOMPARE(picks.count(), 0);
        QCOMPARE(tree.currentOpId(), QString()); // no neighbour stands in for it
        tree.searchEdit()->clear();
        QCOMPARE(tree.currentOpId(), QString("1_1"));
        QCOMPARE(picks.count(), 0);
        // Picked while searched out (from another view), it shows once the search lets it through.
        QTest::keyClicks(tree.searchEdit(), "norm-0");
        c.setOp("0_1");
        QCOMPARE(tree.currentOpId(), QString());
        tree.searchEdit()->clear();
        QCOMPARE(tree.currentOpId(), QString("0_1"));
        // Picked elsewhere, an op the tree lacks: no row stays picked, and a click on the one
        // picked before is a pick again (not swallowed as already current).
        c.setOp("9_9");
        QCOMPARE(tree.currentOpId(), QString());
        QTest::keyClicks(tree.searchEdit(), "x");
        tree.searchEdit()->clear();
        QCOMPARE(tree.currentOpId(), QString());
        {
            QTreeView *view = tree.view();
            const QModelIndex layer0 = view->model()->index(0, 0, view->model()->index(0, 0));
            const QModelIndex ffn0 = view->model()->index(1, 0, layer0);
            QCOMPARE(ffn0.data(OpTreeModel::OpIdRole).toString(), QString("0_1"));
            view->scrollTo(ffn0);
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(ffn0).center());
            QCOMPARE(c.op(), QString("0_1"));
        }
        // A pick in the filtered tree is a pick.
        QTest::keyClicks(tree.searchEdit(), "norm-1");
        QTreeView *view = tree.view();
        const QModelIndex norm = view->model()->index(0, 0, view->model()->index(0, 0, view->model()->index(0, 0)));
        QCOMPARE(norm.data(OpTreeModel::OpIdRole).toString(), QString("1_0"));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(norm).center());
        QCOMPARE(c.op(), QString("1_0"));
    }

    // The round has one owner: set anywhere (a replay's first failure), the heatmap shows it;
    // picked on the heatmap's slider, the cursor has it.
    void theRoundHasOneOwner()
    {
        Cursor c;
        HeatmapView heat;
        SessionDocument doc;
        heat.colours()->follow(&doc);
        const live::Topology t = topology();
        heat.model()->setOps(OpGraph(t));
        for (int64_t r : {0, 1, 2})
            doc.addRounds({{}, {round(r)}});
        heat.follow(&c);
        c.setRound(1);
        QCOMPARE(heat.colours()->round(), int64_t(1));
        QCOMPARE(heat.roundSlider()->value(), 1);
        QVERIFY(heat.roundSlider()->isEnabled());
        QSignalSpy rounds(&c, &Cursor::roundChanged);
        heat.roundSlider()->setValue(2);
        QCOMPARE(c.round(), qint64(2));
        QCOMPARE(rounds.count(), 1);
        QCOMPARE(rounds.at(0).at(1).value<const QObject *>(), static_cast<const QObject *>(&heat));
        c.setRound(-1); // the newest, following
        QCOMPARE(heat.colours()->round(), int64_t(2));
        QVERIFY(!heat.roundSlider()->isEnabled());
    }
};

QTEST_MAIN(TstCursor)
#include "tst_cursor.moc"
