// tcu::multi_gpu: the communicator, the argument checks and the three steps of every call —
// (1) each rank's total, (2) ncclAllGather of the totals, (3) the sum, or the carry and the
// carry-seeded look-back scan — plus the chunked upload of the from-host forms.
#include "05_block_grid/multi_gpu/multi_gpu.cuh"

#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "05_block_grid/kernels/launchers.hpp"
#include "05_block_grid/multi_gpu/partition.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::multi_gpu {

struct Communicator::Impl {
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams, copy_streams;
  std::vector<std::vector<cudaEvent_t>> events;  // per rank, for the uploads; grown on demand
  std::string last_error;

  ~Impl() { release(); }
  void release() {
    int current = 0;
    const bool restore = cudaGetDevice(&current) == cudaSuccess;
    for (std::size_t r = 0; r < devices.size(); ++r) {
      cudaSetDevice(devices[r]);
      if (r < streams.size() && streams[r]) cudaStreamSynchronize(streams[r]);
      if (r < copy_streams.size() && copy_streams[r]) cudaStreamSynchronize(copy_streams[r]);
      if (r < events.size())
        for (cudaEvent_t e : events[r]) cudaEventDestroy(e);
      if (r < comms.size() && comms[r]) ncclCommDestroy(comms[r]);
      if (r < streams.size() && streams[r]) cudaStreamDestroy(streams[r]);
      if (r < copy_streams.size() && copy_streams[r]) cudaStreamDestroy(copy_streams[r]);
    }
    devices.clear();
    comms.clear();
    streams.clear();
    copy_streams.clear();
    events.clear();
    if (restore) cudaSetDevice(current);
  }
};

