// 05_multi_gpu's measurements: the runs on G GPUs and on one, the timing across GPUs, the
// bandwidth limits of the same run, the streaming FP64 reference and the results table.
#include "05_block_grid/multi_gpu/measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "05_block_grid/bench/measure.hpp"
#include "05_block_grid/multi_gpu/multi_gpu.cuh"
#include "05_block_grid/multi_gpu/partition.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/bandwidth.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/int_math.hpp"
#include "common/throughput.hpp"

namespace tcu::multi_gpu::bench {

const char* op_name(Op op) {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::inclusive_scan: return "scan";  // as chapter 05's sweep names the inclusive scan
    case Op::exclusive_scan: return "exclusive_scan";
    case Op::reduce_from_host: return "reduce_from_host";
    case Op::inclusive_scan_from_host: return "scan_from_host";
  }
  return "?";
}

std::vector<Op> ops_for(const std::string& choice) {
  if (choice == "reduce") return {Op::reduce};
  if (choice == "scan") return {Op::inclusive_scan, Op::exclusive_scan};
  if (choice == "from_host") return {Op::reduce_from_host, Op::inclusive_scan_from_host};
  if (choice == "all")
    return {Op::reduce, Op::inclusive_scan, Op::exclusive_scan, Op::reduce_from_host, Op::inclusive_scan_from_host};
  return {};
}

// A sum: each rank's total is chapter 05's (depth d of its shard, device_reduce_error_bound); a
// from-host shard's total is first a sum of chunk partials in double, rounded once (+1); the ranks'
// totals are added in double and rounded once (+1): d + 2 levels, each 2u of Σ|x|.
Tolerance sum_tolerance(std::int64_t largest_shard) {
  Tolerance t = tolerance_for_accumulation(device_reduce_error_bound(largest_shard).depth + 2, NumType::fp32,
                                           NumType::fp32);
  t.rationale = "chapter 05's sum of a shard, chunk partials and rank totals added once each: " + t.rationale;
  return t;
}
// A scan element of rank r: its carry is a sum as above (d + 2 levels, of the Σ|x| before the
// shard) and enters chapter 05's scan of the shard once more when the block's carry becomes fp32
// (+1); chapter 05's scan bound holds for the rest, each level now of the array's Σ|x| up to the
// element. The two bounds add.
Tolerance scan_tolerance(std::int64_t largest_shard) {
  Tolerance t = tcu::bench::device::scan_tolerance(largest_shard, false);
  const Tolerance carry = tolerance_for_accumulation(device_reduce_error_bound(largest_shard).depth + 3,
                                                     NumType::fp32, NumType::fp32);
  t.rel_to_magnitude += carry.rel_to_magnitude;
  t.rationale = "chapter 05's scan of a shard plus its carry (" + carry.rationale + "): " + t.rationale;
  return t;
}

bool exact_for(Dist dist, double abs_sum) { return dist == Dist::integers && abs_sum <= 16777216.0; }

int host_threads() {
  const unsigned t = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(t, 1, 64));
}

namespace {

// fn(lo, hi) on `parts` contiguous pieces of [0, count), one thread each.
void parallel_pieces(std::int64_t count, int parts, const std::function<void(std::int64_t, std::int64_t, int)>& fn) {
  parts = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(parts, count)));
  std::vector<std::thread> pool;
  for (int p = 0; p < parts; ++p)
    pool.emplace_back(fn, count * p / parts, count * (p + 1) / parts, p);
  for (std::thread& t : pool) t.join();
}

}  // namespace

void fill_host_parallel(__half* out, std::int64_t n, Dist dist, std::uint64_t seed, std::uint64_t offset,
                        int threads) {
  parallel_pieces(n, threads, [&](std::int64_t lo, std::int64_t hi, int) {
    fill_host(out + lo, static_cast<std::size_t>(hi - lo), dist, seed, offset + static_cast<std::uint64_t>(lo));
  });
}

