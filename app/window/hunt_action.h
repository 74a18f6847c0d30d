// The hunt, in the window: a golden and a test launch (presets, recent launches or plain
// command lines) run back to back under the probe with statistics of every operation, each
// shown live; the statistics compared; both run again dumping the first divergent op's full
// tensors only; and the element-wise diff opened on it. Each step says what it does and why
// (the same words as `llmscope hunt`), every dump is kept, and Cancel stops at once.
#pragma once
#include <QDialog>
#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <memory>

#include "compare/compare_run.h"
#include "launch/dump_options.h"
#include "session/launch_plan.h"

class MainWindow;
class QComboBox;
class QLabel;
class QLineEdit;

struct HuntSide {
    std::vector<std::string> command; // the program and its arguments
    LaunchSettings settings;          // its working folder and environment
};

class HuntAction : public QObject {
    Q_OBJECT
public:
    explicit HuntAction(MainWindow *window);

    // Runs the four steps into folder; true when a divergent op was found and opened.
    QCoro::Task<bool> run(HuntSide golden, HuntSide test, QString folder, QString rounds);
    void cancel();
    bool isRunning() const { return m_running; }
    QStringList log() const { return m_log; }

signals:
    void stepStarted(int step, const QString &text); // 1..4
    void finished(bool found, const QString &message);

private:
    // One `llmscope dump` run of side with these options, live in the window; its dump folder.
    QCoro::Task<QString> dump(const HuntSide &side, QStringList args, QString out);
    // Both sides, each with its options, then their dumps compared (announced as step); the result.
    QCoro::Task<std::shared_ptr<const llmscope::CompareResult>> dumpAndCompare(HuntSide golden, HuntSide test,
                                                                              QStringList goldenArgs, QStringList testArgs,
                                                                              QString goldenOut, QString testOut, int step,
                                                                              QString text);
    void say(const QString &text, int step = 0);

    QPointer<MainWindow> m_window;
    bool m_running = false;
    std::shared_ptr<bool> m_cancelled; // the running hunt's
    QStringList m_log;
};

// Golden, test, rounds and the folder for the dumps; presets and recent launches offered.
// For a quantization report (Session > Quantization report) it also asks for the size budget.
class HuntDialog : public QDialog {
    Q_OBJECT
public:
    enum class Purpose { Hunt, QuantReport };
    explicit HuntDialog(QWidget *parent = nullptr, Purpose purpose = Purpose::Hunt);
    // False (and error says why) when a side cannot be read.
    bool sides(HuntSide *golden, HuntSide *test, QString *error) const;
    QString folder() const;
    QString rounds() const;
    QString budget() const; // the quantization report's --budget ("10%")
    QComboBox *goldenBox() const { return m_golden; }
    QLineEdit *budgetEdit() const { return m_budget; }
    QComboBox *testBox() const { return m_test; }
    QLineEdit *folderEdit() const { return m_folder; }

private:
    void accept() override;

    Purpose m_purpose;
    QString m_group; // where its fields are remembered: "hunt", "quant"
    QComboBox *m_golden, *m_test;
    QLineEdit *m_rounds, *m_folder, *m_budget;
    QLabel *m_error;
};
