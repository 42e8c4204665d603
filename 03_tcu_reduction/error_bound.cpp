// reduce_error_bound (tcu_reduction.cuh): how far a result may be from the exact sum, derived
// from what the library does for the shape — the same choice (choose_reduce_algorithm), the
// same chunks of long segments and the same launch shapes that the lessons' launchers use
// (their chunk plans, declared in kernels/launchers.hpp), so the bound cannot drift from them.
//
// The model (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 4): an input
// passes through `depth` fp32 roundings on its way to the result, each of a partial sum no
// larger than Σ|x|, each charged 2u = 2^-23 (tensor cores are not documented to round to
// nearest inside an MMA). Counted per step:
//   an MMA                16   it adds 16 products to its accumulator, in an undocumented
//                              order: charged as a chain of 16 additions
//   V·Pᵀ, C·1, V·M        32   the hi/lo split makes it two MMAs into one accumulator, plus
//                              2^-22·Σ|V| for the split (and 2^-25 absolute per value split)
//   a chain of tiles      16 per tile (V_i = P·A_i + V_{i−1}: each column adds 16 more values)
//   the second pass       cps − 1 for up to 8 partials (in order), else ceil(cps/256) + 10
//                         (a strided share per thread, then two 32-lane shuffle trees)
// Integer inputs whose partial sums stay below 2^24 are exact whatever the depth.
#include <algorithm>
#include <string>

