#pragma once
// Host-side work of the chapter: the fill every workflow starts with, the FP64 reference, and
// the two CPU reductions the GPU workflows are compared with.
//
// The fill and the OpenMP reduction use every core (OpenMP, when the compiler has it): the
// point of the chapter is where the data lives, and a serial fill of 2^29 elements would take
// longer than everything else together. The serial reduction is the study's "cpu-ref".
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "common/data.cuh"
#include "common/reference.hpp"

namespace tcu::unified_memory {

// Threads the OpenMP parts use (1 without OpenMP).
int host_threads();

// out[i] = element i of the data set (dist, seed), exactly what tcu::fill_host writes, in
// contiguous chunks per thread (each thread first-touches its own pages).
void fill_host_parallel(__half* out, std::size_t n, Dist dist, std::uint64_t seed);

// Compensated FP64 sum and sum of |x| (tcu::reference_sum per chunk, chunks combined with the
// same compensation): the reference every result is verified against.
SumRef reference_sum_parallel(const __half* x, std::size_t n);

// The CPU baselines. Both accumulate in fp64: fp16 inputs are exact in fp64, while an fp32
// running sum of 2^28 values in [0,1) loses most of every addend once it passes 2^24.
double cpu_sum_serial(const __half* x, std::size_t n);   // one loop, one fp64 accumulator
double cpu_sum_openmp(const __half* x, std::size_t n);   // per-thread fp64 partials, then added

}  // namespace tcu::unified_memory
