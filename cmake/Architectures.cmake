# Decide CMAKE_CUDA_ARCHITECTURES before project() enables CUDA, and say which.
#
# Order of precedence:
#   1. -DCMAKE_CUDA_ARCHITECTURES=... (or a preset that sets it)
#   2. the CUDAARCHS environment variable (CMake's own convention)
#   3. "native" when nvidia-smi lists a GPU on this machine
#   4. a list that the installed toolkit can target: CUDA 13 dropped sm_70/sm_72 (Volta,
#      Jetson Xavier), so they are only added for CUDA 12.
# Tensor cores (WMMA) need compute capability 7.0 or newer; nothing older is ever listed.

set(_tcu_arch_source "")
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
  set(_tcu_arch_source "CMAKE_CUDA_ARCHITECTURES given by the user or preset")
elseif(DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
  set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}" CACHE STRING "CUDA architectures")
  set(_tcu_arch_source "CUDAARCHS environment variable")
else()
  # Find nvcc the way CMake will: CUDACXX, then PATH, then the usual install prefix.
  set(_tcu_nvcc "")
  if(DEFINED ENV{CUDACXX} AND EXISTS "$ENV{CUDACXX}")
    set(_tcu_nvcc "$ENV{CUDACXX}")
  else()
    find_program(_tcu_nvcc_found nvcc HINTS /usr/local/cuda/bin)
    if(_tcu_nvcc_found)
      set(_tcu_nvcc "${_tcu_nvcc_found}")
    endif()
  endif()
  set(_tcu_cuda_major 0)
  if(_tcu_nvcc)
    execute_process(COMMAND "${_tcu_nvcc}" --version OUTPUT_VARIABLE _tcu_nvcc_out
                    ERROR_QUIET RESULT_VARIABLE _tcu_nvcc_rc)
    if(_tcu_nvcc_rc EQUAL 0 AND _tcu_nvcc_out MATCHES "release ([0-9]+)\\.([0-9]+)")
      set(_tcu_cuda_major ${CMAKE_MATCH_1})
    endif()
  endif()

  set(_tcu_gpu_visible FALSE)
  find_program(_tcu_nvidia_smi nvidia-smi)
  if(_tcu_nvidia_smi)
    execute_process(COMMAND "${_tcu_nvidia_smi}" -L OUTPUT_VARIABLE _tcu_smi_out
                    ERROR_QUIET RESULT_VARIABLE _tcu_smi_rc TIMEOUT 20)
    if(_tcu_smi_rc EQUAL 0 AND _tcu_smi_out MATCHES "GPU [0-9]+:")
      set(_tcu_gpu_visible TRUE)
    endif()
  endif()

  if(_tcu_gpu_visible)
    set(CMAKE_CUDA_ARCHITECTURES "native" CACHE STRING "CUDA architectures")
    set(_tcu_arch_source "a GPU is visible (nvidia-smi -L)")
  elseif(_tcu_cuda_major GREATER_EQUAL 13)
    set(CMAKE_CUDA_ARCHITECTURES "75;80;86;87;89;90" CACHE STRING "CUDA architectures")
    set(_tcu_arch_source "no GPU visible; CUDA ${_tcu_cuda_major} targets sm_75 and newer")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "70;72;75;80;86;87;89;90" CACHE STRING "CUDA architectures")
    set(_tcu_arch_source "no GPU visible; CUDA 12 still targets Volta (70) and Xavier (72)")
  endif()
endif()
message(STATUS "tcu: CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (${_tcu_arch_source})")
