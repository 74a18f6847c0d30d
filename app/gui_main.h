// The window's entry point, exported by libllmscope_gui.so and looked up by name.
#pragma once

extern "C" {
// Runs the window until it closes; language "" picks the system's, dump "" opens none.
__attribute__((visibility("default"))) int llmscope_gui_main(int argc, char **argv, const char *language,
                                                             const char *dump);
using LlmscopeGuiMain = int (*)(int, char **, const char *, const char *);
}
