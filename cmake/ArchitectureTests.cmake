# Host tests of cmake/Architectures.cmake, run alone in script mode against this build's
# compiler (a second or so each): the requested list is checked before project(), and the
# compiler asked is the one CMake uses, not the nvcc first on PATH.
set(_tcu_arch_module ${PROJECT_SOURCE_DIR}/cmake/Architectures.cmake)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _tcu_arch_test_version "${CMAKE_CUDA_COMPILER_VERSION}")
# CUDACXX and CUDAARCHS of the caller must not decide for the tests.
set(_tcu_arch_env ${CMAKE_COMMAND} -E env --unset=CUDACXX --unset=CUDAARCHS)

# tcu_add_architecture_test(<name> ARCHS <one entry or ""> PASS <regex> [FAIL <regex>] [PATH_FIRST <dir>])
function(tcu_add_architecture_test name)
  cmake_parse_arguments(ARG "" "ARCHS;PASS;FAIL;PATH_FIRST" "" ${ARGN})
  set(_env ${_tcu_arch_env})
  if(ARG_PATH_FIRST)
    list(APPEND _env "PATH=${ARG_PATH_FIRST}:$ENV{PATH}")
  endif()
  set(_defs "-DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER}")
  if(NOT "${ARG_ARCHS}" STREQUAL "")
    list(APPEND _defs "-DCMAKE_CUDA_ARCHITECTURES=${ARG_ARCHS}")
  endif()
  add_test(NAME ${name} COMMAND ${_env} ${CMAKE_COMMAND} ${_defs} -P ${_tcu_arch_module})
  # CMake wraps the lines of an error message: a space in PASS also matches a line break.
  string(REPLACE " " "[ \n]+" _pass "${ARG_PASS}")
  set_tests_properties(${name} PROPERTIES LABELS host PASS_REGULAR_EXPRESSION "${_pass}")
  if(ARG_FAIL)
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${ARG_FAIL}")
  endif()
endfunction()

tcu_add_architecture_test(architectures_refuse_no_tensor_cores ARCHS "61"
                          PASS "sm_61 has no tensor cores" FAIL "tcu: CUDA architectures:")
tcu_add_architecture_test(architectures_refuse_unknown_to_compiler ARCHS "999"
                          PASS "nvcc ${_tcu_arch_test_version} .* cannot target sm_999; it knows .*87"
                          FAIL "tcu: CUDA architectures:")
tcu_add_architecture_test(architectures_refuse_bad_entry ARCHS "sm_87"
                          PASS "'sm_87' is not an architecture" FAIL "tcu: CUDA architectures:")
tcu_add_architecture_test(architectures_accept_suffixes ARCHS "87-real"
                          PASS "tcu: CUDA architectures: 87-real ")
if(_tcu_arch_test_version VERSION_GREATER_EQUAL 13.0)
  # Jetson Xavier with CUDA 13: the Xavier advice, before CMake's own compiler check.
  tcu_add_architecture_test(architectures_refuse_xavier_on_cuda13 ARCHS "72"
                            PASS "cannot target sm_72 \\(Volta / Jetson Xavier\\): CUDA 13 dropped it"
                            FAIL "tcu: CUDA architectures:")
else()
  tcu_add_architecture_test(architectures_accept_xavier_on_cuda12 ARCHS "72"
                            PASS "tcu: CUDA architectures: 72 .*checked against nvcc ${_tcu_arch_test_version}")
endif()

# Another nvcc first on PATH, saying it is CUDA 11.0: the module must still ask the compiler
# CMake was given (the default list comes from that one's version).
set(_tcu_fake_nvcc_dir ${CMAKE_BINARY_DIR}/architecture_tests/other_nvcc)
file(WRITE ${_tcu_fake_nvcc_dir}/nvcc "#!/bin/sh\necho 'Cuda compilation tools, release 11.0, V11.0.0'\n")
file(CHMOD ${_tcu_fake_nvcc_dir}/nvcc PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
tcu_add_architecture_test(architectures_ask_the_compiler_cmake_uses ARCHS ""
                          PATH_FIRST ${_tcu_fake_nvcc_dir}
                          PASS "tcu: CUDA architectures: .*checked against nvcc ${_tcu_arch_test_version} "
                          FAIL "11\\.0|too old")
