# The git revision --version prints: generated into the build folder as version.cpp, and
# re-configured when HEAD moves (each commit or checkout), so only that file recompiles.
set(TI_GIT_REVISION unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    set(TI_GIT_REVISION ${rev})
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND TI_GIT_REVISION "-dirty")
    endif()
    foreach(what HEAD logs/HEAD)
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${what}
                      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(path AND EXISTS ${path})
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
      endif()
    endforeach()
  endif()
endif()
set(TI_VERSION_SOURCE ${CMAKE_BINARY_DIR}/generated/version.cpp)
configure_file(${PROJECT_SOURCE_DIR}/app/cli/version.cpp.in ${TI_VERSION_SOURCE} @ONLY)
