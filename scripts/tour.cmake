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
  message("\ntour: ${why}: the tour needs one; the tests ran on the host instead:\n")
  execute_process(COMMAND "${CTEST}" --test-dir "${BUILD_DIR}" -L host --output-on-failure RESULT_VARIABLE trc)
  if(NOT trc EQUAL 0)
    message(FATAL_ERROR "tour: host tests failed (ctest exit code ${trc})")
  endif()
  message("\ntour: ${why}: the tour needs one; the tests ran on the host (all passed). On a machine "
          "with a GPU, `cmake --workflow --preset tour` runs every chapter.")
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
