// Headless entry points: --help, --version and the subcommands.
#pragma once
#include <QStringList>
#include <optional>

// Runs a headless command when argv asks for one and returns its exit status; returns
// nullopt when the GUI should start instead.
std::optional<int> runCli(const QStringList &args);
QString usageText();
