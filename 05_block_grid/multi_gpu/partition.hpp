#pragma once
// The host side of the multi-GPU sums and scans, pure maths (tested on any machine): how an
// array is cut into one shard per GPU, the carry each rank's scan starts from, and the byte
// model that bounds the speed-up.
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace tcu::multi_gpu {

// Shard r of an array of n elements over `ranks` GPUs: elements [first, first + count). The
// first n % ranks shards hold one element more, so counts differ by at most one.
struct ShardRange {
  std::int64_t first = 0;
  std::int64_t count = 0;
};
inline ShardRange shard_of(std::int64_t n, int ranks, int r) {
  if (n < 0 || ranks < 1 || r < 0 || r >= ranks) throw std::invalid_argument("shard_of: bad arguments");
  const std::int64_t base = n / ranks, extra = n % ranks;
  return {r * base + (r < extra ? r : extra), base + (r < extra ? 1 : 0)};
}
inline std::vector<std::int64_t> shard_counts(std::int64_t n, int ranks) {
  std::vector<std::int64_t> c;
  for (int r = 0; r < ranks; ++r) c.push_back(shard_of(n, ranks, r).count);
  return c;
}

// The fixed order every rank adds the totals in: rank 0 first, in double, rounded to fp32 once.
// The device does exactly this (sum_in_rank_order_kernel), so host and device agree bit for bit,
// and every rank gets the same bits for the same totals.
inline float sum_in_rank_order(const float* values, int count) {
  double s = 0.0;
  for (int i = 0; i < count; ++i) s += values[i];
  return static_cast<float>(s);
}
// The carry into rank r's scan: the totals of ranks 0 … r−1 (rank 0: 0). The inclusive scan of
// rank r is carry[r] + its local inclusive scan; its exclusive scan starts with carry[r].
inline std::vector<float> exclusive_carries(const std::vector<float>& totals) {
  std::vector<float> c;
  for (std::size_t r = 0; r < totals.size(); ++r) c.push_back(sum_in_rank_order(totals.data(), static_cast<int>(r)));
  return c;
}
// Which ranks must know their shard's total: a scan's last rank carries into nobody, so it skips
// the reduce pass; a sum needs every total.
inline bool rank_needs_total(int rank, int ranks, bool scan) { return !scan || rank < ranks - 1; }

// The byte model: fp16 in (2 bytes), fp32 out (4 bytes), each element read or written once per
// pass over DRAM.
inline constexpr double kReduceBytesPerElem = 2.0;        // read the input
inline constexpr double kScanBytesPerElemOneGpu = 6.0;    // read 2, write 4: one pass
inline constexpr double kScanBytesPerElemMultiGpu = 8.0;  // a reduce pass (2), then the scan pass (6)

// Bytes per element the multi-GPU scan moves on the busiest GPU (the last rank skips its reduce:
// 6; with one GPU that is the only rank).
inline double scan_bytes_per_elem(int ranks) { return ranks > 1 ? kScanBytesPerElemMultiGpu : kScanBytesPerElemOneGpu; }
// Upper bounds of the speed-up over one GPU for the same total n, equal shards, every GPU at the
// same bandwidth, the exchange free: the reduction divides the work (G×); the scan moves 8 bytes
// per element on G GPUs where one GPU moves 6: G·6/8 (1.5× on two GPUs).
inline double reduce_speedup_bound(int gpus) { return gpus; }
inline double scan_speedup_bound(int gpus) {
  return gpus * kScanBytesPerElemOneGpu / scan_bytes_per_elem(gpus);
}

}  // namespace tcu::multi_gpu