PrefixReference::PrefixReference(const __half* x, std::int64_t n, int threads) : x_(x), n_(n), threads_(threads) {
  const std::int64_t blocks = ceil_div(n, kBlock);
  std::vector<SumRef> b(static_cast<std::size_t>(blocks));
  parallel_pieces(blocks, threads, [&](std::int64_t lo, std::int64_t hi, int) {
    for (std::int64_t k = lo; k < hi; ++k)
      b[k] = reference_sum(x + k * kBlock, static_cast<std::size_t>(std::min(kBlock, n - k * kBlock)));
  });
  Fp64Sum s, a;
  for (std::int64_t k = 0; k < blocks; ++k) {
    start_.push_back(s);
    start_abs_.push_back(a);
    s.add(b[k].sum);
    a.add(b[k].abs_sum);
  }
  start_.push_back(s);
  start_abs_.push_back(a);
  total_ = {s.value(), a.value()};
}

VerifyResult PrefixReference::check_scan(const float* got, std::int64_t first, std::int64_t count, bool inclusive,
                                         const Tolerance& tol) const {
  if (first < 0 || count < 0 || first + count > n_) throw std::invalid_argument("check_scan: range outside the array");
  const int parts = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads_, count / kBlock)));
  std::vector<VerifyResult> results(static_cast<std::size_t>(parts));
  std::vector<std::int64_t> bases(static_cast<std::size_t>(parts));
  parallel_pieces(count, parts, [&](std::int64_t lo, std::int64_t hi, int p) {
    const std::int64_t g0 = first + lo;  // the piece's first element in the array
    const std::int64_t k = g0 / kBlock;
    Fp64Sum acc = start_[k], acc_abs = start_abs_[k];
    for (std::int64_t i = k * kBlock; i < g0; ++i) {
      const double v = to_double(x_[i]);
      acc.add(v);
      acc_abs.add(std::fabs(v));
    }
    double g[256], w[256], m[256];
    VerifyResult r;
    for (std::int64_t base = lo; base < hi; base += 256) {
      const int len = static_cast<int>(std::min<std::int64_t>(256, hi - base));
      for (int j = 0; j < len; ++j) {
        const double v = to_double(x_[first + base + j]);
        if (inclusive) {
          acc.add(v);
          acc_abs.add(std::fabs(v));
        }
        w[j] = acc.value();
        m[j] = acc_abs.value();
        if (!inclusive) {
          acc.add(v);
          acc_abs.add(std::fabs(v));
        }
        g[j] = got[base + j];
      }
      merge_part(r, verify_doubles(g, w, m, static_cast<std::size_t>(len), tol), base - lo);
    }
    results[p] = r;
    bases[p] = lo;
  });
  VerifyResult all;
  for (int p = 0; p < parts; ++p) merge_part(all, results[p], bases[p]);
  return all;
}

namespace {

namespace bd = tcu::bench::device;

void check_api(cudaError_t e, const Communicator& comm, const std::string& what) {
  if (e == cudaSuccess) return;
  std::string msg = what + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (!comm.last_error().empty()) msg += "; " + comm.last_error();
  throw CudaError(e, msg);
}

// Events on several devices, destroyed on their own device.
class Events {
 public:
  Events() = default;
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    for (std::size_t i = 0; i < ev_.size(); ++i)
      if (cudaSetDevice(dev_[i]) == cudaSuccess) cudaEventDestroy(ev_[i]);
  }
  cudaEvent_t add(int device, bool timing) {
    TCU_CUDA_CHECK(cudaSetDevice(device));
    cudaEvent_t e = nullptr;
    TCU_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    ev_.push_back(e);
    dev_.push_back(device);
    return e;
  }

 private:
  std::vector<cudaEvent_t> ev_;
  std::vector<int> dev_;
};

void sync_all(const Communicator& comm) {
  for (int r = 0; r < comm.size(); ++r) {
    TCU_CUDA_CHECK(cudaSetDevice(comm.device(r)));
    TCU_CUDA_CHECK(cudaStreamSynchronize(comm.stream(r)));
  }
}

