# Small helpers so every chapter declares its executable and tests the same way.
include_guard(GLOBAL)

# CTest skips (not passes) a test that exits with this code: GPU tests use it when no usable
# GPU is present. Keep in sync with tcu::kExitSkipTest in common/exit_codes.hpp.
set(TCU_SKIP_RETURN_CODE 77)
set_property(GLOBAL PROPERTY TCU_TOUR_TARGETS "")

# tcu_add_chapter(<target> SOURCES ... [LIBS ...] [TOUR_ARGS ...])
# A chapter executable in build/bin, run by the `tour` target with TOUR_ARGS.
function(tcu_add_chapter target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;TOUR_ARGS" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE tcu_common tcu_flags ${ARG_LIBS})
  set_property(GLOBAL APPEND PROPERTY TCU_TOUR_TARGETS ${target})
  set_property(GLOBAL PROPERTY TCU_TOUR_ARGS_${target} "${ARG_TOUR_ARGS}")
endfunction()

# tcu_add_test(<name> HOST|GPU SOURCES ... [LIBS ...])
# A doctest executable in build/tests registered with CTest. GPU tests get the label `gpu`
# and are reported as skipped when the test binary finds no usable GPU.
function(tcu_add_test name kind)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  if(kind STREQUAL "GPU")
    target_link_libraries(${name} PRIVATE tcu_test_main_gpu tcu_common tcu_flags ${ARG_LIBS})
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "gpu" SKIP_RETURN_CODE ${TCU_SKIP_RETURN_CODE})
  elseif(kind STREQUAL "HOST")
    target_link_libraries(${name} PRIVATE tcu_test_main_host tcu_common tcu_flags ${ARG_LIBS})
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "host")
  else()
    message(FATAL_ERROR "tcu_add_test(${name} ${kind}): kind must be HOST or GPU")
  endif()
endfunction()

# tcu_add_exit_code_test(<name> COMMAND exe [ARGS "..."] EXPECT code [MATCH regex] [LABELS ...])
# Runs a program and checks its exit code (and optionally its output).
function(tcu_add_exit_code_test name)
  cmake_parse_arguments(ARG "" "COMMAND;ARGS;EXPECT;MATCH" "LABELS" ${ARGN})
  set(_defs -DEXE=$<TARGET_FILE:${ARG_COMMAND}> "-DARGS=${ARG_ARGS}" -DEXPECT=${ARG_EXPECT})
  if(DEFINED ARG_MATCH)
    list(APPEND _defs "-DMATCH=${ARG_MATCH}")
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${_defs} -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set(_labels ${ARG_LABELS})
  if(NOT _labels)
    set(_labels host)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${_labels}")
  if("gpu" IN_LIST _labels)
    # The program exits 3 without a usable GPU; the test then counts as skipped.
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "exit code 3\n")
  endif()
endfunction()

# tcu_add_no_driver_library_test(<name> TARGETS ...)
# The targets start on a machine without the NVIDIA driver: none of them lists a driver
# library (libcuda, libnvidia-ml) among the libraries loaded before main(). The CUDA runtime
# opens the driver itself; code that wants NVML opens it at run time.
function(tcu_add_no_driver_library_test name)
  cmake_parse_arguments(ARG "" "" "TARGETS" ${ARGN})
  set(_files "")
  foreach(_t IN LISTS ARG_TARGETS)
    list(APPEND _files "$<TARGET_FILE:${_t}>")
  endforeach()
  list(JOIN _files "|" _files)
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DOBJDUMP=${CMAKE_OBJDUMP}" "-DFILES=${_files}"
           "-DFORBIDDEN=^lib(cuda|nvidia-ml)\\.so" -P ${PROJECT_SOURCE_DIR}/cmake/CheckNeededLibraries.cmake)
  set_tests_properties(${name} PROPERTIES LABELS host SKIP_REGULAR_EXPRESSION "objdump is missing")
endfunction()
