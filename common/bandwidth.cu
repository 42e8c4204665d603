#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/bandwidth.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"

namespace tcu {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread

// Read-only stream. The loaded words are folded into one value that is written only when it
// equals a value the data never produces, so the compiler cannot drop the loads but the kernel
// (practically) writes nothing.
__global__ void read_stream_kernel(const uint4* __restrict__ in, std::size_t n_vec,
                                   unsigned int* __restrict__ sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned int acc = 0;
  for (; i + (kUnroll - 1) * stride < n_vec; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n_vec; i += stride) {
    const uint4 v = __ldcs(in + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) sink[0] = acc;
}

__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n_vec) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n_vec; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) __stcs(out + i + u * stride, v[u]);
  }
  for (; i < n_vec; i += stride) __stcs(out + i, __ldcs(in + i));
}

__global__ void count_mismatches_kernel(const uint4* a, const uint4* b, std::size_t n_vec,
                                        unsigned long long* mismatches) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_vec; i += stride) {
    const uint4 x = a[i], y = b[i];
    bad += (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
  }
  if (bad) atomicAdd(mismatches, bad);
}

// The read stream, and where a 16-byte vector (fp16 elements [8i, 8i + 8)) holds the last element
// of a group of `every` (every >= 8: at most one), one fp32 written for that group, a value made
// from the vector's bits: the loads stay, nothing else is computed.
__global__ void read_sums_kernel(const uint4* __restrict__ in, std::size_t n_vec, float* __restrict__ out,
                                 std::uint64_t every) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  auto put = [&](std::size_t k, const uint4& v) {
    const std::uint64_t g = (8 * std::uint64_t(k) + 8) / every;
    if (g > 8 * std::uint64_t(k) / every)
      __stcs(out + g - 1, __uint_as_float((v.x ^ v.y ^ v.z ^ v.w) & 0x3f7fffffu));  // finite, below 1
  };
  for (; i + (kUnroll - 1) * stride < n_vec; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) put(i + u * stride, v[u]);
  }
  for (; i < n_vec; i += stride) put(i, __ldcs(in + i));
}

__global__ void count_nans_kernel(const float* p, std::size_t n, unsigned long long* nans) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) bad += p[i] != p[i];
  if (bad) atomicAdd(nans, bad);
}

// Non-zero, non-constant content (never time on zeros).
__global__ void fill_pattern_kernel(unsigned int* p, std::size_t n_words) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_words; i += stride)
    p[i] = static_cast<unsigned int>(i * 2654435761u) | 1u;
}

int grid_for(const void* kernel) {
  int device = 0, sms = 0, per_sm = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TCU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  return sms * std::max(per_sm, 1);
}

}  // namespace

std::size_t probe_size(std::size_t bytes, std::size_t free_bytes) {
  constexpr std::size_t kMin = 16 * 1024;
  std::size_t b = std::min(bytes, free_bytes / 4);  // copy needs two buffers; leave room
  b = std::max(b, kMin);
  return b / 16 * 16;
}

namespace {

// The size a probe runs at: `bytes == 0` asks for the default size (limited by free memory);
// any size is raised to 16 KiB and rounded down to whole 16-byte vectors.
std::size_t resolve_probe_bytes(std::size_t bytes) {
  if (bytes == 0) {
    std::size_t free_b = 0, total_b = 0;
    TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    bytes = probe_size(kDefaultProbeBytes, free_b);
  }
  return std::max<std::size_t>(bytes, 16 * 1024) / 16 * 16;
}

}  // namespace