// Times work(), which enqueues on every rank's stream, from the first GPU's start to the last
// GPU's end, with CUDA events on GPU 0: a start event on rank 0's stream that every other rank's
// stream waits for, then the work, then rank 0's stream waits for every other stream's end event
// before its stop event. Median of `repeat` runs after `warmup`.
TimingStats time_across(const Communicator& comm, const std::function<void()>& work, const TimingConfig& cfg) {
  const int ranks = comm.size();
  for (int i = 0; i < cfg.warmup; ++i) work();
  sync_all(comm);
  Events events;
  const int d0 = comm.device(0);
  cudaEvent_t start = events.add(d0, true), stop = events.add(d0, true);
  std::vector<cudaEvent_t> done(static_cast<std::size_t>(ranks), nullptr);
  for (int r = 1; r < ranks; ++r) done[r] = events.add(comm.device(r), false);
  std::vector<double> samples;
  for (int i = 0; i < std::max(cfg.repeat, 1); ++i) {
    TCU_CUDA_CHECK(cudaSetDevice(d0));
    TCU_CUDA_CHECK(cudaEventRecord(start, comm.stream(0)));
    for (int r = 1; r < ranks; ++r) {
      TCU_CUDA_CHECK(cudaSetDevice(comm.device(r)));
      TCU_CUDA_CHECK(cudaStreamWaitEvent(comm.stream(r), start, 0));
    }
    work();
    for (int r = 1; r < ranks; ++r) {
      TCU_CUDA_CHECK(cudaSetDevice(comm.device(r)));
      TCU_CUDA_CHECK(cudaEventRecord(done[r], comm.stream(r)));
      TCU_CUDA_CHECK(cudaSetDevice(d0));
      TCU_CUDA_CHECK(cudaStreamWaitEvent(comm.stream(0), done[r], 0));
    }
    TCU_CUDA_CHECK(cudaSetDevice(d0));
    TCU_CUDA_CHECK(cudaEventRecord(stop, comm.stream(0)));
    TCU_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TCU_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms);
  }
  sync_all(comm);
  TCU_CUDA_CHECK(cudaGetLastError());
  return summarize(std::move(samples));
}

// Page-locked host memory (the from-host forms upload from it; the reference reads it).
class PinnedHalves {
 public:
  explicit PinnedHalves(std::int64_t n) {
    if (n > 0) TCU_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), static_cast<std::size_t>(n) * 2));
  }
  ~PinnedHalves() {
    if (p_) cudaFreeHost(p_);
  }
  PinnedHalves(const PinnedHalves&) = delete;
  PinnedHalves& operator=(const PinnedHalves&) = delete;
  __half* get() const { return p_; }

 private:
  __half* p_ = nullptr;
};

// One rank's device buffers (made and freed with its device current).
struct RankBuffers {
  int device = 0;
  DeviceBuffer<__half> in;
  DeviceBuffer<float> out, sum;
  RankBuffers(int dev, std::int64_t n) : device(dev) {
    TCU_CUDA_CHECK(cudaSetDevice(dev));
    in = DeviceBuffer<__half>(static_cast<std::size_t>(n));
    out = DeviceBuffer<float>(static_cast<std::size_t>(n));
    sum = DeviceBuffer<float>(1);
  }
  ~RankBuffers() { cudaSetDevice(device); }  // the members are freed after this body
};

struct Runner {
  const Options& o;
  Report rep;
  int ranks = 0;
  std::int64_t total = 0;
  std::vector<ShardRange> shards;
  Communicator comm, comm1;  // every GPU; GPU 0 alone (the one-GPU from-host runs)
  std::vector<std::unique_ptr<RankBuffers>> bufs;
  std::unique_ptr<RankBuffers> base;  // GPU 0, the whole array (null when it does not fit)
  std::unique_ptr<PinnedHalves> host;
  std::unique_ptr<PrefixReference> ref;

