// A command line as a user types it, in every place one is typed (the window's Launch, Hunt and
// Spread, presets, `dump --exec`, `hunt --golden/--test`, `spread --run`): NAME=value settings
// first, as a shell takes them (or after `env`), then the program and its arguments. Split as a
// POSIX shell would, and never run by one.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace llmscope {

using Environment = std::vector<std::pair<std::string, std::string>>; // in the order given

struct CommandLine {
    Environment environment; // the leading NAME=value settings, for the program only
    std::vector<std::string> words; // the program and its arguments
};

// Splits text into arguments (quotes and backslashes as in a POSIX shell). Refuses redirection,
// pipes, command separators and substitutions, which need a shell; throws Error saying so.
std::vector<std::string> splitCommand(const std::string &text);
// Splits text and takes its leading NAME=value words (before the program or after a leading
// `env`) as the environment. A quoted name ('A=1' prog) is a word, as in a shell. Throws Error
// when settings come without a program.
CommandLine parseCommandLine(const std::string &text);
// NAME=value settings alone (an Environment field): throws Error naming a word that is not one.
Environment parseEnvironment(const std::string &text);
// args (a program and its arguments) as one line a POSIX shell, and parseCommandLine, split
// back into them: single quotes where needed, and on a first word that would read as a setting.
std::string joinCommand(const std::vector<std::string> &args);
// The line parseCommandLine reads back as c.
std::string joinCommandLine(const CommandLine &c);
std::string joinEnvironment(const Environment &e);
// NAME=value with NAME a shell variable's name.
bool isAssignment(const std::string &word);

} // namespace llmscope
