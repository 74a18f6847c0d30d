// Session > Quantization report: quant::run (the same runner as `llmscope quant-report`) on a
// golden and a test launch, run in the window as the hunt's are (each side live, the two
// compared in the Diff tab), its steps as progress, Cancel stopping what runs; the report it
// wrote is handed on (reported: the workspace puts it in the document, the one place it is
// kept) and shown in the window's Quantization tab.
#pragma once
#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <atomic>
#include <memory>
#include <optional>

#include "app/hunt/window_steps.h"
#include "core/quant/quant_report.h"

class StepHost;

class QuantReportAction : public QObject {
    Q_OBJECT
public:
    // parent: the host's lifetime object (the workspace), which outlives the action.
    QuantReportAction(StepHost *host, QObject *parent);

    // Runs it into folder; true when the report was written (reported, before finished, has
    // it). budget: as --budget (10% or 0.1), empty for the default.
    QCoro::Task<bool> run(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget);
    void cancel();
    bool isRunning() const { return m_running; }
    QString folder() const { return m_folder; }

signals:
    void stepStarted(int step, const QString &text); // 1..quant::kSteps
    void reported(std::shared_ptr<const llmscope::QuantReport> report, const QString &folder);
    void finished(bool ok, const QString &message);

private:
    StepHost *m_host;
    bool m_running = false;
    std::shared_ptr<std::atomic_bool> m_cancelled; // the running report's
    QString m_folder;
};