  explicit Runner(const Options& opt)
      : o(opt),
        rep{Table({{"op"}, {"gpus"}, {"n"}, {"ms", "%.4f"}, {"gelem_per_s", "%.2f"}, {"speedup", "%.2f"}, {"pass"},
                   {"api"}, {"bytes_per_elem", "%.0f"}, {"pct_of_aggregate_bw", "%.1f"}, {"speedup_bound", "%.2f"},
                   {"max_rel_err", "%.2e"}, {"check"}})} {}

  std::vector<const __half*> ins() const {
    std::vector<const __half*> v;
    for (const auto& b : bufs) v.push_back(b->in.data());
    return v;
  }
  std::vector<__half*> ins_mut() const {
    std::vector<__half*> v;
    for (const auto& b : bufs) v.push_back(b->in.data());
    return v;
  }
  std::vector<float*> outs() const {
    std::vector<float*> v;
    for (const auto& b : bufs) v.push_back(b->out.data());
    return v;
  }
  std::vector<float*> sums() const {
    std::vector<float*> v;
    for (const auto& b : bufs) v.push_back(b->sum.data());
    return v;
  }
  std::vector<std::int64_t> counts() const {
    std::vector<std::int64_t> v;
    for (const ShardRange& s : shards) v.push_back(s.count);
    return v;
  }
  std::vector<const __half*> host_shards() const {
    std::vector<const __half*> v;
    for (const ShardRange& s : shards) v.push_back(host->get() + s.first);
    return v;
  }
  bool from_host(Op op) const { return op == Op::reduce_from_host || op == Op::inclusive_scan_from_host; }
  bool is_scan(Op op) const {
    return op == Op::inclusive_scan || op == Op::exclusive_scan || op == Op::inclusive_scan_from_host;
  }
  bool inclusive(Op op) const { return op != Op::exclusive_scan; }

  void setup() {
    ranks = static_cast<int>(o.devices.size());
    total = o.n_per_gpu * ranks;
    for (int r = 0; r < ranks; ++r) shards.push_back(shard_of(total, ranks, r));
    check_api(comm.init(o.devices), comm, "ncclCommInitAll over " + std::to_string(ranks) + " GPU(s)");
    const bool any_host = std::any_of(o.ops.begin(), o.ops.end(), [&](Op op) { return from_host(op); });
    if (any_host) check_api(comm1.init({o.devices[0]}), comm1, "ncclCommInitAll on GPU 0");
    // The limits: each GPU's read-stream and copy bandwidth, probed one GPU at a time.
    for (int r = 0; r < ranks; ++r) {
      TCU_CUDA_CHECK(cudaSetDevice(o.devices[r]));
      const BandwidthProbe p = run_bandwidth_probe();
      rep.read_gb_per_s += p.read_stream.gb_per_s();
      rep.copy_gb_per_s += p.copy.gb_per_s();
      if (r == 0) {
        rep.gpu0_read_gb_per_s = p.read_stream.gb_per_s();
        rep.gpu0_copy_gb_per_s = p.copy.gb_per_s();
      }
    }
    // The data: element i of the array is the same on the host, on its rank and on GPU 0.
    if (o.verify || any_host) {
      host = std::make_unique<PinnedHalves>(total);
      fill_host_parallel(host->get(), total, o.dist, o.seed, 0, host_threads());
    }
    for (int r = 0; r < ranks; ++r) {
      bufs.push_back(std::make_unique<RankBuffers>(o.devices[r], shards[r].count));
      fill_device(bufs[r]->in.data(), static_cast<std::size_t>(shards[r].count), o.dist, o.seed, comm.stream(r),
                  static_cast<std::uint64_t>(shards[r].first));
    }
    sync_all(comm);
    // The one-GPU runs over the same total, where it fits next to GPU 0's shard.
    TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
    std::size_t free_b = 0, total_b = 0;
    TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = 6.0 * static_cast<double>(total) + (std::size_t(1) << 28);
    if (static_cast<double>(free_b) >= need) {
      base = std::make_unique<RankBuffers>(o.devices[0], total);
      fill_device(base->in.data(), static_cast<std::size_t>(total), o.dist, o.seed, comm.stream(0));
      sync_all(comm);
    } else {
      rep.notes.push_back("one-GPU runs skipped: " + std::to_string(total) + " elements need " +
                          std::to_string(need / (1 << 30)) + " GiB on GPU 0, " +
                          std::to_string(static_cast<double>(free_b) / (1 << 30)) + " GiB free; no speed-ups");
    }
    if (any_host) probe_uploads();
    if (o.verify) ref = std::make_unique<PrefixReference>(host->get(), total, host_threads());
  }

