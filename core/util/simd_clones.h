// Builds a hot loop for the wider vector units too, chosen when the program loads. Not under
// ThreadSanitizer: the chooser (an ifunc resolver) runs before its runtime is ready and crashes.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define LLMSCOPE_CLONES
#else
#define LLMSCOPE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
