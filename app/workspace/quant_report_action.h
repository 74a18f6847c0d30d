// Session > Quantization report: runs `llmscope quant-report` (the same engine as the command
// line) on a golden and a test launch, shows its steps as progress, stops it and every program
// it started on Cancel, and reads the report it wrote for the window's Quantization tab.
#pragma once
#include <QObject>
#include <QPointer>
#include <QProcess>

#include <QCoroTask>

#include <memory>
#include <optional>

#include "hunt_action.h"
#include "quant/quant_report.h"

class QuantReportAction : public QObject {
    Q_OBJECT
public:
    static constexpr int kSteps = 4;
    explicit QuantReportAction(QObject *parent = nullptr);

    // The llmscope program that makes the report (default: this one).
    void setProgram(const QString &path) { m_program = path; }
    // Runs it into folder; true when the report was written and read (report() has it).
    QCoro::Task<bool> run(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget);
    void cancel();
    bool isRunning() const { return m_process != nullptr; }
    const std::optional<llmscope::QuantReport> &report() const { return m_report; }
    QString folder() const { return m_folder; }

signals:
    void stepStarted(int step, const QString &text); // 1..kSteps
    void finished(bool ok, const QString &message);

private:
    void readErrors();

    QString m_program;
    QPointer<QProcess> m_process;
    QByteArray m_pending;  // stderr not yet ended by a newline
    QStringList m_said;    // every line it said, for the message on failure
    std::optional<llmscope::QuantReport> m_report;
    QString m_folder;
    bool m_cancelled = false;
};
