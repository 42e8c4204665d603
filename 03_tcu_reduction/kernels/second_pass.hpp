#pragma once
// The second pass of split segments (host declarations; the kernels are in second_pass.cu):
// the fp32 partials of a segment's chunks added into its result, deterministically.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tcu::detail::reduce {

// out[s] = Σ_c partials[s·chunks_per_segment + c] in fp32, in a fixed order (deterministic):
// up to kFewPartials (split_segments.hpp) a thread per segment adds them in chunk order; more,
// a block per segment does (strided shares, then a tree).
cudaError_t sum_partials(const float* partials, float* out, std::int64_t num_segments,
                         std::int64_t chunks_per_segment, cudaStream_t stream);

// out[i] = float(in[i]) (the fp16 replica of the chained recurrence converts its result).
cudaError_t halves_to_floats(const __half* in, float* out, std::int64_t count, cudaStream_t stream);

}  // namespace tcu::detail::reduce
