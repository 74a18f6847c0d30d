# An install without building: `cpack -G DEB` in the build folder (scripts/package) makes a
# Debian package of the window and the command line, the probe, the Python package for PyTorch
# goldens, the desktop entry, and the ggml the app was built with (node-llama-cpp's shared
# libraries: the app links them, and the package is their only way onto a machine without npm),
# under /usr/lib/llmscope beside the app's own libraries. The translations are in the app.
# Its dependencies are Debian's runtime packages, as dpkg-shlibdeps finds them.
set(LLMSCOPE_PRIVATE_LIB lib/llmscope)

install(TARGETS llmscope RUNTIME DESTINATION bin)
install(TARGETS llmscope_gui LIBRARY DESTINATION ${LLMSCOPE_PRIVATE_LIB})
install(TARGETS llmscope_probe LIBRARY DESTINATION ${LLMSCOPE_PRIVATE_LIB})
# util/program_files.h finds them there; the app finds ggml through its run path
set_target_properties(llmscope PROPERTIES INSTALL_RPATH "$ORIGIN/../${LLMSCOPE_PRIVATE_LIB}")
set_target_properties(llmscope_gui PROPERTIES INSTALL_RPATH "$ORIGIN")
file(GLOB _llmscope_ggml_libs "${LLAMA_BIN_DIR}/libggml-base.so" "${LLAMA_BIN_DIR}/libggml.v*.so"
     "${LLAMA_BIN_DIR}/libggml-cpu-*.so")
install(FILES ${_llmscope_ggml_libs} DESTINATION ${LLMSCOPE_PRIVATE_LIB})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/llmscope DESTINATION lib/python3/dist-packages
        PATTERN __pycache__ EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/resources/llmscope.desktop DESTINATION share/applications)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/llmscope)
# the notice of the ggml libraries it carries (MIT), from the bundle they were built from
file(READ "${LLAMA_SRC_DIR}/LICENSE" _llmscope_ggml_license)
string(STRIP "${_llmscope_ggml_license}" _llmscope_ggml_license)
string(REPLACE "\n\n" "\n.\n" _llmscope_ggml_license "${_llmscope_ggml_license}") # the format's blank line
string(REPLACE "\n" "\n " _llmscope_ggml_license "${_llmscope_ggml_license}")
file(WRITE "${CMAKE_BINARY_DIR}/copyright"
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: llmscope\n\n"
     "Files: usr/lib/llmscope/libggml*\n"
     "Comment: ggml, from llama.cpp as node-llama-cpp ships it (https://github.com/ggml-org/llama.cpp)\n"
     "License: MIT\n ${_llmscope_ggml_license}\n")
install(FILES ${CMAKE_BINARY_DIR}/copyright DESTINATION share/doc/llmscope)
install(FILES ${PROJECT_SOURCE_DIR}/python/README.md DESTINATION share/doc/llmscope RENAME README.python.md)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME llmscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "llmscope maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "precision debugger for LLM inference (llama.cpp, ggml)")
set(CPACK_PACKAGE_DESCRIPTION
    "Dumps a llama.cpp program's intermediate tensors with a preloaded probe (msit's layout),\n compares a golden run with a test run, and hunts the first divergent operation, in a\n desktop window or on the command line.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${LLAMA_BIN_DIR}")
set(CPACK_STRIP_FILES ON) # 75 MB installed with the line tables, about a fifth without
# Chinese glyphs and Qt's own strings for the zh_CN window; the Python package for PyTorch
# goldens imports torch (a large install, so suggested), and a display for the window where there
# is none
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-wqy-microhei | fonts-noto-cjk, qt6-translations-l10n")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-numpy, python3-torch, xvfb")
include(CPack)
