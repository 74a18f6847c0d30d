// The hunt's and the quantization report's Steps as the window runs them: each side launched
// live in the window (the workspace's program, its output in the console, its operations in
// the tree), two dumps compared by the workspace (shown in the Diff tab), and a cancel flag
// that every step looks at. HuntAction and QuantReportAction both run through it, on the
// workspace's StepHost (what a long job may ask of the window) and nothing wider.
#pragma once
#include <QPointer>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/hunt/hunt_runner.h"
#include "app/session/launch_plan.h"
#include "core/compare/precision_standard.h"

class StepHost;

struct HuntSide {
    std::vector<std::string> command; // the program and its arguments
    LaunchSettings settings; // its working folder and environment
};

namespace windowsteps {

// Steps that launch golden and test in host, compare in host by standard (the engine's when
// unset) and say through say; each throws hunt::Cancelled once *cancelled is set or the host is
// gone.
hunt::Steps make(StepHost *host, HuntSide golden, HuntSide test, std::optional<llmscope::Standard> standard,
                 std::shared_ptr<std::atomic_bool> cancelled, std::function<void(const QString &text, int step)> say);
// Sets *cancelled and stops what runs in host: the program, the comparison.
void cancel(StepHost *host, const std::shared_ptr<std::atomic_bool> &cancelled);

} // namespace windowsteps
