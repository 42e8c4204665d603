#pragma once
// The launchers of lesson 5 (08_ragged_segments.cu), ragged segments given by CUB's offsets:
// segment s = [begin[s], end[s]), empty when end <= begin; offsets are device arrays read by
// the kernels. Host code; each returns the first launch error. The API (tcu_device.cu) checks the
// arguments first.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tcu::detail::device {

// out[s] = Σ in[begin[s] … end[s]) (0 for an empty segment); segments may overlap or be unordered.
template <class OffsetT>  // std::int32_t or std::int64_t
cudaError_t launch_ragged_reduce(const __half* in, float* out, std::int64_t num_segments, const OffsetT* begin,
                                 const OffsetT* end, cudaStream_t stream);
// The prefix sums of every segment (segments must not overlap); elements outside them untouched.
template <class OutT, class OffsetT>
cudaError_t launch_ragged_scan(const __half* in, OutT* out, std::int64_t num_segments, const OffsetT* begin,
                               const OffsetT* end, bool inclusive, cudaStream_t stream);
// The same kernels for num_segments × segment_size (offsets s · segment_size, computed, not read).
cudaError_t launch_ragged_reduce_fixed(const __half* in, float* out, std::int64_t num_segments,
                                       std::int64_t segment_size, cudaStream_t stream);
template <class OutT>
cudaError_t launch_ragged_scan_fixed(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                     bool inclusive, cudaStream_t stream);

}  // namespace tcu::detail::device
