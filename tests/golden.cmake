# Runs one golden CLI case. <CASE>.args holds the arguments, one per line (run from ROOT);
# <CASE>.out is the expected stdout and <CASE>.code the expected exit status.
# With the environment variable UPDATE_GOLDEN=1 the expected files are rewritten instead.
file(STRINGS ${CASE}.args lines ENCODING UTF-8)
set(argv "")
foreach(line IN LISTS lines)
  list(APPEND argv "${line}")
endforeach()
execute_process(COMMAND ${BIN} ${argv} WORKING_DIRECTORY ${ROOT}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if("$ENV{UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${CASE}.out "${out}")
  file(WRITE ${CASE}.code "${code}\n")
  return()
endif()
file(READ ${CASE}.out want)
file(STRINGS ${CASE}.code want_code LIMIT_COUNT 1)
if(NOT code STREQUAL want_code)
  message(FATAL_ERROR "exit status ${code}, expected ${want_code}\nstderr: ${err}")
endif()
if(NOT out STREQUAL want)
  message(FATAL_ERROR "stdout differs.\n--- expected\n${want}\n--- got\n${out}\nstderr: ${err}")
endif()
