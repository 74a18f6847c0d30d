#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QMenuBar>
#include <QScreen>
#include <QScrollBar>
#include <QToolBar>
#include <QToolButton>
#include <QSemaphore>
#include <QThreadPool>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QDockWidget>
#include <QSlider>
#include <QStatusBar>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocumentFragment>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QTranslator>
#include <QHeaderView>
#include <QTableView>
#include <QTreeView>
#include <QListWidget>
#include <QRegularExpression>
#include <QDirIterator>
#include <QScrollArea>

#include <QCoroTask>

#include <functional>

#include "app/hunt/hunt_dialog.h"
#include "app/session/launch_history.h"
#include "app/session/live_session.h"
#include "app/spread/spread_dialog.h"
#include "app/window/compare_dialog.h"
#include "app/window/help_menu.h"
#include "app/window/i18n.h"
#include "app/window/launch_dialog.h"
#include "app/window/main_window.h"
#include "app/workspace/job.h"
#include "app/workspace/workspace.h"
#include "core/dump/token_record.h"
#include "core/launch/dump_options.h"
#include "core/util/atomic_file.h"
#include "document/reason_words.h"
#include "document/session_document.h"
#include "tests/app/private_settings.h"
#include "tests/app/window_checks.h"
#include "tests/chain_dump.h"
#include "tests/test_helpers.h"
#include "views/console_view.h"
#include "views/counters_view.h"
#include "views/diff_table_model.h"
#include "views/diff_view.h"
#include "views/dump_tree_model.h"
#include "views/error_curve_view.h"
#include "views/files_page.h"
#include "views/heatmap_model.h"
#include "views/heatmap_view.h"
#include "views/op_tree_model.h"
#include "views/op_tree_panel.h"
#include "views/slice_picker.h"
#include "views/spread_view.h"
#include "views/start_page.h"
#include "views/tensor_diff_view.h"
#include "views/tensor_inspector.h"
#include "views/tensor_slice_model.h"

namespace {

// A golden and a test dump of one chained layer where only op 2 (Qcur-0, reading the weight
// w2.weight) is off by 5 %: the ops before and after it pass.
std::pair<QString, QString> chainPair(const QString &dir)
{
    static const testing::Chain chain{{{"norm-0", "RMS_NORM"},
                                       {"attn_norm-0", "MUL"},
                                       {"Qcur-0", "MUL_MAT"},
                                       {"Kcur-0", "MUL_MAT"},
                                       {"ffn_out-0", "MUL_MAT"}},
                                      {2}};
    const std::string golden = testing::writeChain((dir + "/golden").toStdString(), chain, [](size_t) { return 0.0; });
    const std::string test =
        testing::writeChain((dir + "/test").toStdString(), chain, [](size_t k) { return k == 2 ? 0.05 : 0.0; });
    return {QString::fromStdString(golden), QString::fromStdString(test)};
}

// The labels of a dialog whose text holds a mnemonic ("&Command:") but which no field takes
// it for: Qt shows their ampersand as it is.
QStringList literalAmpersands(const QWidget &w)
{
    QStringList out;
    for (const QLabel *l : w.findChildren<QLabel *>()) {
        const QString t = l->text();
        if (l->textFormat() == Qt::RichText || t.startsWith('<'))
            continue;
        const QString without = QString(t).replace("&&", "");
        if (without.contains('&') && !l->buddy())
            out << t;
    }
    return out;
}

} // namespace

class TstMainWindow : public QObject {
    Q_OBJECT
    testing::PrivateSettings m_settings; // first: before any QSettings is made
private slots:
    // Session > Hunt's dialog: every round unless told (the test consuming golden's tokens),
    // "all" or pairs accepted, anything else refused with the reason before a run starts.
    void huntDialogTakesEveryRound()
    {
        QSettings().remove("hunt");
        HuntDialog d;
        QCOMPARE(d.rounds(), QString("all"));
        // said as the placeholder in the window's language ("全部" in Chinese), as Spread's is
        QVERIFY(d.roundsEdit()->text().isEmpty());
        QCOMPARE(d.roundsEdit()->placeholderText(), QString("all"));
        d.goldenBox()->setEditText("/bin/true golden");
        d.testBox()->setEditText("/bin/true test");
        QTemporaryDir out;
        d.folderEdit()->setText(out.path());
        QPushButton *ok = d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        d.roundsEdit()->setText("1,x");
        ok->click();
        QVERIFY2(d.errorLabel()->text().startsWith("rounds: "), qPrintable(d.errorLabel()->text()));
        QCOMPARE(d.result(), int(QDialog::Rejected));
        d.roundsEdit()->setText("all");
        ok->click();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(QSettings().value("hunt/rounds").toString(), QString("all")); // remembered
        QSettings().remove("hunt");
    }

    // Session > Spread's dialog counts the runs it makes as they are typed, says what is
    // wrong before it runs, and remembers what was asked.
    void spreadDialogCountsItsRuns()
    {
        QSettings().remove("spread");
        SpreadDialog d;
        QCOMPARE(d.folderEdit()->text(), QDir::home().filePath("llmscope_spread")); // where the hunt's goes too
        QPushButton *run = d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY2(d.errorLabel()->text().isEmpty(),
                 qPrintable(d.errorLabel()->text())); // nothing typed is no mistake yet
        run->click();
        QCOMPARE(d.errorLabel()->text(), QString("Give at least one command line."));
        QCOMPARE(d.result(), int(QDialog::Rejected));
        d.commandsEdit()->setPlainText("no-such-program-xyz -m a.gguf"); // said before anything runs
        QVERIFY2(d.errorLabel()->text().startsWith(
                     "Line 1 cannot be run: cannot run 'no-such-program-xyz': not found in PATH"),
                 qPrintable(d.errorLabel()->text()));
        d.commandsEdit()->setPlainText("true -m a.gguf");
        QVERIFY2(d.errorLabel()->text().contains("at least two runs"), qPrintable(d.errorLabel()->text()));
        run->click();
        QCOMPARE(d.result(), int(QDialog::Rejected));
        d.varyEdit()->setText("-t");
        QVERIFY2(d.errorLabel()->text().contains("Vary needs a flag and its values"),
                 qPrintable(d.errorLabel()->text()));
        d.varyEdit()->setText("-t 1,4");
        d.repeatBox()->setValue(2);
        QCOMPARE(d.runsLabel()->text(), QString("4 run(s)"));
        QVERIFY(d.errorLabel()->text().isEmpty());
        spread::Request r;
        QString error;
        QVERIFY(d.request(&r, &error));
        const auto labels = [](const spread::Request &q) {
            std::vector<std::string> l;
            for (const spread::Run &x : q.runs())
                l.push_back(x.label());
            return l;
        };
        QCOMPARE(labels(r),
                 (std::vector<std::string>{"true -m a.gguf -t 1", "true -m a.gguf -t 1", "true -m a.gguf -t 4",
                                           "true -m a.gguf -t 4"}));
        QVERIFY(!r.tensors); // statistics first, by default
        QCOMPARE(spread::firstPass(r).mid(0, 3), QStringList({"--type", "model", "stats"}));
        QTest::mouseClick(d.tensorsBox(), Qt::LeftButton, {}, QPoint(8, d.tensorsBox()->height() / 2));
        QVERIFY(d.request(&r, &error) && r.tensors);
        QCOMPARE(spread::firstPass(r).mid(0, 3), QStringList({"--type", "model", "tensor"}));
        d.kvCacheBox()->click();
        QVERIFY(d.request(&r, &error) && r.kvCache);
        QVERIFY(spread::firstPass(r).contains("--kv-cache"));
        // One slot's request of each run (--seq 1): its rounds' tensors in one pass
        QCOMPARE(d.sequenceBox()->text(), QString("every request"));
        d.sequenceBox()->setFocus();
        QTest::keyClick(d.sequenceBox(), Qt::Key_Up);
        QTest::keyClick(d.sequenceBox(), Qt::Key_Up);
        QVERIFY(d.request(&r, &error));
        QCOMPARE(r.request.sequence, 1);
        QVERIFY(spread::firstPass(r).join(' ').contains("-seq 1"));
        d.sequenceBox()->setValue(-1);
        QVERIFY(d.request(&r, &error) && !r.request.chosen());
        // Fused and unfused: each run twice, the backends' own switches off for the second
        d.fusionBox()->click();
        QCOMPARE(d.runsLabel()->text(), QString("8 run(s)"));
        QVERIFY(d.request(&r, &error));
        QCOMPARE(labels(r).at(2), std::string("true -m a.gguf -t 1 [fusion off]"));
        QCOMPARE(r.runs().at(2).options(), QStringList({"--keep-fusion", "--no-fusion"}));
        QCOMPARE(r.runs().at(0).options(), QStringList({"--keep-fusion"}));
        QCOMPARE(r.runs().at(0).command, std::string("true -m a.gguf -t 1"));
        run->click();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        SpreadDialog again;
        QCOMPARE(again.varyEdit()->text(), QString("-t 1,4")); // remembered
        QCOMPARE(again.repeatBox()->value(), 2);
        QVERIFY(again.tensorsBox()->isChecked());
        QVERIFY(again.kvCacheBox()->isChecked());
        QVERIFY(again.fusionBox()->isChecked());
        QSettings().remove("spread");
        // A preset's program, its environment kept, added as a line.
        LaunchHistory::savePreset("two threads", "GGML_X=1 llmscope dump --exec 'true -m b.gguf -t 2' --type stats",
                                  "/tmp");
        const auto forget = qScopeGuard([] { LaunchHistory::removePreset("two threads"); });
        SpreadDialog withPreset;
        withPreset.commandsEdit()->clear();
        const int item = withPreset.addBox()->findText("preset: two threads");
        QVERIFY(item > 0);
        withPreset.addBox()->activated(item);
        QCOMPARE(withPreset.commandsEdit()->toPlainText(), QString("GGML_X=1 true -m b.gguf -t 2"));
        LaunchHistory::removePreset("two threads");
        QSettings().remove("spread");
    }

