# Runs lupdate over the app's sources into a copy of translations/llmscope_zh_CN.ts and fails
# when a message is unfinished: every UI string must have its Chinese.
#   cmake -DTS=... -DIN_FILE=<build>/app/.lupdate/llmscope_app_project.cmake -DGEN=... -DLUPDATE=... -DWORK=... -P
file(MAKE_DIRECTORY ${WORK})
file(COPY_FILE ${TS} ${WORK}/check.ts)
execute_process(COMMAND ${CMAKE_COMMAND} -DIN_FILE=${IN_FILE} -DOUT_FILE=${WORK}/project.json -P ${GEN}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not make lupdate's project file from ${IN_FILE}")
endif()
execute_process(COMMAND ${LUPDATE} -project ${WORK}/project.json -no-obsolete -locations none -ts ${WORK}/check.ts
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed: ${err}")
endif()
file(READ ${WORK}/check.ts text)
string(REGEX MATCHALL "type=\"unfinished\"" unfinished "${text}")
list(LENGTH unfinished n)
if(n GREATER 0)
  message(FATAL_ERROR "${n} UI string(s) have no Chinese translation: run 'cmake --build build --target "
                      "update_translations' and translate the unfinished messages in ${TS}")
endif()
string(REGEX MATCH "Found [0-9]+ source text" found "${out}")
message(STATUS "translations complete: ${found}s")