  // The host links' limit: every rank uploads its shard at once (the aggregate), and GPU 0
  // uploads its shard alone; pinned memory, the compute streams.
  void probe_uploads() {
    const TimingConfig cfg{1, 5};
    const TimingStats all = time_across(comm, [&] {
      for (int r = 0; r < ranks; ++r) {
        TCU_CUDA_CHECK(cudaSetDevice(o.devices[r]));
        TCU_CUDA_CHECK(cudaMemcpyAsync(bufs[r]->in.data(), host->get() + shards[r].first,
                                       static_cast<std::size_t>(shards[r].count) * 2, cudaMemcpyHostToDevice,
                                       comm.stream(r)));
      }
    }, cfg);
    rep.h2d_gb_per_s = gb_per_s(2.0 * static_cast<double>(total), all.median_ms);
    TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
    const TimingStats one = time_on_device([&](cudaStream_t st) {
      TCU_CUDA_CHECK(cudaMemcpyAsync(bufs[0]->in.data(), host->get(), static_cast<std::size_t>(shards[0].count) * 2,
                                     cudaMemcpyHostToDevice, st));
    }, cfg, comm.stream(0));
    rep.gpu0_h2d_gb_per_s = gb_per_s(2.0 * static_cast<double>(shards[0].count), one.median_ms);
  }

  // Enqueues `op` on every GPU (multi) or on GPU 0 over the whole array (one GPU).
  void run_multi(Op op) {
    cudaError_t e = cudaSuccess;
    switch (op) {
      case Op::reduce: e = Sum(comm, ins(), counts(), sums()); break;
      case Op::inclusive_scan: e = InclusiveSum(comm, ins(), counts(), outs()); break;
      case Op::exclusive_scan: e = ExclusiveSum(comm, ins(), counts(), outs()); break;
      case Op::reduce_from_host: e = SumFromHost(comm, host_shards(), counts(), ins_mut(), sums()); break;
      case Op::inclusive_scan_from_host:
        e = InclusiveSumFromHost(comm, host_shards(), counts(), ins_mut(), outs());
        break;
    }
    check_api(e, comm, std::string("multi_gpu ") + op_name(op));
  }
  void run_one(Op op, cudaStream_t s) {
    TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
    cudaError_t e = cudaSuccess;
    switch (op) {
      case Op::reduce: e = DeviceReduce::Sum(base->in.data(), base->sum.data(), total, s); break;
      case Op::inclusive_scan: e = DeviceScan::InclusiveSum(base->in.data(), base->out.data(), total, s); break;
      case Op::exclusive_scan: e = DeviceScan::ExclusiveSum(base->in.data(), base->out.data(), total, s); break;
      case Op::reduce_from_host:
        e = SumFromHost(comm1, {host->get()}, {total}, {base->in.data()}, {base->sum.data()});
        break;
      case Op::inclusive_scan_from_host:
        e = InclusiveSumFromHost(comm1, {host->get()}, {total}, {base->in.data()}, {base->out.data()});
        break;
    }
    check_api(e, comm1, std::string("one-GPU ") + op_name(op));
  }
  static const char* api_name(Op op, bool multi) {
    switch (op) {
      case Op::reduce: return multi ? "multi_gpu::Sum" : "DeviceReduce::Sum";
      case Op::inclusive_scan: return multi ? "multi_gpu::InclusiveSum" : "DeviceScan::InclusiveSum";
      case Op::exclusive_scan: return multi ? "multi_gpu::ExclusiveSum" : "DeviceScan::ExclusiveSum";
      case Op::reduce_from_host: return "multi_gpu::SumFromHost";
      case Op::inclusive_scan_from_host: return "multi_gpu::InclusiveSumFromHost";
    }
    return "?";
  }

