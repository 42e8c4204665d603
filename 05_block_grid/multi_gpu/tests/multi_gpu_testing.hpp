#pragma once
// What the GPU tests of tcu::multi_gpu share: an array cut into shards on the ranks of a
// communicator (each shard at an offset into its buffer: unaligned pointers), poisoned outputs,
// and the checks against the FP64 reference of the whole array.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "05_block_grid/multi_gpu/measure.hpp"
#include "05_block_grid/multi_gpu/multi_gpu.cuh"
#include "common/check.cuh"
#include "common/data.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace mgt {

namespace mg = tcu::multi_gpu;
using tcu::Dist;

inline int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

// A non-blocking stream per rank (the caller's streams, not the communicator's).
class RankStreams {
 public:
  explicit RankStreams(const mg::Communicator& comm) {
    for (int r = 0; r < comm.size(); ++r) {
      TCU_CUDA_CHECK(cudaSetDevice(comm.device(r)));
      cudaStream_t s = nullptr;
      TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      s_.push_back(s);
      dev_.push_back(comm.device(r));
    }
  }
  ~RankStreams() {
    for (std::size_t i = 0; i < s_.size(); ++i)
      if (cudaSetDevice(dev_[i]) == cudaSuccess) cudaStreamDestroy(s_[i]);
  }
  RankStreams(const RankStreams&) = delete;
  RankStreams& operator=(const RankStreams&) = delete;
  const std::vector<cudaStream_t>& get() const { return s_; }

 private:
  std::vector<cudaStream_t> s_;
  std::vector<int> dev_;
};

struct Shard {
  int device = 0;
  std::int64_t count = 0, offset = 0;
  tcu::DeviceBuffer<__half> in;
  tcu::DeviceBuffer<float> out, sum;
  ~Shard() { cudaSetDevice(device); }  // the buffers are freed after this, on their device
};

// The array (host copy) and its shards on the ranks; shard r starts `offset` elements into its buffer.
struct Sharded {
  std::vector<__half> host;
  std::vector<std::unique_ptr<Shard>> shards;
  std::int64_t total = 0;

