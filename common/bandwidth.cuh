#pragma once
// The bandwidth probe: the two ceilings every memory-bound kernel is compared with, measured
// in the same process so that "% of bandwidth" means % of what this GPU does right now.
//   read_stream — every thread reads 16-byte vectors, nothing written (a reduction's ceiling)
//   copy        — 16-byte loads and stores (a scan's ceiling); bytes = read + written
#include <cstddef>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "common/timer.cuh"

namespace tcu {

struct BandwidthResult {
  std::string probe;       // "read_stream" or "copy"
  std::size_t bytes = 0;   // bytes moved per run (read + written)
  TimingStats time;        // per run
  double gb_per_s() const { return time.median_ms > 0 ? bytes / (time.median_ms * 1e6) : 0.0; }
};

struct BandwidthProbe {
  BandwidthResult read_stream;
  BandwidthResult copy;
  bool copy_verified = false;  // the copy kernel's output was compared with its input
};

// Default working set: 2^28 fp16 elements (512 MiB), ten times the largest L2 of today's GPUs,
// shrunk to a quarter of the free device memory on smaller GPUs (Jetson).
inline constexpr std::size_t kDefaultProbeBytes = std::size_t(1) << 29;

// Runs both probes over `bytes` bytes per buffer (rounded down to a multiple of 16; at least
// 16 KiB); 0 means the default, probe_size(kDefaultProbeBytes, free memory). The source is
// filled with non-zero data first; the copy is verified. Each probe is timed twice (read, copy,
// read, copy) and keeps its faster round: clocks still rising at a process's start slow the
// first. Throws tcu::CudaError on CUDA errors (cudaErrorMemoryAllocation when two buffers of
// `bytes` do not fit).
BandwidthProbe run_bandwidth_probe(std::size_t bytes = 0, const TimingConfig& cfg = {5, 30});

// A third ceiling, for sums of segments: the read stream plus one fp32 value written (streamed
// store) per `every` fp16 elements, at the element that ends each group of `every` — the bytes a
// segmented sum of segments of `every` moves, in the simplest pattern (bytes = read + written).
// `every` >= 8; throws std::invalid_argument otherwise. `all_written`: every one of the
// (bytes / 2) / every outputs, poisoned first, was written.
struct ReadSumsProbe {
  BandwidthResult result;  // probe "read_sums_<every>"
  std::int64_t every = 0;
  std::size_t input_bytes = 0;  // the fp16 input alone (result.bytes less the fp32 outputs)
  bool all_written = false;
};
ReadSumsProbe run_read_sums_probe(std::int64_t every, std::size_t bytes = 0, const TimingConfig& cfg = {5, 30});

// Size actually probed for a request of `bytes` when `free_bytes` are free (pure, tested).
std::size_t probe_size(std::size_t bytes, std::size_t free_bytes);

}  // namespace tcu
