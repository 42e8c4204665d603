// The chapter's measurements (measurements.hpp): sweep, accuracy study, energy.
#include "03_tcu_reduction/measurements.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "03_tcu_reduction/baselines.cuh"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/segments.hpp"
#include "common/verify.hpp"

#ifdef TCU_HAVE_NVML
#include <nvml.h>
#endif

namespace tcu::reduction {
namespace {

constexpr std::int64_t kWarpLevelCap = std::int64_t(1) << 16;  // 16 segments per warp: see README

bool wanted(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

// FP64 segment sums of the host copy of the data; sizes that are multiples of 16 are built
// from exact 16-element block sums (fast for the 2^28 sweep).
class References {
 public:
  explicit References(std::vector<__half> data) : x_(std::move(data)) {
    const std::size_t blocks = x_.size() / 16;
    block_.resize(blocks);
    block_abs_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      double s = 0, a = 0;  // 16 fp16 values: exact in double
      for (int i = 0; i < 16; ++i) {
        const double v = __half2float(x_[b * 16 + i]);
        s += v;
        a += std::fabs(v);
      }
      block_[b] = s;
      block_abs_[b] = a;
    }
  }
  void sums(std::int64_t ns, std::int64_t s, std::vector<double>& out, std::vector<double>& abs_out) const {
    if (s % 16 != 0) {
      reference_segmented_sum(x_.data(), ns, s, out, abs_out);
      return;
    }
    out.assign(ns, 0.0);
    abs_out.assign(ns, 0.0);
    const std::int64_t per = s / 16;
    for (std::int64_t g = 0; g < ns; ++g) {
      Fp64Sum a, b;
      for (std::int64_t k = 0; k < per; ++k) {
        a.add(block_[g * per + k]);
        b.add(block_abs_[g * per + k]);
      }
      out[g] = a.value();
      abs_out[g] = b.value();
    }
  }

 private:
  std::vector<__half> x_;
  std::vector<double> block_, block_abs_;
};

std::vector<__half> copy_to_host(const __half* d, std::size_t n) {
  std::vector<__half> h(n);
  if (n) TCU_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(__half), cudaMemcpyDeviceToHost));
  return h;
}

int ceil_div_log(std::int64_t n, std::int64_t base) {  // levels of a recurrence with fan-in `base`
  int levels = 1;
  while (n > base) {
    n = (n + base - 1) / base;
    ++levels;
  }
  return levels;
}

}  // namespace

std::vector<SegmentedVariant> segmented_variants(CubTemp& temp) {
  std::vector<SegmentedVariant> v;
  for (ReduceAlgorithm a : all_reduce_algorithms()) {
    if (a == ReduceAlgorithm::chained_mma_fp16_accumulate) continue;  // accuracy study only
    SegmentedVariant s;
    s.name = reduce_algorithm_name(a);
    s.deterministic = !(a == ReduceAlgorithm::chained_mma_single_pass || a == ReduceAlgorithm::chained_mma_split);
    s.supports = [a](std::int64_t seg) { return reduce_algorithm_supports(a, seg); };
    if (a == ReduceAlgorithm::reduction16n_strided || a == ReduceAlgorithm::reduction16n_coalesced)
      s.max_segment = kWarpLevelCap;
    s.run = [a](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
      return segmented_reduce_sum(a, in, out, ns, seg, st);
    };
    v.push_back(std::move(s));
  }
  SegmentedVariant autom;
  autom.name = "auto";
  autom.run = [](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
    return segmented_reduce_sum(in, out, ns, seg, st);
  };
  v.push_back(std::move(autom));
  for (Baseline b : kAllBaselines) {
    SegmentedVariant s;
    s.name = baseline_name(b);
    s.tcu = false;
    CubTemp* t = &temp;
    s.run = [b, t](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
      return baseline_segmented_reduce_sum(b, *t, in, out, ns, seg, st);
    };
    v.push_back(std::move(s));
  }
  return v;
}

std::vector<std::string> segmented_variant_names() {
  CubTemp unused;  // allocates nothing until used
  std::vector<std::string> names;
  for (const SegmentedVariant& v : segmented_variants(unused)) names.push_back(v.name);
  return names;
}