#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/chunks.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu {
namespace {

namespace r = detail::reduce;

constexpr std::int64_t kMma = 16;       // one MMA: 16 products into the accumulator
constexpr std::int64_t kCollapse = 32;  // hi·C + lo·C: two MMAs into one accumulator
constexpr double kSplitRel = 0x1p-22;   // tc::split_error_bound: 2^-22·|v| + 2^-25
constexpr double kSplitAbs = 0x1p-25;
constexpr double kFp32Level = 2 * 0x1p-24;  // 2u of fp32 per level
constexpr double kFp16Level = 2 * 0x1p-11;  // 2u of fp16 (the fp16 replica)
static_assert(tc::split_error_bound(1.0) == kSplitRel + kSplitAbs, "the split's bound, as tile_geometry.hpp states it");

std::int64_t tiles_of(std::int64_t len) { return ceil_div(len, tc::kTileElems); }

// The second pass over cps partials of a segment (tc::sum_partials).
std::int64_t second_pass_depth(std::int64_t cps) {
  if (cps <= 1) return 0;
  if (cps <= tc::kFewPartials) return cps - 1;
  return ceil_div(cps, 256) + 10;
}

struct Model {
  std::int64_t depth = 0;
  int split_levels = 0;          // hi/lo splits on an input's path (each 2^-22 of Σ|x|)
  std::int64_t split_values = 0; // values split per segment (2^-25 absolute each)
  std::string how;
};

std::string chunks_text(const tc::ChunkPlan& p) {
  return "chunks of " + std::to_string(p.chunk) + " per warp, " + std::to_string(p.chunks_per_segment) +
         " partial" + (p.chunks_per_segment == 1 ? "" : "s") + " per segment";
}

Model model(ReduceAlgorithm a, std::int64_t ns, std::int64_t s, int sms) {
  Model m;
  const ChainedMmaConfig cfg{};
  switch (a) {
    case ReduceAlgorithm::automatic:  // resolved by the caller
      break;
    case ReduceAlgorithm::reduction16:
      m.depth = kMma;
      m.how = "one MMA";
      break;
    case ReduceAlgorithm::reduction256:
      m.depth = kMma + kCollapse;
      m.split_levels = 1;
      m.split_values = tc::kTile;
      m.how = "P·A, then V·Pᵀ";
      break;
    case ReduceAlgorithm::reduction256n_inefficient: {
      const tc::ChunkPlan p = r::reduction256n_inefficient_chunks(ns, s, sms);
      const std::int64_t tiles = tiles_of(std::min(p.chunk, s));
      m.depth = kMma + kCollapse * tiles + second_pass_depth(p.chunks_per_segment);
      m.split_levels = 1;
      m.split_values = tc::kTile * tiles_of(s) + tc::kTile;
      m.how = chunks_text(p) + ", a V·Pᵀ carried per tile";
      break;
    }
    case ReduceAlgorithm::reduction256n_efficient: {
      const tc::ChunkPlan p = r::reduction256n_efficient_chunks(ns, s, sms);
      m.depth = kMma * tiles_of(std::min(p.chunk, s)) + kCollapse + second_pass_depth(p.chunks_per_segment);
      m.split_levels = 1;
      m.split_values = tc::kTile * p.chunks_per_segment;
      m.how = chunks_text(p) + ", one V·Pᵀ per chunk";
      break;
    }
    case ReduceAlgorithm::reduction256n_block: {
      // Alg. 4 (common/tensor_core/block_reduce.cuh): per round of 8 tiles a chain of up to 8
      // MMAs, the rounds of a warp added in fp32 (one level each), row 0 by 4 shuffle levels,
      // then X·Pᵀ over the 8 warp partials (or their fp32 sum, 8 levels), then the second pass.
      const tc::ChunkPlan p = r::split_for_blocks(s);
      const std::int64_t tiles = tiles_of(std::min(p.chunk, s)), round_tiles = 8;
      m.depth = kMma * std::min(tiles, round_tiles) + ceil_div(tiles, round_tiles * tc::kBlockWarps) + 4 + kCollapse +
                second_pass_depth(p.chunks_per_segment);
      m.split_levels = 1;
      m.split_values = tc::kTile * p.chunks_per_segment;
      m.how = (p.chunks_per_segment == 1 ? std::string("a block per segment, ")
                                         : "chunks of " + std::to_string(p.chunk) + " per block, " +
                                               std::to_string(p.chunks_per_segment) + " partials per segment, ") +
              std::to_string(tc::kBlockWarps) + " warp partials summed by warp 0";
      break;
    }
    case ReduceAlgorithm::reduction16n_strided:
      m.depth = kMma * ceil_div(s, tc::kTile);
      m.how = std::to_string(ceil_div(s, tc::kTile)) + " chained MMAs";
      break;
    case ReduceAlgorithm::reduction16n_coalesced: {
      const std::int64_t blocks = s / tc::kTileElems;
      const std::int64_t rest_steps = ceil_div(s - blocks * tc::kTileElems, tc::kTile);
      m.depth = kMma * (blocks + rest_steps) + (blocks > 0 ? kCollapse + 1 : 0);
      m.split_levels = blocks > 0 ? 1 : 0;
      m.split_values = blocks > 0 ? tc::kTile : 0;
      m.how = std::to_string(blocks) + " whole blocks, P·Q, " + std::to_string(rest_steps) + " strided steps";
      break;
    }
    case ReduceAlgorithm::reduction16_multisegment: {
      const std::int64_t tau = std::max<std::int64_t>(1, s / tc::kTileElems);
      const std::int64_t rows = std::min<std::int64_t>(tc::kTile, s / tc::kTile);  // m of V·M
      m.depth = kMma * tau + (rows > 1 ? kCollapse : 0);
      m.split_levels = rows > 1 ? 1 : 0;
      m.split_values = rows > 1 ? rows : 0;
      m.how = std::to_string(tau) + " tile(s) per row of V" + (rows > 1 ? ", then V·M" : "");
      break;
    }
    case ReduceAlgorithm::chained_mma_recurrence:
    case ReduceAlgorithm::chained_mma_fp16_accumulate: {
      // Level 0 chains R fp16 tiles; every further level chains R tiles of fp32 partials, each
      // split into hi and lo tiles (two MMAs per tile, one more split).
      const bool fp16 = a == ReduceAlgorithm::chained_mma_fp16_accumulate;
      const std::int64_t chunk = r::chained_warp_chunk(cfg.chain_length);
      int levels = 0;
      for (std::int64_t len = s;; len = ceil_div(len, chunk)) {
        ++levels;
        if (fp16) {
          m.depth += kMma * cfg.chain_length + kMma;  // fp16 C·1: one MMA, no split
        } else {
          m.depth += (levels == 1 ? kMma : 2 * kMma) * cfg.chain_length + kCollapse;
          m.split_levels += levels == 1 ? 1 : 2;
          m.split_values += 2 * tc::kTile * ceil_div(len, chunk);
        }
        if (ceil_div(len, chunk) == 1) break;
      }
      m.how = std::to_string(levels) + " level(s) of R = " + std::to_string(cfg.chain_length) + " chained MMAs";
      break;
    }
    case ReduceAlgorithm::chained_mma_single_pass: {
      const std::int64_t bps = r::chained_single_pass_blocks(s, cfg.chain_length, cfg.block_threads);
      m.depth = kMma * cfg.chain_length + kCollapse + 5 + bps;  // + warp 0's shuffles + atomics
      m.split_levels = 1;
      m.split_values = tc::kTile * ceil_div(s, r::chained_warp_chunk(cfg.chain_length));
      m.how = std::to_string(bps) + " block atomic(s) per segment";
      break;
    }
    case ReduceAlgorithm::chained_mma_split: {
      const std::int64_t bps = r::chained_split_blocks(s, cfg.block_threads);
      m.depth = kMma + kCollapse + 5 + bps;
      m.split_levels = 1;
      m.split_values = tc::kTile * tiles_of(s);
      m.how = std::to_string(bps) + " block atomic(s) per segment";
      break;
    }
    case ReduceAlgorithm::reduction_any_size:
      if (s <= tc::kTile) {  // passed to Reduction16
        m.depth = kMma;
        m.how = "one MMA (Reduction16)";
        break;
      }
      // Row totals: one MMA entry each (16 products; the other E rows add exact zeros); the
      // 128 rows of a round: 4 in sequence per lane, 5 shuffle levels, + the round's carry
      // (+1), + P at the end (+1); one fp32 addition of a round's total to the carry per round
      // the segment spans.
      m.depth = kMma + 4 + 5 + 1 + 1 + ceil_div(s, r::kAnySizeRoundElems) + 1;
      m.how = "row totals on tensor cores, a segmented scan of the rows, an fp32 carry per round";
      break;
    case ReduceAlgorithm::reduction_walk:
      if (s <= tc::kTile) {  // passed to Reduction16
        m.depth = kMma;
        m.how = "one MMA (Reduction16)";
        break;
      }
      // A lane's 16 elements in sequence (16), then per 512-element slice the segment spans one
      // fp32 addition: to the lane's own sum (slices without events) or to the carry; the own
      // sums' 5 shuffle levels + 1 into the carry; 5 shuffle levels of the lanes' scan, + the
      // carry (+1), + the lane's part before the end (+1).
      m.depth = 16 + ceil_div(s, std::int64_t{512}) + 1 + 5 + 1 + 5 + 1 + 1;
      m.how = "one add per element in fp32, a segmented scan of the lanes, an fp32 carry per slice";
      break;
  }
  return m;
}

}  // namespace

