#pragma once
// The launchers of lessons 5 and 6 (08_ragged_reduce.cu, 09_ragged_scan.cu): segment s =
// [begin[s], end[s]) of device offset arrays, empty when end <= begin. Host code; each returns the
// first launch error; the API (tcu_device.cu) checks the arguments first.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tcu::tc {
struct RaggedRange;
}

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

// ---- shared by both lessons (ragged_common.cu) ----
// The covered range of the offsets into *range, from the two ends only: one block reads them up to
// the first and down to the last non-empty segment and checks the order there (the walks check the
// rest); zero_empty (reductions): 0 into out[s] of every empty s it reads.
template <class OffsetT>
cudaError_t find_ragged_ends(tc::RaggedRange* range, const OffsetT* begin, const OffsetT* end,
                             std::int64_t num_segments, float* zero_empty, cudaStream_t stream);
cudaError_t fixed_ragged_range(tc::RaggedRange* range, std::int64_t num_segments, std::int64_t segment_size,
                               cudaStream_t stream);
// Unordered or overlapping segments: a warp per segment (correct, slower). The kernels read
// *range on the device and return at once when the segments are ordered.
template <class OffsetT>
cudaError_t ragged_reduce_fallback(const __half* in, float* out, std::int64_t num_segments, const OffsetT* begin,
                                   const OffsetT* end, const tc::RaggedRange* range, cudaStream_t stream);
template <class OutT, class OffsetT>
cudaError_t ragged_scan_fallback(const __half* in, OutT* out, std::int64_t num_segments, const OffsetT* begin,
                                 const OffsetT* end, bool inclusive, const tc::RaggedRange* range,
                                 cudaStream_t stream);

}  // namespace tcu::detail::device
