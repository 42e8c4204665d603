# The tour (`cmake --workflow --preset tour`), run by the `tour` target of CMakeLists.txt:
#   cmake -DPROBE=<bandwidth_probe> -DBUILD_DIR=<build> -DCTEST=<ctest> -DSTEPS="name exe args|..." -P tour.cmake
# The bandwidth probe goes first. When it finds no usable GPU (exit 3) the tour says so, runs the
# host tests instead and ends successfully: a machine without a GPU can still build and test.
# Otherwise every chapter runs with its default arguments and the first failure stops the tour.
cmake_minimum_required(VERSION 3.24)

message("== bandwidth_probe ==")
execute_process(COMMAND "${PROBE}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 3)
  string(STRIP "${err}" err)
  message("${err}")
  if(err MATCHES "no NVIDIA GPU or driver found|no CUDA GPU found")
    set(why "no NVIDIA GPU or driver found")
  else()
    set(why "no usable NVIDIA GPU (see above)")
  endif()
  message("\ntour: ${why}: the chapters need one; running the host tests instead:\n")
  execute_process(COMMAND "${CTEST}" --test-dir "${BUILD_DIR}" -L host --output-on-failure
                  RESULT_VARIABLE trc OUTPUT_VARIABLE tout ERROR_VARIABLE tout
                  ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
  # CTest's summary: "100% tests passed, 0 tests failed out of 71"; skipped tests are listed
  # as "  12 - plot_results (Skipped)" and counted in neither.
  set(total 0)
  set(failed 0)
  if(tout MATCHES "tests passed, ([0-9]+) tests? failed out of ([0-9]+)")
    set(failed "${CMAKE_MATCH_1}")
    set(total "${CMAKE_MATCH_2}")
  endif()
  string(REGEX MATCHALL "[0-9]+ - [^ \n]+ \\(Skipped\\)" skipped_lines "${tout}")
  set(skipped_names "")
  foreach(line IN LISTS skipped_lines)
    string(REGEX REPLACE "^[0-9]+ - ([^ ]+) .*" "\\1" name "${line}")
    list(APPEND skipped_names "${name}")
  endforeach()
  list(LENGTH skipped_names skipped)
  math(EXPR passed "${total} - ${failed} - ${skipped}")
  if(NOT trc EQUAL 0 OR total EQUAL 0)
    message(FATAL_ERROR "tour: host tests failed (ctest exit code ${trc}; ${failed} of ${total} failed)")
  endif()
  execute_process(COMMAND "${CTEST}" --test-dir "${BUILD_DIR}" -N -L gpu OUTPUT_VARIABLE gout)
  set(gpu_tests 0)
  if(gout MATCHES "Total Tests: ([0-9]+)")
    set(gpu_tests "${CMAKE_MATCH_1}")
  endif()
  set(skipped_words "")
  if(skipped GREATER 0)
    list(JOIN skipped_names ", " skipped_words)
    set(skipped_words " (${skipped_words}; `ctest --test-dir ${BUILD_DIR} -V -R <name>` says why)")
  endif()
  string(REGEX REPLACE "([^| ]+) [^|]*" "\\1" step_names "${STEPS}")
  string(REPLACE "|" ", " step_names "${step_names}")
  message("\ntour: ${why}. Built everything; ran the ${total} host tests: ${passed} passed, "
          "${skipped} skipped${skipped_words}, ${failed} failed. Not run: the bandwidth probe, the "
          "chapters (${step_names}) and the ${gpu_tests} GPU tests. On a machine with an NVIDIA GPU "
          "of compute capability 7.0 or newer, this command runs and verifies every chapter and "
          "`cmake --workflow --preset test` runs the GPU tests too.")
  return()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "tour: bandwidth_probe failed (exit code ${rc}): ${err}")
endif()
if(err)
  message("${err}")
endif()

string(REPLACE "|" ";" steps "${STEPS}")
foreach(step IN LISTS steps)
  separate_arguments(cmd UNIX_COMMAND "${step}")
  list(POP_FRONT cmd name)
  message("== ${name} ==")
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tour: ${name} exited with code ${rc}; the tour stops here")
  endif()
endforeach()
message("tour: every chapter ran and verified")