namespace {

using Impl = Communicator::Impl;

// Makes the caller's current device current again when the call returns.
class DeviceGuard {
 public:
  DeviceGuard() { ok_ = cudaGetDevice(&device_) == cudaSuccess; }
  ~DeviceGuard() {
    if (ok_) cudaSetDevice(device_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int device_ = 0;
  bool ok_ = false;
};

#define TCU_MGPU_TRY(expr)                                      \
  do {                                                          \
    if (const cudaError_t e_ = (expr); e_ != cudaSuccess) return e_; \
  } while (0)

cudaError_t nccl_failure(Impl& m, ncclResult_t r, const std::string& what, ncclComm_t comm = nullptr) {
  m.last_error = what + ": " + ncclGetErrorString(r);
  if (comm) {
    const char* detail = ncclGetLastError(comm);
    if (detail && *detail) m.last_error += std::string(" (") + detail + ")";
  }
  return (r == ncclInvalidArgument || r == ncclInvalidUsage) ? cudaErrorInvalidValue : cudaErrorUnknown;
}

// ---- step 3's kernel: a few floats added in a fixed order -----------------------------------
__global__ void sum_in_rank_order_kernel(const float* __restrict__ values, int count, float* __restrict__ out) {
  double s = 0.0;  // as partition.hpp's sum_in_rank_order: in order, in double, rounded once
  for (int i = 0; i < count; ++i) s += values[i];
  *out = static_cast<float>(s);
}

cudaError_t launch_sum_in_rank_order(const float* values, int count, float* out, cudaStream_t stream) {
  sum_in_rank_order_kernel<<<1, 1, 0, stream>>>(values, count, out);
  return cudaGetLastError();
}

// ---- argument checks ------------------------------------------------------------------------
template <class T>
bool element_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}
// Not device memory of another GPU than `device` (managed, host-mapped memory and device memory
// of `device` pass; what the runtime does not know is left to the kernel).
bool usable_on(const void* p, int device) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // not sticky
    return true;
  }
  return a.type != cudaMemoryTypeDevice || a.device == device;
}
bool is_device_memory(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

// One call's arguments: `host_in` is empty for the device-resident forms. Fills `streams` (the
// caller's or the communicator's); `nothing`: every shard is empty.
cudaError_t check_call(const Impl& m, bool sum, const std::vector<const __half*>& host_in,
                       const std::vector<const __half*>& in, const std::vector<std::int64_t>& n,
                       const std::vector<float*>& out, const std::vector<cudaStream_t>& given,
                       std::vector<cudaStream_t>& streams, bool& nothing) {
  const std::size_t ranks = m.devices.size();
  if (ranks == 0 || in.size() != ranks || n.size() != ranks || out.size() != ranks) return cudaErrorInvalidValue;
  if (!host_in.empty() && host_in.size() != ranks) return cudaErrorInvalidValue;
  if (!given.empty() && given.size() != ranks) return cudaErrorInvalidValue;
  std::int64_t total = 0;
  for (std::int64_t c : n) {
    if (c < 0 || c > std::numeric_limits<std::int64_t>::max() - total) return cudaErrorInvalidValue;
    total += c;
  }
  nothing = total == 0;
  if (nothing) return cudaSuccess;
  for (std::size_t r = 0; r < ranks; ++r) {
    const int dev = m.devices[r];
    if (n[r] > 0) {
      if (!in[r] || !element_aligned(in[r]) || !usable_on(in[r], dev)) return cudaErrorInvalidValue;
      if (!host_in.empty() && (!host_in[r] || is_device_memory(host_in[r]))) return cudaErrorInvalidValue;
    }
    if (sum || n[r] > 0) {
      if (!out[r] || !element_aligned(out[r]) || !usable_on(out[r], dev)) return cudaErrorInvalidValue;
    }
  }
  streams = given.empty() ? m.streams : given;
  return cudaSuccess;
}

// ---- per-rank temporaries -------------------------------------------------------------------
// [0] the shard's total, [1] the carry, [2, 2 + ranks) the gathered totals, then the chunk
// partials of an upload. Freed, stream-ordered, on each rank's device when the call returns.
struct Scratch {
  float* base = nullptr;
  int device = 0;
  cudaStream_t stream = 0;
  float* total() const { return base; }
  float* carry() const { return base + 1; }
  float* totals() const { return base + 2; }
  float* chunk_partials(int ranks) const { return base + 2 + ranks; }
};
class ScratchSet {
 public:
  explicit ScratchSet(int ranks) : s_(static_cast<std::size_t>(ranks)) {}
  ~ScratchSet() {
    for (Scratch& x : s_)
      if (x.base && cudaSetDevice(x.device) == cudaSuccess) tc::temp_free(x.base, x.stream);
  }
  ScratchSet(const ScratchSet&) = delete;
  ScratchSet& operator=(const ScratchSet&) = delete;
  // On the current device (that of `rank`).
  cudaError_t allocate(int rank, int device, std::int64_t floats, cudaStream_t stream) {
    Scratch& x = s_[static_cast<std::size_t>(rank)];
    x.device = device;
    x.stream = stream;
    void* p = nullptr;
    const cudaError_t e = tc::temp_alloc(&p, static_cast<std::size_t>(floats) * sizeof(float), stream);
    x.base = static_cast<float*>(p);
    return e;
  }
  const Scratch& operator[](int rank) const { return s_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<Scratch> s_;
};

// ---- the three steps ------------------------------------------------------------------------
enum class Form { sum, inclusive, exclusive };

// Step 1 for a device-resident shard: its total (0 where nobody needs it or it is empty).
cudaError_t shard_total(const __half* in, std::int64_t n, bool needed, float* total, cudaStream_t stream) {
  if (!needed || n == 0) return cudaMemsetAsync(total, 0, sizeof(float), stream);
  return DeviceReduce::Sum(in, total, n, stream);  // chapter 05: one launch, fixed order
}

// Step 2: every rank gets every rank's total, in rank order (one float per rank).
cudaError_t gather_totals(Impl& m, const ScratchSet& s, const std::vector<cudaStream_t>& streams) {
  const int ranks = static_cast<int>(m.devices.size());
  if (const ncclResult_t r = ncclGroupStart(); r != ncclSuccess) return nccl_failure(m, r, "ncclGroupStart");
  ncclResult_t failed = ncclSuccess;
  int failed_rank = 0;
  for (int r = 0; r < ranks && failed == ncclSuccess; ++r) {
    failed = ncclAllGather(s[r].total(), s[r].totals(), 1, ncclFloat32, m.comms[r], streams[r]);
    failed_rank = r;
  }
  const ncclResult_t end = ncclGroupEnd();
  if (failed != ncclSuccess) return nccl_failure(m, failed, "ncclAllGather", m.comms[failed_rank]);
  if (end != ncclSuccess) return nccl_failure(m, end, "ncclGroupEnd");
  return cudaSuccess;
}

// Step 3 on rank r (its device current): the sum of all totals, or the carry (the totals of the
// ranks before r, on the device: no host round trip) and the look-back scan seeded with it.
cudaError_t finish_rank(Form form, int r, int ranks, const __half* in, std::int64_t n, float* out, const Scratch& s,
                        cudaStream_t stream) {
  if (form == Form::sum) return launch_sum_in_rank_order(s.totals(), ranks, out, stream);
  if (n == 0) return cudaSuccess;
  const float* carry = nullptr;  // rank 0 starts from 0
  if (r > 0) {
    TCU_MGPU_TRY(launch_sum_in_rank_order(s.totals(), r, s.carry(), stream));
    carry = s.carry();
  }
  return tcu::detail::device::launch_grid_scan_lookback(in, out, n, form == Form::inclusive, stream, carry);
}

cudaError_t run_device(Communicator& comm, Form form, const std::vector<const __half*>& in,
                       const std::vector<std::int64_t>& n, const std::vector<float*>& out,
                       const std::vector<cudaStream_t>& given) {
  Impl& m = comm.impl();
  std::vector<cudaStream_t> streams;
  bool nothing = false;
  TCU_MGPU_TRY(check_call(m, form == Form::sum, {}, in, n, out, given, streams, nothing));
  if (nothing) return cudaSuccess;
  const int ranks = static_cast<int>(m.devices.size());
  DeviceGuard guard;
  ScratchSet scratch(ranks);
  for (int r = 0; r < ranks; ++r) {  // 1. each rank's total
    TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
    TCU_MGPU_TRY(scratch.allocate(r, m.devices[r], 2 + ranks, streams[r]));
    const bool needed = rank_needs_total(r, ranks, form != Form::sum);
    TCU_MGPU_TRY(shard_total(in[r], n[r], needed, scratch[r].total(), streams[r]));
  }
  TCU_MGPU_TRY(gather_totals(m, scratch, streams));  // 2. every rank gets all of them
  for (int r = 0; r < ranks; ++r) {  // 3. the sum, or the carry and the scan
    TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
    TCU_MGPU_TRY(finish_rank(form, r, ranks, in[r], n[r], out[r], scratch[r], streams[r]));
  }
  return cudaSuccess;
}

// Events of rank r (its device current), at least `count`.
cudaError_t ensure_events(Impl& m, int r, std::size_t count) {
  std::vector<cudaEvent_t>& ev = m.events[static_cast<std::size_t>(r)];
  while (ev.size() < count) {
    cudaEvent_t e = nullptr;
    TCU_MGPU_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    ev.push_back(e);
  }
  return cudaSuccess;
}

cudaError_t run_from_host(Communicator& comm, Form form, const std::vector<const __half*>& h_in,
                          const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                          const std::vector<float*>& out, const std::vector<cudaStream_t>& given) {
  Impl& m = comm.impl();
  const std::vector<const __half*> in(d_in.begin(), d_in.end());
  std::vector<cudaStream_t> streams;
  bool nothing = false;
  if (h_in.size() != m.devices.size()) return cudaErrorInvalidValue;
  TCU_MGPU_TRY(check_call(m, form == Form::sum, h_in, in, n, out, given, streams, nothing));
  if (nothing) return cudaSuccess;
  const int ranks = static_cast<int>(m.devices.size());
  const std::int64_t C = kUploadChunkElems;
  DeviceGuard guard;
  ScratchSet scratch(ranks);
  std::int64_t most_chunks = 0;
  // The copy stream of each rank waits for the work enqueued before this call (event 0), so it
  // never overwrites d_in while earlier work still reads it.
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t chunks = ceil_div(n[r], C);
    most_chunks = std::max(most_chunks, chunks);
    TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
    TCU_MGPU_TRY(scratch.allocate(r, m.devices[r], 2 + ranks + chunks, streams[r]));
    TCU_MGPU_TRY(ensure_events(m, r, static_cast<std::size_t>(chunks) + 1));
    TCU_MGPU_TRY(cudaEventRecord(m.events[r][0], streams[r]));
    TCU_MGPU_TRY(cudaStreamWaitEvent(m.copy_streams[r], m.events[r][0], 0));
  }
  // The uploads, chunk c of every rank before chunk c + 1 of any: event 1 + c marks chunk c.
  for (std::int64_t c = 0; c < most_chunks; ++c)
    for (int r = 0; r < ranks; ++r) {
      if (c * C >= n[r]) continue;
      const std::int64_t len = std::min(C, n[r] - c * C);
      TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
      TCU_MGPU_TRY(cudaMemcpyAsync(d_in[r] + c * C, h_in[r] + c * C, static_cast<std::size_t>(len) * sizeof(__half),
                                   cudaMemcpyHostToDevice, m.copy_streams[r]));
      TCU_MGPU_TRY(cudaEventRecord(m.events[r][static_cast<std::size_t>(1 + c)], m.copy_streams[r]));
    }
  for (int r = 0; r < ranks; ++r) {  // 1. each chunk's partial as soon as it is there
    TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
    const bool needed = rank_needs_total(r, ranks, form != Form::sum);
    const std::int64_t chunks = ceil_div(n[r], C);
    const Scratch& s = scratch[r];
    float* chunk_partials = s.chunk_partials(ranks);
    for (std::int64_t c = 0; c < chunks; ++c) {
      TCU_MGPU_TRY(cudaStreamWaitEvent(streams[r], m.events[r][static_cast<std::size_t>(1 + c)], 0));
      const std::int64_t len = std::min(C, n[r] - c * C);
      if (needed) TCU_MGPU_TRY(DeviceReduce::Sum(d_in[r] + c * C, chunk_partials + c, len, streams[r]));
    }
    // The shard's total: its chunk partials in order (as the ranks' totals are added in step 3).
    if (needed) TCU_MGPU_TRY(launch_sum_in_rank_order(chunk_partials, static_cast<int>(chunks), s.total(), streams[r]));
    else TCU_MGPU_TRY(cudaMemsetAsync(s.total(), 0, sizeof(float), streams[r]));
  }
  TCU_MGPU_TRY(gather_totals(m, scratch, streams));  // 2.
  for (int r = 0; r < ranks; ++r) {                  // 3.
    TCU_MGPU_TRY(cudaSetDevice(m.devices[r]));
    TCU_MGPU_TRY(finish_rank(form, r, ranks, d_in[r], n[r], out[r], scratch[r], streams[r]));
  }
  return cudaSuccess;
}

}  // namespace