  // A scan's output on `device`, elements [first, first + count) of the array, copied back in
  // chunks and checked against the streaming reference.
  VerifyResult check_scan_output(const float* d_out, int device, std::int64_t first, std::int64_t count, bool incl,
                                 const Tolerance& tol) {
    TCU_CUDA_CHECK(cudaSetDevice(device));
    const std::int64_t chunk = std::int64_t(1) << 25;
    std::vector<float> h(static_cast<std::size_t>(std::min(count, chunk)));
    VerifyResult all;
    for (std::int64_t c = 0; c < count; c += chunk) {
      const std::int64_t len = std::min(chunk, count - c);
      TCU_CUDA_CHECK(cudaMemcpy(h.data(), d_out + c, static_cast<std::size_t>(len) * 4, cudaMemcpyDeviceToHost));
      merge_part(all, ref->check_scan(h.data(), first + c, len, incl, tol), c);
    }
    return all;
  }

  // Poisons the outputs, runs once, checks. Returns the result; notes say what failed.
  VerifyResult verify(Op op, bool multi, const Tolerance& tol) {
    const std::string label =
        std::string(op_name(op)) + (multi ? " on " + std::to_string(ranks) + " GPU(s)" : " on one GPU");
    if (multi) {
      for (int r = 0; r < ranks; ++r) {
        TCU_CUDA_CHECK(cudaSetDevice(o.devices[r]));
        poison_device(bufs[r]->out.data(), bufs[r]->out.bytes(), comm.stream(r));
        poison_device(bufs[r]->sum.data(), bufs[r]->sum.bytes(), comm.stream(r));
      }
      run_multi(op);
      sync_all(comm);
    } else {
      TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
      poison_device(base->out.data(), base->out.bytes(), comm.stream(0));
      poison_device(base->sum.data(), base->sum.bytes(), comm.stream(0));
      sync_all(comm);
      run_one(op, comm.stream(0));
      sync_all(comm);
      if (from_host(op)) sync_all(comm1);
    }
    VerifyResult r;
    if (is_scan(op)) {
      if (multi)
        for (int r2 = 0; r2 < ranks; ++r2)
          merge_part(r,
                     check_scan_output(bufs[r2]->out.data(), o.devices[r2], shards[r2].first, shards[r2].count,
                                       inclusive(op), tol),
                     shards[r2].first);
      else
        r = check_scan_output(base->out.data(), o.devices[0], 0, total, inclusive(op), tol);
    } else {
      std::vector<float> got;
      for (int r2 = 0; r2 < (multi ? ranks : 1); ++r2) {
        float v = 0;
        TCU_CUDA_CHECK(cudaSetDevice(o.devices[r2]));
        TCU_CUDA_CHECK(cudaMemcpy(&v, multi ? bufs[r2]->sum.data() : base->sum.data(), 4, cudaMemcpyDeviceToHost));
        got.push_back(v);
      }
      const double want = ref->total().sum, mag = ref->total().abs_sum;
      r = tcu::verify(got.data(), &want, &mag, 1, tol);
      for (std::size_t k = 1; k < got.size(); ++k)
        if (std::memcmp(&got[k], &got[0], 4) != 0) {
          r.pass = false;
          rep.notes.push_back(label + ": rank " + std::to_string(k) + " got other bits than rank 0 (" +
                              std::to_string(got[k]) + " vs " + std::to_string(got[0]) + ")");
        }
    }
    if (!r.pass) rep.notes.push_back(label + ": " + r.summary());
    return r;
  }

