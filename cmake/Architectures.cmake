# Decide CMAKE_CUDA_ARCHITECTURES before project() enables CUDA, say which, and refuse a
# list the CUDA compiler cannot build: project() would otherwise stop inside CMake's own
# compiler check ("Unsupported gpu architecture 'compute_72'") without saying what to do.
#
# The compiler asked is the one CMake will use: CMAKE_CUDA_COMPILER (-D or cache), else the
# CUDACXX environment variable, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.
#
# Order of precedence for the list:
#   1. -DCMAKE_CUDA_ARCHITECTURES=... (or a preset that sets it)
#   2. the CUDAARCHS environment variable (CMake's own convention)
#   3. "native" when nvidia-smi lists a GPU on this machine
#   4. a list that this compiler can target: CUDA 13 dropped sm_70/sm_72 (Volta, Jetson
#      Xavier), so they are only added for CUDA 12.
# Tensor cores (WMMA) need compute capability 7.0 or newer; nothing older is ever listed.
#
# Runs in project mode (included from CMakeLists.txt) and in script mode, where the tests
# run it alone: cmake -DCMAKE_CUDA_COMPILER=... [-DCMAKE_CUDA_ARCHITECTURES=...] -P Architectures.cmake

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.24...4.4)  # the policies of the project (IN_LIST)
endif()

# Sets CMAKE_CUDA_ARCHITECTURES in the cache (a plain variable in script mode).
macro(_tcu_set_architectures value)
  if(CMAKE_SCRIPT_MODE_FILE)
    set(CMAKE_CUDA_ARCHITECTURES "${value}")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${value}" CACHE STRING "CUDA architectures" FORCE)
  endif()
endmacro()

# The compiler CMake will use.
set(_tcu_nvcc "")
if(CMAKE_CUDA_COMPILER)
  if(IS_ABSOLUTE "${CMAKE_CUDA_COMPILER}")
    set(_tcu_nvcc "${CMAKE_CUDA_COMPILER}")
  else()
    find_program(_tcu_nvcc_named NAMES "${CMAKE_CUDA_COMPILER}" NO_CACHE)
    set(_tcu_nvcc "${_tcu_nvcc_named}")
  endif()
