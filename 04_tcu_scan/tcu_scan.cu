// The public API (tcu_scan.cuh): argument checks, the choice of algorithm by segment size,
// and the dispatch to the algorithm files. Explicitly instantiated for __half and float.
#include <climits>
#include <cstdint>

#include "04_tcu_scan/block_pieces.cuh"
#include "04_tcu_scan/scan_kernels.hpp"
#include "04_tcu_scan/tcu_scan.cuh"
#include "04_tcu_scan/warp_frame.cuh"
#include "common/segments.hpp"

namespace tcu {

const char* scan_algo_name(ScanAlgo a) {
  switch (a) {
    case ScanAlgo::automatic: return "auto";
    case ScanAlgo::scan16: return "scan16";
    case ScanAlgo::scan256: return "scan256";
    case ScanAlgo::scan256n: return "scan256n";
    case ScanAlgo::scan16n: return "scan16n";
    case ScanAlgo::scan256_block: return "scan256_block";
    case ScanAlgo::matmulscan: return "matmulscan";
    case ScanAlgo::scan256_pipelined: return "scan256_pipelined";
    case ScanAlgo::scan256_pipelined_shfl: return "scan256_pipelined_shfl";
  }
  return "?";
}

bool parse_scan_algo(const std::string& name, ScanAlgo& out) {
  for (ScanAlgo a : {ScanAlgo::automatic, ScanAlgo::scan16, ScanAlgo::scan256, ScanAlgo::scan256n, ScanAlgo::scan16n,
                     ScanAlgo::scan256_block, ScanAlgo::matmulscan, ScanAlgo::scan256_pipelined,
                     ScanAlgo::scan256_pipelined_shfl})
    if (name == scan_algo_name(a)) {
      out = a;
      return true;
    }
  return false;
}

std::int64_t scan_algo_max_segment(ScanAlgo a) {
  switch (a) {
    case ScanAlgo::scan16: return 16;
    case ScanAlgo::scan256: return 256;
    default: return INT64_MAX;
  }
}

bool scan_algo_supports(ScanAlgo a, std::int64_t segment_size) {
  if (segment_size > scan_algo_max_segment(a)) return false;
  const bool pipelined = a == ScanAlgo::scan256_pipelined || a == ScanAlgo::scan256_pipelined_shfl;
  return !pipelined || scan_detail::scan256_pipelined_supports(segment_size);
}

// Crossovers: the fastest algorithm per segment size in the H100 sweep (n = 2^28,
// docs/results/h100/segmented_scan.csv): Scan16 up to 16, Scan256 up to 256; for fp16 outputs
// Scan16N up to 512 and Scan256N up to 2^16. Scan256N carries the running sum in the
// accumulator of 3 MMAs per tile, and tensor cores truncate when they add small products to a
// large accumulator: its error grows with the number of tiles (well below fp16's rounding, but
// 60× the block level's at 2^16 with fp32 outputs). So fp32 outputs above 256, and any segment
// above 2^16 (where few long segments leave warps idle), take the block level, whose carries
// are fp32 additions once per 4096-element piece.
ScanAlgo choose_scan_algo(std::int64_t segment_size, bool fp32_output) {
  if (segment_size <= 16) return ScanAlgo::scan16;
  // Powers of two 32 … 2^16: the pipelined Scan256 with the shuffle row carry is the fastest
  // for both output types in the sweep (and as accurate as the block level for fp32).
  if (segment_size <= 65536 && scan_detail::scan256_pipelined_supports(segment_size))
    return ScanAlgo::scan256_pipelined_shfl;
  if (segment_size <= 256) return ScanAlgo::scan256;
  if (fp32_output || segment_size > 65536) return ScanAlgo::scan256_block;
  if (segment_size <= 512) return ScanAlgo::scan16n;
  return ScanAlgo::scan256n;
}

namespace scan_detail {

namespace {
int sm_count() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1)
    sms = 1;
  return sms;
}
}  // namespace

int resident_grid_size(const void* kernel, int threads, std::int64_t items) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess || per_sm < 1)
    per_sm = 1;
  const std::int64_t cap = static_cast<std::int64_t>(sm_count()) * per_sm;
  return static_cast<int>(items < cap ? items : cap);
}

}  // namespace scan_detail

template <class OutT>
cudaError_t segmented_scan_sum(ScanAlgo algo, bool inclusive, const __half* d_in, OutT* d_out,
                               std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  namespace sd = scan_detail;
  // The rules every segmented API of the tutorial shares (common/segments.hpp): negative sizes,
  // segment_size 0 with work to do, overflow and null pointers are invalid; zero segments is a no-op.
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (check.nothing_to_do) return cudaSuccess;
  if (!scan_algo_supports(algo, segment_size)) return cudaErrorInvalidValue;
  if (reinterpret_cast<std::uintptr_t>(d_in) % alignof(__half) != 0 ||
      reinterpret_cast<std::uintptr_t>(d_out) % alignof(OutT) != 0)
    return cudaErrorInvalidValue;
  if (algo == ScanAlgo::automatic) algo = choose_scan_algo(segment_size, sizeof(OutT) == sizeof(float));
  switch (algo) {
    case ScanAlgo::scan16: sd::launch_scan16(d_in, d_out, num_segments, segment_size, inclusive, stream); break;
    case ScanAlgo::scan256: sd::launch_scan256(d_in, d_out, num_segments, segment_size, inclusive, stream); break;
    case ScanAlgo::scan256n: sd::launch_scan256n(d_in, d_out, num_segments, segment_size, inclusive, stream); break;
    case ScanAlgo::scan16n: sd::launch_scan16n(d_in, d_out, num_segments, segment_size, inclusive, stream); break;
    case ScanAlgo::scan256_block:
      sd::launch_scan256_block(d_in, d_out, num_segments, segment_size, inclusive, stream);
      break;
    case ScanAlgo::matmulscan:
      sd::launch_matmulscan(d_in, d_out, num_segments, segment_size, inclusive, stream);
      break;
    case ScanAlgo::scan256_pipelined:
      sd::launch_scan256_pipelined(d_in, d_out, num_segments, segment_size, inclusive, stream);
      break;
    case ScanAlgo::scan256_pipelined_shfl:
      sd::launch_scan256_pipelined_shfl(d_in, d_out, num_segments, segment_size, inclusive, stream);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class OutT>
cudaError_t segmented_inclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  return segmented_scan_sum(ScanAlgo::automatic, true, d_in, d_out, num_segments, segment_size, stream);
}

template <class OutT>
cudaError_t segmented_exclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  return segmented_scan_sum(ScanAlgo::automatic, false, d_in, d_out, num_segments, segment_size, stream);
}

#define TCU_SCAN_INSTANTIATE(OutT)                                                                              \
  template cudaError_t segmented_scan_sum<OutT>(ScanAlgo, bool, const __half*, OutT*, std::int64_t, std::int64_t, \
                                                cudaStream_t);                                                  \
  template cudaError_t segmented_inclusive_scan_sum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,      \
                                                          cudaStream_t);                                        \
  template cudaError_t segmented_exclusive_scan_sum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,      \
                                                          cudaStream_t);
TCU_SCAN_INSTANTIATE(__half)
TCU_SCAN_INSTANTIATE(float)
#undef TCU_SCAN_INSTANTIATE

}  // namespace tcu
