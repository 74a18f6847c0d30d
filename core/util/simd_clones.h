// Builds a hot loop for the wider vector units too, chosen when the program loads. Not under
// ThreadSanitizer: the chooser (an ifunc resolver) runs before its runtime is ready and crashes.
// Not with clang (the fuzz build): its chooser for "arch=x86-64-v4" picks the AVX-512 clone on
// machines without AVX-512 (an illegal instruction on an AVX2-only EPYC).
#pragma once

#if defined(__SANITIZE_THREAD__) || defined(__clang__)
#define LLMSCOPE_CLONES
#else
#define LLMSCOPE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
