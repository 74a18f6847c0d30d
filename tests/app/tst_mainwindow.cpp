#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QThreadPool>
#include <QSettings>
#include <QTimer>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTranslator>
#include <QTreeView>

#include <QCoroTask>

#include "dump_tree_model.h"
#include "i18n.h"
#include "job.h"
#include "main_window.h"
#include "workspace.h"
#include "op_tree_model.h"
#include "../test_helpers.h"

class TstMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // remembered state: a test location

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

    // View > Language remembers the choice (the restart it offers is declined here), and the
    // next start uses it when neither --lang nor LLMSCOPE_LANG says otherwise.
    void languageFromTheMenu()
    {
        qunsetenv("LLMSCOPE_LANG");
        MainWindow w;
        QAction *chinese = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->data().toString() == "zh_CN")
                chinese = a;
        QVERIFY(chinese);
        QTimer::singleShot(0, [] { // the "restart now?" question: No
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget()))
                box->button(QMessageBox::No)->click();
        });
        chinese->trigger();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // the closed question box
        QCOMPARE(QSettings().value("ui/language").toString(), QString("zh_CN"));
        QCOMPARE(installTranslations(*qApp, {}), QString("zh_CN"));
        for (QTranslator *t : qApp->findChildren<QTranslator *>())
            QCoreApplication::removeTranslator(t);
        QSettings().remove("ui/language");
        QCOMPARE(installTranslations(*qApp, "en"), QString("en"));
    }

    void ctrlOIsBound()
    {
        MainWindow w;
        bool found = false;
        for (QAction *a : w.findChildren<QAction *>())
            found |= a->shortcut() == QKeySequence(QKeySequence::Open);
        QVERIFY(found);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
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
