// The public API (tcu_reduction.cuh): argument checks, the choice of algorithm, launch
// configurations, the split of long segments and the second pass over fp32 partials.
#include "03_tcu_reduction/tcu_reduction.cuh"

#include <algorithm>
#include <cmath>

#include "03_tcu_reduction/kernels/chained_mma_recurrence.cuh"
#include "03_tcu_reduction/kernels/chained_mma_single_pass.cuh"
#include "03_tcu_reduction/kernels/chained_mma_split.cuh"
#include "03_tcu_reduction/kernels/reduction16.cuh"
#include "03_tcu_reduction/kernels/reduction16_multisegment.cuh"
#include "03_tcu_reduction/kernels/reduction16n_coalesced.cuh"
#include "03_tcu_reduction/kernels/reduction16n_strided.cuh"
#include "03_tcu_reduction/kernels/reduction256.cuh"
#include "03_tcu_reduction/kernels/reduction256n_block.cuh"
#include "03_tcu_reduction/kernels/reduction256n_efficient.cuh"
#include "03_tcu_reduction/kernels/reduction256n_inefficient.cuh"
#include "03_tcu_reduction/partials.cuh"
#include "common/segments.hpp"

namespace tcu {
namespace {

using namespace tcu::reduction;

struct AlgoName {
  ReduceAlgorithm algo;
  const char* name;
};
constexpr AlgoName kNames[] = {
    {ReduceAlgorithm::automatic, "auto"},
    {ReduceAlgorithm::reduction16, "reduction16"},
    {ReduceAlgorithm::reduction256, "reduction256"},
    {ReduceAlgorithm::reduction256n_inefficient, "reduction256n_inefficient"},
    {ReduceAlgorithm::reduction256n_efficient, "reduction256n_efficient"},
    {ReduceAlgorithm::reduction256n_block, "reduction256n_block"},
    {ReduceAlgorithm::reduction16n_strided, "reduction16n_strided"},
    {ReduceAlgorithm::reduction16n_coalesced, "reduction16n_coalesced"},
    {ReduceAlgorithm::reduction16_multisegment, "reduction16_multisegment"},
    {ReduceAlgorithm::chained_mma_recurrence, "chained_mma_recurrence"},
    {ReduceAlgorithm::chained_mma_single_pass, "chained_mma_single_pass"},
    {ReduceAlgorithm::chained_mma_split, "chained_mma_split"},
    {ReduceAlgorithm::chained_mma_fp16_accumulate, "chained_mma_fp16_accumulate"},
};

// Launch shapes (warps per block, 16-byte loads in flight per lane, blocks per SM).
constexpr int kWarps = 8;
constexpr int kInFlight = 4;   // 16-byte loads per lane in flight (staged kernels with 4 shared tiles)
constexpr int kInFlight8 = 8;  // the streaming kernels: 8 loads per lane
// Long segments are split into chunks of at least this many elements (16 tiles) per warp.
constexpr long long kMinChunk = 16 * kTileElems;

cudaError_t launch_status() { return cudaGetLastError(); }

// fp32 partials of `items` work items (temporary, stream-ordered), reduced into d_out.
struct Partials {
  float* ptr = nullptr;
  cudaStream_t stream = 0;
  cudaError_t allocate(long long count, cudaStream_t s) {
    stream = s;
    return temp_alloc(reinterpret_cast<void**>(&ptr), static_cast<std::size_t>(count) * sizeof(float), s);
  }
  ~Partials() { temp_free(ptr, stream); }
};

// Chunks per segment so that about `target_warps` warps have work, chunks >= kMinChunk elements
// and a multiple of `granule` (so that chunks start where tiles start).
void split_segments(long long num_segments, long long segment_size, long long granule, long long& chunk,
                    long long& chunks_per_segment) {
  const long long target_warps = static_cast<long long>(sm_count()) * 64 * 2;
  long long cps = 1;
  if (num_segments < target_warps && segment_size > kMinChunk)
    cps = std::min((target_warps + num_segments - 1) / num_segments, (segment_size + kMinChunk - 1) / kMinChunk);
  chunk = (segment_size + cps - 1) / cps;
  chunk = (chunk + granule - 1) / granule * granule;
  chunks_per_segment = (segment_size + chunk - 1) / chunk;
}

// Runs a warp-per-chunk kernel `launch(out, chunk, chunks_per_segment)`, directly into d_out
// when one chunk covers a segment, else into partials and a second pass.
template <class Launch>
cudaError_t run_split(float* d_out, long long num_segments, long long segment_size, long long granule,
                      cudaStream_t stream, Launch&& launch) {
  long long chunk = 0, cps = 1;
  split_segments(num_segments, segment_size, granule, chunk, cps);
  if (cps == 1) {
    launch(d_out, chunk, cps);
    return launch_status();
  }
  Partials partials;
  if (cudaError_t e = partials.allocate(num_segments * cps, stream); e != cudaSuccess) return e;
  launch(partials.ptr, chunk, cps);
  if (cudaError_t e = launch_status(); e != cudaSuccess) return e;
  return sum_partials(partials.ptr, d_out, num_segments, cps, stream);
}

ChainedMmaConfig default_chained_config() { return ChainedMmaConfig{}; }

cudaError_t run_chained(ReduceAlgorithm variant, const ChainedMmaConfig& cfg, const __half* d_in, float* d_out,
                        long long num_segments, long long segment_size, cudaStream_t stream) {
  const int warps = cfg.block_threads / 32;
  const long long warp_chunk = static_cast<long long>(cfg.chain_length) * kTileElems;
  const std::size_t dyn_smem = static_cast<std::size_t>(warps) * sizeof(WarpScratch);
  switch (variant) {
    case ReduceAlgorithm::chained_mma_single_pass: {
      const long long bps = (segment_size + warps * warp_chunk - 1) / (warps * warp_chunk);
      if (cudaError_t e = cudaMemsetAsync(d_out, 0, num_segments * sizeof(float), stream); e != cudaSuccess) return e;
      chained_mma_single_pass_kernel<<<grid_for(num_segments * bps, 2048 / cfg.block_threads), cfg.block_threads,
                                       dyn_smem, stream>>>(d_in, d_out, num_segments, segment_size,
                                                           cfg.chain_length, bps);
      return launch_status();
    }
    case ReduceAlgorithm::chained_mma_split: {
      const long long bps = (segment_size + warps * kTileElems - 1) / (warps * kTileElems);
      const int pct = static_cast<int>(std::lround(cfg.tcu_fraction * 100.0));
      if (cudaError_t e = cudaMemsetAsync(d_out, 0, num_segments * sizeof(float), stream); e != cudaSuccess) return e;
      chained_mma_split_kernel<<<grid_for(num_segments * bps, 2048 / cfg.block_threads), cfg.block_threads, dyn_smem,
                                 stream>>>(d_in, d_out, num_segments, segment_size, bps, pct);
      return launch_status();
    }
    case ReduceAlgorithm::chained_mma_recurrence:
    case ReduceAlgorithm::chained_mma_fp16_accumulate: {
      // Level 1 on the data, then levels on the partials until one value per segment is left.
      // The fp16 replica keeps fp16 partials, as the paper did, and converts only the end.
      const bool fp16 = variant == ReduceAlgorithm::chained_mma_fp16_accumulate;
      const std::size_t elem = fp16 ? sizeof(__half) : sizeof(float);
      std::vector<void*> buffers;
      auto finish = [&](cudaError_t e) {
        for (void* b : buffers) temp_free(b, stream);
        return e;
      };
      const void* in = d_in;
      long long len = segment_size;
      for (int level = 0;; ++level) {
        const long long cps = (len + warp_chunk - 1) / warp_chunk;
        void* out = d_out;
        if (cps > 1 || fp16) {
          void* b = nullptr;
          if (cudaError_t e = temp_alloc(&b, static_cast<std::size_t>(num_segments * cps) * elem, stream);
              e != cudaSuccess)
            return finish(e);
          buffers.push_back(b);
          out = b;
        }
        const int grid = grid_for((num_segments * cps + kWarps - 1) / kWarps, 64 / kWarps);
        if (fp16)
          chained_mma_recurrence_kernel<kWarps, __half, __half><<<grid, kWarps * 32, 0, stream>>>(
              static_cast<const __half*>(in), static_cast<__half*>(out), num_segments, len, cfg.chain_length, cps);
        else if (level == 0)
          chained_mma_recurrence_kernel<kWarps, __half, float><<<grid, kWarps * 32, 0, stream>>>(
              d_in, static_cast<float*>(out), num_segments, len, cfg.chain_length, cps);
        else
          chained_mma_recurrence_kernel<kWarps, float, float><<<grid, kWarps * 32, 0, stream>>>(
              static_cast<const float*>(in), static_cast<float*>(out), num_segments, len, cfg.chain_length, cps);
        if (cudaError_t e = launch_status(); e != cudaSuccess) return finish(e);
        if (cps == 1)
          return finish(fp16 ? halves_to_floats(static_cast<const __half*>(out), d_out, num_segments, stream)
                             : cudaSuccess);
        in = out;
        len = cps;
      }
    }
    default:
      return cudaErrorInvalidValue;
  }
}

bool chained_config_ok(const ChainedMmaConfig& c) {
  return c.chain_length >= 1 && c.chain_length <= 4096 && c.block_threads >= 32 && c.block_threads <= 1024 &&
         c.block_threads % 32 == 0 && c.tcu_fraction >= 0.0 && c.tcu_fraction <= 1.0 &&
         static_cast<std::size_t>(c.block_threads / 32) * sizeof(WarpScratch) <= 48 * 1024;
}

}  // namespace

std::vector<ReduceAlgorithm> all_reduce_algorithms() {
  std::vector<ReduceAlgorithm> out;
  for (const AlgoName& n : kNames)
    if (n.algo != ReduceAlgorithm::automatic) out.push_back(n.algo);
  return out;
}

const char* reduce_algorithm_name(ReduceAlgorithm a) {
  for (const AlgoName& n : kNames)
    if (n.algo == a) return n.name;
  return "?";
}

std::optional<ReduceAlgorithm> parse_reduce_algorithm(const std::string& name) {
  for (const AlgoName& n : kNames)
    if (name == n.name) return n.algo;
  if (name == "automatic") return ReduceAlgorithm::automatic;
  return std::nullopt;
}

bool reduce_algorithm_supports(ReduceAlgorithm a, std::int64_t segment_size) {
  if (segment_size < 1) return false;
  switch (a) {
    case ReduceAlgorithm::reduction16: return segment_size <= kTile;
    case ReduceAlgorithm::reduction256: return segment_size <= kTileElems;
    case ReduceAlgorithm::reduction16_multisegment: return multisegment_supports(segment_size);
    default: return true;
  }
}

ReduceAlgorithm reduce_algorithm_for(std::int64_t num_segments, std::int64_t segment_size) {
  // Crossovers measured on the H100 (README, "Which algorithm when"): Reduction16 multi-segment
  // for the powers of two 16 … 512 (it takes 16 … 2048, but the split 256N is faster from
  // 1024), Reduction16 for the other sizes up to 16, the strided 16N for the other sizes below
  // 1024, the block-level 256N for segments from 2^16 when there are enough of them to fill
  // the GPU, else the pipelined work-efficient 256N split across warps.
  if (segment_size < 1024 && multisegment_supports(segment_size)) return ReduceAlgorithm::reduction16_multisegment;
  if (segment_size <= kTile) return ReduceAlgorithm::reduction16;
  if (segment_size < 1024) return ReduceAlgorithm::reduction16n_strided;
  if (segment_size >= 65536 && num_segments >= 2LL * sm_count()) return ReduceAlgorithm::reduction256n_block;
  return ReduceAlgorithm::reduction256n_efficient;
}

cudaError_t segmented_reduce_sum(const __half* d_in, float* d_out, std::int64_t num_segments,
                                 std::int64_t segment_size, cudaStream_t stream) {
  return segmented_reduce_sum(ReduceAlgorithm::automatic, d_in, d_out, num_segments, segment_size, stream);
}

cudaError_t segmented_reduce_sum(ReduceAlgorithm algorithm, const __half* d_in, float* d_out,
                                 std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  if (algorithm == ReduceAlgorithm::chained_mma_recurrence || algorithm == ReduceAlgorithm::chained_mma_single_pass ||
      algorithm == ReduceAlgorithm::chained_mma_split || algorithm == ReduceAlgorithm::chained_mma_fp16_accumulate)
    return segmented_reduce_sum_chained(algorithm, default_chained_config(), d_in, d_out, num_segments, segment_size,
                                        stream);
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (check.nothing_to_do) return cudaSuccess;
  if (algorithm == ReduceAlgorithm::automatic) algorithm = reduce_algorithm_for(num_segments, segment_size);
  if (!reduce_algorithm_supports(algorithm, segment_size)) return cudaErrorInvalidValue;

  const long long ns = num_segments, s = segment_size;
  const int threads = kWarps * 32;
  switch (algorithm) {
    case ReduceAlgorithm::reduction16: {
      const long long tiles = (ns + kTile - 1) / kTile;
      reduction16_kernel<kWarps, kInFlight8><<<grid_for((tiles + kWarps * kInFlight8 - 1) / (kWarps * kInFlight8), 8),
                                               threads, 0, stream>>>(d_in, d_out, ns, s);
      return launch_status();
    }
    case ReduceAlgorithm::reduction256:
      reduction256_kernel<kWarps, kInFlight><<<grid_for((ns + kWarps * kInFlight - 1) / (kWarps * kInFlight), 6),
                                                threads, 0, stream>>>(d_in, d_out, ns, s);
      return launch_status();
    case ReduceAlgorithm::reduction16n_strided: {
      const long long groups = (ns + kTile - 1) / kTile;
      reduction16n_strided_kernel<kWarps, kInFlight8><<<grid_for((groups + kWarps - 1) / kWarps, 8), threads, 0,
                                                        stream>>>(d_in, d_out, ns, s);
      return launch_status();
    }
    case ReduceAlgorithm::reduction16_multisegment: {
      // Resident blocks only (a grid-stride loop over rounds of 8 tiles): blocks in a second
      // wave would leave the first wave's SMs idle at the end.
      auto kernel = reduction16_multisegment_kernel<kWarps, kMultiSegmentTiles>;
      int per_sm = 0;
      if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0); e != cudaSuccess)
        return e;
      const long long round_elems = static_cast<long long>(kMultiSegmentTiles) * kTileElems;
      const long long rounds = (ns * s + round_elems - 1) / round_elems;
      kernel<<<grid_for((rounds + kWarps - 1) / kWarps, per_sm), threads, 0, stream>>>(d_in, d_out, ns, s);
      return launch_status();
    }
    case ReduceAlgorithm::reduction16n_coalesced: {
      const long long groups = (ns + kTile - 1) / kTile;
      reduction16n_coalesced_kernel<kWarps, kInFlight><<<grid_for((groups + kWarps - 1) / kWarps, 5), threads, 0,
                                                          stream>>>(d_in, d_out, ns, s);
      return launch_status();
    }
    case ReduceAlgorithm::reduction256n_block:
      reduction256n_block_kernel<kWarps, kInFlight><<<grid_for(ns, 6), threads, 0, stream>>>(d_in, d_out, ns, s);
      return launch_status();
    case ReduceAlgorithm::reduction256n_inefficient:
      return run_split(d_out, ns, s, kTileElems, stream, [&](float* out, long long chunk, long long cps) {
        reduction256n_inefficient_kernel<kWarps><<<grid_for((ns * cps + kWarps - 1) / kWarps, 6), threads, 0,
                                                   stream>>>(d_in, out, ns, s, chunk, cps);
      });
    case ReduceAlgorithm::reduction256n_efficient: {
      // Resident blocks only, as for the multi-segment kernel: each warp walks its chunks in a
      // software pipeline (the next round's loads in flight during this round's MMAs).
      auto kernel = reduction256n_efficient_kernel<kWarps, kInFlight8>;
      int per_sm = 0;
      if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0); e != cudaSuccess)
        return e;
      return run_split(d_out, ns, s, static_cast<long long>(kInFlight8) * kTileElems, stream,
                       [&](float* out, long long chunk, long long cps) {
                         kernel<<<grid_for((ns * cps + kWarps - 1) / kWarps, per_sm), threads, 0, stream>>>(
                             d_in, out, ns, s, chunk, cps);
                       });
    }
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t segmented_reduce_sum_chained(ReduceAlgorithm chained_variant, const ChainedMmaConfig& config,
                                         const __half* d_in, float* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream) {
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (!chained_config_ok(config)) return cudaErrorInvalidValue;
  if (check.nothing_to_do) return cudaSuccess;
  return run_chained(chained_variant, config, d_in, d_out, num_segments, segment_size, stream);
}

}  // namespace tcu