int error_depth(const std::string& name, std::int64_t s) {
  const std::int64_t tiles = (s + 255) / 256, steps16 = (s + 15) / 16;
  const int split = 2;  // fp32 → fp16 hi/lo of V, and the product adding the halves
  const int mma = 16;   // one MMA sums 16 products; order inside not documented
  const int tail = ceil_log2(static_cast<std::uint64_t>(std::max<std::int64_t>(s, 1))) + 8;  // second passes, shuffles
  std::int64_t d;
  if (name == "reduction16") d = mma;
  else if (name == "reduction256") d = 2 * mma + split;
  else if (name == "reduction256n_inefficient") d = tiles * (2 * mma + split);
  else if (name == "reduction256n_efficient" || name == "reduction256n_block" || name == "auto")
    d = tiles + 2 * mma + split + tail + steps16;  // auto may pick the strided 16N
  else if (name == "reduction16n_strided") d = steps16 + mma;
  else if (name == "reduction16n_coalesced") d = tiles + steps16 + 3 * mma + split;
  else if (name == "reduction16_multisegment") d = tiles + 2 * mma + split;
  else if (name.rfind("chained", 0) == 0)
    d = static_cast<std::int64_t>(ceil_div_log(s, 4 * 256)) * (4 + 2 * mma + 2 * split) + tiles + tail;
  else
    d = (s + 7) / 8 + tail + 8;  // baselines: a thread adds its pieces one after the other
  return static_cast<int>(std::min<std::int64_t>(d, std::numeric_limits<int>::max() / 2));
}

SegmentedReport run_segmented(const SegmentedOptions& opts, double read_gb_per_s) {
  SegmentedReport rep;
  rep.read_gb_per_s = read_gb_per_s;
  const double ceiling = read_gelem_ceiling(read_gb_per_s, sizeof(__half));
  const std::int64_t n = opts.n, off = opts.input_offset;
  DeviceBuffer<__half> input(static_cast<std::size_t>(n + off));
  fill_device(input.data(), static_cast<std::size_t>(n + off), opts.dist, opts.seed);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  const __half* d_in = input.data() + off;
  const References refs(copy_to_host(d_in, static_cast<std::size_t>(n)));

  CubTemp temp;
  std::vector<SegmentedVariant> variants = segmented_variants(temp);
  int total = 0;
  for (std::int64_t s : opts.segment_sizes)
    for (const SegmentedVariant& v : variants)
      if (wanted(opts.only, v.name) && s <= n && v.supports(s)) ++total;
  Progress progress("segmented reduce", total, opts.progress);

  for (std::int64_t s : opts.segment_sizes) {
    const std::int64_t ns = segment_count_for(n, s);
    if (ns == 0) {
      rep.notes.push_back("segment size " + std::to_string(s) + " > n: skipped");
      continue;
    }
    std::vector<double> want, mag;
    if (opts.verify) refs.sums(ns, s, want, mag);
    DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    std::vector<float> got(static_cast<std::size_t>(ns));
    struct Row {
      std::string name;
      double ms, rel;
      bool pass;
    };
    std::vector<Row> rows;
    double cub_ms = 0;
    for (const SegmentedVariant& v : variants) {
      if (!wanted(opts.only, v.name)) continue;
      if (!v.supports(s) || (opts.cap_slow && v.max_segment > 0 && s > v.max_segment)) {
        if (v.supports(s)) progress.step(v.name + " @" + std::to_string(s) + " skipped");
        continue;
      }
      bool pass = true;
      double rel = 0;
      if (opts.verify) {
        poison_device(out.data(), out.bytes());
        TCU_CUDA_CHECK(v.run(d_in, out.data(), ns, s, 0));
        TCU_CUDA_CHECK(cudaDeviceSynchronize());
        out.copy_to_host(got.data(), got.size());
        const Tolerance tol = (opts.dist == Dist::integers)
                                  ? exact_tolerance()
                                  : tolerance_for_accumulation(error_depth(v.name, s), NumType::fp32, NumType::fp32);
        const VerifyResult r = verify(got.data(), want.data(), mag.data(), got.size(), tol);
        pass = r.pass;
        rel = r.max_rel_err;
      }
      const TimingStats t =
          time_on_device([&](cudaStream_t st) { TCU_CUDA_CHECK(v.run(d_in, out.data(), ns, s, st)); }, opts.timing);
      if (v.name == "cub_segmented_reduce") cub_ms = t.median_ms;
      rows.push_back({v.name, t.median_ms, rel, pass});
      rep.all_passed &= pass;
      progress.step(v.name + " @" + std::to_string(s));
    }
    for (const Row& r : rows) {
      const double g = gelem_per_s(ns * s, r.ms);
      rep.csv.add_row({r.name, s, ns * s, r.ms, g, percent_of(g, ceiling), r.rel, r.pass});
      rep.text.add_row({r.name, s, ns * s, r.ms, g, percent_of(g, ceiling),
                        cub_ms > 0 ? Cell(cub_ms / r.ms) : Cell(), r.rel, r.pass});
    }
  }
  for (const SegmentedVariant& v : variants)
    if (wanted(opts.only, v.name) && opts.cap_slow && v.max_segment > 0 &&
        std::any_of(opts.segment_sizes.begin(), opts.segment_sizes.end(), [&](std::int64_t s) { return s > v.max_segment; }))
      rep.notes.push_back(v.name + ": sizes above " + std::to_string(v.max_segment) +
                          " skipped (16 segments per warp: a few warps for the whole GPU)");
  for (const SegmentedVariant& v : variants)
    if (wanted(opts.only, v.name) &&
        std::any_of(opts.segment_sizes.begin(), opts.segment_sizes.end(), [&](std::int64_t s) { return !v.supports(s); }))
      rep.notes.push_back(v.name + ": some sizes are outside the algorithm (see reduce_algorithm_supports)");
  return rep;
}