  double time(Op op, bool multi) {
    if (multi) return time_across(comm, [&] { run_multi(op); }, o.timing).median_ms;
    if (from_host(op)) return time_across(comm1, [&] { run_one(op, comm1.stream(0)); }, o.timing).median_ms;
    TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
    return time_on_device([&](cudaStream_t s) { run_one(op, s); }, o.timing, comm.stream(0)).median_ms;
  }

  void run_op(Op op, Progress& progress) {
    double base_ms = 0;
    for (bool multi : {false, true}) {
      if (!multi && !base) continue;
      progress.step(std::string(op_name(op)) + (multi ? " on " + std::to_string(ranks) + " GPU(s)" : " on one GPU") +
                    ", n = " + std::to_string(total));
      const int gpus = multi ? ranks : 1;
      const bool exact = o.verify && exact_for(o.dist, ref->total().abs_sum);
      const std::int64_t largest = multi ? shards[0].count : total;
      const Tolerance tol = exact ? exact_tolerance()
                            : multi ? (is_scan(op) ? scan_tolerance(largest) : sum_tolerance(largest))
                                    : (is_scan(op) ? bd::scan_tolerance(total, false) : bd::reduce_tolerance(total));
      std::string pass = "n/a";
      Cell max_rel;
      if (o.verify) {
        const VerifyResult r = verify(op, multi, tol);
        pass = r.pass ? "PASS" : "FAIL";
        max_rel = r.max_rel_err;
        if (!r.pass) rep.all_passed = false;
      }
      const double ms = time(op, multi);
      if (!multi) base_ms = ms;
      // The byte model and the limit of the same run: the input read once (sums), one pass of 6
      // bytes (one GPU's scan) or 8 (a reduce pass first), the host links for the uploads.
      double bytes = kReduceBytesPerElem, limit = multi ? rep.read_gb_per_s : rep.gpu0_read_gb_per_s;
      double bound = multi ? reduce_speedup_bound(ranks) : 1.0;
      if (from_host(op)) {
        bytes = 2.0;
        limit = multi ? rep.h2d_gb_per_s : rep.gpu0_h2d_gb_per_s;
        bound = multi && rep.gpu0_h2d_gb_per_s > 0 ? rep.h2d_gb_per_s / rep.gpu0_h2d_gb_per_s : 1.0;
      } else if (is_scan(op)) {
        bytes = multi ? scan_bytes_per_elem(ranks) : kScanBytesPerElemOneGpu;
        limit = multi ? rep.copy_gb_per_s : rep.gpu0_copy_gb_per_s;
        bound = multi ? scan_speedup_bound(ranks) : 1.0;
      }
      const double speedup = !multi ? 1.0 : base_ms > 0 ? base_ms / ms : 0.0;  // 0: no one-GPU run
      rep.table.add_row({std::string(op_name(op)), std::int64_t(gpus), total, ms, gelem_per_s(total, ms),
                         speedup > 0 ? Cell(speedup) : Cell(), pass,
                         std::string(api_name(op, multi)), bytes,
                         percent_of(gb_per_s(bytes * static_cast<double>(total), ms), limit), bound, max_rel,
                         std::string(o.verify ? (tol.exact() ? "exact" : "bound") : "-")});
    }
  }
};

}  // namespace

Report run_benchmarks(const Options& o) {
  if (o.devices.empty() || o.n_per_gpu < 1) throw std::invalid_argument("run_benchmarks: no GPUs or no elements");
  Runner run(o);
  Progress progress("05_multi_gpu", 1 + 2 * static_cast<int>(o.ops.size()), o.progress);
  progress.step("bandwidth of each GPU, the data and the FP64 reference");
  run.setup();
  for (Op op : o.ops) run.run_op(op, progress);
  TCU_CUDA_CHECK(cudaSetDevice(o.devices[0]));
  return std::move(run.rep);
}

}  // namespace tcu::multi_gpu::bench