// ---- Communicator ---------------------------------------------------------------------------
Communicator::Communicator() : impl_(std::make_unique<Impl>()) {}
Communicator::~Communicator() = default;
// A moved-from communicator has no ranks (a fresh Impl), never a null one.
Communicator::Communicator(Communicator&& o) noexcept : impl_(std::make_unique<Impl>()) { impl_.swap(o.impl_); }
Communicator& Communicator::operator=(Communicator&& o) noexcept {
  if (this != &o) {
    impl_->release();
    impl_.swap(o.impl_);
  }
  return *this;
}

cudaError_t Communicator::init(const std::vector<int>& devices) {
  Impl& m = *impl_;
  m.release();
  m.last_error.clear();
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    m.last_error = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    return e;
  }
  if (devices.empty()) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= count) return cudaErrorInvalidValue;
    if (std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]) !=
        devices.begin() + static_cast<std::ptrdiff_t>(i))
      return cudaErrorInvalidValue;  // one rank per GPU
  }
  DeviceGuard guard;
  const int ranks = static_cast<int>(devices.size());
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  if (const ncclResult_t r = ncclCommInitAll(comms.data(), ranks, devices.data()); r != ncclSuccess)
    return nccl_failure(m, r, "ncclCommInitAll");
  m.devices = devices;
  m.comms = comms;
  m.streams.assign(devices.size(), nullptr);
  m.copy_streams.assign(devices.size(), nullptr);
  m.events.assign(devices.size(), {});
  for (std::size_t r = 0; r < devices.size(); ++r) {
    cudaError_t e = cudaSetDevice(devices[r]);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&m.streams[r], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&m.copy_streams[r], cudaStreamNonBlocking);
    if (e != cudaSuccess) {
      m.last_error = std::string("creating the streams: ") + cudaGetErrorString(e);
      m.release();
      return e;
    }
  }
  return cudaSuccess;
}

