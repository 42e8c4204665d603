# Small helpers so every chapter declares its executable and tests the same way.
include_guard(GLOBAL)

# CTest skips (not passes) a test that exits with this code: GPU tests use it when no usable
# GPU is present. Keep in sync with tcu::kExitSkipTest in common/exit_codes.hpp.
set(TCU_SKIP_RETURN_CODE 77)
set_property(GLOBAL PROPERTY TCU_TOUR_TARGETS "")
set_property(GLOBAL PROPERTY TCU_TEST_TARGETS "")

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
  # The tour runs the tests without a GPU, so it builds them (CMakeLists.txt, target `tour`).
  set_property(GLOBAL APPEND PROPERTY TCU_TEST_TARGETS ${name})
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

# tcu_add_cli_tests(<target> COUNT_FLAG <flag> [SEGMENT_FLAG <flag>])
# The command-line contract every executable keeps: --help exits 0; an unknown flag, a stray
# argument (also after --help), a malformed, negative or too large count, a segment size of 0
# and an unwritable --csv exit 2 with one message shape ("<program>: error: ...", then the
# --help hint); with every GPU hidden the program exits 3 and says so.
function(tcu_add_cli_tests target)
  cmake_parse_arguments(ARG "" "COUNT_FLAG;SEGMENT_FLAG" "" ${ARGN})
  set(_hint "\nRun '${target} --help' for the list of flags")
  set(_err "${target}: error: ")
  tcu_add_exit_code_test(${target}_cli_help COMMAND ${target} ARGS "--help" EXPECT 0 MATCH "Exit codes")
  tcu_add_exit_code_test(${target}_cli_unknown_flag COMMAND ${target} ARGS "--bogus" EXPECT 2
                         MATCH "${_err}unknown flag '--bogus'${_hint}")
  tcu_add_exit_code_test(${target}_cli_stray_argument COMMAND ${target} ARGS "extra" EXPECT 2
                         MATCH "${_err}unexpected argument 'extra'[^\n]*${_hint}")
  tcu_add_exit_code_test(${target}_cli_help_stray_argument COMMAND ${target} ARGS "--help extra" EXPECT 2
                         MATCH "${_err}unexpected argument 'extra'[^\n]*${_hint}")
  tcu_add_exit_code_test(${target}_cli_count_malformed COMMAND ${target} ARGS "${ARG_COUNT_FLAG} abc" EXPECT 2
                         MATCH "${_err}${ARG_COUNT_FLAG}: expects a count \\(e.g. 1000, 2\\^20, 64K\\), not 'abc'${_hint}")
  tcu_add_exit_code_test(${target}_cli_count_negative COMMAND ${target} ARGS "${ARG_COUNT_FLAG} -5" EXPECT 2
                         MATCH "${_err}${ARG_COUNT_FLAG}: must be between [^\n]*, not '-5'${_hint}")
  tcu_add_exit_code_test(${target}_cli_count_too_large COMMAND ${target} ARGS "${ARG_COUNT_FLAG} 2^64" EXPECT 2
                         MATCH "${_err}${ARG_COUNT_FLAG}: must be between [^\n]*, not '2\\^64' \\(too large\\)${_hint}")
  tcu_add_exit_code_test(${target}_cli_csv_unwritable COMMAND ${target} ARGS "--csv /nonexistent-dir/out.csv"
                         EXPECT 2 MATCH "${_err}--csv: cannot write '/nonexistent-dir/out.csv'[^\n]*${_hint}")
  if(ARG_SEGMENT_FLAG)
    tcu_add_exit_code_test(${target}_cli_segment_zero COMMAND ${target} ARGS "${ARG_SEGMENT_FLAG} 0" EXPECT 2
                           MATCH "${_err}${ARG_SEGMENT_FLAG}: must be between 1 and [^\n]*, not '0'${_hint}")
  endif()
  tcu_add_exit_code_test(${target}_cli_no_gpu COMMAND ${target} EXPECT 3 MATCH "GPU")
  set_tests_properties(${target}_cli_no_gpu PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
endfunction()