Table run_accuracy(const AccuracyOptions& opts) {
  Table t({{"algo"}, {"dist"}, {"n"}, {"rel_err", "%.3e"}, {"result", "%.8g"}, {"reference", "%.8g"}});
  const std::int64_t max_n = std::int64_t(1) << opts.hi;
  int total = 0;
  for (int e = opts.lo; e <= opts.hi; e += opts.step) total += 2;
  Progress progress("accuracy", total, opts.progress);
  DeviceBuffer<__half> input(static_cast<std::size_t>(max_n));
  DeviceBuffer<float> out(1);
  DeviceBuffer<__half> out16(1);
  CubTemp temp;
  for (Dist dist : {Dist::normal, Dist::uniform}) {
    fill_device(input.data(), static_cast<std::size_t>(max_n), dist, opts.seed);
    const std::vector<__half> h = copy_to_host(input.data(), static_cast<std::size_t>(max_n));
    Fp64Sum ref;
    std::int64_t done = 0;
    for (int e = opts.lo; e <= opts.hi; e += opts.step) {
      const std::int64_t n = std::int64_t(1) << e;
      for (; done < n; ++done) ref.add(__half2float(h[static_cast<std::size_t>(done)]));
      const double want = ref.value();
      auto row = [&](const std::string& name, double got) {
        t.add_row({name, std::string(dist_name(dist)), n, std::fabs(got - want) / std::fabs(want), got, want});
      };
      auto get = [&]() {
        float v = 0;
        TCU_CUDA_CHECK(cudaMemcpy(&v, out.data(), sizeof v, cudaMemcpyDeviceToHost));
        return static_cast<double>(v);
      };
      for (ReduceAlgorithm a : all_reduce_algorithms()) {
        if (!reduce_algorithm_supports(a, n)) continue;  // Reduction16/256: not a whole-array method
        // One segment = one warp for the strided 16N (16 steps per tile): seconds at 2^28.
        if (a == ReduceAlgorithm::reduction16n_strided && n > (std::int64_t(1) << 22)) continue;
        TCU_CUDA_CHECK(segmented_reduce_sum(a, input.data(), out.data(), 1, n));
        row(reduce_algorithm_name(a), get());
      }
      for (Baseline b : {Baseline::shuffle_16b, Baseline::cub_block_reduce}) {
        TCU_CUDA_CHECK(baseline_segmented_reduce_sum(b, temp, input.data(), out.data(), 1, n));
        row(baseline_name(b), get());
      }
      TCU_CUDA_CHECK(cub_reduce_fp32(temp, input.data(), out.data(), n));
      row("cub_reduce_fp32", get());
      TCU_CUDA_CHECK(cub_sum_fp16(temp, input.data(), out16.data(), n));
      __half h16;
      TCU_CUDA_CHECK(cudaMemcpy(&h16, out16.data(), sizeof h16, cudaMemcpyDeviceToHost));
      row("cub_sum_fp16", __half2float(h16));
      row("thrust_reduce", thrust_reduce(input.data(), n));
      progress.step(std::string(dist_name(dist)) + " n=2^" + std::to_string(e));
    }
  }
  return t;
}

