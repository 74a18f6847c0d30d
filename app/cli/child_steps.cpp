#include "app/cli/child_steps.h"

#include "app/session/child_dump.h"
#include "core/compare/compare_run.h"

using namespace llmscope;

hunt::Steps childSteps(QString golden, QString test, std::optional<Standard> standard,
                       std::function<void(const QString &text, int step)> say)
{
    hunt::Steps steps;
    steps.dump = [golden, test](hunt::Side side, QStringList options, QString out) -> QCoro::Task<QString> {
        // a named request: GCC 12 destroys a temporary in a co_await's operand twice
        ChildDump d{{}, side == hunt::Side::Golden ? golden : test, options, out, {}, {}};
        try {
            co_return co_await runChildDump(std::move(d));
        } catch (const ChildDumpCancelled &) {
            throw hunt::Cancelled{};
        }
    };
    steps.compare = [standard](QString g, QString t) -> QCoro::Task<std::shared_ptr<const CompareResult>> {
        CompareOptions o;
        o.standard = standard;
        o.goldenPath = g.toStdString();
        o.myPath = t.toStdString();
        co_return std::make_shared<const CompareResult>(runCompare(o));
    };
    steps.say = std::move(say);
    return steps;
}
