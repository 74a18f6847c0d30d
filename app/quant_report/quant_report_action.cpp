#include "app/quant_report/quant_report_action.h"

#include <QDir>

#include "app/quant_report/quant_runner.h"
#include "app/workspace/step_host.h"
#include "core/util/error.h"

using namespace llmscope;

QuantReportAction::QuantReportAction(StepHost *host, QObject *parent) : QObject(parent), m_host(host) {}

QCoro::Task<bool> QuantReportAction::run(HuntSide golden, HuntSide test, QString folder, QString rounds, QString budget)
{
    if (m_running)
        co_return false;
    m_folder = QDir(folder).absolutePath();
    QuantReportOptions options;
    try {
        if (!budget.isEmpty())
            options.budget = quant::parseBudget(budget);
    } catch (const Error &e) {
        emit finished(false, QString::fromUtf8(e.what()));
        co_return false;
    }
    m_running = true;
    m_cancelled = std::make_shared<std::atomic_bool>(false);
    QPointer<QuantReportAction> self(this);
    const hunt::Steps steps = windowsteps::make(m_host, std::move(golden), std::move(test), Standard::Engine,
                                                m_cancelled, [self](const QString &text, int step) {
                                                    if (self && step > 0)
                                                        emit self->stepStarted(step, text);
                                                });
    auto running = quant::run(steps, m_folder, rounds, options);
    quant::Outcome outcome = co_await running;
    if (!self)
        co_return false;
    m_running = false;
    if (outcome.ok && outcome.report)
        emit reported(std::make_shared<const QuantReport>(std::move(*outcome.report)), m_folder);
    emit finished(outcome.ok, outcome.message);
    co_return outcome.ok;
}

void QuantReportAction::cancel()
{
    if (m_running)
        windowsteps::cancel(m_host, m_cancelled);
}
