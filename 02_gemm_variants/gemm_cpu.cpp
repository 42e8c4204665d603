// Steps 0 and 1, compiled once, by the host compiler (with -fopenmp when CMake found OpenMP).
// kernels/00_cpu_serial.hpp and 01_cpu_openmp.hpp hold the definitions; include them nowhere else.
#include "02_gemm_variants/gemm_variants.cuh"
#include "02_gemm_variants/kernels/00_cpu_serial.hpp"
#include "02_gemm_variants/kernels/01_cpu_openmp.hpp"
