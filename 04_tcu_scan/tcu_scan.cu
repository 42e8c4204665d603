// The public API (tcu_scan.cuh): the name table, the argument checks, the automatic choice and
// the dispatch table. The kernels and their launchers are in kernels/NN_*.cu. Explicitly
// instantiated for __half and float outputs.
#include "04_tcu_scan/tcu_scan.cuh"

#include <cstdint>

#include "04_tcu_scan/kernels/launchers.hpp"
#include "common/name_table.hpp"
#include "common/segments.hpp"

namespace tcu {
namespace {

namespace sc = detail::scan;

// The one name table: every algorithm, its name (API, --algo, CSV rows, tests) and what it does.
constexpr NamedAlgorithm<ScanAlgorithm> kAlgorithms[] = {
    {ScanAlgorithm::automatic, "auto", "chosen by segment size and output type from the measured crossovers"},
    {ScanAlgorithm::scan16, "scan16", "Dakkak Scan16: R = A·U, 16 segments per tile; segments of at most 16"},
    {ScanAlgorithm::scan256, "scan256",
     "Dakkak Scan256: R = A·U + (L·A)·1, L masked per segment; segments of at most 256"},
    {ScanAlgorithm::scan256n, "scan256n",
     "Dakkak Scan256N: one warp per segment, the running sum broadcast in C; any segment size"},
    {ScanAlgorithm::scan16n, "scan16n",
     "Dakkak Scan16N (Alg. 5): 16 segments per warp, the last column carried; any segment size"},
    {ScanAlgorithm::scan256_block, "scan256_block",
     "Dakkak block level (Alg. 7, with the barrier): tiles + a TCU scan of the tile totals; any segment size"},
    {ScanAlgorithm::matmulscan, "matmulscan",
     "Zouzias & McColl MatMulScan, s = 16, k <= 3 per slab, slabs joined by a carry; any segment size"},
    {ScanAlgorithm::scan256_pipelined, "scan256_pipelined",
     "ours: Scan256 over 8-tile rounds, next round in flight, fp32 carry; power-of-two segment sizes >= 16"},
    {ScanAlgorithm::scan256_pipelined_shfl, "scan256_pipelined_shfl",
     "ours: the same walk, A·U + a shuffle scan of the row totals; power-of-two segment sizes >= 16"},
    {ScanAlgorithm::scan_any_size, "scan_any_size",
     "ours: aligned 8-tile rounds, rows cut at segment starts, A_pre·U and A_post·U + shuffle row carries; any size"},
    {ScanAlgorithm::scan_walk, "scan_walk",
     "ours: 256-element slices, 8-element lane scans on CUDA cores, a segmented shuffle scan of the lanes; any size"},
};

static_assert(names_in_enum_order(kAlgorithms) &&
                  std::size(kAlgorithms) == static_cast<std::size_t>(ScanAlgorithm::scan_walk) + 1,
              "one name-table row per algorithm, in enum (lesson) order");

// The dispatch table: what each algorithm takes and who launches it (kernels/NN_*.cu).
template <class OutT>
struct Dispatch {
  ScanAlgorithm algorithm;
  bool (*supports)(std::int64_t segment_size);
  sc::Launcher<OutT> launch;
};
template <class OutT>
constexpr Dispatch<OutT> kDispatch[] = {
    {ScanAlgorithm::scan16, sc::scan16_supports, sc::launch_scan16<OutT>},
    {ScanAlgorithm::scan256, sc::scan256_supports, sc::launch_scan256<OutT>},
    {ScanAlgorithm::scan256n, sc::any_segment_size, sc::launch_scan256n<OutT>},
    {ScanAlgorithm::scan16n, sc::any_segment_size, sc::launch_scan16n<OutT>},
    {ScanAlgorithm::scan256_block, sc::any_segment_size, sc::launch_scan256_block<OutT>},
    {ScanAlgorithm::matmulscan, sc::any_segment_size, sc::launch_matmulscan<OutT>},
    {ScanAlgorithm::scan256_pipelined, sc::scan256_pipelined_supports, sc::launch_scan256_pipelined<OutT>},
    {ScanAlgorithm::scan256_pipelined_shfl, sc::scan256_pipelined_supports,
     sc::launch_scan256_pipelined_shfl<OutT>},
    {ScanAlgorithm::scan_any_size, sc::scan_any_size_supports, sc::launch_scan_any_size<OutT>},
    {ScanAlgorithm::scan_walk, sc::scan_any_size_supports, sc::launch_scan_walk<OutT>},
};

template <class OutT>
const Dispatch<OutT>* dispatch_for(ScanAlgorithm a) {
  return dispatch_row(kDispatch<OutT>, a);
}

}  // namespace

std::vector<ScanAlgorithm> all_scan_algorithms() { return algorithms_but(kAlgorithms, ScanAlgorithm::automatic); }
const char* scan_algorithm_name(ScanAlgorithm a) { return algorithm_name(kAlgorithms, a); }
const char* scan_algorithm_description(ScanAlgorithm a) { return algorithm_description(kAlgorithms, a); }
std::optional<ScanAlgorithm> parse_scan_algorithm(const std::string& name) { return parse_algorithm(kAlgorithms, name); }

bool scan_algorithm_supports(ScanAlgorithm a, std::int64_t segment_size) {
  if (segment_size < 1) return false;
  if (a == ScanAlgorithm::automatic) return true;
  const Dispatch<float>* d = dispatch_for<float>(a);
  return d != nullptr && d->supports(segment_size);
}

// Crossovers: the fastest algorithm per segment size in the chapter's sweep (n = 2^28,
// docs/results/<gpu>/segmented_scan.csv): Scan16 up to 16; the pipelined Scan256 with the
// shuffle row carry for the powers of two 32 … 2^16 (both output types, and as accurate as the
// block level for fp32); scan_walk for the other sizes 17 … 2^16 (8-element lane scans on
// the CUDA cores: 95-97 % of copy at 17 … 12345 for both output types, where scan_any_size's
// tensor-core row scans reach 57 % and 78 %; fp32 carries only; from 1024 on only with enough
// segments to give every resident warp its own); Scan256 up to 256; for fp16 outputs Scan16N up to 512 and Scan256N up
// to 2^16. Scan256N carries the running sum in the accumulator of 3 MMAs per tile, and tensor
// cores truncate when they add small products to a large accumulator: its error grows with the
// number of tiles (well below fp16's rounding, but 60× the block level's at 2^16 with fp32
// outputs). So fp32 outputs above 256, and any segment above 2^16 (where few long segments
// leave warps idle), take the block level, whose carries are fp32 additions once per slab.
ScanAlgorithm choose_scan_algorithm(std::int64_t num_segments, std::int64_t segment_size, bool fp32_output) {
  if (segment_size <= tc::kTile) return ScanAlgorithm::scan16;
  if (segment_size <= 65536 && sc::scan256_pipelined_supports(segment_size))
    return ScanAlgorithm::scan256_pipelined_shfl;
  if (segment_size <= 65536 && !is_pow2(segment_size) &&
      (segment_size < 1024 || num_segments >= sc::kAnySizeFewSegments))
    return ScanAlgorithm::scan_walk;
  if (segment_size <= tc::kTileElems) return ScanAlgorithm::scan256;
  if (fp32_output || segment_size > 65536) return ScanAlgorithm::scan256_block;
  if (segment_size <= 512) return ScanAlgorithm::scan16n;
  return ScanAlgorithm::scan256n;
}

namespace detail::scan {

template <class OutT>
cudaError_t segmented_scan_sum(ScanAlgorithm algorithm, bool inclusive, const __half* d_in, OutT* d_out,
                               std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  // The rules every segmented API of the tutorial shares (common/segments.hpp): negative sizes,
  // segment_size 0 with work to do, overflow and null pointers are invalid; zero segments is a no-op.
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (check.nothing_to_do) return cudaSuccess;
  if (reinterpret_cast<std::uintptr_t>(d_in) % alignof(__half) != 0 ||
      reinterpret_cast<std::uintptr_t>(d_out) % alignof(OutT) != 0)
    return cudaErrorInvalidValue;
  if (algorithm == ScanAlgorithm::automatic)
    algorithm = choose_scan_algorithm(num_segments, segment_size, sizeof(OutT) == sizeof(float));
  const Dispatch<OutT>* d = dispatch_for<OutT>(algorithm);
  if (d == nullptr || !d->supports(segment_size)) return cudaErrorInvalidValue;
  return d->launch(d_in, d_out, num_segments, segment_size, inclusive, stream);
}

}  // namespace detail::scan

template <class OutT>
cudaError_t segmented_inclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  return sc::segmented_scan_sum(ScanAlgorithm::automatic, true, d_in, d_out, num_segments, segment_size, stream);
}

