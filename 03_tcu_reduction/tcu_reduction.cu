// The public API (tcu_reduction.cuh): the name table, the argument checks, the automatic
// choice and the dispatch table. The kernels and their launchers are in kernels/NN_*.cu, the
// error bound in error_bound.cpp.
#include "03_tcu_reduction/tcu_reduction.cuh"

#include <atomic>

#include "03_tcu_reduction/kernels/launchers.hpp"
#include "common/name_table.hpp"
#include "common/segments.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu {
namespace {

namespace r = detail::reduce;

// The one name table: every algorithm, its name (API, --algo, CSV rows) and what it does.
constexpr NamedAlgorithm<ReduceAlgorithm> kAlgorithms[] = {
    {ReduceAlgorithm::automatic, "auto", "chosen by segment size from the measured crossovers"},
    {ReduceAlgorithm::reduction16, "reduction16", "Dakkak: V = P·A, 16 segments of <= 16 per tile"},
    {ReduceAlgorithm::reduction256, "reduction256", "Dakkak: V = P·A, R = V·Pᵀ, one segment of <= 256 per tile"},
    {ReduceAlgorithm::reduction256n_inefficient, "reduction256n_inefficient",
     "Dakkak: N × Reduction256, the scalar carried in C (3N MMAs with the hi/lo split)"},
    {ReduceAlgorithm::reduction256n_efficient, "reduction256n_efficient",
     "Dakkak: V_i = P·A_i + V_{i-1}, R = V_N·Pᵀ (N + 2 MMAs with the hi/lo split), split across warps"},
    {ReduceAlgorithm::reduction256n_block, "reduction256n_block",
     "Dakkak Alg. 4: a block per segment (or per 2^18-element chunk), warp partials summed by warp 0"},
    {ReduceAlgorithm::reduction16n_strided, "reduction16n_strided",
     "Dakkak Fig. 8: 16 segments side by side, ldm = segment size"},
    {ReduceAlgorithm::reduction16n_coalesced, "reduction16n_coalesced",
     "Dakkak Alg. 3: 256-element blocks per segment + strided rest"},
    {ReduceAlgorithm::reduction16_multisegment, "reduction16_multisegment",
     "ours: coalesced rounds of whole segments, V = Σ E_k·A_k, R = V·M"},
    {ReduceAlgorithm::chained_mma_recurrence, "chained_mma_recurrence",
     "Navarro variant 1: R chained MMAs per warp, relaunch on partials"},
    {ReduceAlgorithm::chained_mma_single_pass, "chained_mma_single_pass",
     "Navarro variant 2: chained MMAs, shuffles, one atomicAdd per block"},
    {ReduceAlgorithm::chained_mma_split, "chained_mma_split",
     "Navarro variant 3: a fraction of the blocks on TCUs, the rest shuffles"},
    {ReduceAlgorithm::chained_mma_fp16_accumulate, "chained_mma_fp16_accumulate",
     "Navarro's fp16 accumulators (accuracy study only: overflows)"},
    {ReduceAlgorithm::reduction_any_size, "reduction_any_size",
     "ours: aligned 8-tile rounds, rows cut at segment starts, T = A_pre·S + A_post·S, shuffle row carries"},
    {ReduceAlgorithm::reduction_walk, "reduction_walk",
     "ours: 512-element slices, one add per element on CUDA cores, a segmented shuffle scan of the lanes"},
};

static_assert(names_in_enum_order(kAlgorithms) &&
                  std::size(kAlgorithms) == static_cast<std::size_t>(ReduceAlgorithm::reduction_walk) + 1,
              "one name-table row per algorithm, in enum (lesson) order");

// The chained variants (kernels/09 … 11) with explicit parameters (checked by the caller) …
cudaError_t launch_chained(ReduceAlgorithm variant, const ChainedMmaConfig& c, const __half* d_in, float* d_out,
                           std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  switch (variant) {
    case ReduceAlgorithm::chained_mma_recurrence:
      return r::launch_chained_mma_recurrence(c.chain_length, d_in, d_out, num_segments, segment_size, stream);
    case ReduceAlgorithm::chained_mma_single_pass:
      return r::launch_chained_mma_single_pass(c.chain_length, c.block_threads, d_in, d_out, num_segments,
                                               segment_size, stream);
    case ReduceAlgorithm::chained_mma_split:
      return r::launch_chained_mma_split(c.block_threads, c.tcu_fraction, d_in, d_out, num_segments, segment_size,
                                         stream);
    case ReduceAlgorithm::chained_mma_fp16_accumulate:
      return r::launch_chained_mma_fp16_accumulate(c.chain_length, d_in, d_out, num_segments, segment_size, stream);
    default:
      return cudaErrorInvalidValue;
  }
}
// … and with the defaults (the paper's best: B = 128, R = 4), as the dispatch table calls them.
template <ReduceAlgorithm kVariant>
cudaError_t with_default_config(const __half* d_in, float* d_out, std::int64_t num_segments,
                                std::int64_t segment_size, cudaStream_t stream) {
  return launch_chained(kVariant, ChainedMmaConfig{}, d_in, d_out, num_segments, segment_size, stream);
}

// The dispatch table: what each algorithm takes and who launches it (kernels/NN_*.cu).
struct Dispatch {
  ReduceAlgorithm algorithm;
  bool (*supports)(std::int64_t segment_size);
  r::Launcher launch;
};
constexpr Dispatch kDispatch[] = {
    {ReduceAlgorithm::reduction16, r::reduction16_supports, r::launch_reduction16},
    {ReduceAlgorithm::reduction256, r::reduction256_supports, r::launch_reduction256},
    {ReduceAlgorithm::reduction256n_inefficient, r::any_segment_size, r::launch_reduction256n_inefficient},
    {ReduceAlgorithm::reduction256n_efficient, r::any_segment_size, r::launch_reduction256n_efficient},
    {ReduceAlgorithm::reduction256n_block, r::any_segment_size, r::launch_reduction256n_block},
    {ReduceAlgorithm::reduction16n_strided, r::any_segment_size, r::launch_reduction16n_strided},
    {ReduceAlgorithm::reduction16n_coalesced, r::any_segment_size, r::launch_reduction16n_coalesced},
    {ReduceAlgorithm::reduction16_multisegment, r::reduction16_multisegment_supports,
     r::launch_reduction16_multisegment},
    {ReduceAlgorithm::chained_mma_recurrence, r::any_segment_size,
     with_default_config<ReduceAlgorithm::chained_mma_recurrence>},
    {ReduceAlgorithm::chained_mma_single_pass, r::any_segment_size,
     with_default_config<ReduceAlgorithm::chained_mma_single_pass>},
    {ReduceAlgorithm::chained_mma_split, r::any_segment_size, with_default_config<ReduceAlgorithm::chained_mma_split>},
    {ReduceAlgorithm::chained_mma_fp16_accumulate, r::any_segment_size,
     with_default_config<ReduceAlgorithm::chained_mma_fp16_accumulate>},
    {ReduceAlgorithm::reduction_any_size, r::reduction_any_size_supports, r::launch_reduction_any_size},
    {ReduceAlgorithm::reduction_walk, r::reduction_any_size_supports, r::launch_reduction_walk},
};

const Dispatch* dispatch_for(ReduceAlgorithm a) { return dispatch_row(kDispatch, a); }

constexpr double kFastMemory = 16.0;  // bytes per SM cycle; see choose_reduce_algorithm

// The current device's peak memory bytes per SM and SM clock cycle: memory clock × bus width × 2
// (double data rate) ÷ (SMs × SM clock), asked once per device; 0 when a query fails.
double memory_bytes_per_sm_cycle() {
  constexpr int kMaxDevices = 64;
  static std::atomic<double> cached[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return 0.0;
  if (const double c = cached[device].load(std::memory_order_relaxed); c > 0.0) return c;
  int mem_khz = 0, bus_bits = 0, sm_khz = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device) != cudaSuccess || sm_khz <= 0) {
    cudaGetLastError();  // not sticky
    return 0.0;
  }
  const double b = 2.0 * mem_khz * (bus_bits / 8.0) / (double(tc::sm_count()) * sm_khz);
  cached[device].store(b, std::memory_order_relaxed);
  return b;
}

}  // namespace