    // Hunt and Spread read a command line as Launch and `llmscope dump --exec` do: settings
    // first, as in a shell; each dialog's Environment field gives settings to every run, the
    // line's own win; a field that is not settings is refused with the reason.
    void dialogsReadSettingsAsAShellDoes()
    {
        QSettings().remove("hunt");
        QSettings().remove("spread");
        HuntDialog h;
        QTest::keyClicks(h.goldenBox()->lineEdit(), "A=golden /bin/true -x");
        QTest::keyClicks(h.testBox()->lineEdit(), "env A=test B='b b' /bin/true -y");
        QTest::keyClicks(h.environmentEdit(), "A=both C=3");
        HuntSide g, t;
        QString error;
        QVERIFY2(h.sides(&g, &t, &error), qPrintable(error));
        QCOMPARE(g.command, (std::vector<std::string>{"/bin/true", "-x"}));
        QCOMPARE(t.command, (std::vector<std::string>{"/bin/true", "-y"}));
        QCOMPARE(g.settings.environment.value("A"), QString("golden"));
        QCOMPARE(t.settings.environment.value("A"), QString("test"));
        QCOMPARE(t.settings.environment.value("B"), QString("b b"));
        QCOMPARE(g.settings.environment.value("C"), QString("3"));
        QCOMPARE(t.settings.environment.value("C"), QString("3"));
        h.environmentEdit()->setText("C=3 oops");
        QVERIFY(!h.sides(&g, &t, &error));
        QVERIFY2(error.contains("'oops' is not a setting"), qPrintable(error));
        h.environmentEdit()->setText("C=3");
        // a program that cannot run is said before anything runs
        h.testBox()->setEditText("A=test /nonexistent/llama-simple -y");
        QVERIFY(!h.sides(&g, &t, &error));
        QVERIFY2(error ==
                     "the test command cannot run: cannot run '/nonexistent/llama-simple': no such executable file",
                 qPrintable(error));
        { // in Chinese, the reason too (not only the dialog's words around it)
            const auto english = qScopeGuard([] {
                for (QTranslator *tr : qApp->findChildren<QTranslator *>())
                    QCoreApplication::removeTranslator(tr);
            });
            QCOMPARE(installTranslations(*qApp, "zh_CN"), QString("zh_CN"));
            QVERIFY(!h.sides(&g, &t, &error));
            QVERIFY2(error.contains(QString::fromUtf8("无法运行 '/nonexistent/llama-simple'：没有这个可执行文件")),
                     qPrintable(error));
        }
        h.testBox()->setEditText("env A=test B='b b' /bin/true -y");
        QTemporaryDir out;
        h.folderEdit()->setText(out.path());
        h.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QCOMPARE(h.result(), int(QDialog::Accepted));
        HuntDialog again;
        QCOMPARE(again.environmentEdit()->text(), QString("C=3")); // remembered
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR")) {
            again.show();
            QVERIFY(QTest::qWaitForWindowExposed(&again));
            again.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/hunt_dialog.png");
        }

