// The hunt, a workspace job, run by hunt::run as `llmscope hunt` is: a golden and a test launch (presets, recent launches or plain
// command lines) run back to back under the probe with statistics of every operation, each
// shown live; the statistics compared; both run again dumping the first divergent op's full
// tensors only; and the element-wise diff opened on it. Each step says what it does and why
// (the same words as `llmscope hunt`), every dump is kept, and Cancel stops at once.
#pragma once
#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <memory>

#include "app/hunt/window_steps.h"
#include "core/compare/compare_run.h"

class StepHost;

class HuntAction : public QObject {
    Q_OBJECT
public:
    // parent: the host's lifetime object (the workspace), which outlives the action.
    HuntAction(StepHost *host, QObject *parent);

    // Runs the four steps into folder; true when a divergent op was found and opened.
    // standard: how ops are judged (as llmscope hunt's --standard); the engine's when unset.
    QCoro::Task<bool> run(HuntSide golden, HuntSide test, QString folder, QString rounds,
                          std::optional<llmscope::Standard> standard = {});
    void cancel();
    bool isRunning() const { return m_running; }
    QStringList log() const { return m_log; }

signals:
    void stepStarted(int step, const QString &text); // 1..hunt::kSteps
    void finished(bool found, const QString &message);
    void failed(const QString &why); // before finished: the hunt could not end (failed, cancelled)

private:
    void say(const QString &text, int step = 0);

    StepHost *m_host;
    bool m_running = false;
    std::shared_ptr<std::atomic_bool> m_cancelled; // the running hunt's
    QStringList m_log;
};