std::vector<ReduceAlgorithm> all_reduce_algorithms() { return algorithms_but(kAlgorithms, ReduceAlgorithm::automatic); }
const char* reduce_algorithm_name(ReduceAlgorithm a) { return algorithm_name(kAlgorithms, a); }
const char* reduce_algorithm_description(ReduceAlgorithm a) { return algorithm_description(kAlgorithms, a); }
std::optional<ReduceAlgorithm> parse_reduce_algorithm(const std::string& name) {
  return parse_algorithm(kAlgorithms, name);
}

bool reduce_algorithm_supports(ReduceAlgorithm a, std::int64_t segment_size) {
  if (segment_size < 1) return false;
  if (a == ReduceAlgorithm::automatic) return true;
  const Dispatch* d = dispatch_for(a);
  return d != nullptr && d->supports(segment_size);
}

ReduceAlgorithm choose_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size, int sm_count,
                                        double memory_bytes_per_sm_cycle) {
  // Crossovers from the chapter's sweep at n = 2^28 (README, "Which algorithm when"; the
  // figures are in docs/results/): Reduction16 multi-segment for the powers of two 16 … 512 (it
  // takes 16 … 2048, but the split 256N is faster from 1024), Reduction16 for the other sizes up
  // to 16. The other sizes take the walk (one add per element, 75-96 % of the read stream at
  // 17 … 12345, where the tensor-core kernels stay near 62 % when rows are not whole 16-byte
  // vectors) below 512, and from 512 on where they are not multiples of 8 and there are enough
  // segments for every resident warp (a warp walks whole segments), up to 2^16. Else the pipelined
  // work-efficient 256N split across warps, or the
  // block-level 256N for segments from 2^16 when they (or, past 2^18, their chunks:
  // split_for_blocks) are enough blocks to fill the GPU, where it beats the warp split.
  if (segment_size < 1024 && r::reduction16_multisegment_supports(segment_size))
    return ReduceAlgorithm::reduction16_multisegment;
  if (segment_size <= tc::kTile) return ReduceAlgorithm::reduction16;
  if (segment_size < 512 ||
      (segment_size % 8 != 0 && segment_size < 65536 && num_segments >= r::kWalkFewSegments))
    return ReduceAlgorithm::reduction_walk;
  // A segment shorter than 256N's round (2048 elements) leaves part of a warp's pipeline empty:
  // too few bytes in flight where the memory delivers 16 bytes or more per SM cycle (an H200
  // reads about a quarter less with 256N there than with the walk; an H100 keeps its memory as
  // busy with 256N as with the walk: the H200's results page of chapter 05 has the figures).
  if (segment_size < 2048 && memory_bytes_per_sm_cycle >= kFastMemory && num_segments >= r::kWalkFewSegments)
    return ReduceAlgorithm::reduction_walk;
  if (segment_size >= 65536 &&
      num_segments * r::split_for_blocks(segment_size).chunks_per_segment >= 2 * std::int64_t(sm_count))
    return ReduceAlgorithm::reduction256n_block;
  return ReduceAlgorithm::reduction256n_efficient;
}