int Communicator::size() const { return static_cast<int>(impl_->devices.size()); }
int Communicator::device(int rank) const { return impl_->devices.at(static_cast<std::size_t>(rank)); }
cudaStream_t Communicator::stream(int rank) const { return impl_->streams.at(static_cast<std::size_t>(rank)); }
const std::string& Communicator::last_error() const { return impl_->last_error; }

std::vector<int> all_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  std::vector<int> d;
  for (int i = 0; i < count; ++i) d.push_back(i);
  return d;
}

// ---- the API --------------------------------------------------------------------------------
cudaError_t Sum(Communicator& comm, const std::vector<const __half*>& d_in, const std::vector<std::int64_t>& n,
                const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams) {
  return run_device(comm, Form::sum, d_in, n, d_out, streams);
}
cudaError_t InclusiveSum(Communicator& comm, const std::vector<const __half*>& d_in,
                         const std::vector<std::int64_t>& n, const std::vector<float*>& d_out,
                         const std::vector<cudaStream_t>& streams) {
  return run_device(comm, Form::inclusive, d_in, n, d_out, streams);
}
cudaError_t ExclusiveSum(Communicator& comm, const std::vector<const __half*>& d_in,
                         const std::vector<std::int64_t>& n, const std::vector<float*>& d_out,
                         const std::vector<cudaStream_t>& streams) {
  return run_device(comm, Form::exclusive, d_in, n, d_out, streams);
}
cudaError_t SumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                        const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                        const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams) {
  return run_from_host(comm, Form::sum, h_in, n, d_in, d_out, streams);
}
cudaError_t InclusiveSumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                                 const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                                 const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams) {
  return run_from_host(comm, Form::inclusive, h_in, n, d_in, d_out, streams);
}
cudaError_t ExclusiveSumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                                 const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                                 const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams) {
  return run_from_host(comm, Form::exclusive, h_in, n, d_in, d_out, streams);
}

namespace detail {
cudaError_t sum_in_rank_order(const float* d_values, int count, float* d_out, cudaStream_t stream) {
  if (count < 0 || !d_out || (count > 0 && !d_values) || !element_aligned(d_out) || !element_aligned(d_values))
    return cudaErrorInvalidValue;
  return launch_sum_in_rank_order(d_values, count, d_out, stream);
}
cudaError_t scan_with_carry(const __half* d_in, float* d_out, std::int64_t n, bool inclusive, const float* d_carry,
                            cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (!d_in || !d_out || !element_aligned(d_in) || !element_aligned(d_out) || !element_aligned(d_carry))
    return cudaErrorInvalidValue;
  return tcu::detail::device::launch_grid_scan_lookback(d_in, d_out, n, inclusive, stream, d_carry);
}
}  // namespace detail

}  // namespace tcu::multi_gpu
