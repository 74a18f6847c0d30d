// Session > Quantization report: quant::run (the same runner as `llmscope quant-report`) on a
// golden and a test launch, run in the window as the hunt's are (each side live, the two
// compared in the Diff tab), its steps as progress, Cancel stopping what runs; the report it
// wrote is shown in the window's Quantization tab.
#pragma once
#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <atomic>
#include <memory>
#include <optional>

#include "app/hunt/window_steps.h"
#include "core/quant/quant_report.h"

class Workspace;

class QuantReportAction : public QObject {
    Q_OBJECT
public:
    explicit QuantReportAction(Workspace *workspace);

    // Runs it into folder; true when the report was written (report() has it). budget: as
    // --budget (10% or 0.1), empty for the default.
    QCoro::Task<bool> run(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget);
    void cancel();
    bool isRunning() const { return m_running; }
    const std::optional<llmscope::QuantReport> &report() const { return m_report; }
    QString folder() const { return m_folder; }

signals:
    void stepStarted(int step, const QString &text); // 1..quant::kSteps
    void finished(bool ok, const QString &message);

private:
    QPointer<Workspace> m_workspace;
    bool m_running = false;
    std::shared_ptr<std::atomic_bool> m_cancelled; // the running report's
    std::optional<llmscope::QuantReport> m_report;
    QString m_folder;
};