namespace {

// NVML's total energy counter (mJ) of the GPU CUDA calls `device`; nullopt when unavailable.
class EnergyCounter {
 public:
  explicit EnergyCounter(int device, std::string& status) {
#ifdef TCU_HAVE_NVML
    if (nvmlInit_v2() != NVML_SUCCESS) {
      status = "n/a (nvmlInit failed)";
      return;
    }
    inited_ = true;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess ||
        nvmlDeviceGetHandleByPciBusId_v2(bus, &handle_) != NVML_SUCCESS) {
      status = "n/a (no NVML handle for this GPU)";
      return;
    }
    unsigned long long mj = 0;
    const nvmlReturn_t r = nvmlDeviceGetTotalEnergyConsumption(handle_, &mj);
    if (r != NVML_SUCCESS) {
      status = std::string("n/a (nvmlDeviceGetTotalEnergyConsumption: ") + nvmlErrorString(r) + ")";
      return;
    }
    ok_ = true;
    status = "NVML total energy counter";
#else
    (void)device;
    status = "n/a (built without NVML)";
#endif
  }
  ~EnergyCounter() {
#ifdef TCU_HAVE_NVML
    if (inited_) nvmlShutdown();
#endif
  }
  bool ok() const { return ok_; }
  double millijoules() const {
#ifdef TCU_HAVE_NVML
    unsigned long long mj = 0;
    if (ok_ && nvmlDeviceGetTotalEnergyConsumption(handle_, &mj) == NVML_SUCCESS) return static_cast<double>(mj);
#endif
    return 0;
  }

 private:
  bool ok_ = false, inited_ = false;
#ifdef TCU_HAVE_NVML
  nvmlDevice_t handle_{};
#endif
};

}  // namespace

Table run_energy(const EnergyOptions& opts, std::string& nvml_status) {
  Table t({{"algo"}, {"segment_size"}, {"n"}, {"ms", "%.4f"}, {"energy_nj_per_elem", "%.4f"}, {"avg_power_w", "%.1f"},
           {"inst_per_elem"}});
  EnergyCounter counter(opts.device, nvml_status);
  DeviceBuffer<__half> input(static_cast<std::size_t>(opts.n));
  fill_device(input.data(), static_cast<std::size_t>(opts.n), Dist::uniform, opts.seed);
  CubTemp temp;
  std::vector<SegmentedVariant> variants = segmented_variants(temp);
  for (std::int64_t s : opts.segment_sizes) {
    const std::int64_t ns = segment_count_for(opts.n, s);
    if (ns == 0) continue;
    DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    for (const SegmentedVariant& v : variants) {
      if (v.name != "auto" && v.name != "cub_segmented_reduce" && v.name != "shuffle_16b") continue;
      auto work = [&](cudaStream_t st) { TCU_CUDA_CHECK(v.run(input.data(), out.data(), ns, s, st)); };
      const TimingStats ts = time_on_device(work, TimingConfig{3, 10});
      const int runs = static_cast<int>(std::clamp(opts.seconds * 1000.0 / std::max(ts.median_ms, 1e-3), 10.0, 1e5));
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      const double e0 = counter.millijoules();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < runs; ++i) work(0);
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double e1 = counter.millijoules();
      const double elems = static_cast<double>(runs) * static_cast<double>(ns * s);
      Cell nj, watts;
      if (counter.ok() && e1 > e0) {
        nj = (e1 - e0) * 1e6 / elems;  // mJ → nJ
        watts = (e1 - e0) / 1000.0 / secs;
      }
      t.add_row({v.name == "auto" ? std::string("tcu_auto") : v.name, s, ns * s, ts.median_ms, nj, watts, Cell()});
    }
  }
  return t;
}

}  // namespace tcu::reduction
