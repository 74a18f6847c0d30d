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
install(FILES ${PROJECT_SOURCE_DIR}/python/README.md DESTINATION share/doc/llmscope RENAME README.python.md)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME llmscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "llmscope maintainers <llmscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "precision debugger for LLM inference (llama.cpp, ggml)")
set(CPACK_PACKAGE_DESCRIPTION
    "Dumps a llama.cpp program's intermediate tensors with a preloaded probe (msit's layout),\n compares a golden run with a test run, and hunts the first divergent operation, in a\n desktop window or on the command line.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${LLAMA_BIN_DIR}")
# the PyTorch golden's dumper and reference (python3 -m llmscope...), Chinese glyphs for the zh_CN window,
# and a display for the window where there is none
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy, fonts-wqy-microhei | fonts-noto-cjk")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, xvfb")
include(CPack)
