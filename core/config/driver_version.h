// The version a device driver's library states, for a run's configuration: NVIDIA's and AMD's
// in their file names (libcuda.so.550.54.15), Mesa's in its text ("Mesa 22.3.6"). ggml's device
// registry gives a device's name and description, not its driver's version.
#pragma once
#include <string>

namespace llmscope {

// Whether a shared object's file name is a device driver's: Mesa's Vulkan drivers
// (libvulkan_lvp.so, libvulkan_radeon.so, ...), NVIDIA's (libcuda, libnvidia-*), AMD's and
// Intel's compute runtimes.
bool isDriverLibrary(const std::string &baseName);

// The driver's version from the file at path (its name, else "Mesa X.Y.Z" in its bytes); empty
// where it states none or cannot be read. Reads at most the file's first 512 MiB.
std::string driverVersion(const std::string &path);

} // namespace llmscope