elseif(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
  set(_tcu_nvcc "$ENV{CUDACXX}")
else()
  find_program(_tcu_nvcc_found nvcc HINTS /usr/local/cuda/bin NO_CACHE)
  set(_tcu_nvcc "${_tcu_nvcc_found}")
endif()

# Its version and the virtual architectures it knows (compute_XX, from --list-gpu-arch).
set(_tcu_cuda_version "")
set(_tcu_known_archs "")
if(_tcu_nvcc AND EXISTS "${_tcu_nvcc}")
  execute_process(COMMAND "${_tcu_nvcc}" --version OUTPUT_VARIABLE _tcu_nvcc_out
                  ERROR_QUIET RESULT_VARIABLE _tcu_nvcc_rc)
  if(_tcu_nvcc_rc EQUAL 0 AND _tcu_nvcc_out MATCHES "release ([0-9]+\\.[0-9]+)")
    set(_tcu_cuda_version "${CMAKE_MATCH_1}")
  endif()
  execute_process(COMMAND "${_tcu_nvcc}" --list-gpu-arch OUTPUT_VARIABLE _tcu_arch_out
                  ERROR_QUIET RESULT_VARIABLE _tcu_arch_rc)
  if(_tcu_arch_rc EQUAL 0)
    string(REGEX MATCHALL "compute_[0-9]+[a-z]?" _tcu_known_archs "${_tcu_arch_out}")
    list(TRANSFORM _tcu_known_archs REPLACE "compute_" "")
  endif()
endif()
if(_tcu_cuda_version)
  set(_tcu_compiler_words "nvcc ${_tcu_cuda_version} (${_tcu_nvcc})")
  if(_tcu_cuda_version VERSION_LESS 12.0)
    message(FATAL_ERROR "${_tcu_compiler_words} is too old: CUDA 12.x or 13.x is needed (nvcc, CCCL "
                        "and cuBLAS). Set CUDACXX or CMAKE_CUDA_COMPILER to a newer nvcc.")
  endif()
else()
  set(_tcu_compiler_words "the CUDA compiler (none found yet: CMake reports it next)")
endif()

# A build folder remembers its list (the cache). Whether the cached list is the user's or one
# this file chose is kept in TCU_CUDA_ARCHITECTURES_FROM: a list this file chose (from
# CUDAARCHS or the GPU) gives way when CUDAARCHS changes on a later configure, as the README
# promises (`CUDAARCHS=80 cmake --workflow --preset test` in an existing build/); a list given
# with -DCMAKE_CUDA_ARCHITECTURES or by a preset always wins.
set(_tcu_arch_source "")
set(_tcu_env_archs "$ENV{CUDAARCHS}")
set(_tcu_cached_by_us FALSE)
if(NOT CMAKE_SCRIPT_MODE_FILE AND DEFINED CACHE{TCU_CUDA_ARCHITECTURES_FROM}
   AND NOT TCU_CUDA_ARCHITECTURES_FROM STREQUAL "user"
   AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${TCU_CUDA_ARCHITECTURES_CHOSEN}")
  set(_tcu_cached_by_us TRUE)
endif()
if(_tcu_cached_by_us AND NOT _tcu_env_archs STREQUAL "" AND NOT _tcu_env_archs STREQUAL "${CMAKE_CUDA_ARCHITECTURES}")
  set(_tcu_old_archs "${CMAKE_CUDA_ARCHITECTURES}")
  _tcu_set_architectures("${_tcu_env_archs}")
  set(_tcu_arch_source "CUDAARCHS environment variable; this build folder had ${_tcu_old_archs}")
  set(_tcu_from env)
elseif(_tcu_cached_by_us)
  set(_tcu_arch_source "kept from the first configure of this build folder (${TCU_CUDA_ARCHITECTURES_FROM}); "
                       "CUDAARCHS=... or -DCMAKE_CUDA_ARCHITECTURES=... changes it")
  set(_tcu_from "${TCU_CUDA_ARCHITECTURES_FROM}")
elseif(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
  set(_tcu_arch_source "-DCMAKE_CUDA_ARCHITECTURES or the preset")
  set(_tcu_from user)
elseif(NOT _tcu_env_archs STREQUAL "")
  _tcu_set_architectures("$ENV{CUDAARCHS}")
  set(_tcu_arch_source "CUDAARCHS environment variable")
  set(_tcu_from env)
else()
  set(_tcu_from "chosen for this machine")
  set(_tcu_gpu_visible FALSE)
  find_program(_tcu_nvidia_smi nvidia-smi NO_CACHE)
  if(_tcu_nvidia_smi)
    execute_process(COMMAND "${_tcu_nvidia_smi}" -L OUTPUT_VARIABLE _tcu_smi_out
                    ERROR_QUIET RESULT_VARIABLE _tcu_smi_rc TIMEOUT 20)
    if(_tcu_smi_rc EQUAL 0 AND _tcu_smi_out MATCHES "GPU [0-9]+:")
      set(_tcu_gpu_visible TRUE)
    endif()
  endif()

  if(_tcu_gpu_visible)
    _tcu_set_architectures("native")
    set(_tcu_arch_source "a GPU is visible (nvidia-smi -L)")
  elseif(_tcu_cuda_version AND _tcu_cuda_version VERSION_LESS 13.0)
    _tcu_set_architectures("70;72;75;80;86;87;89;90")
    set(_tcu_arch_source "no GPU visible; ${_tcu_compiler_words} still targets Volta (70) and Xavier (72)")
  else()
    _tcu_set_architectures("75;80;86;87;89;90")
    set(_tcu_arch_source "no GPU visible; ${_tcu_compiler_words} targets sm_75 and newer")
  endif()
endif()

# Every entry against the compiler: "87", "87-real", "90a-virtual"; CMake's keywords
# (native, all, all-major) are left to CMake.
foreach(_tcu_entry IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(_tcu_entry MATCHES "^(native|all|all-major|OFF)$")
    continue()
  endif()
  if(NOT _tcu_entry MATCHES "^([0-9]+)([a-z]?)(-real|-virtual)?$")
    message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES entry '${_tcu_entry}' is not an architecture "
                        "(examples: 87, 90, 80-real, native).")
  endif()
  set(_tcu_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  set(_tcu_arch_number "${CMAKE_MATCH_1}")
  if(_tcu_arch_number LESS 70)
    message(FATAL_ERROR "sm_${_tcu_arch} has no tensor cores: every chapter needs sm_70 or newer.")
  endif()
  if(_tcu_known_archs AND NOT _tcu_arch IN_LIST _tcu_known_archs)
    if(_tcu_arch_number LESS 75)
      message(FATAL_ERROR "${_tcu_compiler_words} cannot target sm_${_tcu_arch} (Volta / Jetson "
                          "Xavier): CUDA 13 dropped it. Build for it with CUDA 12.x "
                          "(-DCMAKE_CUDA_COMPILER=/usr/local/cuda-12.6/bin/nvcc, say), or drop it "
                          "from the architectures.")
    endif()
    list(JOIN _tcu_known_archs ", " _tcu_known_words)
    message(FATAL_ERROR "${_tcu_compiler_words} cannot target sm_${_tcu_arch}; it knows ${_tcu_known_words}. "
                        "Use a newer CUDA for it, or drop it from the architectures.")
  endif()
endforeach()
if(NOT CMAKE_SCRIPT_MODE_FILE)
  set(TCU_CUDA_ARCHITECTURES_FROM "${_tcu_from}" CACHE INTERNAL "who chose CMAKE_CUDA_ARCHITECTURES")
  set(TCU_CUDA_ARCHITECTURES_CHOSEN "${CMAKE_CUDA_ARCHITECTURES}" CACHE INTERNAL "the list last chosen")
endif()
message(STATUS "tcu: CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (${_tcu_arch_source}; "
               "checked against ${_tcu_compiler_words})")