ReduceErrorBound reduce_error_bound(ReduceAlgorithm algorithm, std::int64_t num_segments, std::int64_t segment_size,
                                    int sm_count) {
  const std::int64_t ns = std::max<std::int64_t>(num_segments, 1), s = std::max<std::int64_t>(segment_size, 1);
  std::string prefix;
  if (algorithm == ReduceAlgorithm::automatic) {
    algorithm = choose_reduce_algorithm(ns, s, sm_count);
    prefix = "auto → ";
  }
  const Model m = model(algorithm, ns, s, sm_count);
  const bool fp16 = algorithm == ReduceAlgorithm::chained_mma_fp16_accumulate;
  ReduceErrorBound b;
  b.depth = static_cast<int>(std::min<std::int64_t>(m.depth, std::int64_t(1) << 30));
  b.rel_to_abs_sum = b.depth * (fp16 ? kFp16Level : kFp32Level) + m.split_levels * kSplitRel;
  b.abs = static_cast<double>(m.split_values) * kSplitAbs;
  b.rationale = prefix + reduce_algorithm_name(algorithm) + ": " + m.how + "; depth " + std::to_string(b.depth) +
                (fp16 ? " in fp16 (until it overflows)" : " in fp32") +
                (m.split_levels > 0 ? " + " + std::to_string(m.split_levels) + " × 2^-22 hi/lo split" : "");
  return b;
}

ReduceErrorBound reduce_error_bound(ReduceAlgorithm algorithm, std::int64_t num_segments,
                                    std::int64_t segment_size) {
  if (algorithm != ReduceAlgorithm::automatic)
    return reduce_error_bound(algorithm, num_segments, segment_size, tc::sm_count());
  // the choice on this device (it also asks the device's memory)
  const std::int64_t ns = std::max<std::int64_t>(num_segments, 1), s = std::max<std::int64_t>(segment_size, 1);
  ReduceErrorBound b = reduce_error_bound(choose_reduce_algorithm(ns, s), ns, s, tc::sm_count());
  b.rationale = "auto → " + b.rationale;
  return b;
}

}  // namespace tcu
