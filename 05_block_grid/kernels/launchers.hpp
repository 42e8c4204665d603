#pragma once
// The launchers of the chapter's kernels, one or more per lesson file (in lesson order), for the
// dispatch (tcu_device.cu) and for lessons that build on an earlier one. Host code; each returns
// the launch's error. Sizes are element counts; pointers may have any alignment.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tcu::detail::device {

// 01_block_reduce.cu — Dakkak Alg. 4: one block per segment (any segment size).
cudaError_t launch_block_reduce(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                cudaStream_t stream);
// 02_block_scan.cu — Dakkak Alg. 7: one block per segment, walking its block tiles with a carry.
template <class OutT>
cudaError_t launch_block_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, cudaStream_t stream);

// 03_grid_reduce_two_pass.cu — the first pass alone: work item i = chunk i % chunks_per_segment
// of segment i / chunks_per_segment, chunk_elems elements (a segment's last chunk shorter);
// out[i] = its sum.
cudaError_t launch_reduce_chunks(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                 std::int64_t chunks_per_segment, std::int64_t chunk_elems, cudaStream_t stream);
// 03_grid_reduce_two_pass.cu — Dakkak's grid level: chunk partials (Alg. 4), then a second pass.
cudaError_t launch_grid_reduce_two_pass(const __half* in, float* out, std::int64_t num_segments,
                                        std::int64_t segment_size, cudaStream_t stream);

// 04_grid_reduce_single_pass.cu — one launch: the last block to finish sums the partials.
cudaError_t launch_grid_reduce_single_pass(const __half* in, float* out, std::int64_t n, cudaStream_t stream);
// Blocks of the chapter's reduction kernels the GPU holds at once.
int resident_reduce_blocks();

// 05_grid_scan_three_kernel.cu — Dakkak's grid level: tile totals, scan of totals, add-back.
template <class OutT>
cudaError_t launch_grid_scan_three_kernel(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                          cudaStream_t stream);

// 06_grid_scan_lookback.cu — single pass, decoupled look-back (one segment: the array). With
// d_carry_in (device memory, read when the kernel runs) every prefix starts from *d_carry_in
// (the exclusive scan's first element is *d_carry_in); nullptr: from 0.
template <class OutT>
cudaError_t launch_grid_scan_lookback(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                      cudaStream_t stream, const float* d_carry_in = nullptr);

// 07_segmented_scan_lookback.cu — the same with segments: the look-back stops at the block tile
// holding the segment's start. The reduction writes each segment's last prefix.
template <class OutT>
cudaError_t launch_segmented_scan_lookback(const __half* in, OutT* out, std::int64_t num_segments,
                                           std::int64_t segment_size, bool inclusive, cudaStream_t stream);
cudaError_t launch_segmented_reduce_lookback(const __half* in, float* out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream);

// 10_grid_scan_warp_specialised.cu — lesson 3b with a producer warp streaming block tiles by bulk
// copies: for an input on a 16-byte boundary, on sm_90 and newer (the dispatch checks that the
// kernel below runs compute_90 code on this GPU; elsewhere lesson 3b runs).
const void* warp_specialised_scan_kernel();
template <class OutT>
cudaError_t launch_grid_scan_warp_specialised(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                              cudaStream_t stream);

}  // namespace tcu::detail::device
