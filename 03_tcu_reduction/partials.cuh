#pragma once
// Launch sizes and the second pass of split segments: host functions shared by the chapter's
// launchers (tcu_reduction.cu, baselines.cu).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace tcu::reduction {

// Multiprocessors of the current device (cached per device).
int sm_count();

// Grid size for a grid-stride kernel: enough blocks for `work_blocks`, at most `per_sm` per SM.
int grid_for(long long work_blocks, int per_sm);

// out[s] = Σ_c partials[s·chunks_per_segment + c] in fp32, in a fixed order (deterministic):
// up to 8 partials a thread adds them in chunk order, more a block does (strided shares, then a
// tree).
cudaError_t sum_partials(const float* partials, float* out, long long num_segments, long long chunks_per_segment,
                         cudaStream_t stream);

// Stream-ordered temporary memory from a pool private to this library (per device, created on
// first use) that keeps its memory between calls: cudaMallocAsync from the default pool would
// hand memory back to the driver at every synchronisation and map it again on the next call,
// which costs tens of microseconds — a quarter of a 2^28-element reduction.
cudaError_t temp_alloc(void** ptr, std::size_t bytes, cudaStream_t stream);
cudaError_t temp_free(void* ptr, cudaStream_t stream);

// out[i] = float(in[i]).
cudaError_t halves_to_floats(const __half* in, float* out, long long count, cudaStream_t stream);

}  // namespace tcu::reduction
