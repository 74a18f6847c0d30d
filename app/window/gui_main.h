// The window's entry point, exported by libllmscope_gui.so and looked up by name.
#pragma once

extern "C" {
// Runs the window until it closes; language "" picks the system's, dump "" opens none.
// launchArgs (launchCount of them): `llmscope dump` options to launch at once, live.
// screenshot "" runs until closed; else the window is saved there as a picture once shown (with
// the dump in, where one is opened) and the call returns: 0, or 1 when the dump or the picture
// failed.
__attribute__((visibility("default"))) int llmscope_gui_main(int argc, char **argv, const char *language,
                                                             const char *dump, int launchCount,
                                                             const char *const *launchArgs, const char *screenshot);
using LlmscopeGuiMain = int (*)(int, char **, const char *, const char *, int, const char *const *, const char *);
}
