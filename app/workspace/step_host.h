// What the window's hunt and quantization report ask of the session they run in, and nothing
// more: launch a program under the probe and see it end, compare two dumps where the window
// shows them, colour the ops with a picture's metrics, say a line in the console, and stop what
// runs. The workspace implements it; the actions and their steps (app/hunt/window_steps.h) hold
// only this, so that what a long job may do to the window is read here.
#pragma once
#include <QString>

#include <QCoroTask>

#include <memory>
#include <optional>

#include "app/session/launch_plan.h"
#include "core/compare/compare_run.h"
#include "core/launch/dump_options.h"
#include "document/console_tone.h"

class LiveSession;
class QObject;

class StepHost {
public:
    // The object whose end ends the steps: awaited steps stop once it is gone.
    virtual QObject *lifetime() = 0;
    // The running program's session: its end is what a dump step awaits.
    virtual LiveSession *session() const = 0;
    // Starts a program under the probe, shown as the window's source; false and error says why.
    virtual bool launch(const llmscope::DumpOptions &options, const LaunchSettings &settings, QString *error) = 0;
    // Golden against test, shown in the window; the result is comparison().
    virtual QCoro::Task<bool> compareShown(QString golden, QString test,
                                           std::optional<llmscope::Standard> standard) = 0;
    virtual std::shared_ptr<const llmscope::CompareResult> comparison() const = 0;
    virtual void showMetrics(std::shared_ptr<const llmscope::CompareResult> r) = 0;
    virtual void say(const QString &text, ConsoleTone tone) = 0;
    // Stops the program and the comparison under way (a cancelled job's steps).
    virtual void stopSteps() = 0;

protected:
    ~StepHost() = default;
};