template <class OutT>
cudaError_t segmented_exclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  return sc::segmented_scan_sum(ScanAlgorithm::automatic, false, d_in, d_out, num_segments, segment_size, stream);
}

template <class OutT>
cudaError_t segmented_inclusive_scan_sum(ScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                         std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  return sc::segmented_scan_sum(algorithm, true, d_in, d_out, num_segments, segment_size, stream);
}

template <class OutT>
cudaError_t segmented_exclusive_scan_sum(ScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                         std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  return sc::segmented_scan_sum(algorithm, false, d_in, d_out, num_segments, segment_size, stream);
}

#define TCU_SCAN_INSTANTIATE(OutT)                                                                                 \
  template cudaError_t detail::scan::segmented_scan_sum<OutT>(ScanAlgorithm, bool, const __half*, OutT*,           \
                                                              std::int64_t, std::int64_t, cudaStream_t);           \
  template cudaError_t segmented_inclusive_scan_sum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,       \
                                                          cudaStream_t);                                           \
  template cudaError_t segmented_exclusive_scan_sum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,       \
                                                          cudaStream_t);                                           \
  template cudaError_t segmented_inclusive_scan_sum<OutT>(ScanAlgorithm, const __half*, OutT*, std::int64_t,      \
                                                          std::int64_t, cudaStream_t);                             \
  template cudaError_t segmented_exclusive_scan_sum<OutT>(ScanAlgorithm, const __half*, OutT*, std::int64_t,      \
                                                          std::int64_t, cudaStream_t);
TCU_SCAN_INSTANTIATE(__half)
TCU_SCAN_INSTANTIATE(float)
#undef TCU_SCAN_INSTANTIATE

}  // namespace tcu