  Sharded(const mg::Communicator& comm, const std::vector<std::int64_t>& counts, Dist dist, std::int64_t offset,
          std::uint64_t seed) {
    for (std::int64_t c : counts) total += c;
    host.resize(static_cast<std::size_t>(total));
    tcu::fill_host(host.data(), host.size(), dist, seed);
    std::int64_t first = 0;
    for (int r = 0; r < comm.size(); ++r) {
      auto s = std::make_unique<Shard>();
      s->device = comm.device(r);
      s->count = counts[r];
      s->offset = offset;
      TCU_CUDA_CHECK(cudaSetDevice(s->device));
      s->in = tcu::DeviceBuffer<__half>(static_cast<std::size_t>(counts[r] + offset + 1));
      s->out = tcu::DeviceBuffer<float>(static_cast<std::size_t>(counts[r] + 1));
      s->sum = tcu::DeviceBuffer<float>(1);
      if (counts[r] > 0)
        TCU_CUDA_CHECK(cudaMemcpy(s->in.data() + offset, host.data() + first, static_cast<std::size_t>(counts[r]) * 2,
                                  cudaMemcpyHostToDevice));
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      first += counts[r];
      shards.push_back(std::move(s));
    }
  }
  std::vector<const __half*> in() const {
    std::vector<const __half*> v;
    for (const auto& s : shards) v.push_back(s->in.data() + s->offset);
    return v;
  }
  std::vector<__half*> in_mut() const {
    std::vector<__half*> v;
    for (const auto& s : shards) v.push_back(s->in.data() + s->offset);
    return v;
  }
  std::vector<float*> out() const {
    std::vector<float*> v;
    for (const auto& s : shards) v.push_back(s->out.data());
    return v;
  }
  std::vector<float*> sum() const {
    std::vector<float*> v;
    for (const auto& s : shards) v.push_back(s->sum.data());
    return v;
  }
  std::vector<std::int64_t> counts() const {
    std::vector<std::int64_t> v;
    for (const auto& s : shards) v.push_back(s->count);
    return v;
  }
  // Host pointers of the shards into `base` (a copy of `host`, e.g. page-locked).
  std::vector<const __half*> host_shards(const __half* base) const {
    std::vector<const __half*> v;
    std::int64_t first = 0;
    for (const auto& s : shards) {
      v.push_back(base + first);
      first += s->count;
    }
    return v;
  }
  // Poisons every output on the streams the call will use, then waits.
  void poison(const std::vector<cudaStream_t>& streams) const {
    for (std::size_t r = 0; r < shards.size(); ++r) {
      TCU_CUDA_CHECK(cudaSetDevice(shards[r]->device));
      tcu::poison_device(shards[r]->out.data(), shards[r]->out.bytes(), streams[r]);
      tcu::poison_device(shards[r]->sum.data(), shards[r]->sum.bytes(), streams[r]);
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
  void sync() const {
    for (const auto& s : shards) {
      TCU_CUDA_CHECK(cudaSetDevice(s->device));
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
  // Every rank's output, concatenated (the scan of the whole array), and the element after each
  // shard (must stay poisoned).
  std::vector<float> scan_result(bool& tail_untouched) const {
    std::vector<float> all;
    tail_untouched = true;
    for (const auto& s : shards) {
      std::vector<float> h(static_cast<std::size_t>(s->count + 1));
      TCU_CUDA_CHECK(cudaSetDevice(s->device));
      TCU_CUDA_CHECK(cudaMemcpy(h.data(), s->out.data(), h.size() * 4, cudaMemcpyDeviceToHost));
      tail_untouched = tail_untouched && std::isnan(h.back());
      all.insert(all.end(), h.begin(), h.end() - 1);
    }
    return all;
  }
  std::vector<float> sums() const {
    std::vector<float> v;
    for (const auto& s : shards) {
      float x = 0;
      TCU_CUDA_CHECK(cudaSetDevice(s->device));
      TCU_CUDA_CHECK(cudaMemcpy(&x, s->sum.data(), 4, cudaMemcpyDeviceToHost));
      v.push_back(x);
    }
    return v;
  }
  std::int64_t largest() const {
    std::int64_t m = 1;
    for (const auto& s : shards) m = std::max(m, s->count);
    return m;
  }
};

// Integer inputs: exact (every partial sum an integer below 2^24); otherwise the derived bounds.
inline tcu::Tolerance sum_tol(const Sharded& a, Dist dist, double abs_sum) {
  return tcu::multi_gpu::bench::exact_for(dist, abs_sum) ? tcu::exact_tolerance()
                                                         : tcu::multi_gpu::bench::sum_tolerance(a.largest());
}
inline tcu::Tolerance scan_tol(const Sharded& a, Dist dist, double abs_sum) {
  return tcu::multi_gpu::bench::exact_for(dist, abs_sum) ? tcu::exact_tolerance()
                                                         : tcu::multi_gpu::bench::scan_tolerance(a.largest());
}

// The sum on every rank: the same bits everywhere, within the bound of the FP64 sum.
inline void check_sums(const Sharded& a, Dist dist, const std::string& what) {
  const tcu::SumRef ref = tcu::reference_sum(a.host.data(), a.host.size());
  const std::vector<float> got = a.sums();
  const tcu::VerifyResult r = tcu::verify(got.data(), &ref.sum, &ref.abs_sum, 1, sum_tol(a, dist, ref.abs_sum));
  INFO(what << ": " << r.summary());
  CHECK(r.pass);
  for (std::size_t k = 1; k < got.size(); ++k) CHECK(std::memcmp(&got[k], &got[0], 4) == 0);
}

// The scan of the whole array, every element, and nothing written past a shard.
inline void check_scan(const Sharded& a, Dist dist, bool inclusive, const std::string& what) {
  bool tail_untouched = false;
  const std::vector<float> got = a.scan_result(tail_untouched);
  CHECK(tail_untouched);
  if (a.total == 0) return;
  std::vector<double> want, mag;
  tcu::reference_segmented_scan(a.host.data(), 1, a.total, inclusive, want, mag);
  const double abs_sum = tcu::reference_sum(a.host.data(), a.host.size()).abs_sum;
  const tcu::VerifyResult r = tcu::verify(got.data(), want.data(), mag.data(), got.size(), scan_tol(a, dist, abs_sum));
  INFO(what << (inclusive ? " inclusive: " : " exclusive: ") << r.summary());
  CHECK(r.pass);
}

inline std::string describe(const std::vector<std::int64_t>& counts, Dist dist, std::int64_t offset, bool own_streams) {
  std::string s = "shards {";
  for (std::size_t i = 0; i < counts.size(); ++i) s += (i ? ", " : "") + std::to_string(counts[i]);
  return s + "}, " + tcu::dist_name(dist) + ", offset " + std::to_string(offset) +
         (own_streams ? ", the communicator's streams" : ", the caller's non-blocking streams");
}

// Sum, InclusiveSum and ExclusiveSum of one sharded array, against FP64; twice (the same bits).
inline void check_all_forms(mg::Communicator& comm, const std::vector<std::int64_t>& counts, Dist dist,
                            std::int64_t offset, bool own_streams, std::uint64_t seed) {
  const std::string what = describe(counts, dist, offset, own_streams);
  Sharded a(comm, counts, dist, offset, seed);
  RankStreams user(comm);
  std::vector<cudaStream_t> streams;
  for (int r = 0; r < comm.size(); ++r) streams.push_back(own_streams ? comm.stream(r) : user.get()[r]);
  const std::vector<cudaStream_t> arg = own_streams ? std::vector<cudaStream_t>{} : streams;

  a.poison(streams);
  REQUIRE(mg::Sum(comm, a.in(), a.counts(), a.sum(), arg) == cudaSuccess);
  a.sync();
  if (a.total > 0) check_sums(a, dist, what);
  const std::vector<float> first_sums = a.sums();
  if (a.total == 0)
    for (float f : first_sums) CHECK(std::isnan(f));  // nothing to do: nothing written
  for (bool inclusive : {true, false}) {
    std::vector<float> first;
    for (int run = 0; run < 2; ++run) {
      a.poison(streams);
      REQUIRE((inclusive ? mg::InclusiveSum(comm, a.in(), a.counts(), a.out(), arg)
                         : mg::ExclusiveSum(comm, a.in(), a.counts(), a.out(), arg)) == cudaSuccess);
      a.sync();
      bool tail = false;
      if (run == 0) {
        check_scan(a, dist, inclusive, what);
        first = a.scan_result(tail);
      } else {
        const std::vector<float> again = a.scan_result(tail);
        INFO(what << ": a second run gives the same bits");
        CHECK(std::memcmp(again.data(), first.data(), first.size() * 4) == 0);
      }
    }
  }
  a.poison(streams);
  REQUIRE(mg::Sum(comm, a.in(), a.counts(), a.sum(), arg) == cudaSuccess);
  a.sync();
  if (a.total > 0) {
    const std::vector<float> again = a.sums();
    INFO(what << ": a second sum gives the same bits");
    CHECK(std::memcmp(again.data(), first_sums.data(), again.size() * 4) == 0);
  }
}

// Page-locked host memory.
class Pinned {
 public:
  explicit Pinned(const std::vector<__half>& v) : n_(v.size()) {
    TCU_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), std::max<std::size_t>(n_, 1) * 2));
    if (n_) std::memcpy(p_, v.data(), n_ * 2);
  }
  ~Pinned() { cudaFreeHost(p_); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  const __half* get() const { return p_; }

 private:
  __half* p_ = nullptr;
  std::size_t n_;
};

// The from-host forms: the upload lands in d_in (checked), the results as above.
inline void check_from_host(mg::Communicator& comm, const std::vector<std::int64_t>& counts, Dist dist,
                            std::int64_t offset, bool pinned, std::uint64_t seed) {
  const std::string what = describe(counts, dist, offset, true) + (pinned ? ", pinned" : ", pageable") + " host memory";
  Sharded a(comm, counts, dist, offset, seed);
  Pinned pin(a.host);
  const __half* base = pinned ? pin.get() : a.host.data();
  std::vector<cudaStream_t> streams;
  for (int r = 0; r < comm.size(); ++r) streams.push_back(comm.stream(r));
  for (const auto& s : a.shards) {  // the upload must write d_in: clear it first
    TCU_CUDA_CHECK(cudaSetDevice(s->device));
    TCU_CUDA_CHECK(cudaMemset(s->in.data(), 0, s->in.bytes()));
  }
  a.poison(streams);
  REQUIRE(mg::SumFromHost(comm, a.host_shards(base), a.counts(), a.in_mut(), a.sum()) == cudaSuccess);
  a.sync();
  if (a.total > 0) check_sums(a, dist, what + ", SumFromHost");
  std::int64_t first = 0;
  for (const auto& s : a.shards) {
    std::vector<__half> h(static_cast<std::size_t>(s->count));
    TCU_CUDA_CHECK(cudaSetDevice(s->device));
    if (s->count)
      TCU_CUDA_CHECK(cudaMemcpy(h.data(), s->in.data() + s->offset, h.size() * 2, cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(h.data(), a.host.data() + first, h.size() * 2) == 0);
    first += s->count;
  }
  for (bool inclusive : {true, false}) {
    a.poison(streams);
    REQUIRE((inclusive ? mg::InclusiveSumFromHost(comm, a.host_shards(base), a.counts(), a.in_mut(), a.out())
                       : mg::ExclusiveSumFromHost(comm, a.host_shards(base), a.counts(), a.in_mut(), a.out())) ==
            cudaSuccess);
    a.sync();
    check_scan(a, dist, inclusive, what);
  }
}

}  // namespace mgt
