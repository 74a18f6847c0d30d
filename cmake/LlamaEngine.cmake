# The llama.cpp engine: prebuilt shared libraries from the npm package
# @node-llama-cpp/linux-x64, headers from the source bundle inside node-llama-cpp.
# Defines imported targets llama::llama, llama::ggml, llama::ggml-base and sets
# LLMSCOPE_HAVE_ENGINE.
set(LLMSCOPE_NODE_MODULES "${PROJECT_SOURCE_DIR}/.deps/node/node_modules" CACHE PATH
    "node_modules holding node-llama-cpp and @node-llama-cpp/linux-x64 (scripts/setup installs them)")
set(LLAMA_BIN_DIR "${LLMSCOPE_NODE_MODULES}/@node-llama-cpp/linux-x64/bins/linux-x64")
set(LLAMA_BUNDLE "${LLMSCOPE_NODE_MODULES}/node-llama-cpp/llama/gitRelease.bundle")
set(LLAMA_SRC_DIR "${CMAKE_BINARY_DIR}/llama.cpp")
set(LLMSCOPE_HAVE_ENGINE OFF)

file(GLOB _llama_lib "${LLAMA_BIN_DIR}/libllama.v*.so")
file(GLOB _ggml_lib "${LLAMA_BIN_DIR}/libggml.v*.so")
if(NOT _llama_lib OR NOT _ggml_lib OR NOT EXISTS "${LLAMA_BUNDLE}")
  message(WARNING "llama.cpp engine not found under ${LLMSCOPE_NODE_MODULES}: run scripts/setup. "
                  "Samples and real-engine tests are left out of this build.")
  return()
endif()

# Only the headers are checked out of the bundle, once per build tree (ggml's backend
# interface too, for the test target that adds a second device, and ggml's internal header,
# whose fusion rule a test holds the probe's against), and its licence, which the Debian package
# carries beside ggml's libraries.
if(NOT EXISTS "${LLAMA_SRC_DIR}/include/llama.h" OR NOT EXISTS "${LLAMA_SRC_DIR}/ggml/src/ggml-backend-impl.h"
   OR NOT EXISTS "${LLAMA_SRC_DIR}/ggml/src/ggml-impl.h" OR NOT EXISTS "${LLAMA_SRC_DIR}/LICENSE")
  message(STATUS "Checking out llama.cpp headers from ${LLAMA_BUNDLE}")
  file(REMOVE_RECURSE "${LLAMA_SRC_DIR}")
  execute_process(COMMAND git clone -q --no-checkout "${LLAMA_BUNDLE}" "${LLAMA_SRC_DIR}" RESULT_VARIABLE _rc)
  if(_rc EQUAL 0)
    execute_process(COMMAND git -C "${LLAMA_SRC_DIR}" -c advice.detachedHead=false checkout -q HEAD -- LICENSE include ggml/include
                            ggml/src/ggml-backend-impl.h ggml/src/ggml-impl.h
                    RESULT_VARIABLE _rc)
  endif()
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "Could not check out llama.cpp headers from ${LLAMA_BUNDLE}")
  endif()
endif()

function(_llmscope_import name location)
  add_library(${name} SHARED IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION "${location}"
    INTERFACE_INCLUDE_DIRECTORIES "${LLAMA_SRC_DIR}/include;${LLAMA_SRC_DIR}/ggml/include")
endfunction()
_llmscope_import(llama::ggml-base "${LLAMA_BIN_DIR}/libggml-base.so")
_llmscope_import(llama::ggml "${_ggml_lib}")
_llmscope_import(llama::llama "${_llama_lib}")
set_property(TARGET llama::llama PROPERTY INTERFACE_LINK_LIBRARIES llama::ggml llama::ggml-base)
set(LLMSCOPE_HAVE_ENGINE ON)
message(STATUS "llama.cpp engine: ${_llama_lib}")
