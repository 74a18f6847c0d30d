// Payload buffers passed from the target's thread to the writer and back: allocating on one
// thread and freeing on another makes glibc's malloc return pages to the kernel and fault
// them in again, which showed up as most of the probe's cost on the target's thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmscope::probe {

// A buffer of exactly n bytes (contents unspecified), reused when one is free.
std::vector<uint8_t> takeBuffer(size_t n);
// Returns a buffer for reuse; kept only while the pool holds less than a few MiB.
void giveBuffer(std::vector<uint8_t> &&buffer);

} // namespace llmscope::probe