ReduceAlgorithm choose_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size) {
  return choose_reduce_algorithm(num_segments, segment_size, tc::sm_count(), memory_bytes_per_sm_cycle());
}

cudaError_t segmented_reduce_sum(const __half* d_in, float* d_out, std::int64_t num_segments,
                                 std::int64_t segment_size, cudaStream_t stream) {
  return segmented_reduce_sum(ReduceAlgorithm::automatic, d_in, d_out, num_segments, segment_size, stream);
}

cudaError_t segmented_reduce_sum(ReduceAlgorithm algorithm, const __half* d_in, float* d_out,
                                 std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (check.nothing_to_do) return cudaSuccess;
  if (algorithm == ReduceAlgorithm::automatic) algorithm = choose_reduce_algorithm(num_segments, segment_size);
  const Dispatch* d = dispatch_for(algorithm);
  if (d == nullptr || !d->supports(segment_size)) return cudaErrorInvalidValue;
  return d->launch(d_in, d_out, num_segments, segment_size, stream);
}

cudaError_t segmented_reduce_sum_chained(ReduceAlgorithm chained_variant, const ChainedMmaConfig& config,
                                         const __half* d_in, float* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (!r::chained_config_ok(config.chain_length, config.block_threads, config.tcu_fraction))
    return cudaErrorInvalidValue;
  if (check.nothing_to_do) return cudaSuccess;
  return launch_chained(chained_variant, config, d_in, d_out, num_segments, segment_size, stream);
}

}  // namespace tcu