BandwidthProbe run_bandwidth_probe(std::size_t bytes, const TimingConfig& cfg) {
  bytes = resolve_probe_bytes(bytes);
  const std::size_t n_vec = bytes / 16;

  DeviceBuffer<uint4> src(n_vec), dst(n_vec);
  DeviceBuffer<unsigned int> sink(1);
  DeviceBuffer<unsigned long long> mismatches(1);
  TCU_CUDA_CHECK(cudaMemset(dst.data(), 0xFF, dst.bytes()));  // poison: an unwritten copy fails
  fill_pattern_kernel<<<1024, kThreads>>>(reinterpret_cast<unsigned int*>(src.data()), n_vec * 4);
  TCU_CHECK_LAUNCH();
  TCU_CUDA_CHECK(cudaDeviceSynchronize());

  BandwidthProbe r;
  const int grid_read = grid_for(reinterpret_cast<const void*>(&read_stream_kernel));
  const int grid_copy = grid_for(reinterpret_cast<const void*>(&copy_kernel));
  r.read_stream.probe = "read_stream";
  r.read_stream.bytes = bytes;
  r.copy.probe = "copy";
  r.copy.bytes = 2 * bytes;
  // Read, copy, read, copy; each keeps its faster round. A process often starts while the GPU's
  // clocks still rise from idle: a ceiling measured then would flatter every percentage of the run.
  for (int round = 0; round < 2; ++round) {
    const TimingStats read = time_on_device(
        [&](cudaStream_t s) {
          read_stream_kernel<<<grid_read, kThreads, 0, s>>>(src.data(), n_vec, sink.data());
          TCU_CHECK_LAUNCH();
        },
        cfg);
    const TimingStats copy = time_on_device(
        [&](cudaStream_t s) {
          copy_kernel<<<grid_copy, kThreads, 0, s>>>(src.data(), dst.data(), n_vec);
          TCU_CHECK_LAUNCH();
        },
        cfg);
    if (round == 0 || read.median_ms < r.read_stream.time.median_ms) r.read_stream.time = read;
    if (round == 0 || copy.median_ms < r.copy.time.median_ms) r.copy.time = copy;
  }

  TCU_CUDA_CHECK(cudaMemset(mismatches.data(), 0, sizeof(unsigned long long)));
  count_mismatches_kernel<<<1024, kThreads>>>(src.data(), dst.data(), n_vec, mismatches.data());
  TCU_CHECK_LAUNCH();
  unsigned long long bad = 1;
  mismatches.copy_to_host(&bad, 1);
  r.copy_verified = (bad == 0);
  return r;
}

ReadSumsProbe run_read_sums_probe(std::int64_t every, std::size_t bytes, const TimingConfig& cfg) {
  if (every < 8) throw std::invalid_argument("run_read_sums_probe: every must be >= 8");
  bytes = resolve_probe_bytes(bytes);
  const std::size_t n_vec = bytes / 16, n_out = bytes / 2 / static_cast<std::size_t>(every);

  DeviceBuffer<uint4> src(n_vec);
  DeviceBuffer<float> out(std::max<std::size_t>(n_out, 1));
  DeviceBuffer<unsigned long long> nans(1);
  fill_pattern_kernel<<<1024, kThreads>>>(reinterpret_cast<unsigned int*>(src.data()), n_vec * 4);
  TCU_CHECK_LAUNCH();
  TCU_CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));  // NaN: an output never written stays NaN
  TCU_CUDA_CHECK(cudaDeviceSynchronize());

  ReadSumsProbe r;
  r.every = every;
  r.input_bytes = bytes;
  r.result.probe = "read_sums_" + std::to_string(every);
  r.result.bytes = bytes + n_out * sizeof(float);
  const int grid = grid_for(reinterpret_cast<const void*>(&read_sums_kernel));
  r.result.time = time_on_device(
      [&](cudaStream_t s) {
        read_sums_kernel<<<grid, kThreads, 0, s>>>(src.data(), n_vec, out.data(), static_cast<std::uint64_t>(every));
        TCU_CHECK_LAUNCH();
      },
      cfg);
  TCU_CUDA_CHECK(cudaMemset(nans.data(), 0, sizeof(unsigned long long)));
  count_nans_kernel<<<1024, kThreads>>>(out.data(), n_out, nans.data());
  TCU_CHECK_LAUNCH();
  unsigned long long bad = 1;
  nans.copy_to_host(&bad, 1);
  r.all_written = bad == 0;
  return r;
}

}  // namespace tcu
