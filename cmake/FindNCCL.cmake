# FindNCCL — NVIDIA's collective communication library, for 05_block_grid/multi_gpu.
#
#   list(APPEND CMAKE_MODULE_PATH ${PROJECT_SOURCE_DIR}/cmake)
#   find_package(NCCL)                     # then link NCCL::nccl
#
# Where it looks, first match wins (a place must hold both nccl.h and the library, so that a
# header of one NCCL is never paired with the library of another):
#   1. NCCL_ROOT (CMake or environment variable): <root>/include/nccl.h, <root>/lib*/libnccl*;
#   2. the CUDA toolkit (some toolkits ship NCCL next to cudart);
#   3. the nvidia-nccl-cu13 / -cu12 pip package of python3 (asked quietly at configure time):
#      <site-packages>/nvidia/nccl/{include/nccl.h,lib/libnccl.so.2};
#   4. the standard paths (Debian/Ubuntu libnccl-dev: /usr/include, /usr/lib/<triplet>).
# NCCL_INCLUDE_DIR and NCCL_LIBRARY given on the command line skip the search.
#
# Results: NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_LIBRARY_DIR, NCCL_VERSION and the
# imported target NCCL::nccl. A program linking it finds the library from the build tree through
# its RPATH (CMake adds the directory of an imported shared library; callers also add
# NCCL_LIBRARY_DIR to BUILD_RPATH, which covers a directory the linker knows implicitly).

set(_nccl_roots "")
if(NCCL_ROOT)
  list(APPEND _nccl_roots "${NCCL_ROOT}")
endif()
if(DEFINED ENV{NCCL_ROOT} AND NOT "$ENV{NCCL_ROOT}" STREQUAL "")
  list(APPEND _nccl_roots "$ENV{NCCL_ROOT}")
endif()
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_roots "${CUDAToolkit_LIBRARY_ROOT}")
endif()
if(CUDAToolkit_TARGET_DIR)
  list(APPEND _nccl_roots "${CUDAToolkit_TARGET_DIR}")
endif()
if(CUDAToolkit_BIN_DIR)
  get_filename_component(_nccl_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  list(APPEND _nccl_roots "${_nccl_cuda_root}")
endif()

# The pip package: nvidia.nccl may be a namespace package (no __init__.py, __file__ is None).
find_program(NCCL_PYTHON3 NAMES python3)
mark_as_advanced(NCCL_PYTHON3)
if(NCCL_PYTHON3)
  execute_process(
    COMMAND "${NCCL_PYTHON3}" -c
            "import os, nvidia.nccl as m; f = getattr(m, '__file__', None); print(os.path.dirname(f) if f else list(m.__path__)[0])"
    OUTPUT_VARIABLE _nccl_pip_dir ERROR_QUIET RESULT_VARIABLE _nccl_pip_rc TIMEOUT 30
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_nccl_pip_rc EQUAL 0 AND IS_DIRECTORY "${_nccl_pip_dir}")
    list(APPEND _nccl_roots "${_nccl_pip_dir}")
  endif()
endif()

if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  foreach(_nccl_root IN LISTS _nccl_roots)
    find_path(_nccl_inc nccl.h PATHS "${_nccl_root}" PATH_SUFFIXES include NO_DEFAULT_PATH NO_CACHE)
    find_library(_nccl_lib NAMES nccl libnccl.so.2 PATHS "${_nccl_root}" PATH_SUFFIXES lib lib64
                 NO_DEFAULT_PATH NO_CACHE)
    if(_nccl_inc AND _nccl_lib)
      set(NCCL_INCLUDE_DIR "${_nccl_inc}" CACHE PATH "Folder holding nccl.h")
      set(NCCL_LIBRARY "${_nccl_lib}" CACHE FILEPATH "The NCCL library (libnccl.so)")
      break()
    endif()
  endforeach()
  # 4. the standard paths
  find_path(NCCL_INCLUDE_DIR nccl.h)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2)
endif()

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    set(_nccl_${_part} 0)
    foreach(_line IN LISTS _nccl_version_lines)
      if(_line MATCHES "^#define NCCL_${_part} +([0-9]+)")
        set(_nccl_${_part} "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)

if(NCCL_FOUND)
  get_filename_component(NCCL_LIBRARY_DIR "${NCCL_LIBRARY}" DIRECTORY)
  if(NOT TARGET NCCL::nccl)
    add_library(NCCL::nccl SHARED IMPORTED)
    set_target_properties(NCCL::nccl PROPERTIES
      IMPORTED_LOCATION "${NCCL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  endif()
endif()
