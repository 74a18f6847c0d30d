// What a run is, as the probe records it beside the dump ({root}/llmscope/{pid}.json): the
// command, the machine and ggml's libraries. Compare reads two runs' records to choose the
// standard a pair is held to (compare/pair_standard.h): the same command, machine and
// libraries must agree bit for bit.
#pragma once
#include <string>
#include <vector>

#include "core/dump/probe_status.h"

namespace llmscope::probe {

// The program's arguments as it was started (/proc/self/cmdline); empty when unreadable.
std::vector<std::string> commandLine();
// The machine: /etc/machine-id, else the host name.
std::string hostId();
// The environment variables that steer ggml, llama.cpp, OpenMP and the device runtimes
// (GGML_*, LLAMA_*, OMP_*, VK_*, MESA_*, CUDA_*, ...) and those LLMSCOPE_RECORD_ENV names
// (llmscope dump --record-env), "NAME=value", sorted; the probe's own (LLMSCOPE_*) left out.
std::vector<std::string> steeringEnvironment();
// ggml's and llama.cpp's libraries in the process (libggml*, libllama*), each "path build-id"
// (the ELF build id in hex, "-" without one), in load order.
std::vector<std::string> ggmlLibraries(const std::vector<LoadedObject> &objects); // of loadedObjects()
// Every shared object in the process (the program itself left out), in load order: its path,
// its file's size and its build id. Drivers (libvulkan_lvp, libcuda) and runtimes (libgomp)
// tell two runs apart as much as ggml's own libraries.
std::vector<LoadedObject> loadedObjects();
// The folder the program runs in; empty when unknown.
std::string workingDirectory();

} // namespace llmscope::probe
