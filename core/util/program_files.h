// Where llmscope's own libraries lie beside its program: the build's bin/ and lib/, or an
// installed package's /usr/bin and /usr/lib/llmscope (the window, the probe, and the ggml the
// package carries).
#pragma once
#include <string>

namespace llmscope {

// The folder of the running program, read once (a rebuild that replaces the program while it
// runs leaves /proc/self/exe naming a deleted file, whose folder is still the right one); "."
// where it cannot be read.
const std::string &programFolder();

// PROGRAM/../lib/llmscope/NAME where that file exists (an installed package), else
// PROGRAM/../lib/NAME (the build's layout).
std::string besideProgram(const std::string &name);

// Whether PROGRAM/../lib/llmscope/NAME exists: a file the package installed.
bool installedBesideProgram(const std::string &name);

} // namespace llmscope