        SpreadDialog d;
        QTest::keyClicks(d.commandsEdit(), "GGML_VK_VISIBLE_DEVICES=0 true -m a.gguf");
        QTest::keyClicks(d.environmentEdit(), "OMP_NUM_THREADS=4");
        QTest::keyClicks(d.varyEdit(), "--device cpu,vulkan");
        QVERIFY2(d.errorLabel()->text().isEmpty(), qPrintable(d.errorLabel()->text()));
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR")) {
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/spread_dialog.png");
        }
        spread::Request r;
        QVERIFY2(d.request(&r, &error), qPrintable(error));
        QCOMPARE(r.commands, (std::vector<std::string>{"OMP_NUM_THREADS=4 GGML_VK_VISIBLE_DEVICES=0 true -m a.gguf"}));
        const llmscope::CommandLine run = llmscope::parseCommandLine(r.runs().at(1).command);
        QCOMPARE(run.environment, (llmscope::Environment{{"OMP_NUM_THREADS", "4"}, {"GGML_VK_VISIBLE_DEVICES", "0"}}));
        QCOMPARE(run.words.front(), std::string("true"));
        d.environmentEdit()->setText("OMP_NUM_THREADS");
        QVERIFY2(d.errorLabel()->text().startsWith("Environment: 'OMP_NUM_THREADS' is not a setting"),
                 qPrintable(d.errorLabel()->text()));
        d.environmentEdit()->clear();
        d.commandsEdit()->setPlainText("true -m a.gguf\nGGML_VK_VISIBLE_DEVICES=0");
        QVERIFY2(d.errorLabel()->text().startsWith("Line 2 cannot be run: ") &&
                     d.errorLabel()->text().contains("names no program"),
                 qPrintable(d.errorLabel()->text()));
        QSettings().remove("hunt");
        QSettings().remove("spread");
    }

    void initTestCase() { QVERIFY(m_settings.isValid()); } // remembered state: this process's own

    void opensADumpAndShowsDetailsOnClick()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(w.workspace(), &Workspace::dumpLoaded);
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(dir.path())));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.at(0).at(1).toInt(), 16);
        QTreeView *tree = w.treeView();
        QVERIFY(tree->isVisible());
        QCOMPARE(tree->model()->rowCount(), 2);
        // Expand round 0 > 0_Embed and click its first tensor.
        const QModelIndex round0 = tree->model()->index(0, 0);
        const QModelIndex embed = tree->model()->index(0, 0, round0);
        tree->expand(round0);
        tree->expand(embed);
        const QModelIndex tensor = tree->model()->index(0, 0, embed);
        tree->scrollTo(tensor);
        const QRect r = tree->visualRect(tensor);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, QPoint(std::max(r.left(), 0) + 12, r.center().y()));
        QCOMPARE(tree->currentIndex(), tensor);
        auto *details = w.findChild<QTextBrowser *>();
        QVERIFY(details);
        QTRY_VERIFY(details->toPlainText().contains("before/intensor0"));
        QVERIFY(details->toPlainText().contains("float32"));
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/main_window.png");
    }

    // A server's dump (its rounds' token records name two sequences): the Tensor files page
    // lists the requests, each round's row names its own, and picking one hides the others.
    void aServersDumpListsItsRequests()
    {
        QTemporaryDir dir;
        // Round 0: slot 0's first token beside slot 1's first two, one row each; round 1: slot 1's third.
        std::string root;
        {
            llmscope::DumpWriter w(testing::writerOptions(dir.path().toStdString()));
            for (const auto &op : std::vector<std::vector<std::string>>{{"0_Embed"}, {"1_Layer", "0_Norm"}}) {
                w.writeTensor(0, 4242, 0, op, false, false, 0, testing::f32Tensor({3, 2}, {1, 2, 3, 4, 5, 6}));
                w.writeTensor(0, 4242, 1, op, false, false, 0, testing::f32Tensor({2}, {7, 8}));
            }
            root = w.root();
        }
        for (const auto &[round, json] :
             {std::pair{0, llmscope::tokenRecordJson(0, {1, 2, 3}, false, {0, 0, 1}, {0, 1, 1})},
              std::pair{1, llmscope::tokenRecordJson(1, {4}, false, {2}, {1})}}) {
            llmscope::makeDirs(root + "/llmscope/tokens/4242");
            llmscope::writeFileAtomic(root + "/" + llmscope::tokenRecordPath(4242, round), json);
        }
        MainWindow w;
        w.resize(1400, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(dir.path())));
        QTest::keyClick(&w, Qt::Key_5, Qt::ControlModifier); // the Tensor files tab
        auto *page = w.findChild<FilesPage *>();
        QVERIFY(page->isVisible());
        QVERIFY(page->requests()->isVisible());
        QCOMPARE(page->requests()->count(), 3);
        QCOMPARE(page->tree()->model()->index(1, 0).data().toString(), QString("Round 1 · request 2 (sequence 1)"));
        page->requests()->setCurrentIndex(1); // request 1: sequence 0, round 0 only
        QVERIFY(page->tree()->isRowHidden(1, {}));
        QVERIFY(!page->tree()->isRowHidden(0, {}));
        page->requests()->setCurrentIndex(2);
        QVERIFY(!page->tree()->isRowHidden(1, {}));
        page->tree()->expandToDepth(0);
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/requests.png");

        // Session > Compare dumps: typed folders list their requests; slot 0's against slot 1's.
        CompareDialog d(&w);
        QVERIFY(d.goldenRequests()->isHidden());
        for (QLineEdit *e : {d.goldenEdit(), d.testEdit()}) {
            e->setText(dir.path());
            emit e->editingFinished();
        }
        d.show();
        QVERIFY(d.goldenRequests()->isVisible() && d.testRequests()->isVisible());
        QCOMPARE(d.testRequests()->count(), 3);
        QCOMPARE(
            d.goldenRequests()->itemText(1),
            QString("Request 1: sequence 0, positions 0, 1 token(s) in round 0 (some shared with other sequences)"));
        d.goldenRequests()->setCurrentIndex(1);
        d.testRequests()->setCurrentIndex(2);
        QCOMPARE(d.goldenRequest().request, 1);
        QCOMPARE(d.testRequest().request, 2);
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            d.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/compare_requests.png");
        auto *console = w.findChild<ConsoleView *>();
        QVERIFY2(
            QCoro::waitFor(w.workspace()->compare(d.golden(), d.test(), {}, {}, d.goldenRequest(), d.testRequest())),
            qPrintable(console->toPlainText()));
        const auto r = w.workspace()->comparison();
        QVERIFY(r);
        QVERIFY2(QString::fromStdString(r->goldenRoot).contains("/golden/"), r->goldenRoot.c_str());
        QCOMPARE(r->rows.size(), size_t(2)); // round 0's two files, cut to one row on each side
        QVERIFY(
            console->toPlainText().contains("golden: request 1: sequence 0, positions 0, 1 token(s) in 1 round(s) 0"));
        QVERIFY(console->toPlainText().contains("2 file(s) of shared rounds cut to its rows"));
        QVERIFY(console->toPlainText().contains("my: request 2: sequence 1"));
        QVERIFY(console->toPlainText().contains("its positions after 0 left out"));
    }

    // A dump from elsewhere that tries to get code run: a PyTorch dump whose module is named
    // like a shell command and whose output .pth files are pickles that call os.system.
    // Opened, and every tensor file clicked in the window: nothing runs, and the console names
    // each hostile file and why it was refused.
    void aHostileDumpRunsNothing()
    {
        QTemporaryDir dir;
        const QString marker = dir.path() + "/ran";
        const QString script = QString::fromUtf8(R"py(
import glob, os, sys, torch
from llmscope import DumpConfig, register_hook
marker = sys.argv[2]
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.add_module("x$(touch ran);touch ran", torch.nn.Linear(2, 2))
    def forward(self, x):
        return getattr(self, "x$(touch ran);touch ran")(x)
m = M()
register_hook(m, DumpConfig(dump_path=sys.argv[1]))
m(torch.ones(1, 2))
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + marker,))
outputs = glob.glob(sys.argv[1] + "/**/output*.pth", recursive=True)
assert outputs, "no output written"
for path in outputs:
    torch.save(Evil(), path)
)py");
        QProcess py;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PYTHONPATH", LLMSCOPE_SOURCE_DIR "/python");
        py.setProcessEnvironment(env);
        py.start("/usr/bin/python3", {"-c", script, dir.path() + "/dump", marker});
        QVERIFY(py.waitForFinished(120000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        QVERIFY(!QFile::exists(marker));

        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(dir.path() + "/dump")));
        QTreeView *tree = w.treeView();
        for (auto *tabs : w.findChildren<QTabWidget *>()) // the files' tab, clicked
            for (int k = 0; k < tabs->count(); ++k)
                if (tabs->widget(k)->isAncestorOf(tree))
                    QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(k).center());
        QTRY_VERIFY(tree->isVisible());
        tree->expandAll();
        auto *details = w.findChild<QTextBrowser *>();
        QVERIFY(details);
        int clicked = 0, refused = 0;
        std::function<void(const QModelIndex &)> clickAll = [&](const QModelIndex &parent) {
            for (int r = 0; r < tree->model()->rowCount(parent); ++r) {
                const QModelIndex i = tree->model()->index(r, 0, parent);
                if (tree->model()->hasChildren(i)) {
                    clickAll(i);
                    continue;
                }
                tree->scrollTo(i);
                const QRect rect = tree->visualRect(i);
                QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                                  QPoint(std::max(rect.left(), 0) + 12, rect.center().y()));
                const QString name = i.data().toString();
                QTRY_VERIFY2(details->toPlainText().contains(name),
                             qPrintable(name + " / " + details->toPlainText())); // read off the GUI thread
                ++clicked;
                refused += details->toPlainText().contains("refused") ? 1 : 0;
            }
        };
        clickAll(QModelIndex());
        QVERIFY(clicked > 0);
        QCOMPARE(refused, 0); // the inputs, clicked, read as tensors
        // the outputs are not in the tree, and the console says why
        const QString console = w.console()->toPlainText();
        QCOMPARE(console.count("refused: its pickle asks for 'posix system'"), 2);
        QVERIFY(!QFile::exists(marker));
        QVERIFY(!QFile::exists("ran")); // the name's command, had it run in this folder
    }

    // Opened and left to finish on its own (File > Open, the command line): the folder's text
    // must outlive the caller's argument, which is gone once the coroutine first waits.
    void aDumpOpenedWithoutWaitingLoads()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        MainWindow w;
        QSignalSpy loaded(w.workspace(), &Workspace::dumpLoaded);
        w.workspace()->openDump(dir.path() + QStringLiteral("/")); // a temporary, destroyed right here
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000); // or already, if the scan beat the first wait
        QCOMPARE(loaded.at(0).at(0).toString(), dir.path() + QStringLiteral("/"));
        QCOMPARE(w.windowTitle(), dir.path() + QStringLiteral("/ - llmscope"));
    }

    void aMissingFolderSaysWhy()
    {
        MainWindow w;
        w.show();
        QSignalSpy failed(w.workspace(), &Workspace::dumpFailed);
        QVERIFY(!QCoro::waitFor(w.workspace()->openDump("/nonexistent/dump")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(1).toString().contains("is not a folder"));
        auto *stack = w.findChild<QStackedWidget *>();
        QCOMPARE(stack->currentIndex(), 0);
        auto *label = qobject_cast<QLabel *>(stack->currentWidget());
        QVERIFY(label->text().contains("Could not open the dump"));
    }

    // A scan shows its own progress and Cancel in the status bar; Cancel ends it, saying so,
    // and nothing of the dump is loaded. (One pool thread, held: the scan cannot end before
    // the click, however the machine schedules it.)
    void aScanShowsItsProgressAndCancels()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QThreadPool pool; // the workspace's own: the window's painting keeps Qt's
        pool.setMaxThreadCount(1);
        w.workspace()->setThreadPool(&pool);
        QSemaphore hold;
        pool.start([&hold] { hold.acquire(); });
        QSignalSpy failed(w.workspace(), &Workspace::dumpFailed);
        QSignalSpy loaded(w.workspace(), &Workspace::dumpLoaded);
        w.workspace()->openDump(dir.path());
        auto *cancel = w.findChild<QPushButton *>("CancelScan");
        QVERIFY(cancel);
        QVERIFY(cancel->isVisible());
        QVERIFY(!w.findChild<QPushButton *>("CancelCompare")->isVisible()); // each job its own
        auto *bar = w.findChild<QWidget *>("JobBarScan")->findChild<QProgressBar *>();
        QVERIFY(bar->isVisible());
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/scanning.png");
        QTest::mouseClick(cancel, Qt::LeftButton);
        hold.release();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        QCOMPARE(failed.at(0).at(1).toString(), QString("scan cancelled"));
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!cancel->isVisible());
        QVERIFY(!w.workspace()->scanJob()->isRunning());
    }

    void chineseUi()
    {
        QCOMPARE(installTranslations(*qApp, "zh_CN"), QString("zh_CN"));
        MainWindow w;
        QVERIFY2(w.windowTitle().contains(QString::fromUtf8("大模型推理精度调试器")), qPrintable(w.windowTitle()));
        DumpTreeModel m;
        QCOMPARE(m.headerData(DumpTreeModel::ShapeColumn, Qt::Horizontal).toString(), QString::fromUtf8("形状"));
        OpTreeModel ops; // the live window's strings too
        QCOMPARE(ops.headerData(OpTreeModel::IdColumn, Qt::Horizontal).toString(), QString::fromUtf8("算子 id"));
        QCOMPARE(LiveSession::stateName(LiveSession::State::Crashed), QString::fromUtf8("已崩溃"));
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR")) {
            w.show();
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/main_window_zh_CN.png");
        }
        for (QTranslator *t : qApp->findChildren<QTranslator *>())
            QCoreApplication::removeTranslator(t);
    }

    // Core's reasons in Chinese: every kind of finding has its pattern translated with the same
    // placeholders, and a reason is worded whole, the phrases inside it too.
    void coreReasonsInChinese()
    {
        QCOMPARE(installTranslations(*qApp, "zh_CN"), QString("zh_CN"));
        const QRegularExpression placeholder("%[1-9]");
        using llmscope::Finding, llmscope::Reason, llmscope::Said;
        for (int k = int(Said::Joined) + 1; k <= int(llmscope::kLastSaid); ++k) {
            const char *english = llmscope::englishPattern(Said(k));
            const QString zh = QCoreApplication::translate("Reason", english);
            QVERIFY2(zh != QLatin1String(english), english);
            QStringList a, b;
            for (const auto &m : placeholder.globalMatch(QLatin1String(english)))
                a << m.captured();
            for (const auto &m : placeholder.globalMatch(zh))
                b << m.captured();
            a.sort();
            b.sort();
            QVERIFY2(a == b, english);
        }
        Reason r(Said::WeightDiffersBy, {Finding(Said::LabelWeight, {"blk.0.ffn_down.weight"}), "3.2 %"});
        r.add(Said::CpuRatio, {"1.5"});
        QCOMPARE(r.english(),
                 std::string("the weight blk.0.ffn_down.weight differs between golden and test (relative error "
                             "3.2 %); ggml's CPU kernel on the same inputs: 1.5 times the bound"));
        QCOMPARE(reasonWords(r),
                 QString::fromUtf8("权重 blk.0.ffn_down.weight 在标杆与待测之间不同（相对误差 3.2 %）；"
                                   "ggml 的 CPU 内核在相同输入上：误差界的 1.5 倍"));
        QCOMPARE(reasonWords(Reason("a file error, as it came")), QString("a file error, as it came"));
        // Values are put in once: a value's own "%1" stays as it is, in both wordings.
        QCOMPARE(llmscope::fillPattern("%1 and %2", {"%2", "x"}), std::string("%2 and x"));
        QCOMPARE(reasonWords(Reason(Said::ElementsDiffer, {"%2", "9"})), QString::fromUtf8("9 个元素中有 %2 个不同"));
        { // what a user gave that core cannot read, in the Chinese window: a folder with no tensors, compared
            QTemporaryDir empty;
            QDir(empty.path()).mkpath("golden");
            QDir(empty.path()).mkpath("test");
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!QCoro::waitFor(w.workspace()->compare(empty.path() + "/golden", empty.path() + "/test")));
            const QString said = w.console()->toPlainText();
            QVERIFY2(said.contains(QString::fromUtf8("“%1/golden”不含任何张量").arg(empty.path())), qPrintable(said));
            QVERIFY2(!said.contains("holds no tensors"), qPrintable(said));
        }
        for (QTranslator *t : qApp->findChildren<QTranslator *>())
            QCoreApplication::removeTranslator(t);
        QCOMPARE(reasonWords(r), QString::fromStdString(r.english())); // English again: core's words exactly
    }

    // View > Language switches at once: the window is built again in Chinese around the same
    // session (the comparison, the picked op, the heatmap's rows, the console), the choice is
    // remembered for the next start, and switching back gives English again.
    void languageSwitchesLive()
    {
        qunsetenv("LLMSCOPE_LANG");
        QTemporaryDir dir;
        const auto [golden, test] = chainPair(dir.path());
        QPointer<MainWindow> w = new MainWindow; // as the application makes it: deleted on close
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        QVERIFY(QCoro::waitFor(w->workspace()->compare(golden, test)));
        Workspace *ws = w->workspace();
        const QString picked = ws->cursor()->op(); // the first divergent
        QVERIFY(!picked.isEmpty());
        const int rows = w->heatmap()->model()->rowCount(),
                  ops = w->diff()->findChild<QTableView *>()->model()->rowCount();
        for (int i = 0; i < 200; ++i) // more than the console shows: it follows the newest line
            ws->say(QString("[llmscope] a line before the switch, %1").arg(i));
        // The Session panel's state is worded when shown: in the language of the moment.
        ws->document()->editProgram([](SessionDocument::Program &p) {
            p.state = [] { return LiveSession::stateName(LiveSession::State::Finished); };
        });
        QVERIFY2(w->counters()->text().contains("finished"), qPrintable(w->counters()->text()));
        const int page = w->findChild<QTabWidget *>()->currentIndex();
        const QString inspected = w->inspector()->currentFile();
        QVERIFY(w->tensorDiff()->goldenModel()->rowCount() > 0); // the first divergent, element by element
        // Core's words: the culprit's verdict and how the pairs were made, in English.
        auto verdictTip = [](MainWindow *m) {
            const QAbstractItemModel *t = m->diff()->findChild<QTableView *>()->model();
            for (int r = 0; r < t->rowCount(); ++r)
                if (t->index(r, DiffTableModel::OpColumn).data(DiffTableModel::FirstDivergentRole).toBool())
                    return t->index(r, DiffTableModel::ResultColumn).data(Qt::ToolTipRole).toString();
            return QString();
        };
        auto summary = [](MainWindow *m) {
            QString all;
            for (const QLabel *l : m->diff()->findChildren<QLabel *>())
                all += l->text();
            return all + m->diff()->summary(); // the verdict, laid out across the page
        };
        QVERIFY2(verdictTip(w).contains("of elements within relative error"), qPrintable(verdictTip(w)));
        QVERIFY2(summary(w).contains("(same topology)"), qPrintable(summary(w)));
        // -ids typed and not applied, a search, and the panel's status: all carried over.
        QTest::keyClicks(w->opPanel()->idsEdit(), "0_2,0_4");
        QCOMPARE(w->opPanel()->model()->checkedIds(), QStringList({"0_2", "0_4"}));
        w->opPanel()->searchEdit()->setText("MUL_MAT"); // the picked op (Qcur-0) still shown
        QVERIFY2(w->opPanel()->status().startsWith("Topology of the opened dump"), qPrintable(w->opPanel()->status()));
        w->statusBar()->showMessage("found: round 0, op 0_2 Qcur-0 (MUL_MAT)"); // a job's last words
        QVERIFY(w->spreadView()->differingOnly()->isChecked()); // the spread's filter, unticked: kept
        QTest::mouseClick(w->spreadView()->differingOnly(), Qt::LeftButton, {},
                          QPoint(8, w->spreadView()->differingOnly()->height() / 2));
        QVERIFY(!w->spreadView()->differingOnly()->isChecked());
        QAction *chinese = nullptr;
        for (QAction *a : w->findChildren<QAction *>())
            if (a->data().toString() == "zh_CN")
                chinese = a;
        QVERIFY(chinese);
        chinese->trigger();
        QTRY_VERIFY(w.isNull()); // closed and deleted
        MainWindow *zh = nullptr;
        for (QWidget *t : QApplication::topLevelWidgets())
            if (auto *m = qobject_cast<MainWindow *>(t); m && m->isVisible())
                zh = m;
        QVERIFY(zh);
        QCOMPARE(zh->workspace(), ws); // the same session
        QCOMPARE(zh->statusBar()->currentMessage(),
                 QString("found: round 0, op 0_2 Qcur-0 (MUL_MAT)")); // kept, not "Ready"
        QCOMPARE(QSettings().value("ui/language").toString(), QString("zh_CN"));
        QVERIFY(!zh->spreadView()->differingOnly()->isChecked());
        QStringList tabs;
        auto *pages = zh->findChild<QTabWidget *>();
        for (int i = 0; i < pages->count(); ++i)
            tabs << pages->tabText(i);
        QVERIFY2(tabs.contains(QString::fromUtf8("热力图")), qPrintable(tabs.join(',')));
        QCOMPARE(pages->currentIndex(), page); // the Diff page, as before
        QCOMPARE(zh->heatmap()->model()->rowCount(), rows);
        QCOMPARE(zh->diff()->findChild<QTableView *>()->model()->rowCount(), ops);
        QVERIFY(zh->heatmap()->metricBox()->currentText().startsWith(QString::fromUtf8("比对")));
        QVERIFY2(zh->heatmap()->metricBox()->width() > zh->heatmap()->metricBox()->fontMetrics().horizontalAdvance(
                                                           zh->heatmap()->metricBox()->currentText()) +
                         16,
                 "the Statistic box cuts its text in Chinese");
        QCOMPARE(zh->opPanel()->currentOpId(), picked);
        QCOMPARE(zh->inspector()->currentFile(), inspected);
        QVERIFY(zh->tensorDiff()->goldenModel()->rowCount() > 0); // the compared op, element by element
        QVERIFY(zh->console()->toPlainText().contains("a line before the switch, 199"));
        QTRY_COMPARE(zh->console()->verticalScrollBar()->value(), zh->console()->verticalScrollBar()->maximum());
        QVERIFY(zh->console()->verticalScrollBar()->maximum() > 0);
        QVERIFY2(zh->counters()->text().contains(LiveSession::stateName(LiveSession::State::Finished)) &&
                     !zh->counters()->text().contains("finished"),
                 qPrintable(zh->counters()->text()));
        QCOMPARE(zh->opPanel()->idsEdit()->text(), QString("0_2,0_4"));
        QCOMPARE(zh->opPanel()->model()->checkedIds(), QStringList({"0_2", "0_4"}));
        QCOMPARE(zh->opPanel()->searchEdit()->text(), QString("MUL_MAT"));
        QVERIFY2(zh->opPanel()->status().startsWith(QString::fromUtf8("已打开转储的拓扑")),
                 qPrintable(zh->opPanel()->status()));
        // Core's words in Chinese: worded by the window from what core found.
        QVERIFY2(verdictTip(zh).contains(QString::fromUtf8("的元素在相对误差")), qPrintable(verdictTip(zh)));
        QVERIFY2(!verdictTip(zh).contains("within"), qPrintable(verdictTip(zh)));
        QVERIFY2(summary(zh).contains(QString::fromUtf8("（相同拓扑）")), qPrintable(summary(zh)));
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            zh->grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/language_switched_zh_CN.png");
        // And back: English, the same session still.
        QPointer<MainWindow> gone = zh;
        MainWindow *en = zh->switchLanguage("en");
        QTRY_VERIFY(gone.isNull());
        QCOMPARE(en->workspace(), ws);
        QCOMPARE(en->findChild<QTabWidget *>()->tabText(0), QString("Heatmap"));
        QVERIFY2(en->counters()->text().contains("finished"), qPrintable(en->counters()->text()));
        QCOMPARE(installTranslations(*qApp, {}), QString("en")); // what the next start uses
        QSettings().remove("ui/language");
        QSettings().remove("spread/differingOnly");
        delete en;
    }

    // The Launch dialog fits a 1024-wide screen: its fields never need more width than its
    // scrolling area has (its right edge was cut off there), in English and in Chinese.
    void launchDialogFitsASmallScreen()
    {
        for (const QString lang : {"en", "zh_CN"}) {
            if (lang != "en")
                QCOMPARE(installTranslations(*qApp, lang), lang);
            LaunchDialog d;
            d.resize(1000, 650);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            auto *scroll = d.findChild<QScrollArea *>();
            QVERIFY(scroll);
            QVERIFY2(scroll->widget()->minimumSizeHint().width() <= scroll->viewport()->width(),
                     qPrintable(QString("%1: fields need %2 px, %3 px shown")
                                    .arg(lang)
                                    .arg(scroll->widget()->minimumSizeHint().width())
                                    .arg(scroll->viewport()->width())));
            if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
                d.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/launch_1000_" + lang + ".png");
        }
        for (QTranslator *t : qApp->findChildren<QTranslator *>()) // English again for the tests after
            QCoreApplication::removeTranslator(t);
    }

    // "./" and "the current folder" say which folders they are: the working folder typed moves
    // the dump's default there.
    void launchDialogSaysWhereItsFoldersAre()
    {
        LaunchDialog d;
        d.show();
        QVERIFY(d.workDirEdit()->placeholderText().contains(QDir::currentPath()));
        QVERIFY(d.outputEdit()->placeholderText().endsWith(": " + QDir::currentPath()));
        QTemporaryDir wd;
        d.workDirEdit()->setFocus();
        QTest::keyClicks(d.workDirEdit(), wd.path());
        QVERIFY2(d.outputEdit()->placeholderText().endsWith(": " + wd.path()),
                 qPrintable(d.outputEdit()->placeholderText()));
    }

    // The error chart's legend keeps its names whole: at a laptop's Diff page (about 330 px) a
    // row of five below the plot cut each to "rou…"; there they go to its right, one a line,
    // and below it again where the row fits.
    void errorChartLegendKeepsItsNamesWhole()
    {
        llmscope::CompareResult r;
        for (int round = 0; round < 4; ++round)
            for (int layer = 0; layer < 3; ++layer) {
                llmscope::OpResult o;
                o.round = round;
                o.opId = std::to_string(layer) + "_1";
                o.outputError = o.addedError = 1e-4 * (layer + 1);
                r.ops.push_back(o);
            }
        r.firstDivergent = 1;
        ErrorCurveView v;
        v.setResult(&r, {"0", "1", "2"});
        QCOMPARE(v.chartView()->chart()->legend()->markers().size(), 5); // four rounds, and what round 0 adds
        v.resize(330, 260);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QCOMPARE(v.chartView()->chart()->legend()->alignment(), Qt::AlignRight);
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            v.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/error_chart_narrow.png");
        v.resize(1100, 260);
        QTRY_COMPARE(v.chartView()->chart()->legend()->alignment(), Qt::AlignBottom);
        // As the Diff page holds it on a 1024-wide screen, in a scroll area about 240 px wide: all
        // of the plot in view (a least width of 300 put its right side, the legend, out of view,
        // cut to "r"), the legend whole or not there, and the note says which line is which.
        QScrollArea area;
        auto *inArea = new ErrorCurveView;
        area.setWidget(inArea);
        area.setWidgetResizable(true);
        inArea->setResult(&r, {"0", "1", "2"});
        area.resize(240, 280);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QCoreApplication::processEvents();
        QVERIFY2(
            inArea->width() <= area.viewport()->width(),
            qPrintable(QString("the chart is %1 px wide in %2").arg(inArea->width()).arg(area.viewport()->width())));
        QVERIFY2(testing::cutLegendNames(inArea->chartView()->chart()).isEmpty(),
                 qPrintable(inArea->legendPlace() + ": " +
                            testing::cutLegendNames(inArea->chartView()->chart()).join(", ")));
        QVERIFY2(inArea->findChild<QLabel *>()->text().contains("red: round 0, blue: the other rounds"),
                 qPrintable(inArea->findChild<QLabel *>()->text()));
    }

    // The Diff page's first line counts the operations that passed before the first divergent
    // one, and where none was compared before it says so instead of "0 operations ... passed".
    void diffSummaryCountsWhatPassedBefore()
    {
        auto result = [](int first) {
            auto r = std::make_shared<llmscope::CompareResult>();
            for (int i = 0; i < 3; ++i) {
                llmscope::OpResult o;
                o.opId = "0_" + std::to_string(i);
                o.opType = "MUL_MAT";
                o.passed = i < first;
                r->ops.push_back(o);
            }
            r->firstDivergent = first;
            return r;
        };
        DiffView v;
        v.setResult(result(0));
        QVERIFY2(v.summary().contains("in round 0 (the first operation compared)."), qPrintable(v.summary()));
        v.setResult(result(2));
        QVERIFY2(v.summary().contains("in round 0 (the 2 operations before it passed)."), qPrintable(v.summary()));
    }

    // A hunt that cannot run clears the Diff page it would have filled and says why there: an
    // earlier comparison's verdict must not read as the hunt's.
    void aFailedHuntShowsNoEarlierVerdict()
    {
        QTemporaryDir dir;
        const auto [golden, test] = chainPair(dir.path());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QCoro::waitFor(w.workspace()->compare(golden, test)));
        QVERIFY(w.diff()->model()->rowCount() > 0);
        QVERIFY(w.workspace()->document()->results().comparison);
        auto *pages = w.findChild<QTabWidget *>();
        pages->setCurrentWidget(w.heatmap());
        HuntSide missing;
        missing.command = {"/nonexistent/llama-simple", "-m", "model.gguf"};
        QSignalSpy failed(w.workspace(), &Workspace::huntFailed);
        QVERIFY(!QCoro::waitFor(w.workspace()->runHunt(missing, missing, dir.path() + "/hunt", "0,0")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!w.workspace()->document()->results().comparison);
        QCOMPARE(w.diff()->model()->rowCount(), 0);
        QVERIFY(pages->currentWidget()->isAncestorOf(w.diff()));
        const QString said = QTextDocumentFragment::fromHtml(w.diff()->summary()).toPlainText();
        QVERIFY2(said.startsWith("The hunt failed: ") && said.contains("/nonexistent/llama-simple") &&
                     said.contains("No comparison is shown"),
                 qPrintable(said));
        QVERIFY2(w.console()->toPlainText().contains("/nonexistent/llama-simple"),
                 qPrintable(w.console()->toPlainText()));
        // the op panel waits for no graph from a program that never started
        QVERIFY2(!w.opPanel()->status().startsWith("Waiting"), qPrintable(w.opPanel()->status()));
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/hunt_failed.png");
    }

    // A comparison in the window: the heatmap tells failed from passed at a glance (red with a
    // cross, blue), whatever their values; its Statistic list holds each diff item once,
    // however often a comparison comes and goes; and the window with the diff fits a
    // 1366x768 screen, the summary above its table and several element rows in view.
    void aDiffReadsAtAGlanceOnALaptopScreen()
    {
        QTemporaryDir dir;
        const auto [golden, test] = chainPair(dir.path());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QCoro::waitFor(w.workspace()->compare(golden, test)));
        QVERIFY(QCoro::waitFor(w.workspace()->compare(golden, test))); // again: nothing doubled
        HeatmapView *h = w.heatmap();
        int diffItems = 0;
        for (int i = 0; i < h->metricBox()->count(); ++i)
            diffItems += h->metricBox()->itemText(i).startsWith("diff: ");
        QCOMPARE(diffItems, 5);
        // the pages that show one dump's files say whose: golden's, the side whose ops are shown
        QCOMPARE(w.inspector()->whose(), "Golden's dump: " + golden);
        QCOMPARE(w.findChild<FilesPage *>()->whose(), "Golden's dump: " + golden);
        for (int i = 0; i < h->metricBox()->count(); ++i) // every statistic's name whole in the box
            QVERIFY2(h->metricBox()->sizeHint().width() >
                         h->metricBox()->fontMetrics().horizontalAdvance(h->metricBox()->itemText(i)) + 16,
                     qPrintable(h->metricBox()->itemText(i)));
        const QModelIndex culprit = h->model()->indexForOp("0_2"), passed = h->model()->indexForOp("0_3");
        QVERIFY(culprit.isValid() && passed.isValid());
        for (int i = 0; i < h->metricBox()->count(); ++i) { // every diff metric: red fails, blue passes
            if (!h->metricBox()->itemText(i).startsWith("diff: "))
                continue;
            h->metricBox()->setCurrentIndex(i);
            const QColor bad = culprit.data(Qt::BackgroundRole).value<QBrush>().color();
            const QColor good = passed.data(Qt::BackgroundRole).value<QBrush>().color();
            QVERIFY2(bad.red() > bad.blue() + 60, qPrintable(h->metricBox()->itemText(i) + " " + bad.name()));
            QVERIFY2(good.blue() > good.red(), qPrintable(h->metricBox()->itemText(i) + " " + good.name()));
            // Each ramp's legend spans its own values: the culprit's is read off the failed one.
            const auto [passLo, passHi] = h->colours()->passedRange();
            const auto [failLo, failHi] = h->colours()->failedRange();
            const double vBad = h->colours()->valueOf("0_2"), vGood = h->colours()->valueOf("0_3");
            QVERIFY2(vGood >= passLo && vGood <= passHi && vBad >= failLo && vBad <= failHi,
                     qPrintable(QString("%1: %2 in %3..%4, %5 in %6..%7")
                                    .arg(h->metricBox()->itemText(i))
                                    .arg(vGood)
                                    .arg(passLo)
                                    .arg(passHi)
                                    .arg(vBad)
                                    .arg(failLo)
                                    .arg(failHi)));
            // shares and relative errors in percent, as the Diff table writes them; 1 - cosine as it is
            const bool cosine = h->metricBox()->currentData().toInt() == int(HeatmapModel::Metric::CosineDistance);
            const QString lowest = cosine ? QString::number(failLo, 'g', 4) : HeatmapModel::percentText(failLo);
            QVERIFY2(h->legend()->text().contains("failed: " + lowest), qPrintable(h->legend()->text()));
            QVERIFY(cosine || lowest.endsWith(" %"));
            // the legend says what a cell measures, and why the ops after the culprit are pale
            const QString tip = h->legend()->toolTip();
            QVERIFY2(tip.contains(h->metricBox()->itemText(i)) && tip.contains("its inputs carry the error"),
                     qPrintable(tip));
        }
        QCOMPARE(culprit.data(Qt::DisplayRole).toString(), QString::fromUtf8("\u25C6")); // the first divergent
        const QModelIndex after = h->model()->indexForOp("0_4");
        QVERIFY(after.data(Qt::ToolTipRole).toString().contains("element by element"));
        // The comparison goes (another source): its items go, the separator too.
        QTemporaryDir other;
        testing::writeSyntheticDump(other.path().toStdString());
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(other.path())));
        QCOMPARE(w.inspector()->whose(), "Dump: " + other.path());
        for (int i = 0; i < h->metricBox()->count(); ++i)
            QVERIFY2(!h->metricBox()->itemText(i).startsWith("diff: "), qPrintable(h->metricBox()->itemText(i)));
        // The element view says how to fill it, not that a tensor dump lacks tensors; no dimensions kept.
        QVERIFY2(w.tensorDiff()->status().startsWith("Compare two dumps"), qPrintable(w.tensorDiff()->status()));
        QCOMPARE(w.tensorDiff()->findChild<SlicePicker *>()->rowDimBox()->count(), 1); // "(none)"
        // A comparison where nothing departs picks no operation: the view says to pick one.
        QVERIFY(QCoro::waitFor(w.workspace()->compare(golden, golden)));
        QVERIFY2(w.tensorDiff()->status().startsWith("Pick an operation in the Diff table above"),
                 qPrintable(w.tensorDiff()->status()));
        QVERIFY(QCoro::waitFor(w.workspace()->compare(golden, test)));

        // A laptop's screen: everything of the diff page in view.
        const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(least.width() <= 1366 && least.height() <= 700,
                 qPrintable(QString("%1x%2").arg(least.width()).arg(least.height())));
        w.resize(1366, 700);
        QTest::qWait(0);
        QCoreApplication::processEvents();
        auto *summary = w.findChild<QScrollArea *>("DiffSummary");
        QVERIFY(summary);
        QTableView *table = w.diff()->findChild<QTableView *>();
        const QRect s(summary->mapTo(&w, QPoint(0, 0)), summary->size()),
            t(table->mapTo(&w, QPoint(0, 0)), table->size());
        QVERIFY2(s.bottom() < t.top(),
                 qPrintable(QString("summary ends %1, table starts %2").arg(s.bottom()).arg(t.top())));
        // the verdict's first lines (the op and its cause) in view, across the page
        QVERIFY2(summary->viewport()->height() >= 4 * summary->fontMetrics().lineSpacing(),
                 qPrintable(QString("summary %1 px tall").arg(summary->height())));
        // the operation and its output error in view without a sideways scroll
        auto outputErrorInView = [table] {
            QHeaderView *header = table->horizontalHeader();
            const int right = header->sectionViewportPosition(DiffTableModel::OutputErrorColumn) +
                header->sectionSize(DiffTableModel::OutputErrorColumn);
            return right <= table->viewport()->width();
        };
        QVERIFY2(outputErrorInView(), qPrintable(QString("the table is %1 px wide").arg(table->viewport()->width())));
        QVERIFY(w.diff()->summary().contains("First divergent"));
        { // every column's name whole in its header ("Round", not "Rounc")
            QHeaderView *header = table->horizontalHeader();
            for (int c = 0; c < table->model()->columnCount(); ++c) {
                const QString name = table->model()->headerData(c, Qt::Horizontal).toString();
                QVERIFY2(header->sectionSize(c) >= header->fontMetrics().horizontalAdvance(name) + 16,
                         qPrintable(QString("%1: %2 px").arg(name).arg(header->sectionSize(c))));
            }
        }
        { // its first line is in view at the top, not centred below an empty band
            const int ink = testing::inkAtTop(summary->viewport());
            QVERIFY2(ink > 20, qPrintable(QString("%1 dark pixels in the summary's first line").arg(ink)));
        }
        for (QTableView *elements : w.tensorDiff()->findChildren<QTableView *>()) {
            const int rows =
                elements->viewport()->height() / std::max(1, elements->verticalHeader()->defaultSectionSize());
            QVERIFY2(rows >= 4, qPrintable(QString("%1 element rows in view").arg(rows)));
            // every value whole: the widest a slice writes fits its column (no "0....")
            const int column = elements->horizontalHeader()->defaultSectionSize();
            const bool errors = elements == w.tensorDiff()->errorTable(); // three digits, no sign
            const int widest = elements->fontMetrics().horizontalAdvance(errors ? QStringLiteral("1.23e-05")
                                                                                : QStringLiteral("-0.000123457"));
            QVERIFY2(column >= widest + 8,
                     qPrintable(QString("columns %1 px for values %2 px wide").arg(column).arg(widest)));
        }
        { // the worst element, selected, keeps its red and is framed: a selection's blue fill read as "passed"
            QTableView *errors = w.tensorDiff()->errorTable();
            const QModelIndex worst = w.tensorDiff()->worstShown();
            QVERIFY(worst.isValid());
            QCOMPARE(errors->currentIndex(), worst);
            const QColor own = worst.data(Qt::BackgroundRole).value<QBrush>().color();
            QVERIFY2(own.red() > own.blue() + 60, qPrintable(own.name())); // its own colour says failed
            const QRect cell = errors->visualRect(worst);
            const QImage shown = errors->viewport()->grab().toImage();
            const QColor painted = shown.pixelColor(QPoint(cell.left() + 5, cell.top() + 5) * shown.devicePixelRatio());
            QVERIFY2(painted.red() > painted.blue() + 60, qPrintable(painted.name() + " painted over " + own.name()));
        }
        { // golden, test and error scroll together by column and row, though the error's columns
            // are narrower: the same cells side by side
            const auto tables = w.tensorDiff()->findChildren<QTableView *>();
            QCOMPARE(tables.size(), 3);
            tables.front()->horizontalScrollBar()->setValue(3);
            tables.front()->verticalScrollBar()->setValue(2);
            for (QTableView *t : tables) {
                QCOMPARE(t->horizontalScrollMode(), QAbstractItemView::ScrollPerItem);
                QCOMPARE(t->columnAt(1), 3);
                QCOMPARE(t->rowAt(1), 2);
            }
        }
        { // 1024x700: the bottom docks stay short (the Session panel scrolls), the verdict's first
            // lines and several element rows in view
            w.resize(1024, 700);
            QTest::qWait(0);
            QCoreApplication::processEvents();
            { // the operations' ids and names readable beside the pages, not a sliver
                const int ops = w.findChild<QDockWidget *>("OperationsDock")->width();
                QVERIFY2(ops >= 240, qPrintable(QString("the Operations dock is %1 px wide").arg(ops)));
                // and the -ids field's hint whole
                QLineEdit *ids = w.opPanel()->idsEdit();
                const int hint = ids->fontMetrics().horizontalAdvance(ids->placeholderText());
                QVERIFY2(
                    hint + 12 <= ids->width(),
                    qPrintable(QString("'%1' is %2 px in %3").arg(ids->placeholderText()).arg(hint).arg(ids->width())));
            }
            for (auto *tabs : w.findChildren<QTabWidget *>()) // the heatmap's boxes whole, its round slider usable
                if (tabs->indexOf(w.heatmap()) >= 0)
                    tabs->setCurrentWidget(w.heatmap());
            QCoreApplication::processEvents();
            QVERIFY2(h->metricBox()->width() >= h->metricBox()->sizeHint().width(),
                     qPrintable(
                         QString("%1 of %2 px").arg(h->metricBox()->width()).arg(h->metricBox()->sizeHint().width())));
            QVERIFY(h->findChild<QSlider *>()->width() >= 120);
            if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
                w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/heatmap_1024x700.png");
            for (auto *tabs : w.findChildren<QTabWidget *>())
                if (tabs->indexOf(w.diff()) >= 0)
                    tabs->setCurrentWidget(w.diff());
            QCoreApplication::processEvents();
            const int docks = w.findChild<QDockWidget *>("SessionDock")->height();
            QVERIFY2(docks <= 170, qPrintable(QString("the bottom docks take %1 px").arg(docks)));
            const int lines = summary->viewport()->height() / summary->fontMetrics().lineSpacing();
            QVERIFY2(lines >= 4, qPrintable(QString("%1 lines of the verdict in view").arg(lines)));
            QVERIFY2(outputErrorInView(),
                     qPrintable(QString("the table is %1 px wide").arg(table->viewport()->width())));
            for (QTableView *elements : w.tensorDiff()->findChildren<QTableView *>()) {
                const int rows =
                    elements->viewport()->height() / std::max(1, elements->verticalHeader()->defaultSectionSize());
                QVERIFY2(rows >= 4, qPrintable(QString("%1 element rows in view").arg(rows)));
                // golden, test and error each show a row's neighbours, not one column alone (a
                // list of the op's files beside them left each about one)
                const int columns =
                    elements->viewport()->width() / std::max(1, elements->horizontalHeader()->defaultSectionSize());
                QVERIFY2(columns >= 2,
                         qPrintable(QString("%1 whole element columns in view (%2 px)")
                                        .arg(columns)
                                        .arg(elements->viewport()->width())));
            }
            { // the Session panel's rows whole, none cut at the dock's bottom: a dump shown has no
                // process or counts, and those rows are not there
                auto *panel = qobject_cast<QScrollArea *>(w.findChild<QDockWidget *>("SessionDock")->widget());
                QVERIFY(panel);
                QVERIFY2(panel->widget()->sizeHint().height() <= panel->viewport()->height(),
                         qPrintable(QString("the Session panel needs %1 px of %2")
                                        .arg(panel->widget()->sizeHint().height())
                                        .arg(panel->viewport()->height())));
                QVERIFY2(w.counters()->text().contains(golden), qPrintable(w.counters()->text()));
            }
            { // the error chart's legend whole or not there ("r..." told nothing): the note says
                // which line is which, and which round is red
                ErrorCurveView *curve = w.findChild<ErrorCurveView *>();
                QVERIFY(curve);
                QVERIFY2(testing::cutLegendNames(curve->chartView()->chart()).isEmpty(),
                         qPrintable(testing::cutLegendNames(curve->chartView()->chart()).join(", ")));
                QVERIFY2(curve->findChild<QLabel *>()->text().contains("red: round 0, blue: the other rounds"),
                         qPrintable(curve->findChild<QLabel *>()->text()));
            }
            // the first divergent where llama.cpp counts it, as the weights' blk.N say
            QVERIFY2(w.diff()->summary().contains("in round 0, layer 0 (blk.0)"), qPrintable(w.diff()->summary()));
            if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR"))
                w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/diff_1024x700.png");
            w.resize(1366, 700);
            QTest::qWait(0);
            QCoreApplication::processEvents();
            // wider, the legend is there (a round and "added" fit below the plot)
            QCOMPARE(w.findChild<ErrorCurveView *>()->legendPlace(), QString("below"));
        }
        if (qEnvironmentVariableIsSet("LLMSCOPE_SCREENSHOT_DIR")) {
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/diff_1366x700.png");
            for (auto *tabs : w.findChildren<QTabWidget *>())
                if (tabs->indexOf(w.heatmap()) >= 0)
                    tabs->setCurrentWidget(w.heatmap());
            w.grab().save(qEnvironmentVariable("LLMSCOPE_SCREENSHOT_DIR") + "/diff_heatmap.png");
        }
    }

    // Searching the weight a verdict names finds the op that reads it; a search that finds
    // nothing says so. Tab goes from the search box into the tree.
    void searchFindsTheWeightAndSaysWhenNothingMatches()
    {
        QTemporaryDir dir;
        const auto [golden, test] = chainPair(dir.path());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(golden)));
        OpTreePanel *ops = w.opPanel();
        QAction *find = nullptr; // View > Find operation (Ctrl+F)
        for (QAction *a : w.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(QKeySequence::Find))
                find = a;
        QVERIFY(find);
        find->trigger();
        QCOMPARE(w.focusWidget(), ops->searchEdit()); // whether or not the window is active
        QTest::keyClicks(ops->searchEdit(), "w2.weight");
        QTreeView *tree = ops->view();
        QCOMPARE(testing::shownLeaves(*tree->model()), QStringList{"0_2"});
        QVERIFY(!ops->searchNote()->isVisible());
        QTest::keyClick(ops->searchEdit(), Qt::Key_Tab);
        QCOMPARE(w.focusWidget(), static_cast<QWidget *>(tree));
        ops->searchEdit()->clear();
        QTest::keyClicks(ops->searchEdit(), "ffn_down");
        QVERIFY(ops->searchNote()->isVisible());
        QVERIFY2(ops->searchNote()->text().contains("ffn_down"), qPrintable(ops->searchNote()->text()));
    }

    // The inspector on an op the dump holds nothing of: what to do, and no "round -1".
    void inspectorSaysNoRoundForAnOpNotDumped()
    {
        QTemporaryDir dir;
        testing::ChainDumpOptions only;
        only.onlyOp = 0;
        const std::string root = testing::writeChain(
            dir.path().toStdString(), {{{"norm-0", "RMS_NORM"}, {"attn_norm-0", "MUL"}}, {}},
            [](size_t) { return 0.0; }, [](size_t) { return 0.0; }, only);
        MainWindow w;
        w.show();
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(QString::fromStdString(root))));
        w.workspace()->cursor()->setOp("0_1");
        auto *title = w.inspector()->findChildren<QLabel *>().value(0);
        QString text;
        for (QLabel *l : w.inspector()->findChildren<QLabel *>())
            if (l->text().contains("0_1"))
                text = l->text();
        QVERIFY2(!text.isEmpty() && !text.contains("round -1"), qPrintable(text));
        QVERIFY2(text.contains("-ids 0_1"), qPrintable(text));
        Q_UNUSED(title);
    }

    // The start page offers every first step a newcomer may want, each link opening its dialog.
    void startPageOffersEveryFirstStep()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *page = w.findChild<StartPage *>();
        QVERIFY(page && page->isVisible());
        const QList<std::pair<QString, QString>> links{
            {"launch", "LaunchDialog"}, {"open", "QFileDialog"}, {"hunt", "HuntDialog"}, {"compare", "CompareDialog"}};
        for (const auto &[link, dialog] : links) {
            QVERIFY2(page->text().contains("href=\"" + link + "\""), qPrintable(link));
            QString opened;
            QTimer::singleShot(0, this, [&opened] { // inside the dialog's own loop: it is shown by then
                if (auto *d = qobject_cast<QDialog *>(QApplication::activeModalWidget())) {
                    opened = QString::fromLatin1(d->metaObject()->className());
                    d->reject();
                }
            });
            emit page->linkActivated(link);
            QCOMPARE(opened, dialog);
        }
    }

    // A first start opens no larger than the screen leaves free, and the Launch dialog keeps its
    // Run button in view there: its fields scroll, none squashed.
    void windowsFitTheScreen()
    {
        const QSize free = QGuiApplication::primaryScreen()->availableGeometry().size();
        QVERIFY2(free.height() < 860, "the test screen must be shorter than the window's own size");
        MainWindow w;
        QVERIFY2(
            w.width() <= free.width() && w.height() <= free.height(),
            qPrintable(QString("%1x%2 on %3x%4").arg(w.width()).arg(w.height()).arg(free.width()).arg(free.height())));
        LaunchDialog launch;
        launch.show();
        QVERIFY(QTest::qWaitForWindowExposed(&launch));
        QVERIFY2(launch.height() <= free.height(), qPrintable(QString::number(launch.height())));
        QPushButton *run = nullptr;
        for (QPushButton *b : launch.findChildren<QPushButton *>())
            if (b->text() == "&Run")
                run = b;
        QVERIFY(run && run->isVisible());
        const QRect at(run->mapTo(&launch, QPoint(0, 0)), run->size());
        QVERIFY2(launch.rect().contains(at),
                 qPrintable(QString("Run at y %1 in %2").arg(at.bottom()).arg(launch.height())));
        QVERIFY(launch.commandEdit()->height() >= launch.commandEdit()->sizeHint().height()); // not squashed
        // No program yet is where the dialog starts, not a mistake; Run says what is missing.
        const auto errorText = [&] {
            for (QLabel *l : launch.findChildren<QLabel *>())
                if (l->text().startsWith("give the program to run"))
                    return l->text();
            return QString();
        };
        launch.commandEdit()->clear(); // as a fresh start leaves it
        QVERIFY2(errorText().isEmpty(), qPrintable(errorText()));
        run->click();
        QVERIFY2(errorText().startsWith("give the program to run, e.g."), qPrintable(errorText()));
        QVERIFY(launch.isVisible());
    }

    // In both languages: no two items of a menu share a mnemonic, and the toolbar's buttons
    // carry none ("启动程序(L)" reads as a stray letter on a button).
    void mnemonicsOncePerMenuNoneOnTheToolbar()
    {
        for (const QString lang : {"en", "zh_CN"}) {
            installTranslations(*qApp, lang);
            MainWindow w;
            QStringList clashes;
            auto check = [&](const QString &where, const QList<QAction *> &actions) {
                QMap<QString, QString> seen;
                for (QAction *a : actions) {
                    const QString key = QKeySequence::mnemonic(a->text()).toString().toLower();
                    if (key.isEmpty())
                        continue;
                    if (seen.contains(key))
                        clashes << QString("%1: %2 and %3").arg(where, seen[key], a->text());
                    seen[key] = a->text();
                }
            };
            check("menu bar", w.menuBar()->actions());
            for (QAction *top : w.menuBar()->actions())
                if (top->menu())
                    check(top->text(), top->menu()->actions());
            QVERIFY2(clashes.isEmpty(), qPrintable(lang + ": " + clashes.join(" | ")));
            QToolBar *bar = w.findChild<QToolBar *>("SessionToolBar");
            QVERIFY(bar && bar->actions().size() >= 4);
            for (QAction *a : bar->actions())
                if (!a->isSeparator())
                    if (QWidget *button = bar->widgetForAction(a); auto *b = qobject_cast<QToolButton *>(button))
                        QVERIFY2(!b->text().contains('(') && !b->text().contains('&') && !b->text().isEmpty(),
                                 qPrintable(lang + ": " + b->text()));
            for (QTranslator *t : qApp->findChildren<QTranslator *>())
                QCoreApplication::removeTranslator(t);
        }
        installTranslations(*qApp, "en");
    }

    // Dialog labels show their mnemonic underlined, never a literal "&", in both languages.
    void dialogLabelsHaveNoLiteralAmpersand()
    {
        for (const QString lang : {"en", "zh_CN"}) {
            installTranslations(*qApp, lang);
            LaunchDialog launch;
            QVERIFY2(literalAmpersands(launch).isEmpty(), qPrintable(literalAmpersands(launch).join(" | ")));
            HuntDialog hunt;
            QVERIFY2(literalAmpersands(hunt).isEmpty(), qPrintable(literalAmpersands(hunt).join(" | ")));
            HuntDialog report(nullptr, HuntDialog::Purpose::QuantReport);
            QVERIFY2(literalAmpersands(report).isEmpty(), qPrintable(literalAmpersands(report).join(" | ")));
            CompareDialog compare;
            QVERIFY2(literalAmpersands(compare).isEmpty(), qPrintable(literalAmpersands(compare).join(" | ")));
            for (QTranslator *t : qApp->findChildren<QTranslator *>())
                QCoreApplication::removeTranslator(t);
        }
        installTranslations(*qApp, "en");
    }

    // Help lists every shortcut of the menus, read from the actions themselves.
    void helpListsTheShortcuts()
    {
        MainWindow w;
        auto *help = w.findChild<HelpMenu *>("HelpMenu");
        QVERIFY(help);
        const QStringList lines = help->shortcutLines();
        auto has = [&](const QString &where, const QKeySequence &key) {
            return lines.contains(where + '\t' + key.toString(QKeySequence::NativeText));
        };
        QVERIFY2(has("Session > Hunt the first divergent operation", QKeySequence(Qt::CTRL | Qt::Key_H)),
                 qPrintable(lines.join('\n')));
        QVERIFY2(has("File > Open dump folder", QKeySequence::Open), qPrintable(lines.join('\n')));
        QVERIFY2(has("Help > Getting started", QKeySequence::HelpContents), qPrintable(lines.join('\n')));
        QVERIFY(lines.size() >= 15);
    }

    // A dump of tensors alone (the default launch), opened later: the heatmap is filled from
    // the tensors' data as it was live, with a scale, and the tree shows each op's output
    // shape and type from its files.
    void aTensorsOnlyDumpFillsTheHeatmapAndShapes()
    {
        QTemporaryDir dir;
        const auto [golden, test] = chainPair(dir.path());
        QDirIterator it(golden, {"statistic.csv"}, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY2(!it.hasNext(), "the dump must hold tensors alone");
        MainWindow w;
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(golden)));
        HeatmapModel *h = w.heatmap()->model();
        const QModelIndex cell = h->indexForOp("0_2");
        QVERIFY(cell.isValid());
        const double v = cell.data(HeatmapModel::ValueRole).toDouble();
        QVERIFY2(std::isfinite(v) && v > 0, qPrintable(QString::number(v)));
        const auto [lo, hi] = h->colours()->range();
        QVERIFY(hi > lo);
        const QModelIndex op = w.opPanel()->model()->indexForId("0_2");
        QCOMPARE(op.siblingAtColumn(OpTreeModel::ShapeColumn).data().toString(), QString("[16, 16]"));
        QCOMPARE(op.siblingAtColumn(OpTreeModel::DTypeColumn).data().toString(), QString("float32"));
    }

    // The Session panel speaks of the source shown: another dump opened clears the last run's figures.
    void sessionPanelFollowsTheSource()
    {
        QTemporaryDir dir;
        testing::writeSyntheticDump(dir.path().toStdString());
        MainWindow w;
        const QString fresh = w.counters()->text();
        // an empty Diff page names the hunt, the way most get there, beside Compare
        QVERIFY2(w.diff()->summary().contains("Session > Hunt, Ctrl+H"), qPrintable(w.diff()->summary()));
        { // the empty heatmap's sentence whole in a narrow page (it ran off the right edge at 1024 in Chinese)
            QLabel *legend = w.heatmap()->legend();
            legend->resize(300, legend->heightForWidth(300));
            const QRect needed = legend->fontMetrics().boundingRect(QRect(0, 0, legend->width(), 10000),
                                                                    Qt::TextWordWrap, legend->text());
            QVERIFY2(needed.width() <= legend->width() && needed.height() <= legend->height(),
                     qPrintable(QString("%1x%2 needed in %3x%4")
                                    .arg(needed.width())
                                    .arg(needed.height())
                                    .arg(legend->width())
                                    .arg(legend->height())));
        }
        // a launch that fails under way (its output folder cannot be made), said in the panel
        const testing::StandInProbe probe; // where the build has none
        QVERIFY(!w.launch(llmscope::parseDumpOptions({"--exec", "/bin/true", "-o", "/proc/llmscope-cannot-write"})));
        QVERIFY2(w.counters()->text() != fresh, qPrintable(w.counters()->text())); // the failed launch, said
        QVERIFY(QCoro::waitFor(w.workspace()->openDump(dir.path())));
        // the run's figures gone; the panel says what the pages show instead
        QCOMPARE(w.counters()->text(), "no program running: the pages show a dump\n-\n" + dir.path() + "\n-\n-\n-\n-");
    }

    // How the probe read a round is said in words, not as its option's value ("read node").
    void sessionPanelSaysHowARoundWasRead()
    {
        CountersView v;
        llmscope::live::Round r;
        r.round = 3;
        r.dumped = true;
        r.opsSelected = 12;
        for (const auto &[read, words] :
             {std::pair{"node", "node by node"}, std::pair{"graph", "after the whole graph"},
              std::pair{"inline", "as each node is computed"}}) {
            r.read = read;
            v.setLastRound(r);
            QVERIFY2(v.text().endsWith(QString("\n3: dumped, 12 operations, read ") + words), qPrintable(v.text()));
        }
    }

    void ctrlOIsBound()
    {
        MainWindow w;
        bool found = false;
        for (QAction *a : w.findChildren<QAction *>())
            found |= a->shortcut() == QKeySequence(QKeySequence::Open);
        QVERIFY(found);
        w.show();
        w.activateWindow(); // shortcuts go to the active window (an X server's too)
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *tabs = w.findChild<QTabWidget *>();
        for (int i = 0; i < tabs->count(); ++i) { // Ctrl+1 .. Ctrl+5 bring the central tabs forward
            QTest::keyClick(&w, Qt::Key(Qt::Key_1 + i), Qt::ControlModifier);
            QCOMPARE(tabs->currentIndex(), i);
        }
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Tensor files"));
    }
};

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
